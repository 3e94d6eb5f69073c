package web

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/einvoice/einvoice/internal/einvoice"
)

// TestPanicBecomes500: a panicking handler answers a 500 in our shape that
// names the request id and nothing of the panic; the log has the details.
func TestPanicBecomes500(t *testing.T) {
	var logs bytes.Buffer
	s := NewRoot(RootOptions{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	s.HandleFunc("GET /boom", func(http.ResponseWriter, *http.Request) { panic("secret internals: SELECT * FROM tenants") })
	srv := httptest.NewServer(s)
	defer srv.Close()
	req, _ := http.NewRequest("GET", srv.URL+"/boom", nil)
	req.Header.Set("X-Request-Id", "req-42")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body ErrorBody
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 500 || body.ErrorCode != einvoice.CodeInternal || !strings.Contains(body.Message, "req-42") || strings.Contains(body.Message, "SELECT") {
		t.Errorf("panic answered %d %+v", resp.StatusCode, body)
	}
	if !strings.Contains(logs.String(), "secret internals") || !strings.Contains(logs.String(), "req-42") {
		t.Errorf("the panic is not in the log with its request id:\n%s", logs.String())
	}
}

// TestPanicOnAPageBecomesHTML: a page route's panic (HandlePage: the
// dashboard, the request page) answers an HTML 500 page that names the
// request id and nothing of the panic, with the headers of every answer;
// the log has the details with the same id.
func TestPanicOnAPageBecomesHTML(t *testing.T) {
	var logs bytes.Buffer
	s := NewRoot(RootOptions{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	for _, p := range []string{"GET /app/boom", "POST /r/{token}"} {
		s.HandlePage(p, http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic("secret internals: SELECT * FROM receipts") }))
	}
	srv := httptest.NewServer(s)
	defer srv.Close()
	for _, c := range []struct{ method, path string }{{"GET", "/app/boom"}, {"POST", "/r/abc"}} {
		req, _ := http.NewRequest(c.method, srv.URL+c.path, strings.NewReader("a=b"))
		req.Header.Set("X-Request-Id", "req-page-7")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 500 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") ||
			!strings.Contains(string(body), "req-page-7") || strings.Contains(string(body), "SELECT") ||
			resp.Header.Get("X-Request-Id") != "req-page-7" || !strings.Contains(resp.Header.Get("Content-Security-Policy"), "default-src 'none'") {
			t.Errorf("%s %s: %d %v\n%s", c.method, c.path, resp.StatusCode, resp.Header, body)
		}
	}
	if !strings.Contains(logs.String(), "secret internals") || !strings.Contains(logs.String(), "req-page-7") {
		t.Errorf("the panic is not in the log with its request id:\n%s", logs.String())
	}
}

// TestMetricsByPattern: requests are counted by the pattern of the route
// that matched, each page of a surface its own label; unknown paths as
// "unmatched".
func TestMetricsByPattern(t *testing.T) {
	s := NewRoot(RootOptions{})
	ok := func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte("ok")) }
	s.HandlePage("GET /app/documents/{id}", http.HandlerFunc(ok))
	s.HandlePage("GET /app/receipts", http.HandlerFunc(ok))
	s.HandleFunc("GET /api/v1/invoices/{id}", ok)
	for _, p := range []string{"/app/documents/1", "/app/documents/2", "/app/receipts", "/api/v1/invoices/9", "/nowhere"} {
		s.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", p, nil))
	}
	w := httptest.NewRecorder()
	MetricsHandler(s.Registry()).ServeHTTP(w, httptest.NewRequest("GET", "/metrics", nil))
	for _, want := range []string{
		`einvoice_http_requests_total{code="200",method="GET",route="GET /app/documents/{id}"} 2`,
		`einvoice_http_requests_total{code="200",method="GET",route="GET /app/receipts"} 1`,
		`einvoice_http_requests_total{code="200",method="GET",route="GET /api/v1/invoices/{id}"} 1`,
		`einvoice_http_requests_total{code="404",method="GET",route="unmatched"} 1`,
	} {
		if !strings.Contains(w.Body.String(), want) {
			t.Errorf("metrics lack %s:\n%s", want, w.Body)
		}
	}
}

// TestLogHandler: a line logged with a request's context carries its id,
// once, even when the caller named it too.
func TestLogHandler(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(LogHandler(slog.NewJSONHandler(&buf, nil))).With("component", "x")
	ctx := WithRequestID(t.Context(), "req-log-1")
	log.InfoContext(ctx, "first")
	log.InfoContext(ctx, "second", "request_id", "req-log-1")
	log.InfoContext(t.Context(), "outside a request")
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 3 {
		t.Fatalf("%d lines:\n%s", len(lines), buf.String())
	}
	for i, l := range lines[:2] {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil || m["request_id"] != "req-log-1" || strings.Count(l, "request_id") != 1 {
			t.Errorf("line %d: %s (%v)", i, l, err)
		}
	}
	if strings.Contains(lines[2], "request_id") {
		t.Errorf("a line outside any request has an id: %s", lines[2])
	}
}

// TestServeHTTPEdges: the handler's own checks before routing: headers
// over MaxHeaderBytes (431), and paths the mux would clean or complete,
// which get a JSON 404 instead of its redirect.
func TestServeHTTPEdges(t *testing.T) {
	s := NewRoot(RootOptions{})
	ok := func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte("ok")) }
	for _, p := range []string{"GET /healthz", "GET /docs", "POST /api/v1/buyers", "GET /api/v1/profile", "DELETE /api/v1/buyers/{id}", "/sandbox/"} {
		s.HandleFunc(p, ok)
	}
	serve := func(r *http.Request) *httptest.ResponseRecorder {
		w := httptest.NewRecorder()
		s.ServeHTTP(w, r)
		return w
	}
	big := httptest.NewRequest("GET", "/healthz", nil)
	big.Header.Set("X-Big", strings.Repeat("b", MaxHeaderBytes))
	w := serve(big)
	wantJSONError(t, "a 64 KiB header", w.Code, w.Header(), w.Body.Bytes(), einvoice.CodeHeadersTooLarge)

	small := httptest.NewRequest("GET", "/healthz", nil)
	small.Header.Set("X-Big", strings.Repeat("b", MaxHeaderBytes-1024))
	if w := serve(small); w.Code != 200 {
		t.Errorf("63 KiB of header: %d %s", w.Code, w.Body)
	}

	for _, c := range []struct{ method, path string }{
		{"POST", "/api/v1/invoices/../buyers"}, {"POST", "//api/v1/buyers"}, {"GET", "/api/v1/./profile"},
		{"GET", "/healthz/"}, {"GET", "/sandbox"}, {"GET", "/docs/.."}, {"DELETE", "/api/v1//buyers/x"},
	} {
		r := httptest.NewRequest(c.method, "/", nil)
		r.URL.Path, r.RequestURI = c.path, c.path
		w := serve(r)
		wantJSONError(t, c.method+" "+c.path, w.Code, w.Header(), w.Body.Bytes(), einvoice.CodeNotFound)
		if loc := w.Header().Get("Location"); loc != "" {
			t.Errorf("%s %s: Location %q", c.method, c.path, loc)
		}
	}
}

// TestQuietRoutes: a route registered with HandleQuiet (the built-in
// sandbox) logs its access lines at debug level; the others at info.
func TestQuietRoutes(t *testing.T) {
	var logs bytes.Buffer
	s := NewRoot(RootOptions{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	ok := func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte("ok")) }
	s.HandleQuiet("/sandbox/", http.HandlerFunc(ok))
	s.HandleFunc("GET /api/v1/profile", ok)
	s.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/sandbox/api/v1.0/documents/recent", nil))
	s.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/api/v1/profile", nil))
	if strings.Contains(logs.String(), "/sandbox/") || !strings.Contains(logs.String(), "GET /api/v1/profile") {
		t.Errorf("at info level:\n%s", logs.String())
	}
}
