package sandbox_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/einvoice/einvoice/internal/sandbox"
)

func TestToken(t *testing.T) {
	t.Parallel()
	eachEngine(t, func(t *testing.T, e *env) {
		sb, hs := e.server()
		if err := sb.AddClient(context.Background(), sandbox.Client{ID: "erp-1", Secret: "s3cret", TIN: supplierTIN, IDType: "BRN", IDValue: "202001234567"}); err != nil {
			t.Fatal(err)
		}
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
		claims := decodeJWT(t, c.token)
		now := e.clock.Now().Unix()
		if claims["client_id"] != "erp-1" || claims["TaxpayerTIN"] != supplierTIN || claims["iat"] != float64(now) ||
			claims["nbf"] != float64(now) || claims["exp"] != float64(now+3600) || claims["iss"] != "http://"+strings.TrimPrefix(hs.URL, "http://") ||
			claims["name"] != supplierTIN+":erp-1" || claims["IsIntermediary"] != "0" || claims["onbehalfof"] != nil {
			t.Errorf("claims = %v", claims)
		}

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
			{"unknown client_id", func(v url.Values) { v.Set("client_id", "erp-unknown") }, "invalid_client"},
			{"wrong secret", func(v url.Values) { v.Set("client_secret", "guess") }, "invalid_client"},
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
		// A taxpayer cannot act for another TIN; onbehalfof its own TIN is
		// a plain taxpayer login.
		if r := newClient(t, hs.URL).loginRaw(good(), "C30000000010"); r.Status != http.StatusBadRequest || r.JSON(t)["error"] != "unauthorized_client" {
			t.Errorf("taxpayer for another TIN: %d %s", r.Status, r.Body)
		}
		if r := newClient(t, hs.URL).loginRaw(good(), supplierTIN); r.Status != http.StatusOK {
			t.Errorf("taxpayer for itself: %d %s", r.Status, r.Body)
		}
	})
}

// TestTokenIntermediary: an intermediary's token names the represented
// taxpayer and the intermediary.
func TestTokenIntermediary(t *testing.T) {
	t.Parallel()
	eachEngine(t, func(t *testing.T, e *env) {
		_, hs := e.server()
		c := login(t, hs.URL, "agent", buyerTIN)
		claims := decodeJWT(t, c.token)
		if claims["TaxpayerTIN"] != buyerTIN || claims["IntermedTIN"] != intermediaryTIN || claims["IsIntermediary"] != "1" ||
			claims["onbehalfof"] != buyerTIN || claims["client_id"] != "agent" {
			t.Errorf("claims = %v", claims)
		}
	})
}

// decodeJWT checks a compact JWT's form (three base64url parts, a JSON
// header naming HS256 or RS256, a signature) and returns its claims.
func decodeJWT(t *testing.T, token string) map[string]any {
	t.Helper()
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		t.Fatalf("token %q has %d parts, want 3", token, len(parts))
	}
	var header, claims map[string]any
	for i, dst := range []*map[string]any{&header, &claims} {
		b, err := base64.RawURLEncoding.DecodeString(parts[i])
		if err != nil {
			t.Fatalf("part %d: %v", i, err)
		}
		if err := json.Unmarshal(b, dst); err != nil {
			t.Fatalf("part %d: %v", i, err)
		}
	}
	if alg := header["alg"]; (alg != "HS256" && alg != "RS256") || header["typ"] != "JWT" {
		t.Errorf("header = %v", header)
	}
	if sig, err := base64.RawURLEncoding.DecodeString(parts[2]); err != nil || len(sig) < 32 {
		t.Errorf("signature %q: %v", parts[2], err)
	}
	return claims
}
