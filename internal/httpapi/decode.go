package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/einvoice/einvoice/internal/einvoice"
)

// maxFieldErrors bounds the unknown fields one answer names.
const maxFieldErrors = 50

// Body size limits.
const (
	maxBody     = 1 << 20  // 1 MiB
	maxBulkBody = 10 << 20 // 10 MiB, bulk submit and bulk receipts
)

// bodyLimit is the body limit of a route pattern: maxBulkBody for the bulk
// operations, maxBody otherwise.
func bodyLimit(pattern string) int64 {
	if strings.HasSuffix(pattern, "/submit-bulk") || strings.HasSuffix(pattern, "/receipts/bulk") {
		return maxBulkBody
	}
	return maxBody
}

// echoed is implemented by a request type that takes back what a GET of its
// resource answers (DECISIONS 1 and 12): echo returns a value of the
// response type. A key the response has and the request has not, at any
// depth, is accepted and ignored; so no list of response-only fields is kept
// by hand, and a field added to a response is accepted back at once.
type echoed interface{ echo() any }

// decode reads a JSON object body into dst strictly: a JSON content type
// and no content coding (415), at most limit bytes (413), valid UTF-8 and
// JSON, no key twice in one object and no lone surrogate escape, the right
// JSON type for every field (400 MALFORMED_JSON naming the field), and no
// unknown field (422 naming it). The fields of the response of dst's
// resource (see echoed), and names listed on dst's type by a blank field
// tagged `ignore:"a,b"`, are accepted without effect.
func decode(r *http.Request, limit int64, dst any) error {
	ct := r.Header.Get("Content-Type")
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil || !(mt == "application/json" || strings.HasSuffix(mt, "+json")) {
		return einvoice.Errorf(einvoice.CodeUnsupportedMedia, "Send the body as JSON with Content-Type: application/json (got %q).", ct)
	}
	if coding := contentCoding(r.Header); coding != "" {
		return einvoice.Errorf(einvoice.CodeUnsupportedMedia,
			"Send the body without a content coding: Content-Encoding identity (or none) is accepted, %q is not.", coding)
	}
	body, err := io.ReadAll(http.MaxBytesReader(nil, r.Body, limit))
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		return einvoice.Errorf(einvoice.CodePayloadTooLarge, "The body is larger than %d bytes.", limit)
	}
	if err != nil {
		return einvoice.Errorf(einvoice.CodeMalformedJSON, "The body could not be read.")
	}
	if !utf8.Valid(body) {
		return einvoice.Errorf(einvoice.CodeMalformedJSON, "The body is not valid UTF-8.")
	}
	return decodeBytes(body, dst)
}

// decodeBytes is decode's judgement of a body already read (valid UTF-8):
// one JSON object, no key twice, the right JSON types, no unknown field. A
// bulk request decodes each of its items with it, so that every item gets
// the rules of a single create.
func decodeBytes(body []byte, dst any) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return malformed(err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return einvoice.Errorf(einvoice.CodeMalformedJSON, "The body must hold exactly one JSON value.")
	}
	if _, isObject := v.(map[string]any); !isObject {
		return einvoice.Errorf(einvoice.CodeMalformedJSON, "The body must be a JSON object.")
	}
	if f := scanRaw(body); len(f) > 0 {
		return &einvoice.Error{Code: einvoice.CodeMalformedJSON, Fields: f,
			Message: "The body can be read more than one way: a key is given twice in one object, or a string holds a lone surrogate escape (see errors)."}
	}
	var resp reflect.Type
	if e, ok := dst.(echoed); ok {
		resp = reflect.TypeOf(e.echo())
	}
	shape := shapeErrors{types: einvoice.FieldErrors{}, invalid: einvoice.FieldErrors{}}
	shape.walk(v, reflect.TypeOf(dst), resp, "")
	if len(shape.types) > 0 {
		return &einvoice.Error{Code: einvoice.CodeMalformedJSON, Message: "A field has the wrong JSON type.", Fields: shape.types}
	}
	if len(shape.invalid) > 0 {
		return shape.invalid.Err()
	}
	if err := json.Unmarshal(body, dst); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return &einvoice.Error{Code: einvoice.CodeMalformedJSON, Message: "A field has the wrong JSON type.",
				Fields: einvoice.FieldErrors{te.Field: {"must be " + jsonKind(te.Type)}}}
		}
		return &einvoice.Error{Code: einvoice.CodeValidationFailed, Message: "The given data was invalid.",
			Fields: einvoice.FieldErrors{"": {err.Error()}}}
	}
	return nil
}

// contentCoding returns the first content coding of the request other than
// identity (at most 64 bytes of it), or "" when there is none: the service
// reads bodies as they are sent, never decompressed.
func contentCoding(h http.Header) string {
	for _, v := range h.Values("Content-Encoding") {
		for _, c := range strings.Split(v, ",") {
			c = strings.TrimSpace(c)
			if c != "" && !strings.EqualFold(c, "identity") {
				return c[:min(len(c), 64)]
			}
		}
	}
	return ""
}

func malformed(err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return einvoice.Errorf(einvoice.CodeMalformedJSON, "The body is not valid JSON: %s at byte %d.", se.Error(), se.Offset)
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return einvoice.Errorf(einvoice.CodeMalformedJSON, "The body is not valid JSON: it ends too early.")
	}
	return einvoice.Errorf(einvoice.CodeMalformedJSON, "The body is not valid JSON.")
}

// shapeErrors collects the problems of a JSON value against a Go type:
// wrong JSON types (400), and unknown fields or values out of limits (422).
type shapeErrors struct {
	types, invalid einvoice.FieldErrors
}

// jsonChecker is implemented by value types that decode themselves (money
// amounts and exact numbers): CheckJSON judges the decoded JSON value v and
// returns a wrong-type message or a limit problem.
type jsonChecker interface {
	CheckJSON(v any) (typeErr, problem string)
}

var (
	unmarshalerType = reflect.TypeFor[json.Unmarshaler]()
	marshalerType   = reflect.TypeFor[json.Marshaler]()
	checkerType     = reflect.TypeFor[jsonChecker]()
	timeType        = reflect.TypeFor[time.Time]()
)

func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// walk checks v (decoded with UseNumber) against t. resp is the type of the
// same value in the resource's response, or nil: a key of an object that
// only the response has is ignored.
func (s *shapeErrors) walk(v any, t, resp reflect.Type, path string) {
	if v == nil { // null is "absent" for every field
		return
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	for resp != nil && resp.Kind() == reflect.Pointer {
		resp = resp.Elem()
	}
	switch {
	case t == timeType:
		if str, ok := v.(string); !ok {
			s.types.Add(path, "must be a string")
		} else if _, err := time.Parse(time.RFC3339, str); err != nil {
			s.invalid.Add(path, "must be a date-time in RFC 3339 with an offset, e.g. 2026-11-22T10:30:00+08:00")
		}
		return
	case t.Implements(checkerType):
		typeErr, problem := reflect.Zero(t).Interface().(jsonChecker).CheckJSON(v)
		if typeErr != "" {
			s.types.Add(path, "%s", typeErr)
		} else if problem != "" {
			s.invalid.Add(path, "%s", problem)
		}
		return
	case reflect.PointerTo(t).Implements(unmarshalerType):
		return // a type that decodes itself
	}
	switch t.Kind() {
	case reflect.Struct:
		obj, ok := v.(map[string]any)
		if !ok {
			s.types.Add(path, "must be an object")
			return
		}
		fields, echo := fieldsOf(t), echoFieldsOf(resp)
		for key, val := range obj {
			f, known := fields.byName[key]
			switch {
			case known:
				s.walk(val, f, echo.byName[key], join(path, key))
			case fields.ignored[key]:
			case echo.byName[key] != nil:
				// A field only the response carries: what a GET returns, a
				// PUT takes back.
			case len(s.invalid) >= maxFieldErrors:
				// Enough to act on: a body of thousands of unknown fields
				// must not make an answer larger than itself.
			default:
				s.invalid.Add(join(path, key), "is not a known field")
			}
		}
	case reflect.Slice, reflect.Array:
		arr, ok := v.([]any)
		if !ok {
			s.types.Add(path, "must be an array")
			return
		}
		for i, el := range arr {
			s.walk(el, t.Elem(), elemOf(resp, reflect.Slice, reflect.Array), join(path, strconv.Itoa(i)))
		}
	case reflect.Map:
		obj, ok := v.(map[string]any)
		if !ok {
			s.types.Add(path, "must be an object")
			return
		}
		for key, val := range obj {
			s.walk(val, t.Elem(), elemOf(resp, reflect.Map), join(path, key))
		}
	case reflect.String:
		if str, ok := v.(string); !ok {
			s.types.Add(path, "must be a string")
		} else if strings.ContainsRune(str, 0) {
			s.invalid.Add(path, "must not contain the NUL character (U+0000)")
		}
	case reflect.Bool:
		if _, ok := v.(bool); !ok {
			s.types.Add(path, "must be a boolean")
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		if _, ok := v.(json.Number); !ok {
			s.types.Add(path, "must be a number")
		}
	case reflect.Interface:
	default:
		s.types.Add(path, "cannot be decoded (%s)", t.Kind())
	}
}

// structFields is the JSON view of a struct type: its fields by JSON name,
// as encoding/json sees them (embedded structs promoted, a shallower field
// winning), and, on request types, the names tagged to be ignored.
type structFields struct {
	byName  map[string]reflect.Type
	depth   map[string]int
	ignored map[string]bool
}

var (
	fieldCache sync.Map // reflect.Type -> *structFields
	noFields   = &structFields{}
)

func fieldsOf(t reflect.Type) *structFields {
	if f, ok := fieldCache.Load(t); ok {
		return f.(*structFields)
	}
	f := &structFields{byName: map[string]reflect.Type{}, depth: map[string]int{}, ignored: map[string]bool{}}
	collectFields(t, f, 0)
	fieldCache.Store(t, f)
	return f
}

// echoFieldsOf is fieldsOf a response type, or no fields when resp is nil
// or not a struct that encoding/json renders field by field.
func echoFieldsOf(resp reflect.Type) *structFields {
	if resp == nil || resp.Kind() != reflect.Struct || resp.Implements(marshalerType) || reflect.PointerTo(resp).Implements(marshalerType) {
		return noFields
	}
	return fieldsOf(resp)
}

// elemOf is the element type of resp when it is of one of kinds, else nil.
func elemOf(resp reflect.Type, kinds ...reflect.Kind) reflect.Type {
	if resp != nil && slices.Contains(kinds, resp.Kind()) {
		return resp.Elem()
	}
	return nil
}

func collectFields(t reflect.Type, f *structFields, depth int) {
	for i := range t.NumField() {
		sf := t.Field(i)
		if names, ok := sf.Tag.Lookup("ignore"); ok {
			for _, n := range strings.Split(names, ",") {
				f.ignored[n] = true
			}
			continue
		}
		name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
		if sf.Anonymous && name == "" {
			et := sf.Type
			if et.Kind() == reflect.Pointer {
				et = et.Elem()
			}
			if et.Kind() == reflect.Struct {
				collectFields(et, f, depth+1)
				continue
			}
		}
		if !sf.IsExported() || name == "-" {
			continue
		}
		if name == "" {
			name = sf.Name
		}
		if d, seen := f.depth[name]; !seen || depth < d {
			f.byName[name], f.depth[name] = sf.Type, depth
		}
	}
}

func jsonKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Struct, reflect.Map:
		return "an object"
	default:
		return "a number"
	}
}
