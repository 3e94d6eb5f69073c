package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/einvoice/einvoice/client"
)

// TestRetriesRateLimited: against a real service that allows 2 requests a
// second per key, a client with retries waits out the 429s (Retry-After);
// one without gets the 429 as an *Error with RetryAfter.
func TestRetriesRateLimited(t *testing.T) {
	url, key, stop, err := serve(filepath.Join(t.TempDir(), "rl.db"), "--rate-limit", "2", "--rate-window", "1s")
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	ctx := context.Background()
	patient := client.New(url, key, client.WithRetries(5), client.WithBackoff(50*time.Millisecond, 3*time.Second))
	for i := range 5 {
		if _, err := patient.Profile.Get(ctx); err != nil {
			t.Fatalf("request %d with retries: %v", i, err)
		}
	}
	impatient := client.New(url, key, client.WithRetries(0))
	var last error
	for range 4 {
		if _, last = impatient.Profile.Get(ctx); last != nil {
			break
		}
	}
	if e := asError(t, last); e.StatusCode != 429 || e.Code != client.CodeRateLimitExceeded || e.RetryAfter <= 0 {
		t.Errorf("without retries: %+v, want 429 RATE_LIMIT_EXCEEDED with a Retry-After", e)
	}
}

// flaky answers the statuses in turn, then 200 with an empty object, and
// counts the requests. A fake: the real service cannot be made to fail on
// demand.
func flaky(t *testing.T, statuses ...int) (*httptest.Server, *atomic.Int32) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		i := int(n.Add(1)) - 1
		w.Header().Set("Content-Type", "application/json")
		if i < len(statuses) {
			w.Header().Set("Retry-After", "0")
			w.WriteHeader(statuses[i])
			code := "X"
			if statuses[i] == http.StatusConflict && r.Header.Get("Idempotency-Key") != "" {
				code = client.CodeIdempotencyKeyInUse
			}
			_ = json.NewEncoder(w).Encode(map[string]any{"success": false, "message": "try later", "error_code": code})
			return
		}
		_, _ = io.WriteString(w, `{"success": true, "data": {"id": "p1", "name": "ok"}}`)
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

// TestRetryPolicy: what is retried, by method and outcome.
func TestRetryPolicy(t *testing.T) {
	ctx := context.Background()
	opts := []client.Option{client.WithRetries(2), client.WithBackoff(time.Millisecond, 10*time.Millisecond)}
	for _, tc := range []struct {
		name     string
		statuses []int
		call     func(c *client.Client) error
		wantN    int32
		wantErr  int
	}{
		{"GET after 503s", []int{503, 502}, func(c *client.Client) error { _, err := c.Buyers.Get(ctx, "p1"); return err }, 3, 0},
		{"GET gives up", []int{503, 503, 503}, func(c *client.Client) error { _, err := c.Buyers.Get(ctx, "p1"); return err }, 3, 503},
		{"PUT after 504", []int{504}, func(c *client.Client) error { _, err := c.Buyers.Update(ctx, "p1", &client.Party{}); return err }, 2, 0},
		{"POST after 503 (its own key)", []int{503}, func(c *client.Client) error { _, err := c.Buyers.Create(ctx, &client.Party{}); return err }, 2, 0},
		{"POST after 409 IDEMPOTENCY_KEY_IN_USE", []int{409}, func(c *client.Client) error { _, err := c.Buyers.Create(ctx, &client.Party{}); return err }, 2, 0},
		{"no retry of another 409", []int{409}, func(c *client.Client) error { _, err := c.Buyers.Update(ctx, "p1", &client.Party{}); return err }, 1, 409},
		{"POST with an empty key (none sent) not after 503", []int{503}, func(c *client.Client) error {
			_, err := c.Buyers.Create(ctx, &client.Party{}, client.IdempotencyKey(""))
			return err
		}, 1, 503},
		{"POST without a key not after 503", []int{503}, func(c *client.Client) error {
			_, err := c.Do(ctx, &client.Request{Method: "POST", Path: "/api/v1/buyers", Body: "{}", Header: http.Header{"Idempotency-Key": nil}}, nil)
			return err
		}, 1, 503},
		{"POST after 429", []int{429}, func(c *client.Client) error { _, err := c.Buyers.Create(ctx, &client.Party{}); return err }, 2, 0},
		{"POST with a key after 503", []int{503}, func(c *client.Client) error {
			_, err := c.Buyers.Create(ctx, &client.Party{}, client.IdempotencyKey("k1"))
			return err
		}, 2, 0},
		{"no retry of a 422", []int{422}, func(c *client.Client) error { _, err := c.Buyers.Get(ctx, "p1"); return err }, 1, 422},
		{"no retry of a 500", []int{500}, func(c *client.Client) error { _, err := c.Buyers.Get(ctx, "p1"); return err }, 1, 500},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, n := flaky(t, tc.statuses...)
			err := tc.call(client.New(srv.URL, "k", opts...))
			if got := n.Load(); got != tc.wantN {
				t.Errorf("%d requests, want %d", got, tc.wantN)
			}
			if tc.wantErr == 0 && err != nil {
				t.Errorf("err = %v, want success", err)
			}
			if tc.wantErr != 0 {
				if e := asError(t, err); e.StatusCode != tc.wantErr || e.Message != "try later" {
					t.Errorf("err = %+v, want %d", e, tc.wantErr)
				}
			}
		})
	}
}

// TestRetryKeepsKey: every POST carries an Idempotency-Key, a new one per
// call, the same on each of its attempts; the caller's own when given.
func TestRetryKeepsKey(t *testing.T) {
	var keys []string
	fails := 2
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		keys = append(keys, r.Header.Get("Idempotency-Key"))
		w.Header().Set("Content-Type", "application/json")
		if fails > 0 {
			fails--
			hj, _ := w.(http.Hijacker)
			conn, _, _ := hj.Hijack()
			conn.Close() // a broken connection: the POST may have run
			return
		}
		_, _ = io.WriteString(w, `{"success": true, "data": {"id": "p1"}}`)
	}))
	defer srv.Close()
	ctx := context.Background()
	c := client.New(srv.URL, "k", client.WithRetries(3), client.WithBackoff(time.Millisecond, 5*time.Millisecond))
	if _, err := c.Buyers.Create(ctx, &client.Party{}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Buyers.Create(ctx, &client.Party{}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Documents.Validate(ctx, "d1", client.IdempotencyKey("mine-1")); err != nil {
		t.Fatal(err)
	}
	if len(keys) != 5 || keys[0] == "" || keys[1] != keys[0] || keys[2] != keys[0] || keys[3] == keys[0] || keys[3] == "" || keys[4] != "mine-1" {
		t.Errorf("keys sent = %q; want one key for the 3 attempts of the first call, another for the second, the caller's for the third", keys)
	}
}

// TestRetryAfterTooLong: a Retry-After beyond the longest wait is not waited
// for; a cancelled context stops the waits.
func TestRetryAfterTooLong(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "120")
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(429)
		_, _ = io.WriteString(w, `{"success": false, "message": "slow down", "error_code": "RATE_LIMIT_EXCEEDED"}`)
	}))
	defer srv.Close()
	start := time.Now()
	_, err := client.New(srv.URL, "k", client.WithRetries(3)).Profile.Get(context.Background())
	if e := asError(t, err); e.RetryAfter != 120*time.Second || time.Since(start) > 5*time.Second {
		t.Errorf("err = %+v after %v, want at once with RetryAfter 2m", e, time.Since(start))
	}

	slow, _ := flaky(t, 503, 503, 503, 503)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = client.New(slow.URL, "k", client.WithRetries(3)).Buyers.Get(ctx, "p1")
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v, want context.Canceled", err)
	}
}

// TestRetryUnreachable: a service that refuses connections is retried for
// every method (nothing can have run), then reported as a transport error.
func TestRetryUnreachable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	_, err = client.New("http://"+addr, "k", client.WithRetries(2), client.WithBackoff(time.Millisecond, time.Millisecond)).
		Buyers.Create(context.Background(), &client.Party{})
	var e *client.Error
	var op *net.OpError
	if errors.As(err, &e) || !errors.As(err, &op) {
		t.Errorf("err = %v, want a wrapped *net.OpError", err)
	}
}

// TestHeaders: the key, the idempotency key, the user agent, and a removed
// header.
func TestHeaders(t *testing.T) {
	var got http.Header
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r.Header.Clone()
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"success": true, "data": {}}`)
	}))
	defer srv.Close()
	c := client.New(srv.URL, "eik_secret", client.WithUserAgent("erp-connector/1.2"))
	if _, err := c.Buyers.Create(context.Background(), &client.Party{Name: "x"}, client.IdempotencyKey("abc")); err != nil {
		t.Fatal(err)
	}
	if got.Get("Authorization") != "Bearer eik_secret" || got.Get("Idempotency-Key") != "abc" ||
		got.Get("Content-Type") != "application/json" || got.Get("User-Agent") != "erp-connector/1.2 einvoice-go/"+client.Version {
		t.Errorf("headers = %v", got)
	}
	if _, err := c.Do(context.Background(), &client.Request{Method: "GET", Path: "/api/v1/profile",
		Header: http.Header{"Authorization": nil}}, nil); err != nil {
		t.Fatal(err)
	}
	if got.Get("Authorization") != "" {
		t.Errorf("Authorization sent though removed: %q", got.Get("Authorization"))
	}
}

// TestErrorOfAProxy: an answer that is not the service's JSON still is an
// *Error, with the status and no code.
func TestErrorOfAProxy(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(502)
		_, _ = io.WriteString(w, "<html>Bad Gateway</html>")
	}))
	defer srv.Close()
	_, err := client.New(srv.URL, "k", client.WithRetries(0)).Buyers.Get(context.Background(), "x")
	if e := asError(t, err); e.StatusCode != 502 || e.Code != "" || e.Message != "Bad Gateway" || string(e.Body) != "<html>Bad Gateway</html>" ||
		e.Error() != "einvoice: GET /api/v1/buyers/x: 502: Bad Gateway" {
		t.Errorf("err = %+v", e)
	}
}

// TestAuthorityErrors: the tax authority's errors are read into
// Error.Authority, a field named authority into Fields.
func TestAuthorityErrors(t *testing.T) {
	body := `{"success": false, "message": "refused", "error_code": "AUTHORITY_REJECTED",
	  "errors": {"authority": [{"code": "DS302", "message": "duplicate", "details": [{"code": "X", "message": "y"}]}]}}`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(422)
		if r.URL.Path == "/api/v1/profile" {
			body = `{"success": false, "message": "invalid", "error_code": "VALIDATION_FAILED", "errors": {"authority": ["must be an object"]}}`
		}
		_, _ = io.WriteString(w, body)
	}))
	defer srv.Close()
	c := client.New(srv.URL, "k")
	_, err := c.Documents.Submit(context.Background(), "d1")
	if e := asError(t, err); e.Code != client.CodeAuthorityRejected || len(e.Authority) != 1 || e.Authority[0].Code != "DS302" ||
		len(e.Authority[0].Details) != 1 || e.Fields != nil {
		t.Errorf("err = %+v", e)
	}
	_, err = c.Profile.Get(context.Background())
	if e := asError(t, err); e.Authority != nil || len(e.Field("authority")) != 1 {
		t.Errorf("err = %+v, want the field authority", e)
	}
}
