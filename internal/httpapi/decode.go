package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"reflect"
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
	maxBulkBody = 10 << 20 // 10 MiB, bulk submit
)

// decode reads a JSON object body into dst strictly: a JSON content type, at
// most limit bytes, valid UTF-8 and JSON, the right JSON type for every
// field (400 MALFORMED_JSON naming the field), and no unknown field (422
// naming it). Fields that only responses carry are declared on dst's type by
// a blank field tagged `ignore:"a,b"` and accepted without effect.
func decode(r *http.Request, limit int64, dst any) error {
	ct := r.Header.Get("Content-Type")
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil || !(mt == "application/json" || strings.HasSuffix(mt, "+json")) {
		return einvoice.Errorf(einvoice.CodeUnsupportedMedia, "Send the body as JSON with Content-Type: application/json (got %q).", ct)
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
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return malformed(err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return einvoice.Errorf(einvoice.CodeMalformedJSON, "The body must hold exactly one JSON value.")
	}
	if _, isObject := v.(map[string]any); !isObject {
		return einvoice.Errorf(einvoice.CodeMalformedJSON, "The body must be a JSON object.")
	}
	shape := shapeErrors{types: einvoice.FieldErrors{}, invalid: einvoice.FieldErrors{}}
	shape.walk(v, reflect.TypeOf(dst), "")
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
	checkerType     = reflect.TypeFor[jsonChecker]()
	timeType        = reflect.TypeFor[time.Time]()
)

func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// walk checks v (decoded with UseNumber) against t.
func (s *shapeErrors) walk(v any, t reflect.Type, path string) {
	if v == nil { // null is "absent" for every field
		return
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
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
		fields := fieldsOf(t)
		for key, val := range obj {
			f, known := fields.byName[key]
			switch {
			case known:
				s.walk(val, f, join(path, key))
			case fields.ignored[key]:
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
			s.walk(el, t.Elem(), join(path, strconv.Itoa(i)))
		}
	case reflect.Map:
		obj, ok := v.(map[string]any)
		if !ok {
			s.types.Add(path, "must be an object")
			return
		}
		for key, val := range obj {
			s.walk(val, t.Elem(), join(path, key))
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

// structFields is the JSON view of a request struct.
type structFields struct {
	byName  map[string]reflect.Type
	ignored map[string]bool
}

var fieldCache sync.Map // reflect.Type -> *structFields

func fieldsOf(t reflect.Type) *structFields {
	if f, ok := fieldCache.Load(t); ok {
		return f.(*structFields)
	}
	f := &structFields{byName: map[string]reflect.Type{}, ignored: map[string]bool{}}
	collectFields(t, f)
	fieldCache.Store(t, f)
	return f
}

func collectFields(t reflect.Type, f *structFields) {
	for i := range t.NumField() {
		sf := t.Field(i)
		if names, ok := sf.Tag.Lookup("ignore"); ok {
			for _, n := range strings.Split(names, ",") {
				f.ignored[n] = true
			}
			continue
		}
		if sf.Anonymous && sf.Type.Kind() == reflect.Struct && sf.Tag.Get("json") == "" {
			collectFields(sf.Type, f)
			continue
		}
		if !sf.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = sf.Name
		}
		f.byName[name] = sf.Type
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
