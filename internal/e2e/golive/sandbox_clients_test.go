package golive

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/einvoice/einvoice/internal/e2e/e2etest"

	"github.com/einvoice/einvoice/client"
)

// TestSandboxClientsFollowProfiles: the built-in sandbox binds the
// credentials in a tenant's profile to the profile's TIN and follows a
// change of either, without any registration; in intermediary mode to the
// intermediary's own TIN, acting only for the TIN it represents; a client
// id it does not know is refused at login. Logins are raw requests to its
// /connect/token, as reference 1.2 writes them.
func TestSandboxClientsFollowProfiles(t *testing.T) {
	t.Parallel()
	e2etest.EachEngine(t, func(t *testing.T, dsn string) {
		ctx := t.Context()
		svc, c := e2etest.StartLifecycleAPI(t, dsn)
		prof := e2etest.ProfileOf(t, e2etest.SampleProfile())
		update := func(p *client.Profile, au client.AuthorityUpdate) {
			t.Helper()
			au.Environment = "sandbox"
			if _, err := c.Profile.Update(ctx, p, &au); err != nil {
				t.Fatalf("PUT /profile: %v", err)
			}
		}
		login := func(id, secret, onBehalfOf string) (int, map[string]any) {
			t.Helper()
			form := url.Values{"client_id": {id}, "client_secret": {secret}, "grant_type": {"client_credentials"}, "scope": {"InvoicingAPI"}}
			req, err := http.NewRequestWithContext(ctx, http.MethodPost, svc.URL+"/sandbox/connect/token", strings.NewReader(form.Encode()))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			if onBehalfOf != "" {
				req.Header.Set("onbehalfof", onBehalfOf)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var body map[string]any
			if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
				t.Fatal(err)
			}
			if tok, ok := body["access_token"].(string); ok {
				parts := strings.Split(tok, ".")
				if len(parts) != 3 {
					t.Fatalf("access token %q is not a JWT", tok)
				}
				payload, err := base64.RawURLEncoding.DecodeString(parts[1])
				if err != nil {
					t.Fatal(err)
				}
				var claims map[string]any
				if err := json.Unmarshal(payload, &claims); err != nil {
					t.Fatal(err)
				}
				return resp.StatusCode, claims
			}
			return resp.StatusCode, body
		}

		update(prof, client.AuthorityUpdate{Mode: "taxpayer", ClientID: "e2e-erp-1", ClientSecret: "e2e-secret-1"})
		if code, claims := login("e2e-erp-1", "e2e-secret-1", ""); code != http.StatusOK || claims["TaxpayerTIN"] != prof.TIN || claims["client_id"] != "e2e-erp-1" {
			t.Errorf("login with the profile's credentials: %d %v", code, claims)
		}
		for _, bad := range [][2]string{{"e2e-erp-unknown", "e2e-secret-1"}, {"e2e-erp-1", "e2e-secret-2"}} {
			if code, body := login(bad[0], bad[1], ""); code != http.StatusBadRequest || body["error"] != "invalid_client" {
				t.Errorf("login as %v: %d %v", bad, code, body)
			}
		}
		// A new TIN and a new secret are followed.
		moved := *prof
		moved.TIN = "C4000000010"
		update(&moved, client.AuthorityUpdate{Mode: "taxpayer", ClientID: "e2e-erp-1", ClientSecret: "e2e-secret-2"})
		if code, claims := login("e2e-erp-1", "e2e-secret-2", ""); code != http.StatusOK || claims["TaxpayerTIN"] != "C4000000010" {
			t.Errorf("login after the TIN changed: %d %v", code, claims)
		}
		if code, _ := login("e2e-erp-1", "e2e-secret-1", ""); code != http.StatusBadRequest {
			t.Errorf("login with the old secret: %d", code)
		}
		// An intermediary acts for the TIN it represents, and no other.
		update(prof, client.AuthorityUpdate{Mode: "intermediary", OnBehalfOf: prof.TIN, IntermediaryTIN: "C2000000010",
			ClientID: "e2e-erp-1", ClientSecret: "e2e-secret-2"})
		code, claims := login("e2e-erp-1", "e2e-secret-2", prof.TIN)
		if code != http.StatusOK || claims["TaxpayerTIN"] != prof.TIN || claims["IntermedTIN"] != "C2000000010" || claims["onbehalfof"] != prof.TIN {
			t.Errorf("intermediary login: %d %v", code, claims)
		}
		if code, body := login("e2e-erp-1", "e2e-secret-2", "C4000000010"); code != http.StatusBadRequest || body["error"] != "unauthorized_client" {
			t.Errorf("intermediary for another TIN: %d %v", code, body)
		}
	})
}
