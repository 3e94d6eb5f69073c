package e2etest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/einvoice/einvoice/client"
	"github.com/einvoice/einvoice/internal/servetest"
	"github.com/einvoice/einvoice/internal/testdb/migrated"
	"github.com/google/uuid"
)

// Engines are the databases every end-to-end test runs on, each new one
// with the schema in place (package migrated: the migrations themselves
// are tested where a first start is).
var Engines = []struct {
	Name string
	DSN  func(t testing.TB) string
}{
	{"sqlite", func(t testing.TB) string { return migrated.SQLite(t) }},
	{"postgres", func(t testing.TB) string { return migrated.Postgres(t, os.Getenv) }},
}

// EachEngine runs fn as a subtest per engine with a fresh database.
func EachEngine(t *testing.T, fn func(t *testing.T, dsn string)) {
	for _, e := range Engines {
		t.Run(e.Name, func(t *testing.T) { fn(t, e.DSN(t)) })
	}
}

// EachEngineParallel is EachEngine with the engines' subtests run in
// parallel with each other: for the tests that mostly wait (a lease to
// expire after a kill) or that the race detector does not slow. The test
// must do nothing after it: the subtests run once it has returned.
func EachEngineParallel(t *testing.T, fn func(t *testing.T, dsn string)) {
	for _, e := range Engines {
		t.Run(e.Name, func(t *testing.T) {
			t.Parallel()
			fn(t, e.DSN(t))
		})
	}
}

// Service is one running `einvoice serve` (servetest.Start), with the
// tests' ways to reach it.
type Service struct{ *servetest.Service }

// StartService runs serve on a loopback port until the test ends.
func StartService(t testing.TB, dsn string, args ...string) *Service {
	t.Helper()
	return &Service{servetest.Start(t, dsn, args...)}
}

// StartServiceAt runs serve with the clock now (time.Now when nil).
func StartServiceAt(t testing.TB, dsn string, now func() time.Time, args ...string) *Service {
	t.Helper()
	return &Service{servetest.StartAt(t, dsn, now, args...)}
}

// NewID returns a new id as the service makes them (a UUID v7).
func NewID() string { return uuid.Must(uuid.NewV7()).String() }

// API returns the public Go client (package client) of the service for
// key: every answer is checked against the OpenAPI document, and nothing is
// retried (a test sees every answer as the service gave it). Its timeout is
// above the longest wait the service itself may take before answering (a
// consolidation's 45 s, DECISIONS 17): the client never cuts an answer
// the service is still entitled to give (TestReceiptsMonth on a loaded
// machine).
func (s *Service) API(t *testing.T, key string) *client.Client {
	return client.New(s.URL, key, client.WithRetries(0), client.WithHTTPClient(&http.Client{
		Transport: Contract(t).Transport(t, http.DefaultTransport), Timeout: 60 * time.Second}))
}

// RawClient sends requests as the tests write them, malformed ones too,
// through the public client's Do, and decodes the answer untyped: for the
// tests of the wire itself (bad JSON, headers, statuses).
type RawClient struct {
	T   *testing.T // the test that sees the failures (a subtest may set its own)
	Key string
	API *client.Client
}

func (s *Service) Client(t *testing.T, key string) *RawClient {
	return &RawClient{T: t, Key: key, API: s.API(t, key)}
}

// Response is a decoded answer.
type Response struct {
	Status int
	Header http.Header
	Raw    []byte
	Body   map[string]any
}

// Data returns body.data as an object.
func (r *Response) Data() map[string]any {
	d, _ := r.Body["data"].(map[string]any)
	return d
}

// ErrorCode returns body.error_code.
func (r *Response) ErrorCode() string {
	s, _ := r.Body["error_code"].(string)
	return s
}

// FieldErrors returns the paths of body.errors.
func (r *Response) FieldErrors() map[string]any {
	e, _ := r.Body["errors"].(map[string]any)
	return e
}

// Do sends a request; body is JSON-encoded unless it is a string or []byte.
// headers are name, value pairs that replace the client's (an empty value
// removes the header); a name given twice is sent twice. No Accept header
// is sent unless given.
// A 5xx answer fails the test.
func (c *RawClient) Do(method, path string, body any, headers ...string) *Response {
	c.T.Helper()
	r := c.Send(method, path, body, headers...)
	if r.Status >= 500 {
		c.T.Errorf("%s %s answered %d: %s", method, path, r.Status, r.Raw)
	}
	return r
}

// Send is Do for the rare test that expects a 5xx.
func (c *RawClient) Send(method, path string, body any, headers ...string) *Response {
	c.T.Helper()
	h := http.Header{"Accept": nil, "Authorization": nil}
	if c.Key != "" { // read at each request: tests change it
		h["Authorization"] = []string{"Bearer " + c.Key}
	}
	given := map[string]bool{}
	for i := 0; i+1 < len(headers); i += 2 {
		switch name := http.CanonicalHeaderKey(headers[i]); {
		case headers[i+1] == "":
			h[name] = nil
		case given[name]: // a header named again is sent twice
			h[name] = append(h[name], headers[i+1])
		default:
			h[name] = []string{headers[i+1]}
		}
		given[http.CanonicalHeaderKey(headers[i])] = true
	}
	if s, ok := body.(string); ok {
		body = []byte(s)
	}
	resp, err := c.API.Do(context.Background(), &client.Request{Method: method, Path: path, Body: body, Header: h}, nil)
	var e *client.Error
	if err != nil && !errors.As(err, &e) {
		c.T.Fatalf("%s %s: %v", method, path, err)
	}
	r := &Response{Status: resp.StatusCode, Header: resp.Header, Raw: resp.Body}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		if err := json.Unmarshal(r.Raw, &r.Body); err != nil {
			c.T.Errorf("%s %s: response is not a JSON object: %v\n%s", method, path, err, r.Raw)
		}
	}
	if e != nil && (e.StatusCode != r.Status || e.Code != r.ErrorCode() || e.RequestID != resp.RequestID()) {
		c.T.Errorf("%s %s: the client read the error as %d %q (request %q), the answer was %d %q (request %q)",
			method, path, e.StatusCode, e.Code, e.RequestID, r.Status, r.ErrorCode(), resp.RequestID())
	}
	if resp.Header.Get("X-Request-Id") == "" {
		c.T.Errorf("%s %s: no X-Request-Id", method, path)
	}
	return r
}

// Want checks the status (and, for errors, the error code).
func (r *Response) Want(t *testing.T, status int, code string) *Response {
	t.Helper()
	if r.Status != status || r.ErrorCode() != code {
		t.Errorf("got %d %q, want %d %q: %s", r.Status, r.ErrorCode(), status, code, r.Raw)
	}
	return r
}

// ValidBuyer is a complete buyer that is ready for the authority.
func ValidBuyer(name string) map[string]any {
	return map[string]any{
		"name": name, "tin": "C21638015020", "id_type": "BRN", "id_value": "201901234567",
		"sstRegistrationNumber": "NA",
		"address": map[string]any{"line1": "Lot 66, Bangunan Merdeka", "city": "Kuala Lumpur", "state": "14",
			"postCode": "50480", "countryCode": "MYS"},
		"contact": map[string]any{"phone": "+60123456789", "email": "ap@hebat.example"},
	}
}

func Str(v any) string { return fmt.Sprint(v) }

// WantErr checks that err is the service's answer status with code, and
// returns it.
func WantErr(t *testing.T, err error, status int, code string) *client.Error {
	t.Helper()
	var e *client.Error
	if !errors.As(err, &e) {
		t.Errorf("err = %v, want %d %s", err, status, code)
		return &client.Error{}
	}
	if e.StatusCode != status || e.Code != code {
		t.Errorf("got %d %q, want %d %q: %s", e.StatusCode, e.Code, status, code, e.Body)
	}
	return e
}

// Must returns v, ending the test when err is not nil.
func Must[T any](t *testing.T, v T, err error) T {
	t.Helper()
	if err != nil {
		t.Fatalf("unexpected error: %v", err)
	}
	return v
}

// ReadyBuyer is validBuyer for the typed client.
func ReadyBuyer(name string) *client.Party {
	return &client.Party{
		Name: name, TIN: "C21638015020", IDType: client.IDTypeBRN, IDValue: "201901234567",
		SSTRegistrationNumber: "NA",
		Address: client.Address{Line1: "Lot 66, Bangunan Merdeka", City: "Kuala Lumpur", State: "14",
			PostCode: "50480", CountryCode: "MYS"},
		Contact: client.Contact{Phone: "+60123456789", Email: "ap@hebat.example"},
	}
}
