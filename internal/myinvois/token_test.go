package myinvois

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// detailsOK answers Get Document Details for any uuid with a Valid document
// and records the request headers.
func detailsOK(f *fakeAuthority, seen *[]http.Header, mu *sync.Mutex) {
	f.handle("GET /api/v1.0/documents/{uuid}/details", func(w http.ResponseWriter, r *http.Request) {
		if seen != nil {
			mu.Lock()
			*seen = append(*seen, r.Header.Clone())
			mu.Unlock()
		}
		writeJSON(w, 200, map[string]any{"uuid": r.PathValue("uuid"), "status": "Valid"})
	})
}

func TestLoginAndHeaders(t *testing.T) {
	f := newFake(t)
	var (
		mu   sync.Mutex
		seen []http.Header
	)
	detailsOK(f, &seen, &mu)
	c := New(Options{Logger: testLogger(t)})
	cred := f.creds()
	cred.OnBehalfOf = "C25845632020"

	s, err := c.GetDocumentDetails(context.Background(), cred, "ABC123")
	if err != nil {
		t.Fatal(err)
	}
	if s.UUID != "ABC123" || s.Status != "Valid" {
		t.Errorf("state = %+v", s)
	}
	want := map[string]string{
		"Content-Type":  "application/x-www-form-urlencoded",
		"client_id":     testClientID,
		"client_secret": testSecret,
		"grant_type":    "client_credentials",
		"scope":         "InvoicingAPI",
	}
	if len(f.loginForm) != 1 {
		t.Fatalf("%d logins, want 1", len(f.loginForm))
	}
	for k, v := range want {
		if got := f.loginForm[0][k]; got != v {
			t.Errorf("login %s = %q, want %q", k, got, v)
		}
	}
	if got := f.loginHdr[0].Get("onbehalfof"); got != "C25845632020" {
		t.Errorf("login onbehalfof = %q", got)
	}
	h := seen[0]
	for k, v := range map[string]string{
		"Accept":          "application/json",
		"Accept-Language": "en",
		"Authorization":   "Bearer tok-1",
		"onbehalfof":      "C25845632020",
		"Content-Type":    "",
	} {
		if got := h.Get(k); got != v {
			t.Errorf("API header %s = %q, want %q", k, got, v)
		}
	}
}

func TestTokenCachedAndRefreshed(t *testing.T) {
	f := newFake(t)
	detailsOK(f, nil, nil)
	clk := newClock()
	c := New(Options{Now: clk.Now, Logger: testLogger(t)})
	ctx := context.Background()
	cred := f.creds()
	do := func(t *testing.T, cr func() error) {
		t.Helper()
		if err := cr(); err != nil {
			t.Fatal(err)
		}
	}
	for range 3 {
		do(t, func() error { _, err := c.GetDocumentDetails(ctx, cred, "X"); return err })
	}
	if n := f.logins.Load(); n != 1 {
		t.Fatalf("3 calls: %d logins, want 1", n)
	}
	clk.Advance(54 * time.Minute) // 6 minutes left
	do(t, func() error { _, err := c.GetDocumentDetails(ctx, cred, "X"); return err })
	if n := f.logins.Load(); n != 1 {
		t.Fatalf("6 minutes left: %d logins, want 1", n)
	}
	clk.Advance(2 * time.Minute) // 4 minutes left: renew
	do(t, func() error { _, err := c.GetDocumentDetails(ctx, cred, "X"); return err })
	if n := f.logins.Load(); n != 2 {
		t.Fatalf("4 minutes left: %d logins, want 2", n)
	}
	do(t, func() error { _, err := c.GetDocumentDetails(ctx, cred, "X"); return err })
	if n := f.logins.Load(); n != 2 {
		t.Fatalf("after renewal: %d logins, want 2", n)
	}

	// Another represented taxpayer, another secret, another host: other tokens.
	other := cred
	other.OnBehalfOf = "C1234567890"
	do(t, func() error { _, err := c.GetDocumentDetails(ctx, other, "X"); return err })
	other2 := cred
	other2.ClientSecret = "other-secret"
	do(t, func() error { _, err := c.GetDocumentDetails(ctx, other2, "X"); return err })
	other3 := cred
	other3.BaseURL = strings.Replace(cred.BaseURL, "127.0.0.1", "localhost", 1)
	do(t, func() error { _, err := c.GetDocumentDetails(ctx, other3, "X"); return err })
	if n := f.logins.Load(); n != 5 {
		t.Fatalf("three other logins: %d logins, want 5", n)
	}
	do(t, func() error { _, err := c.GetDocumentDetails(ctx, other, "X"); return err })
	if n := f.logins.Load(); n != 5 {
		t.Fatalf("cached per key: %d logins, want 5", n)
	}
}

func TestShortTokenRenewedAtHalfLife(t *testing.T) {
	f := newFake(t)
	f.expiresIn = 120
	detailsOK(f, nil, nil)
	clk := newClock()
	c := New(Options{Now: clk.Now, Logger: testLogger(t)})
	ctx := context.Background()
	for _, step := range []struct {
		advance time.Duration
		logins  int32
	}{{0, 1}, {50 * time.Second, 1}, {11 * time.Second, 2}} {
		clk.Advance(step.advance)
		if _, err := c.GetDocumentDetails(ctx, f.creds(), "X"); err != nil {
			t.Fatal(err)
		}
		if n := f.logins.Load(); n != step.logins {
			t.Fatalf("after %v: %d logins, want %d", step.advance, n, step.logins)
		}
	}
}

func TestSingleFlightLogin(t *testing.T) {
	f := newFake(t)
	f.loginDelay = 150 * time.Millisecond
	detailsOK(f, nil, nil)
	c := New(Options{Logger: testLogger(t)})
	var (
		wg     sync.WaitGroup
		failed atomic.Int32
	)
	for range 20 {
		wg.Go(func() {
			if _, err := c.GetDocumentDetails(context.Background(), f.creds(), "X"); err != nil {
				t.Error(err)
				failed.Add(1)
			}
		})
	}
	wg.Wait()
	if n := f.logins.Load(); n != 1 {
		t.Errorf("20 concurrent callers: %d logins, want 1", n)
	}
	if failed.Load() != 0 {
		t.Errorf("%d calls failed", failed.Load())
	}
}

// A caller whose context ends does not fail the others waiting on its login.
func TestSharedLoginSurvivesLeaderCancel(t *testing.T) {
	f := newFake(t)
	started := make(chan struct{})
	f.loginGate = func(n int32, r *http.Request) {
		if n == 1 {
			close(started)
			<-r.Context().Done() // the first login never answers
		}
	}
	detailsOK(f, nil, nil)
	c := New(Options{Logger: testLogger(t)})
	leaderCtx, cancel := context.WithCancel(context.Background())
	leader := make(chan error, 1)
	go func() {
		_, err := c.GetDocumentDetails(leaderCtx, f.creds(), "X")
		leader <- err
	}()
	<-started
	follower := make(chan error, 1)
	go func() {
		_, err := c.GetDocumentDetails(context.Background(), f.creds(), "X")
		follower <- err
	}()
	time.Sleep(50 * time.Millisecond) // let the follower wait on the leader's login
	cancel()
	err := <-leader
	ce := callErr(t, err)
	if ce.Status != 0 || !errors.Is(err, context.Canceled) {
		t.Errorf("leader: %v (status %d), want a cancellation with status 0", err, ce.Status)
	}
	if err := <-follower; err != nil {
		t.Fatalf("follower: %v", err)
	}
	if n := f.logins.Load(); n != 2 {
		t.Errorf("%d logins, want 2", n)
	}
}

func TestUnauthorizedRetriesOnceWithNewToken(t *testing.T) {
	f := newFake(t)
	var calls atomic.Int32
	var auths []string
	var mu sync.Mutex
	f.handle("GET /api/v1.0/documents/{uuid}/details", func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		mu.Lock()
		auths = append(auths, r.Header.Get("Authorization"))
		mu.Unlock()
		writeJSON(w, 200, map[string]any{"uuid": "X", "status": "Valid"})
	})
	c := New(Options{Logger: testLogger(t)})
	ctx := context.Background()
	if _, err := c.GetDocumentDetails(ctx, f.creds(), "X"); err != nil {
		t.Fatal(err)
	}
	f.revoke("tok-1") // the authority forgets the token before its time
	if _, err := c.GetDocumentDetails(ctx, f.creds(), "X"); err != nil {
		t.Fatalf("after revocation: %v", err)
	}
	if n := f.logins.Load(); n != 2 {
		t.Errorf("%d logins, want 2", n)
	}
	if want := []string{"Bearer tok-1", "Bearer tok-2"}; strings.Join(auths, ",") != strings.Join(want, ",") {
		t.Errorf("accepted calls carried %v, want %v", auths, want)
	}

	// A 401 that persists is returned after one retry, not looped on.
	var refused atomic.Int32
	f2 := newFake(t)
	f2.mux.HandleFunc("GET /api/v1.0/documents/{uuid}/details", func(w http.ResponseWriter, r *http.Request) {
		refused.Add(1)
		writeJSON(w, 401, map[string]any{"error": map[string]any{"code": "Unauthorized", "message": "token expired"}})
	})
	_, err := c.GetDocumentDetails(ctx, f2.creds(), "X")
	ce := callErr(t, err)
	if ce.Status != 401 || ce.Body.Code != "Unauthorized" || !ce.Temporary() {
		t.Errorf("persistent 401: %+v", ce)
	}
	if refused.Load() != 2 || f2.logins.Load() != 2 {
		t.Errorf("persistent 401: %d calls and %d logins, want 2 and 2", refused.Load(), f2.logins.Load())
	}
}

func TestLoginRefused(t *testing.T) {
	f := newFake(t)
	detailsOK(f, nil, nil)
	c := New(Options{Logger: testLogger(t)})
	cred := f.creds()
	cred.ClientSecret = "wrong"
	_, err := c.GetDocumentDetails(context.Background(), cred, "X")
	ce := callErr(t, err)
	if ce.Status != 400 || ce.Body.Code != "invalid_client" || ce.Body.Message != "Client authentication failed" {
		t.Errorf("CallError = %+v", ce)
	}
	if !strings.Contains(ce.Op, "login") || ce.Temporary() {
		t.Errorf("Op %q, Temporary %v: want a login failure that is not temporary", ce.Op, ce.Temporary())
	}
	if strings.Contains(err.Error(), "wrong") {
		t.Errorf("the error shows the secret: %v", err)
	}
}

func TestNoSecretsInLogs(t *testing.T) {
	f := newFake(t)
	detailsOK(f, nil, nil)
	var buf bytes.Buffer
	log := slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	c := New(Options{Logger: log})
	if _, err := c.GetDocumentDetails(context.Background(), f.creds(), "X"); err != nil {
		t.Fatal(err)
	}
	f.revoke("tok-1")
	if _, err := c.GetDocumentDetails(context.Background(), f.creds(), "X"); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if !strings.Contains(out, "myinvois call") {
		t.Fatalf("nothing logged: %s", out)
	}
	for _, secret := range []string{testSecret, "tok-1", "tok-2"} {
		if strings.Contains(out, secret) {
			t.Errorf("the log shows %q:\n%s", secret, out)
		}
	}
}
