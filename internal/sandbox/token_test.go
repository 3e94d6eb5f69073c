package sandbox_test

import (
	"net/http"
	"net/url"
	"testing"
	"time"
)

func TestToken(t *testing.T) {
	eachEngine(t, func(t *testing.T, e *env) {
		_, hs := e.server()
		c := newClient(t, hs.URL)
		good := func() url.Values {
			return url.Values{"client_id": {"erp-1"}, "client_secret": {"s3cret"}, "grant_type": {"client_credentials"}, "scope": {"InvoicingAPI"}}
		}
		r := c.loginRaw(good(), "")
		body := r.JSON(t)
		if r.Status != http.StatusOK || body["token_type"] != "Bearer" || body["expires_in"] != float64(3600) ||
			body["scope"] != "InvoicingAPI" || body["access_token"] == "" || r.Header.Get("correlationId") == "" {
			t.Fatalf("login = %d %s (correlationId %q)", r.Status, r.Body, r.Header.Get("correlationId"))
		}
		c.token = body["access_token"].(string)

		for _, tc := range []struct {
			name string
			edit func(url.Values)
			want string
		}{
			{"no client_id", func(v url.Values) { v.Del("client_id") }, "invalid_client"},
			{"empty secret", func(v url.Values) { v.Set("client_secret", "") }, "invalid_client"},
			{"no grant_type", func(v url.Values) { v.Del("grant_type") }, "invalid_request"},
			{"password grant", func(v url.Values) { v.Set("grant_type", "password") }, "unsupported_grant_type"},
			{"other scope", func(v url.Values) { v.Set("scope", "Everything") }, "invalid_scope"},
			{"NUL in client_id", func(v url.Values) { v.Set("client_id", "a\x00b") }, "invalid_client"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				form := good()
				tc.edit(form)
				r := newClient(t, hs.URL).loginRaw(form, "")
				if r.Status != http.StatusBadRequest || r.JSON(t)["error"] != tc.want {
					t.Errorf("login = %d %s, want 400 %s", r.Status, r.Body, tc.want)
				}
			})
		}

		// The token works, an unknown one does not, and it expires after an hour.
		if r := c.do(http.MethodGet, "/api/v1.0/taxpayer/validate/IG12345678901?idType=NRIC&idValue=900101015555", nil); r.Status != http.StatusOK {
			t.Errorf("call with token = %d %s", r.Status, r.Body)
		}
		bad := newClient(t, hs.URL)
		for _, tok := range []string{"", "nope"} {
			bad.token = tok
			if r := bad.do(http.MethodGet, "/api/v1.0/documents/search", nil); r.Status != http.StatusUnauthorized || r.errorCode(t) != "Unauthorized" {
				t.Errorf("token %q: %d %s, want 401", tok, r.Status, r.Body)
			}
		}
		e.clock.Advance(59 * time.Minute)
		if r := c.do(http.MethodGet, "/api/v1.0/taxpayer/validate/IG12345678901?idType=NRIC&idValue=900101015555", nil); r.Status != http.StatusOK {
			t.Errorf("after 59 minutes: %d, want 200", r.Status)
		}
		e.clock.Advance(time.Minute)
		if r := c.do(http.MethodGet, "/api/v1.0/taxpayer/validate/IG12345678901?idType=NRIC&idValue=900101015555", nil); r.Status != http.StatusUnauthorized {
			t.Errorf("after an hour: %d, want 401", r.Status)
		}
	})
}
