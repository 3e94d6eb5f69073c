package httpapi

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/einvoice/einvoice/internal/einvoice"
)

// What scanRaw finds wrong in a body that encoding/json accepts: a key given
// twice in one object (encoding/json keeps the last value, other parsers the
// first), and a lone UTF-16 surrogate escape such as \ud800 (encoding/json
// turns it into U+FFFD, so we would store another string than the one sent).
const (
	msgDuplicateKey   = "is given more than once in the same object"
	msgLoneSurrogate  = "holds a lone UTF-16 surrogate escape (\\uD800 to \\uDFFF without its pair), which is no character"
	linearKeysInFrame = 16 // keys of an object compared one by one; more go in a map
)

// scanRaw reads body, which must be one valid JSON value, token by token and
// returns the paths of its duplicate keys and of its strings (keys or
// values) with a lone surrogate escape, at most maxFieldErrors of them. A
// path is that of the key or value at fault, as the client spelled it
// ("invoiceLines.0.taxType"); a key with a lone surrogate is named with its
// escapes as sent. It allocates little: one frame per nesting level, reused.
func scanRaw(body []byte) einvoice.FieldErrors {
	s := rawScanner{body: body}
	s.run()
	return s.found
}

// rawFrame is one open object or array.
type rawFrame struct {
	object bool
	index  int    // the current element of an array
	key    []byte // the current key of an object, unescaped
	keys   [][]byte
	set    map[string]struct{} // the keys, once there are more than linearKeysInFrame
}

type rawScanner struct {
	body   []byte
	i      int
	stack  []rawFrame
	depth  int // frames in use; stack[depth:] are kept for reuse
	found  einvoice.FieldErrors
	errors int
}

func (s *rawScanner) run() {
	expectKey := false
	for s.i < len(s.body) && s.errors < maxFieldErrors {
		c := s.body[s.i]
		switch c {
		case ' ', '\t', '\n', '\r', ':':
			s.i++
		case '{':
			s.push(true)
			expectKey = true
			s.i++
		case '[':
			s.push(false)
			s.i++
		case '}', ']':
			s.depth--
			expectKey = false
			s.i++
			if s.depth < 0 {
				return // not valid JSON: the decoder has said so already
			}
		case ',':
			if top := s.top(); top != nil {
				expectKey = top.object
				if !top.object {
					top.index++
				}
			}
			s.i++
		case '"':
			start := s.i
			end, escaped, lone := s.skipString()
			if end < 0 {
				return
			}
			s.i = end
			if expectKey {
				expectKey = false
				s.key(start, end, escaped, lone)
			} else if lone {
				s.report(msgLoneSurrogate)
			}
		default: // a number, true, false or null
			s.i++
			for s.i < len(s.body) && !delimiter(s.body[s.i]) {
				s.i++
			}
		}
	}
}

func (s *rawScanner) top() *rawFrame {
	if s.depth == 0 {
		return nil
	}
	return &s.stack[s.depth-1]
}

// push opens an object or array, reusing the frame of an earlier one at the
// same depth.
func (s *rawScanner) push(object bool) {
	if s.depth == len(s.stack) {
		s.stack = append(s.stack, rawFrame{})
	}
	f := &s.stack[s.depth]
	f.object, f.index, f.key, f.keys, f.set = object, 0, nil, f.keys[:0], nil
	s.depth++
}

// key records the key body[start:end] (quotes included) of the innermost
// object and reports it when the object already has it.
func (s *rawScanner) key(start, end int, escaped, lone bool) {
	f := s.top()
	if f == nil {
		return
	}
	k := s.body[start+1 : end-1]
	if escaped && !lone {
		var u string
		if json.Unmarshal(s.body[start:end], &u) == nil {
			k = []byte(u)
		}
	}
	f.key = k
	if lone {
		s.report(msgLoneSurrogate)
	}
	if f.set != nil {
		if _, dup := f.set[string(k)]; dup {
			s.report(msgDuplicateKey)
			return
		}
		f.set[string(k)] = struct{}{}
		return
	}
	for _, seen := range f.keys {
		if bytes.Equal(seen, k) {
			s.report(msgDuplicateKey)
			return
		}
	}
	f.keys = append(f.keys, k)
	if len(f.keys) > linearKeysInFrame {
		f.set = make(map[string]struct{}, 2*len(f.keys))
		for _, seen := range f.keys {
			f.set[string(seen)] = struct{}{}
		}
	}
}

// skipString reads the string that starts at s.i (its opening quote) and
// returns the index after its closing quote (-1 when there is none), whether
// it holds an escape, and whether it holds a lone surrogate escape.
func (s *rawScanner) skipString() (end int, escaped, lone bool) {
	b := s.body
	for j := s.i + 1; j < len(b); j++ {
		switch b[j] {
		case '"':
			return j + 1, escaped, lone
		case '\\':
			escaped = true
			if j+1 < len(b) && b[j+1] == 'u' {
				r := hex4(b, j+2)
				switch {
				case r >= 0xD800 && r < 0xDC00: // high: a low one must follow
					if j+11 < len(b) && b[j+6] == '\\' && b[j+7] == 'u' {
						if lo := hex4(b, j+8); lo >= 0xDC00 && lo <= 0xDFFF {
							j += 11
							continue
						}
					}
					lone = true
				case r >= 0xDC00 && r <= 0xDFFF: // low without a high one
					lone = true
				}
				j += 5
			} else {
				j++
			}
		}
	}
	return -1, escaped, lone
}

// hex4 is the value of the four hex digits at b[i:], or -1.
func hex4(b []byte, i int) int {
	if i+4 > len(b) {
		return -1
	}
	n := 0
	for _, c := range b[i : i+4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			return -1
		}
		n = n<<4 | int(c)
	}
	return n
}

// delimiter tells the bytes that end a number or literal.
func delimiter(c byte) bool {
	switch c {
	case ',', '}', ']', ' ', '\t', '\n', '\r':
		return true
	}
	return false
}

// report records msg at the path of the current key or element.
func (s *rawScanner) report(msg string) {
	if s.found == nil {
		s.found = einvoice.FieldErrors{}
	}
	s.found.Add(s.path(), "%s", msg)
	s.errors++
}

// path is the path of the current key or element: the keys and indexes of
// the open frames, joined by dots.
func (s *rawScanner) path() string {
	var b strings.Builder
	for i := range s.depth {
		f := &s.stack[i]
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		if f.object {
			b.Write(f.key)
		} else {
			b.WriteString(strconv.Itoa(f.index))
		}
	}
	return b.String()
}
