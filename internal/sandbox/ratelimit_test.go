package sandbox_test

import (
	"net/http"
	"net/url"
	"strconv"
	"testing"
	"time"

	"github.com/einvoice/einvoice/internal/sandbox"
)

func TestRateLimits(t *testing.T) {
	t.Parallel()
	eachEngine(t, func(t *testing.T, e *env) {
		limited := func(o *sandbox.Options) { o.RateLimits = true }
		_, a := e.server(limited)
		_, b := e.server(limited) // a replica: the windows are shared
		registry.ensure(t, a.URL, "erp-1", supplierTIN, "")
		form := url.Values{"client_id": {"erp-1"}, "client_secret": {"secret-erp-1"}, "grant_type": {"client_credentials"}}
		e.clock.Advance(time.Second) // the window opens at the first call
		for i := range 12 {
			base := a.URL
			if i%2 == 1 {
				base = b.URL
			}
			r := newClient(t, base).loginRaw(form, "")
			if r.Status != http.StatusOK || r.Header.Get("X-Rate-Limit-Limit") != "12" || r.Header.Get("X-Rate-Limit-Remaining") != strconv.Itoa(11-i) {
				t.Fatalf("login %d: %d limit %q remaining %q", i+1, r.Status, r.Header.Get("X-Rate-Limit-Limit"), r.Header.Get("X-Rate-Limit-Remaining"))
			}
		}
		e.clock.Advance(20 * time.Second)
		r := newClient(t, b.URL).loginRaw(form, "")
		if r.Status != http.StatusTooManyRequests || r.Header.Get("Retry-After") != "40" || r.Header.Get("X-Rate-Limit-Reset") == "" || r.errorCode(t) != "TooManyRequests" {
			t.Errorf("13th login: %d %s Retry-After %q", r.Status, r.Body, r.Header.Get("Retry-After"))
		}
		// Another client has its own budget.
		registry.ensure(t, a.URL, "erp-2", supplierTIN, "")
		other := url.Values{"client_id": {"erp-2"}, "client_secret": {"secret-erp-2"}, "grant_type": {"client_credentials"}}
		if r := newClient(t, a.URL).loginRaw(other, ""); r.Status != http.StatusOK {
			t.Errorf("another client: %d", r.Status)
		}
		e.clock.Advance(40 * time.Second)
		if r := newClient(t, a.URL).loginRaw(form, ""); r.Status != http.StatusOK {
			t.Errorf("next minute: %d %s", r.Status, r.Body)
		}

		// Search: 12 per minute per client, counted apart from login.
		c := login(t, a.URL, "erp-3", "")
		q := "/api/v1.0/documents/search?submissionDateFrom=" + url.QueryEscape(t0.Format(time.RFC3339)) +
			"&submissionDateTo=" + url.QueryEscape(t0.Add(time.Hour).Format(time.RFC3339))
		for i := range 13 {
			r := c.do(http.MethodGet, q, nil)
			want := http.StatusOK
			if i == 12 {
				want = http.StatusTooManyRequests
			}
			if r.Status != want {
				t.Fatalf("search %d: %d %s", i+1, r.Status, r.Body)
			}
		}
	})
}

func TestNoRateLimitsByDefault(t *testing.T) {
	t.Parallel()
	eachEngine(t, func(t *testing.T, e *env) {
		_, hs := e.server()
		registry.ensure(t, hs.URL, "erp-1", supplierTIN, "")
		form := url.Values{"client_id": {"erp-1"}, "client_secret": {"secret-erp-1"}, "grant_type": {"client_credentials"}}
		for i := range 15 {
			if r := newClient(t, hs.URL).loginRaw(form, ""); r.Status != http.StatusOK || r.Header.Get("X-Rate-Limit-Limit") != "" {
				t.Fatalf("login %d: %d", i+1, r.Status)
			}
		}
	})
}
