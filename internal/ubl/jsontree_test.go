package ubl_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
)

// node is a JSON value that keeps the order of object keys: an object is
// members, an array items, anything else a scalar token (json.Number for
// numbers). A repeated key keeps its first place and its last value, as
// encoding/json reads it.
type node struct {
	members []member
	items   []*node
	scalar  any
	kind    byte // '{', '[' or 0
}

type member struct {
	key   string
	value *node
}

// parseTree reads one JSON document.
func parseTree(data []byte) (*node, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	n, err := readNode(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("trailing data")
	}
	return n, nil
}

func readNode(dec *json.Decoder) (*node, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch tok {
	case json.Delim('{'):
		n := &node{kind: '{'}
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				return nil, err
			}
			v, err := readNode(dec)
			if err != nil {
				return nil, err
			}
			n.set(k.(string), v)
		}
		_, err := dec.Token()
		return n, err
	case json.Delim('['):
		n := &node{kind: '['}
		for dec.More() {
			v, err := readNode(dec)
			if err != nil {
				return nil, err
			}
			n.items = append(n.items, v)
		}
		_, err := dec.Token()
		return n, err
	default:
		return &node{scalar: tok}, nil
	}
}

func (n *node) set(key string, v *node) {
	for i := range n.members {
		if n.members[i].key == key {
			n.members[i].value = v
			return
		}
	}
	n.members = append(n.members, member{key, v})
}

// encode writes n back as minified JSON.
func (n *node) encode(buf *bytes.Buffer) {
	switch n.kind {
	case '{':
		buf.WriteByte('{')
		for i, m := range n.members {
			if i > 0 {
				buf.WriteByte(',')
			}
			k, _ := json.Marshal(m.key)
			buf.Write(k)
			buf.WriteByte(':')
			m.value.encode(buf)
		}
		buf.WriteByte('}')
	case '[':
		buf.WriteByte('[')
		for i, it := range n.items {
			if i > 0 {
				buf.WriteByte(',')
			}
			it.encode(buf)
		}
		buf.WriteByte(']')
	default:
		b, _ := json.Marshal(n.scalar)
		buf.Write(b)
	}
}

// keyOrders collects, for each path of element names (/Invoice,
// /Invoice/InvoiceLine, ...), the key sequences of the objects found there.
func (n *node) keyOrders(path string, out map[string][][]string) {
	switch n.kind {
	case '{':
		keys := make([]string, len(n.members))
		for i, m := range n.members {
			keys[i] = m.key
			m.value.keyOrders(path+"/"+m.key, out)
		}
		out[path] = append(out[path], keys)
	case '[':
		for _, it := range n.items {
			it.keyOrders(path, out)
		}
	}
}

// dedupe returns data with repeated keys resolved as encoding/json reads
// them (the last value, in the first place).
func dedupe(data []byte) ([]byte, error) {
	n, err := parseTree(data)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	n.encode(&buf)
	return buf.Bytes(), nil
}
