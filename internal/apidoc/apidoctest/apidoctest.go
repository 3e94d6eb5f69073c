// Package apidoctest checks HTTP exchanges against the service's OpenAPI
// document (package apidoc). Tests of other packages use it so that every
// response they see is the one the document promises:
//
//	v := apidoctest.New(t)
//	client := &http.Client{Transport: v.Transport(t, nil)}
//	... drive the server ...
//	if m := v.Missing(); len(m) > 0 { t.Logf("not exercised: %v", m) }
//
// Only tests import it.
package apidoctest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/einvoice/einvoice/internal/apidoc"
)

// Validator checks HTTP exchanges against the document. It is safe for
// concurrent use by parallel tests.
type Validator struct {
	router routers.Router
	errors *jsonschema.Schema // components.schemas.Error, compiled
	ops    []string           // "METHOD /path/template" of every documented operation, sorted

	// raw is the document as JSON values, compiler compiles its response
	// schemas (JSON Schema 2020-12, as OpenAPI 3.1 has them), each once into
	// compiled, by JSON pointer (nil: left to kin-openapi).
	raw       any
	compileMu sync.Mutex // the compiler is not safe for concurrent use
	compiler  *jsonschema.Compiler
	compiled  sync.Map // string -> *jsonschema.Schema (nil for none)

	mu   sync.Mutex
	seen map[string]bool
}

var options = &openapi3filter.Options{
	AuthenticationFunc:    openapi3filter.NoopAuthenticationFunc,
	IncludeResponseStatus: true,
}

// headersOnly is options for an exchange whose JSON body Check validates
// itself, with a schema compiled once (bodySchema).
var headersOnly = &openapi3filter.Options{
	AuthenticationFunc:    openapi3filter.NoopAuthenticationFunc,
	IncludeResponseStatus: true,
	ExcludeResponseBody:   true,
}

// binaryOnce registers the body decoders of binary media types once.
var binaryOnce sync.Once

// New loads the embedded document, validates it and builds its router. It
// fails the test when the document is unusable.
func New(t testing.TB) *Validator {
	t.Helper()
	binaryOnce.Do(func() {
		// The images and PDFs the API serves are checked as opaque bodies.
		for _, ct := range []string{"image/png", "image/jpeg", "application/pdf"} {
			openapi3filter.RegisterBodyDecoder(ct, openapi3filter.FileBodyDecoder)
		}
	})
	doc, err := openapi3.NewLoader().LoadFromData(apidoc.JSON())
	if err != nil {
		t.Fatalf("apidoctest: load openapi.json: %v", err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatalf("apidoctest: openapi.json does not validate: %v", err)
	}
	router, err := gorillamux.NewRouter(doc)
	if err != nil {
		t.Fatalf("apidoctest: router: %v", err)
	}
	raw, err := jsonschema.UnmarshalJSON(bytes.NewReader(apidoc.JSON()))
	if err != nil {
		t.Fatalf("apidoctest: read openapi.json: %v", err)
	}
	compiler := jsonschema.NewCompiler()
	compiler.DefaultDraft(jsonschema.Draft2020)
	compiler.AssertFormat()
	if err := compiler.AddResource(docURL, raw); err != nil {
		t.Fatalf("apidoctest: openapi.json as a JSON Schema resource: %v", err)
	}
	v := &Validator{router: router, seen: map[string]bool{}, raw: raw, compiler: compiler}
	if v.errors = v.schemaAt("/components/schemas/Error"); v.errors == nil {
		t.Fatalf("apidoctest: openapi.json has no components.schemas.Error that compiles")
	}
	for path, item := range doc.Paths.Map() {
		for method := range item.Operations() {
			v.ops = append(v.ops, method+" "+path)
		}
	}
	sort.Strings(v.ops)
	return v
}

// Check validates one exchange: it finds the documented operation of req
// (method and path; the host is ignored) and validates the response status,
// headers, Content-Type and body against it. A request that matches no
// documented operation (an unknown route, or a known path with a method it
// does not have) must have been answered with an error status and a JSON body
// of the Error schema. HEAD requests, which have no body, are not checked.
// Failures are reported with t.Errorf.
func (v *Validator) Check(t testing.TB, req *http.Request, status int, header http.Header, body []byte) {
	t.Helper()
	if req.Method == http.MethodHead {
		return
	}
	route, params, err := v.router.FindRoute(req)
	if err != nil {
		if !errors.Is(err, routers.ErrPathNotFound) && !errors.Is(err, routers.ErrMethodNotAllowed) {
			t.Errorf("apidoctest: %s %s -> %d: finding the route: %v", req.Method, req.URL.Path, status, err)
			return
		}
		if err := v.checkUndocumented(status, header, body); err != nil {
			t.Errorf("apidoctest: %s %s -> %d (not a documented operation): %v", req.Method, req.URL.Path, status, err)
		}
		return
	}
	v.mu.Lock()
	v.seen[req.Method+" "+route.Path] = true
	v.mu.Unlock()

	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{
			Request: req, PathParams: params, Route: route, Options: options,
		},
		Status:  status,
		Header:  header,
		Options: options,
	}
	in.SetBodyBytes(body)
	fast := v.bodySchema(route, status, header)
	if fast != nil {
		in.Options = headersOnly // the body is checked below
	}
	err = openapi3filter.ValidateResponse(context.Background(), in)
	if err == nil && fast != nil {
		err = validateJSON(fast, body)
	}
	if err != nil {
		t.Errorf("apidoctest: %s %s (%s %s) -> %d: %v\nbody: %s", req.Method, req.URL.Path, req.Method, route.Path, status, err, excerpt(body))
	}
}

// validateJSON checks a JSON body against a compiled schema.
func validateJSON(s *jsonschema.Schema, body []byte) error {
	value, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("the body is not JSON: %w", err)
	}
	if err := s.Validate(value); err != nil {
		return fmt.Errorf("response body doesn't match schema: %w", err)
	}
	return nil
}

// checkUndocumented accepts an error status with a JSON Error body.
func (v *Validator) checkUndocumented(status int, header http.Header, body []byte) error {
	if status < 400 {
		return fmt.Errorf("status %d: the operation is not in the OpenAPI document", status)
	}
	ct := header.Get("Content-Type")
	if mt, _, err := mime.ParseMediaType(ct); err != nil || mt != "application/json" {
		return fmt.Errorf("Content-Type %q, want an application/json Error body: %s", ct, excerpt(body))
	}
	if err := validateJSON(v.errors, body); err != nil {
		return fmt.Errorf("not an Error body: %v\nbody: %s", err, excerpt(body))
	}
	return nil
}

func excerpt(body []byte) string {
	const max = 600
	if len(body) > max {
		return string(body[:max]) + "..."
	}
	return string(body)
}

// Transport wraps next (http.DefaultTransport when nil) so that every
// response a test client receives is checked with Check. The body is read
// whole and restored, so the caller reads it as usual.
func (v *Validator) Transport(t testing.TB, next http.RoundTripper) http.RoundTripper {
	if next == nil {
		next = http.DefaultTransport
	}
	return &transport{v: v, t: t, next: next}
}

type transport struct {
	v    *Validator
	t    testing.TB
	next http.RoundTripper
}

func (tr *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := tr.next.RoundTrip(req)
	if err != nil {
		return resp, err
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, fmt.Errorf("apidoctest: reading the response body: %w", err)
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	tr.v.Check(tr.t, req, resp.StatusCode, resp.Header, body)
	return resp, nil
}

// Seen returns "METHOD /path/template" of every documented operation checked
// so far, sorted.
func (v *Validator) Seen() []string {
	v.mu.Lock()
	defer v.mu.Unlock()
	out := make([]string, 0, len(v.seen))
	for op := range v.seen {
		out = append(out, op)
	}
	sort.Strings(out)
	return out
}

// Missing returns "METHOD /path/template" of every documented operation that
// no checked exchange exercised, sorted.
func (v *Validator) Missing() []string {
	v.mu.Lock()
	defer v.mu.Unlock()
	var out []string
	for _, op := range v.ops {
		if !v.seen[op] {
			out = append(out, op)
		}
	}
	return out
}

// docURL names the document as a JSON Schema resource.
const docURL = "https://einvoice.invalid/openapi.json"

// bodySchema is the compiled schema of the JSON body of a response of
// route with status and header's Content-Type, compiled once; nil when the
// body is not JSON, has no schema, or its schema has writeOnly properties
// (kin-openapi checks those are absent from responses): ValidateResponse
// then checks the body itself. kin-openapi compiles an OpenAPI 3.1 schema
// again for every response, a sixth of the CPU of the end-to-end tests.
func (v *Validator) bodySchema(route *routers.Route, status int, header http.Header) *jsonschema.Schema {
	mt, _, err := mime.ParseMediaType(header.Get("Content-Type"))
	if err != nil || (mt != "application/json" && !strings.HasSuffix(mt, "+json")) {
		return nil
	}
	responses := route.Operation.Responses
	if responses == nil {
		return nil
	}
	code := strconv.Itoa(status)
	switch {
	case responses.Value(code) != nil:
	case responses.Value(code[:1]+"XX") != nil:
		code = code[:1] + "XX"
	case responses.Value("default") != nil:
		code = "default"
	default:
		return nil
	}
	resp := responses.Value(code).Value
	if resp == nil || resp.Content == nil || resp.Content[mt] == nil || resp.Content[mt].Schema == nil {
		return nil // another media type key, or no schema: kin-openapi's
	}
	return v.schemaAt("/paths/" + escapePointer(route.Path) + "/" + strings.ToLower(route.Method) + "/responses/" + code +
		"/content/" + escapePointer(mt) + "/schema")
}

// schemaAt is the schema at a JSON pointer into the document, compiled once;
// nil when there is none or it has writeOnly properties.
func (v *Validator) schemaAt(ptr string) *jsonschema.Schema {
	if s, ok := v.compiled.Load(ptr); ok {
		return s.(*jsonschema.Schema)
	}
	v.compileMu.Lock()
	defer v.compileMu.Unlock()
	if s, ok := v.compiled.Load(ptr); ok {
		return s.(*jsonschema.Schema)
	}
	var compiled *jsonschema.Schema
	if at, node, ok := resolve(v.raw, ptr); ok && !writeOnly(v.raw, node, map[string]bool{}) {
		var err error
		if compiled, err = v.compiler.Compile(docURL + "#" + at); err != nil {
			compiled = nil // kin-openapi's, as before
		}
	}
	v.compiled.Store(ptr, compiled)
	return compiled
}

// escapePointer escapes a JSON pointer token.
func escapePointer(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// resolve follows a JSON pointer in doc, and the local references ("$ref":
// "#/components/responses/...") met on the way; it returns where the value
// is (a pointer without references on the way) and the value.
func resolve(doc any, ptr string) (at string, node any, ok bool) {
	node = doc
	for _, tok := range strings.Split(strings.TrimPrefix(ptr, "/"), "/") {
		for hops := 0; ; hops++ {
			m, isMap := node.(map[string]any)
			ref, isRef := m["$ref"].(string)
			if !isMap || !isRef || !strings.HasPrefix(ref, "#/") || hops > 8 {
				break
			}
			if at, node, ok = resolve(doc, strings.TrimPrefix(ref, "#")); !ok {
				return "", nil, false
			}
		}
		m, isMap := node.(map[string]any)
		if !isMap {
			return "", nil, false
		}
		if node, ok = m[strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")]; !ok {
			return "", nil, false
		}
		at += "/" + tok
	}
	return at, node, true
}

// writeOnly reports whether a schema, or one it refers to, has a writeOnly
// property.
func writeOnly(doc, node any, seen map[string]bool) bool {
	switch n := node.(type) {
	case map[string]any:
		if w, _ := n["writeOnly"].(bool); w {
			return true
		}
		if ref, ok := n["$ref"].(string); ok && strings.HasPrefix(ref, "#/") && !seen[ref] {
			seen[ref] = true
			if _, target, ok := resolve(doc, strings.TrimPrefix(ref, "#")); ok && writeOnly(doc, target, seen) {
				return true
			}
		}
		for _, c := range n {
			if writeOnly(doc, c, seen) {
				return true
			}
		}
	case []any:
		for _, c := range n {
			if writeOnly(doc, c, seen) {
				return true
			}
		}
	}
	return false
}
