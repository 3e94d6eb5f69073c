package httpapi

import (
	"encoding/json"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/einvoice/einvoice/internal/einvoice"
	"github.com/einvoice/einvoice/internal/web"
)

// TestAuthorityErrorHints: an AUTHORITY_REJECTED answer carries the
// authority's own code and message, and the hint of a DS3xx code beside
// them.
func TestAuthorityErrorHints(t *testing.T) {
	e := einvoice.Errorf(einvoice.CodeAuthorityRejected, "refused")
	e.Authority = []einvoice.AuthorityError{{Code: "Error21", Message: "Step08", Details: []einvoice.AuthorityError{{Code: "DS326", Message: "X509IssuerName mismatch"}}}}
	w := httptest.NewRecorder()
	web.WriteError(w, httptest.NewRequest("POST", "/api/v1/documents/x/submit", nil), slog.New(slog.DiscardHandler), e)
	var body struct {
		Errors struct {
			Authority []struct {
				Code    string
				Hint    string
				Details []struct{ Code, Message, Hint string }
			}
		}
	}
	if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil {
		t.Fatal(err)
	}
	a := body.Errors.Authority
	if w.Code != 422 || len(a) != 1 || a[0].Code != "Error21" || a[0].Hint != "" || len(a[0].Details) != 1 ||
		a[0].Details[0].Message != "X509IssuerName mismatch" || !strings.Contains(a[0].Details[0].Hint, "X509IssuerName") {
		t.Errorf("%d %s", w.Code, w.Body)
	}
}
