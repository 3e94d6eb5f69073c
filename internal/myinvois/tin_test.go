package myinvois

import (
	"context"
	"net/http"
	"sync/atomic"
	"testing"
	"time"
)

func TestValidateTIN(t *testing.T) {
	f := newFake(t)
	var calls atomic.Int32
	f.handle("GET /api/v1.0/taxpayer/validate/{tin}", func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		q := r.URL.Query()
		switch tin := r.PathValue("tin"); {
		case tin == "C1234567890" && q.Get("idType") == "BRN" && q.Get("idValue") == "201901234567":
			w.WriteHeader(200)
		case tin == "IG 1/2":
			if r.URL.EscapedPath() != "/api/v1.0/taxpayer/validate/IG%201%2F2" {
				t.Errorf("path %q, want the TIN escaped", r.URL.EscapedPath())
			}
			w.WriteHeader(200)
		case tin == "BAD":
			writeJSON(w, 400, map[string]any{"error": map[string]any{"code": "BadArgument", "message": "Invalid TIN"}})
		case tin == "GATEWAY":
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(404)
			_, _ = w.Write([]byte("<html><title>404 Not Found</title></html>"))
		case tin == "SLOW":
			w.Header().Set("Retry-After", "7")
			w.WriteHeader(429)
		default:
			w.WriteHeader(404)
		}
	})
	clk := newClock()
	c := New(Options{Now: clk.Now, Logger: testLogger(t)})
	ctx := context.Background()
	check := func(tin, idType, idValue string, want bool, wantCalls int32) {
		t.Helper()
		got, err := c.ValidateTIN(ctx, f.creds(), tin, idType, idValue)
		if err != nil || got != want {
			t.Errorf("%s %s %s: %v, %v; want %v", tin, idType, idValue, got, err, want)
		}
		if n := calls.Load(); n != wantCalls {
			t.Errorf("%s %s %s: %d calls so far, want %d", tin, idType, idValue, n, wantCalls)
		}
	}
	check("C1234567890", "BRN", "201901234567", true, 1)
	check("C1234567890", "BRN", "201901234567", true, 1) // cached
	check("C1234567890", "BRN", "999999999999", false, 2)
	check("C1234567890", "BRN", "999999999999", false, 2) // not found is cached too
	check("IG 1/2", "NRIC", "1", true, 3)

	for _, tin := range []string{"BAD", "SLOW", "GATEWAY"} {
		_, err := c.ValidateTIN(ctx, f.creds(), tin, "BRN", "1")
		ce := callErr(t, err)
		if tin == "BAD" && (ce.Status != 400 || ce.Body.Code != "BadArgument") ||
			tin == "SLOW" && (ce.Status != 429 || ce.RetryAfter != 7*time.Second) ||
			tin == "GATEWAY" && (ce.Status != 404 || ce.Err == nil) {
			t.Errorf("%s: %+v", tin, ce)
		}
	}
	if _, err := c.ValidateTIN(ctx, f.creds(), "BAD", "BRN", "1"); err == nil {
		t.Error("a failure was cached")
	}
	before := calls.Load()
	clk.Advance(23 * time.Hour)
	check("C1234567890", "BRN", "201901234567", true, before)
	clk.Advance(2 * time.Hour) // past the 24 hours
	check("C1234567890", "BRN", "201901234567", true, before+1)
}

func TestTINCacheBounded(t *testing.T) {
	clk := newClock()
	tc := newTINCache(time.Hour, 3)
	for i, tin := range []string{"A", "B", "C", "D"} {
		tc.put(tinKey{tin: tin}, i%2 == 0, clk.Now())
	}
	if len(tc.entries) != 3 || tc.order.Len() != 3 {
		t.Fatalf("%d entries, want 3", len(tc.entries))
	}
	if _, ok := tc.get(tinKey{tin: "A"}, clk.Now()); ok {
		t.Error("the oldest entry was kept")
	}
	if found, ok := tc.get(tinKey{tin: "C"}, clk.Now()); !ok || !found {
		t.Errorf("C: %v, %v", found, ok)
	}
	if found, ok := tc.get(tinKey{tin: "D"}, clk.Now()); !ok || found {
		t.Errorf("D: %v, %v", found, ok)
	}
	off := newTINCache(-1, 3)
	off.put(tinKey{tin: "A"}, true, clk.Now())
	if _, ok := off.get(tinKey{tin: "A"}, clk.Now()); ok {
		t.Error("a negative TTL still caches")
	}
}
