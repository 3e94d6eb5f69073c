package myinvois

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/einvoice/einvoice/internal/einvoice"
)

// fakeAuthority is an httptest server speaking the authority's protocol as
// each test needs it: the identity endpoint is built in (it counts logins and
// hands out tokens tok-1, tok-2, ...); tests add API handlers.
type fakeAuthority struct {
	t   *testing.T
	srv *httptest.Server
	mux *http.ServeMux

	logins     atomic.Int32
	loginDelay time.Duration
	loginGate  func(n int32, r *http.Request) // called before answering login n
	expiresIn  int                            // seconds, default 3600

	mu        sync.Mutex
	tokens    map[string]bool // issued and still accepted
	loginForm []map[string]string
	loginHdr  []http.Header
}

const (
	testClientID = "client-1"
	testSecret   = "s3cr3t-value"
)

func newFake(t *testing.T) *fakeAuthority {
	t.Helper()
	f := &fakeAuthority{t: t, mux: http.NewServeMux(), tokens: map[string]bool{}, expiresIn: 3600}
	f.mux.HandleFunc("POST /connect/token", f.token)
	f.srv = httptest.NewServer(f.mux)
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeAuthority) token(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		http.Error(w, err.Error(), 400)
		return
	}
	form := map[string]string{"Content-Type": r.Header.Get("Content-Type")}
	for k := range r.PostForm {
		form[k] = r.PostForm.Get(k)
	}
	n := f.logins.Add(1)
	f.mu.Lock()
	f.loginForm = append(f.loginForm, form)
	f.loginHdr = append(f.loginHdr, r.Header.Clone())
	f.mu.Unlock()
	if f.loginDelay > 0 {
		time.Sleep(f.loginDelay)
	}
	if f.loginGate != nil {
		f.loginGate(n, r)
	}
	if r.PostForm.Get("client_secret") != testSecret && r.PostForm.Get("client_secret") != "other-secret" {
		writeJSON(w, 400, map[string]any{"error": "invalid_client", "error_description": "Client authentication failed", "error_uri": nil})
		return
	}
	tok := fmt.Sprintf("tok-%d", n)
	f.mu.Lock()
	f.tokens[tok] = true
	f.mu.Unlock()
	writeJSON(w, 200, map[string]any{"access_token": tok, "token_type": "Bearer", "expires_in": f.expiresIn, "scope": "InvoicingAPI"})
}

// authorized reports whether r carries an accepted token, answering 401 when
// it does not.
func (f *fakeAuthority) authorized(w http.ResponseWriter, r *http.Request) bool {
	f.mu.Lock()
	ok := len(r.Header.Get("Authorization")) > 7 && f.tokens[r.Header.Get("Authorization")[7:]]
	f.mu.Unlock()
	if !ok {
		w.WriteHeader(http.StatusUnauthorized)
	}
	return ok
}

// revoke makes the authority refuse a token from now on.
func (f *fakeAuthority) revoke(tok string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.tokens, tok)
}

// handle adds an API handler that runs once the token is accepted.
func (f *fakeAuthority) handle(pattern string, h http.HandlerFunc) {
	f.mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
		if f.authorized(w, r) {
			h(w, r)
		}
	})
}

func (f *fakeAuthority) creds() einvoice.Credentials {
	return einvoice.Credentials{BaseURL: f.srv.URL, ClientID: testClientID, ClientSecret: testSecret}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func readJSON(t *testing.T, r io.Reader, v any) {
	t.Helper()
	if err := json.NewDecoder(r).Decode(v); err != nil {
		t.Errorf("request body: %v", err)
	}
}

// clock is a settable wall clock.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func newClock() *clock { return &clock{now: time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// testLogger writes to the test's log.
func testLogger(t *testing.T) *slog.Logger {
	return slog.New(slog.NewTextHandler(tWriter{t}, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

type tWriter struct{ t *testing.T }

func (w tWriter) Write(p []byte) (int, error) {
	w.t.Helper()
	w.t.Log(string(p))
	return len(p), nil
}

// callErr asserts that err is a CallError and returns it.
func callErr(t *testing.T, err error) *einvoice.CallError {
	t.Helper()
	ce, ok := einvoice.AsCallError(err)
	if !ok {
		t.Fatalf("error %v (%T) is not a *einvoice.CallError", err, err)
	}
	return ce
}
