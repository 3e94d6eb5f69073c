package sandbox_test

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/einvoice/einvoice/internal/sandbox"
)

func TestNotFoundTIN(t *testing.T) {
	t.Parallel()
	for tin, want := range map[string]bool{
		"IG999999999":    true,
		"IG999999999999": true,
		"C99999999990":   true,
		"CS9990":         true,
		"LE990":          true,
		"IG9999999990":   false, // individuals have no trailing 0
		"IG99999999":     false, // too short: malformed
		"C9999999999":    false, // no trailing 0: malformed
		"C99999999900":   false,
		"IG12345678901":  false,
		"C20000000010":   false,
		"EI00000000010":  false,
		"X99999999990":   false,
		"":               false,
	} {
		if got := sandbox.NotFoundTIN(tin); got != want {
			t.Errorf("NotFoundTIN(%q) = %v, want %v", tin, got, want)
		}
	}
}

func TestValidateTIN(t *testing.T) {
	t.Parallel()
	eachEngine(t, func(t *testing.T, e *env) {
		_, hs := e.server()
		c := login(t, hs.URL, "erp-1", "")
		for _, tc := range []struct {
			tin, idType, idValue string
			want                 int
		}{
			{"IG12345678901", "NRIC", "900101015555", 200},
			{"IG123456789", "PASSPORT", "A1234567", 200},
			{"C20000000010", "BRN", "202001234567", 200},
			{"CS1234567890", "BRN", "202001234567", 200},
			{"EI00000000010", "NRIC", "NA", 200},
			{"IG999999999", "NRIC", "900101015555", 404},
			{"C99999999990", "BRN", "202001234567", 404},
			{"C1234567891", "BRN", "202001234567", 400}, // non-individual not ending in 0
			{"IG12345678", "NRIC", "900101015555", 400}, // too short
			{"XY12345670", "BRN", "202001234567", 400},  // unknown prefix
			{"C0000000000", "BRN", "202001234567", 400}, // leading zeros
			{"IG12345678901", "SSN", "900101015555", 400},
			{"IG12345678901", "NRIC", "", 400},
			{"IG12345678901", "", "900101015555", 400},
		} {
			q := url.Values{"idType": {tc.idType}, "idValue": {tc.idValue}}
			r := c.do(http.MethodGet, "/api/v1.0/taxpayer/validate/"+url.PathEscape(tc.tin)+"?"+q.Encode(), nil)
			if r.Status != tc.want {
				t.Errorf("%s %s %s: %d %s, want %d", tc.tin, tc.idType, tc.idValue, r.Status, r.Body, tc.want)
			}
			if r.Status == 200 && len(r.Body) != 0 {
				t.Errorf("%s: body %q, want empty", tc.tin, r.Body)
			}
			if r.Status == 400 && r.errorCode(t) != "BadArgument" {
				t.Errorf("%s: %s, want BadArgument", tc.tin, r.Body)
			}
		}
	})
}
