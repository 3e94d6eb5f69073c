package sandbox

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
	"unicode/utf8"
)

// The namespaces the UBL JSON form names _A and _B, and the attribute
// namespaces convertXML leaves out (declarations, schema hints).
const (
	cacNamespace = "urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2"
	cbcNamespace = "urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2"
	xsiNamespace = "http://www.w3.org/2001/XMLSchema-instance"
)

// maxXMLDepth bounds an XML document's element nesting: the structure check
// refuses JSON deeper than maxDepth, and the converter stops a little past
// it, so that a deep document costs no more than a shallow one.
const maxXMLDepth = maxDepth + 2

// errNotXML is a document that is not one well-formed XML element (or has a
// DOCTYPE: entity declarations are refused, not expanded).
var errNotXML = errors.New("XML is not valid")

// xmlDepthError is an XML document nested deeper than maxXMLDepth; Path is
// the element's path in the UBL JSON form.
type xmlDepthError struct{ Path string }

func (e *xmlDepthError) Error() string { return "MaximumDepthExceeded: #/" + e.Path }

// numberNames and indicatorNames pick the leaves the UBL JSON Alternative
// Representation writes as numbers (Amount, Quantity, Numeric, Measure,
// Percent and Rate types) and booleans (Indicator types), by element name.
var (
	numberNames    = regexp.MustCompile(`(Amount|Quantity|Numeric|Measure|Percent|Rate)$`)
	indicatorNames = regexp.MustCompile(`Indicator$`)
	jsonDecimal    = regexp.MustCompile(`^-?(0|[1-9][0-9]*)(\.[0-9]+)?$`)
)

// xmlFrame is an open element during conversion.
type xmlFrame struct {
	name     string
	path     string
	attrs    map[string]any
	children map[string]any
	text     strings.Builder
	hasChild bool
}

// convertXML converts a UBL 2.1 XML document into the UBL JSON tree the
// structure check reads (myinvois.md 2.1): {"_D": the root's namespace,
// "_A", "_B", root name: [object]}; every element an array entry under its
// local name, in document order; an element with child elements an object
// of them, one without a leaf {"_": text}; attributes string fields (namespace
// declarations and xsi attributes left out). Leaves named like UBL amounts,
// quantities, percents, rates, measures and numerics become JSON numbers
// when their text is a plain decimal, indicators booleans when it is true or
// false; other text stays a string, as written. A leading UTF-8 byte order
// mark is skipped. A DOCTYPE, text outside the
// root, a second root or any syntax error is errNotXML; nesting deeper than
// maxXMLDepth is an *xmlDepthError.
func convertXML(raw []byte) (map[string]any, error) {
	if !utf8.Valid(raw) {
		return nil, errNotXML
	}
	// A UTF-8 byte order mark is allowed (encoding/xml would read it as text
	// before the root).
	raw = bytes.TrimPrefix(raw, []byte("\xef\xbb\xbf"))
	dec := xml.NewDecoder(bytes.NewReader(raw))
	dec.Strict = true
	var stack []*xmlFrame
	var top map[string]any
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%w: %v", errNotXML, err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if len(stack) == 0 && top != nil {
				return nil, fmt.Errorf("%w: more than one root element", errNotXML)
			}
			f := &xmlFrame{name: t.Name.Local, attrs: map[string]any{}, children: map[string]any{}}
			if len(stack) == 0 {
				f.path = f.name + "[0]"
				top = map[string]any{"_D": t.Name.Space, "_A": cacNamespace, "_B": cbcNamespace}
			} else {
				parent := stack[len(stack)-1]
				parent.hasChild = true
				n, _ := parent.children[f.name].([]any)
				f.path = parent.path + "." + f.name + "[" + itoa(len(n)) + "]"
				parent.children[f.name] = append(n, nil) // reserves the slot: document order
			}
			if len(stack) >= maxXMLDepth {
				// The structure check would report the first aggregate
				// past maxDepth: the ancestor at that depth.
				return nil, &xmlDepthError{Path: stack[maxDepth].path}
			}
			for _, a := range t.Attr {
				if a.Name.Space == "xmlns" || (a.Name.Space == "" && a.Name.Local == "xmlns") || a.Name.Space == xsiNamespace {
					continue
				}
				f.attrs[a.Name.Local] = a.Value
			}
			stack = append(stack, f)
		case xml.EndElement:
			f := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			v := f.value()
			if len(stack) == 0 {
				top[f.name] = []any{v}
				continue
			}
			arr := stack[len(stack)-1].children[f.name].([]any)
			arr[len(arr)-1] = v
		case xml.CharData:
			if len(stack) == 0 {
				if len(bytes.TrimSpace(t)) > 0 {
					return nil, fmt.Errorf("%w: text outside the root element", errNotXML)
				}
				continue
			}
			stack[len(stack)-1].text.Write(t)
		case xml.Directive:
			return nil, fmt.Errorf("%w: DOCTYPE and other declarations are not allowed", errNotXML)
		case xml.ProcInst, xml.Comment:
		}
	}
	if top == nil {
		return nil, fmt.Errorf("%w: no root element", errNotXML)
	}
	return top, nil
}

// value is a closed element in the UBL JSON form.
func (f *xmlFrame) value() map[string]any {
	out := f.attrs
	if f.hasChild {
		for k, v := range f.children {
			out[k] = v
		}
		// Text beside child elements (mixed content) is kept as "_", which
		// the structure check refuses beside arrays.
		if text := f.text.String(); strings.TrimSpace(text) != "" {
			out["_"] = text
		}
		return out
	}
	out["_"] = leafValue(f.name, f.text.String())
	return out
}

// leafValue types a leaf's text as the UBL JSON form does.
func leafValue(name, text string) any {
	trimmed := strings.TrimSpace(text)
	switch {
	case numberNames.MatchString(name) && jsonDecimal.MatchString(trimmed):
		return json.Number(trimmed)
	case indicatorNames.MatchString(name) && (trimmed == "true" || trimmed == "false"):
		return trimmed == "true"
	}
	return text
}

// parseXMLDocument converts an XML document (convertXML) and checks it by
// the rules of the UBL JSON form (checkTree). It returns errNotXML for text
// that is not well-formed XML.
func parseXMLDocument(raw []byte) (docInfo, []structError, error) {
	tree, err := convertXML(raw)
	var deep *xmlDepthError
	if errors.As(err, &deep) {
		return docInfo{}, []structError{{Code: "MaximumDepthExceeded", Path: deep.Path}}, nil
	}
	if err != nil {
		return docInfo{}, nil, err
	}
	info, serrs := checkTree(tree)
	return info, serrs, nil
}
