package dsig

import (
	"bytes"
	"encoding/json"
)

// This file is a minimal byte-level JSON scanner. It never decodes and
// re-encodes a document; it only finds where values start and end, so that
// members can be cut out of, or spliced into, the original bytes.
//
// Callers check the whole document with json.Valid first; the functions below
// still bound every index and report failure (-1 or ok=false) instead of
// panicking on malformed input.

// span is the half-open byte range [start, end) of one JSON value.
type span struct{ start, end int }

// member is one "key": value pair of a JSON object.
type member struct {
	start int    // offset of the key's opening quote
	key   []byte // raw key bytes between the quotes (escapes not decoded)
	val   span
}

// isSpace reports whether c is insignificant JSON whitespace.
func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// skipSpace returns the offset of the first non-whitespace byte at or after i.
func skipSpace(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

// skipString returns the offset just after the string starting at b[i] (which
// must be '"'), or -1 if it is not terminated.
func skipString(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return -1
}

// skipValue returns the offset just after the value starting at b[i], or -1.
// Containers are skipped iteratively, so deep nesting cannot exhaust the stack.
func skipValue(b []byte, i int) int {
	if i < 0 || i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				if i = skipString(b, i); i < 0 {
					return -1
				}
				continue
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return -1
	case '}', ']', ',', ':':
		return -1
	default: // number, true, false, null
		j := i
		for j < len(b) && !isSpace(b[j]) && b[j] != ',' && b[j] != '}' && b[j] != ']' {
			j++
		}
		return j
	}
}

// rootValue returns the span of the top-level value of doc.
func rootValue(doc []byte) (span, bool) {
	s := skipSpace(doc, 0)
	e := skipValue(doc, s)
	return span{s, e}, e > s
}

// objectMembers lists the members of the object at v, in document order.
func objectMembers(b []byte, v span) ([]member, bool) {
	i := v.start
	if i < 0 || i >= len(b) || b[i] != '{' {
		return nil, false
	}
	var ms []member
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return ms, true
	}
	for i < len(b) && b[i] == '"' {
		ke := skipString(b, i)
		if ke < 0 {
			return nil, false
		}
		j := skipSpace(b, ke)
		if j >= len(b) || b[j] != ':' {
			return nil, false
		}
		vs := skipSpace(b, j+1)
		ve := skipValue(b, vs)
		if ve < 0 {
			return nil, false
		}
		ms = append(ms, member{start: i, key: b[i+1 : ke-1], val: span{vs, ve}})
		j = skipSpace(b, ve)
		if j >= len(b) {
			return nil, false
		}
		switch b[j] {
		case ',':
			i = skipSpace(b, j+1)
		case '}':
			return ms, true
		default:
			return nil, false
		}
	}
	return nil, false
}

// arrayElement returns the span of element n of the array at v.
func arrayElement(b []byte, v span, n int) (found span, ok bool) {
	k := 0
	eachElement(b, v, func(e span) bool {
		if k == n {
			found, ok = e, true
			return false
		}
		k++
		return true
	})
	return found, ok
}

// eachElement calls fn with each element of the array at v, in one pass,
// until fn returns false. It reports whether v is a well-formed array (as
// far as it was walked).
func eachElement(b []byte, v span, fn func(span) bool) bool {
	i := v.start
	if i < 0 || i >= len(b) || b[i] != '[' {
		return false
	}
	i = skipSpace(b, i+1)
	for i < len(b) && b[i] != ']' {
		e := skipValue(b, i)
		if e < 0 {
			return false
		}
		if !fn(span{i, e}) {
			return true
		}
		j := skipSpace(b, e)
		if j >= len(b) || b[j] != ',' {
			return false
		}
		i = skipSpace(b, j+1)
	}
	return i < len(b)
}

// keyIs reports whether the raw key bytes spell name.
func keyIs(raw []byte, name string) bool {
	if bytes.IndexByte(raw, '\\') < 0 {
		return string(raw) == name
	}
	var s string
	q := make([]byte, 0, len(raw)+2)
	q = append(append(append(q, '"'), raw...), '"')
	return json.Unmarshal(q, &s) == nil && s == name
}

// field returns the value of the first member called key of the object at v.
func field(b []byte, v span, key string) (span, bool) {
	ms, ok := objectMembers(b, v)
	if !ok {
		return span{}, false
	}
	for _, m := range ms {
		if keyIs(m.key, key) {
			return m.val, true
		}
	}
	return span{}, false
}

// path follows a UBL-JSON path of element names from the object at v, taking
// element 0 of each array: path(b, v, "A", "B") is v.A[0].B[0].
func path(b []byte, v span, names ...string) (span, bool) {
	for _, n := range names {
		arr, ok := field(b, v, n)
		if !ok {
			return span{}, false
		}
		if v, ok = arrayElement(b, arr, 0); !ok {
			return span{}, false
		}
	}
	return v, true
}

// stringAt decodes the JSON string at v.
func stringAt(b []byte, v span) (string, bool) {
	if v.start < 0 || v.end > len(b) || v.start >= v.end || b[v.start] != '"' {
		return "", false
	}
	raw := b[v.start:v.end]
	if bytes.IndexByte(raw, '\\') < 0 {
		return string(raw[1 : len(raw)-1]), true
	}
	var s string
	return s, json.Unmarshal(raw, &s) == nil
}

// leafText returns the "_" text of the UBL leaf element at v.A[0]...[0]._.
func leafText(b []byte, v span, names ...string) (string, bool) {
	leaf, ok := path(b, v, names...)
	if !ok {
		return "", false
	}
	t, ok := field(b, leaf, "_")
	if !ok {
		return "", false
	}
	return stringAt(b, t)
}

// appendMinified appends b to dst without the whitespace outside strings.
func appendMinified(dst, b []byte) []byte {
	for i := 0; i < len(b); {
		switch c := b[i]; {
		case c == '"':
			e := skipString(b, i)
			if e < 0 {
				e = len(b)
			}
			dst = append(dst, b[i:e]...)
			i = e
		case isSpace(c):
			i++
		default:
			j := i + 1
			for j < len(b) && b[j] != '"' && !isSpace(b[j]) {
				j++
			}
			dst = append(dst, b[i:j]...)
			i = j
		}
	}
	return dst
}

// isMinified reports whether b has no whitespace outside strings.
func isMinified(b []byte) bool {
	for i := 0; i < len(b); i++ {
		switch c := b[i]; {
		case c == '"':
			e := skipString(b, i)
			if e < 0 {
				return false
			}
			i = e - 1
		case isSpace(c):
			return false
		}
	}
	return true
}

// invoiceObject returns the span of Invoice[0] and its members.
func invoiceObject(doc []byte) (span, []member, bool) {
	root, ok := rootValue(doc)
	if !ok {
		return span{}, nil, false
	}
	inv, ok := field(doc, root, "Invoice")
	if !ok {
		return span{}, nil, false
	}
	obj, ok := arrayElement(doc, inv, 0)
	if !ok {
		return span{}, nil, false
	}
	ms, ok := objectMembers(doc, obj)
	return obj, ms, ok
}

// withoutMembers returns a copy of doc in which the members of the object obj
// whose indexes in ms are marked in drop are removed together with their
// separating commas. The remaining members are joined by a bare ",", so the
// result keeps the original bytes of every kept member and of everything
// outside obj; whitespace directly inside obj's braces is dropped.
func withoutMembers(doc []byte, obj span, ms []member, drop func(int) bool) []byte {
	out := make([]byte, 0, len(doc))
	out = append(out, doc[:obj.start+1]...)
	first := true
	for i, m := range ms {
		if drop(i) {
			continue
		}
		if !first {
			out = append(out, ',')
		}
		first = false
		out = append(out, doc[m.start:m.val.end]...)
	}
	return append(out, doc[obj.end-1:]...)
}
