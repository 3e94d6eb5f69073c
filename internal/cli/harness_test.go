package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/einvoice/einvoice/internal/apidoc/apidoctest"
	"github.com/einvoice/einvoice/internal/testdb"
)

// testSecretKey is the EINVOICE_SECRET_KEY of the tests (PostgreSQL needs one).
const testSecretKey = "KioqKioqKioqKioqKioqKioqKioqKioqKioqKioqKio="

// engines are the databases every end-to-end test runs on.
var engines = []struct {
	name string
	dsn  func(t testing.TB) string
}{
	{"sqlite", func(t testing.TB) string { return testdb.SQLite(t) }},
	{"postgres", func(t testing.TB) string { return testdb.Postgres(t, os.Getenv) }},
}

// eachEngine runs fn as a subtest per engine with a fresh database.
func eachEngine(t *testing.T, fn func(t *testing.T, dsn string)) {
	for _, e := range engines {
		t.Run(e.name, func(t *testing.T) { fn(t, e.dsn(t)) })
	}
}

// validators are shared by the tests of the package so that the last test
// can tell which documented operations no test exercised.
var (
	validatorOnce sync.Once
	validator     *apidoctest.Validator
)

func contract(t testing.TB) *apidoctest.Validator {
	validatorOnce.Do(func() { validator = apidoctest.New(t) })
	return validator
}

// service is one running `einvoice serve`.
type service struct {
	URL     string
	DemoKey string
	DSN     string
	Stderr  *syncBuffer
	cancel  context.CancelFunc
	done    chan int
}

// syncBuffer is a bytes.Buffer safe for a writer and a reader.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

var demoKey = regexp.MustCompile(`eik_[A-Za-z0-9_-]{43}`)

// env returns a Getenv over the given variables only.
func env(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

// startService runs serve on a loopback port until the test ends.
func startService(t testing.TB, dsn string, args ...string) *service {
	t.Helper()
	return startServiceAt(t, dsn, nil, args...)
}

// startServiceAt runs serve with the clock now (time.Now when nil).
func startServiceAt(t testing.TB, dsn string, now func() time.Time, args ...string) *service {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan string, 1)
	stdout, stderr := &syncBuffer{}, &syncBuffer{}
	m := &Main{Stdout: stdout, Stderr: stderr, Ready: ready, Now: now,
		Getenv: env(map[string]string{"EINVOICE_SECRET_KEY": testSecretKey, "EINVOICE_LOG_LEVEL": "warn"})}
	s := &service{DSN: dsn, Stderr: stderr, cancel: cancel, done: make(chan int, 1)}
	go func() {
		s.done <- m.Run(ctx, append([]string{"serve", "--addr", "127.0.0.1:0", "--db", dsn}, args...))
	}()
	select {
	case addr := <-ready:
		s.URL = "http://" + addr
	case code := <-s.done:
		cancel()
		t.Fatalf("serve exited with %d before listening:\n%s", code, stderr.String())
	case <-time.After(30 * time.Second):
		cancel()
		t.Fatalf("serve did not listen within 30s:\n%s", stderr.String())
	}
	s.DemoKey = demoKey.FindString(stdout.String())
	t.Cleanup(func() { s.stop(t) })
	return s
}

// stop cancels serve (as SIGTERM does) and checks it exits cleanly.
func (s *service) stop(t testing.TB) {
	t.Helper()
	if s.cancel == nil {
		return
	}
	s.cancel()
	s.cancel = nil
	select {
	case code := <-s.done:
		if code != 0 {
			t.Errorf("serve exited with %d:\n%s", code, s.Stderr.String())
		}
	case <-time.After(30 * time.Second):
		t.Errorf("serve did not stop within 30s")
	}
	if strings.Contains(s.Stderr.String(), "panic") {
		t.Errorf("serve logged a panic:\n%s", s.Stderr.String())
	}
}

// cli runs one command line against dsn and returns its exit code, stdout
// and stderr.
func cli(t *testing.T, dsn string, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	m := &Main{Stdout: &stdout, Stderr: &stderr, Getenv: env(map[string]string{"EINVOICE_SECRET_KEY": testSecretKey})}
	code := m.Run(context.Background(), append(args, "--db", dsn))
	return code, stdout.String(), stderr.String()
}

// client talks to the service with one key; every response is checked
// against the OpenAPI document.
type client struct {
	t    *testing.T
	base string
	key  string
	http *http.Client
}

func (s *service) client(t *testing.T, key string) *client {
	return &client{t: t, base: s.URL, key: key, http: &http.Client{
		Transport: contract(t).Transport(t, http.DefaultTransport), Timeout: 30 * time.Second}}
}

// response is a decoded answer.
type response struct {
	Status int
	Header http.Header
	Raw    []byte
	Body   map[string]any
}

// data returns body.data as an object.
func (r *response) data() map[string]any {
	d, _ := r.Body["data"].(map[string]any)
	return d
}

// errorCode returns body.error_code.
func (r *response) errorCode() string {
	s, _ := r.Body["error_code"].(string)
	return s
}

// fieldErrors returns the paths of body.errors.
func (r *response) fieldErrors() map[string]any {
	e, _ := r.Body["errors"].(map[string]any)
	return e
}

// do sends a request; body is JSON-encoded unless it is a string or []byte.
// headers are name, value pairs that replace the client's (an empty value
// removes the header); a name given twice is sent twice.
// A 5xx answer fails the test.
func (c *client) do(method, path string, body any, headers ...string) *response {
	c.t.Helper()
	r := c.send(method, path, body, headers...)
	if r.Status >= 500 {
		c.t.Errorf("%s %s answered %d: %s", method, path, r.Status, r.Raw)
	}
	return r
}

// send is do for the rare test that expects a 5xx.
func (c *client) send(method, path string, body any, headers ...string) *response {
	c.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	case []byte:
		rd = bytes.NewReader(b)
	default:
		raw, err := json.Marshal(b)
		if err != nil {
			c.t.Fatal(err)
		}
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, c.base+path, rd)
	if err != nil {
		c.t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.key != "" {
		req.Header.Set("Authorization", "Bearer "+c.key)
	}
	given := map[string]bool{}
	for i := 0; i+1 < len(headers); i += 2 {
		switch name := http.CanonicalHeaderKey(headers[i]); {
		case headers[i+1] == "":
			req.Header.Del(name)
		case given[name]: // a header named again is sent twice
			req.Header.Add(name, headers[i+1])
		default:
			req.Header.Set(name, headers[i+1])
		}
		given[http.CanonicalHeaderKey(headers[i])] = true
	}
	resp, err := c.http.Do(req)
	if err != nil {
		c.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		c.t.Fatalf("%s %s: read body: %v", method, path, err)
	}
	r := &response{Status: resp.StatusCode, Header: resp.Header, Raw: raw}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		if err := json.Unmarshal(raw, &r.Body); err != nil {
			c.t.Errorf("%s %s: response is not a JSON object: %v\n%s", method, path, err, raw)
		}
	}
	if resp.Header.Get("X-Request-Id") == "" {
		c.t.Errorf("%s %s: no X-Request-Id", method, path)
	}
	return r
}

// want checks the status (and, for errors, the error code).
func (r *response) want(t *testing.T, status int, code string) *response {
	t.Helper()
	if r.Status != status || r.errorCode() != code {
		t.Errorf("got %d %q, want %d %q: %s", r.Status, r.errorCode(), status, code, r.Raw)
	}
	return r
}

// validBuyer is a complete buyer that is ready for the authority.
func validBuyer(name string) map[string]any {
	return map[string]any{
		"name": name, "tin": "C2584563200", "id_type": "BRN", "id_value": "201901234567",
		"sstRegistrationNumber": "NA",
		"address": map[string]any{"line1": "Lot 66, Bangunan Merdeka", "city": "Kuala Lumpur", "state": "14",
			"postCode": "50480", "countryCode": "MYS"},
		"contact": map[string]any{"phone": "+60123456789", "email": "ap@hebat.example"},
	}
}

func str(v any) string { return fmt.Sprint(v) }
