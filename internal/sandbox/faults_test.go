package sandbox_test

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/einvoice/einvoice/internal/sandbox"
)

func TestFaults(t *testing.T) {
	t.Parallel()
	eachEngine(t, func(t *testing.T, e *env) {
		sb, hs := e.server()
		c := login(t, hs.URL, "erp-1", "")
		// No connection reuse: a dropped connection must not be retried by
		// the transport.
		c.hc = &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
		ctx := context.Background()
		n := 0
		next := func() []byte {
			n++
			return envelope(invoice(invoiceOpts{code: "F-" + string(rune('A'+n)), issued: e.clock.Now()}))
		}
		documents := func() int {
			t.Helper()
			st, err := sb.Stats(ctx)
			if err != nil {
				t.Fatal(err)
			}
			return st.Documents
		}

		sb.AddFault(sandbox.Fault{Endpoint: "submit", Kind: sandbox.FaultFail, Count: 1})
		if r := c.do(http.MethodPost, "/api/v1.0/documentsubmissions/", next()); r.Status != http.StatusInternalServerError || documents() != 0 {
			t.Errorf("fail: %d, %d documents stored", r.Status, documents())
		}
		if r := c.do(http.MethodPost, "/api/v1.0/documentsubmissions/", next()); r.Status != http.StatusAccepted || documents() != 1 {
			t.Errorf("after the fault's count: %d, %d documents", r.Status, documents())
		}

		sb.AddFault(sandbox.Fault{Endpoint: "submit", Kind: sandbox.FaultThrottle, Count: 1, RetryAfter: 7})
		if r := c.do(http.MethodPost, "/api/v1.0/documentsubmissions/", next()); r.Status != http.StatusTooManyRequests || r.Header.Get("Retry-After") != "7" || documents() != 1 {
			t.Errorf("throttle: %d Retry-After %q, %d documents", r.Status, r.Header.Get("Retry-After"), documents())
		}

		sb.AddFault(sandbox.Fault{Endpoint: "submit", Kind: sandbox.FaultDelay, Count: 1, Delay: 300 * time.Millisecond})
		start := time.Now()
		r := c.do(http.MethodPost, "/api/v1.0/documentsubmissions/", next())
		if r.Status != http.StatusAccepted || time.Since(start) < 300*time.Millisecond || r.Header.Get("correlationId") == "" || documents() != 2 {
			t.Errorf("delay: %d after %v", r.Status, time.Since(start))
		}

		sb.AddFault(sandbox.Fault{Endpoint: "submit", Kind: sandbox.FaultDrop, Count: 1})
		if _, err := c.try(http.MethodPost, "/api/v1.0/documentsubmissions/", next()); err == nil || documents() != 3 {
			t.Errorf("drop: error %v, %d documents (want the submission processed)", err, documents())
		}

		sb.AddFault(sandbox.Fault{Endpoint: "submit", Kind: sandbox.FaultDropBefore, Count: 1})
		if _, err := c.try(http.MethodPost, "/api/v1.0/documentsubmissions/", next()); err == nil || documents() != 3 {
			t.Errorf("drop-before: error %v, %d documents (want nothing processed)", err, documents())
		}

		// Late: the caller gives up before the submission is stored; it is
		// stored afterwards all the same.
		sb.AddFault(sandbox.Fault{Endpoint: "submit", Kind: sandbox.FaultLate, Count: 1, Delay: 500 * time.Millisecond})
		patient := c.hc
		c.hc = &http.Client{Timeout: 100 * time.Millisecond, Transport: &http.Transport{DisableKeepAlives: true}}
		if _, err := c.try(http.MethodPost, "/api/v1.0/documentsubmissions/", next()); err == nil || documents() != 3 {
			t.Errorf("late: error %v, %d documents (want no answer, nothing stored yet)", err, documents())
		}
		c.hc = patient
		for deadline := time.Now().Add(20 * time.Second); documents() != 4; time.Sleep(20 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("late: %d documents 20 s after the caller left, want the submission stored", documents())
			}
		}

		// Share 1 and no count: every call until cleared; other endpoints untouched.
		sb.AddFault(sandbox.Fault{Endpoint: "token", Kind: sandbox.FaultFail, Share: 1})
		for range 3 {
			if r := newClient(t, hs.URL).loginRaw(map[string][]string{"client_id": {"a"}, "client_secret": {"b"}, "grant_type": {"client_credentials"}}, ""); r.Status != 500 {
				t.Errorf("login under a lasting fault: %d", r.Status)
			}
		}
		if r := c.do(http.MethodPost, "/api/v1.0/documentsubmissions/", next()); r.Status != http.StatusAccepted {
			t.Errorf("submit while login fails: %d", r.Status)
		}
		sb.ClearFaults()
		login(t, hs.URL, "erp-2", "")

		// "*" matches every endpoint; a share below 1 affects some calls.
		sb.AddFault(sandbox.Fault{Endpoint: "*", Kind: sandbox.FaultFail, Count: 2})
		if r := c.do(http.MethodGet, "/api/v1.0/taxpayer/validate/IG12345678901?idType=NRIC&idValue=1", nil); r.Status != 500 {
			t.Errorf("* on tin: %d", r.Status)
		}
		if r := c.do(http.MethodGet, "/api/v1.0/documents/search", nil); r.Status != 500 {
			t.Errorf("* on search: %d", r.Status)
		}
		sb.AddFault(sandbox.Fault{Endpoint: "tin", Kind: sandbox.FaultFail, Share: 0.5})
		failed := 0
		for range 40 {
			if r := c.do(http.MethodGet, "/api/v1.0/taxpayer/validate/IG12345678901?idType=NRIC&idValue=1", nil); r.Status == 500 {
				failed++
			}
		}
		if failed == 0 || failed == 40 {
			t.Errorf("share 0.5: %d of 40 calls failed", failed)
		}
		sb.ClearFaults()
	})
}

// TestFaultsOverHTTP drives faults and statistics through /sandbox/*.
func TestFaultsOverHTTP(t *testing.T) {
	t.Parallel()
	eachEngine(t, func(t *testing.T, e *env) {
		_, hs := e.server()
		c := login(t, hs.URL, "erp-1", "")
		ctl := newClient(t, hs.URL)
		if r := ctl.do(http.MethodPost, "/sandbox/faults", map[string]any{"endpoint": "details", "kind": "delay", "count": 1, "delay": "200ms"}); r.Status != http.StatusNoContent {
			t.Fatalf("add fault: %d %s", r.Status, r.Body)
		}
		id := c.submitOne(invoice(invoiceOpts{code: "H-1", issued: e.clock.Now()}))
		start := time.Now()
		c.details(id)
		if time.Since(start) < 200*time.Millisecond {
			t.Errorf("details answered after %v, want a 200 ms delay", time.Since(start))
		}
		for _, bad := range []map[string]any{
			{"endpoint": "everything", "kind": "fail"},
			{"endpoint": "submit", "kind": "explode"},
			{"endpoint": "submit", "kind": "delay", "delay": "soon"},
			{"endpoint": "submit", "kind": "fail", "share": 2},
		} {
			if r := ctl.do(http.MethodPost, "/sandbox/faults", bad); r.Status != http.StatusBadRequest {
				t.Errorf("fault %v: %d", bad, r.Status)
			}
		}
		if r := ctl.do(http.MethodPost, "/sandbox/faults", map[string]any{"endpoint": "raw", "kind": "fail"}); r.Status != http.StatusNoContent {
			t.Fatalf("add fault: %d", r.Status)
		}
		if r := c.do(http.MethodGet, "/api/v1.0/documents/"+id+"/raw", nil); r.Status != 500 {
			t.Errorf("raw under fault: %d", r.Status)
		}
		if r := ctl.do(http.MethodDelete, "/sandbox/faults", nil); r.Status != http.StatusNoContent {
			t.Errorf("clear: %d", r.Status)
		}
		if r := c.do(http.MethodGet, "/api/v1.0/documents/"+id+"/raw", nil); r.Status != 200 {
			t.Errorf("raw after clear: %d", r.Status)
		}
		r := ctl.do(http.MethodGet, "/sandbox/stats", nil)
		st := r.JSON(t)
		if r.Status != 200 || st["submissions"] != float64(1) || st["documents"] != float64(1) ||
			st["byCodeNumber"].(map[string]any)[supplierTIN+"/H-1"] != float64(1) {
			t.Errorf("stats: %d %s", r.Status, r.Body)
		}
		// What the faults did, by the endpoint called and the kind.
		if f, _ := st["faults"].(map[string]any); f["details/delay"] != float64(1) || f["raw/fail"] != float64(1) || len(f) != 2 {
			t.Errorf("stats: faults %v, want details/delay 1 and raw/fail 1", st["faults"])
		}
	})
}

// TestClientGoneIsNoError: a call whose client went away (its context is
// cancelled, so the database call fails) is logged at info, not as an
// internal error.
func TestClientGoneIsNoError(t *testing.T) {
	t.Parallel()
	var logs bytes.Buffer
	eachEngine(t, func(t *testing.T, e *env) {
		logs.Reset()
		_, hs := e.server(func(o *sandbox.Options) {
			o.Logger = slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
		})
		c := login(t, hs.URL, "erp-gone", "")
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, "/api/v1.0/documents/search", nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+c.token)
		hs.Config.Handler.ServeHTTP(httptest.NewRecorder(), req)
		if strings.Contains(logs.String(), `"level":"ERROR"`) || !strings.Contains(logs.String(), "client went away") {
			t.Errorf("a cancelled call logged:\n%s\nwant one info line \"client went away\" and no error", logs.String())
		}
	})
}
