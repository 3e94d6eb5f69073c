package httpapi

import (
	"errors"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/einvoice/einvoice/internal/einvoice"
	"github.com/einvoice/einvoice/internal/invoicing"
)

// TestListDocumentsDates: from and to are strict YYYY-MM-DD dates; a bad
// one, or to before from, is a VALIDATION_FAILED naming the parameter,
// together with the other problems of the query. (The lists themselves are
// tested end to end, in cli's period_test.go.)
func TestListDocumentsDates(t *testing.T) {
	s := New(Options{Service: invoicing.New(invoicing.Options{})})
	for _, c := range []struct {
		query string
		want  map[string]string // field -> part of its message
	}{
		{"from=2026-13-01", map[string]string{"from": "YYYY-MM-DD"}},
		{"from=2026-02-29", map[string]string{"from": "YYYY-MM-DD"}},
		{"to=2026-1-31", map[string]string{"to": "YYYY-MM-DD"}},
		{"to=2026-01-31T00:00:00Z", map[string]string{"to": "YYYY-MM-DD"}},
		{"from=31/01/2026&to=tomorrow", map[string]string{"from": "YYYY-MM-DD", "to": "YYYY-MM-DD"}},
		{"from=%202026-01-01", map[string]string{"from": "YYYY-MM-DD"}},
		{"from=2026-02-01&to=2026-01-31", map[string]string{"to": "must not be before from (2026-02-01)"}},
		{"from=2026-02-01&to=2026-01-31&status=paid&type=bill&per_page=0", map[string]string{
			"to": "before from", "status": "must be one of", "type": "must be one of", "per_page": ""}},
		{"from=x&status=Valid", map[string]string{"from": "YYYY-MM-DD"}},
	} {
		r := httptest.NewRequest("GET", "/api/v1/invoices?"+c.query, nil)
		err := s.listDocuments(httptest.NewRecorder(), r, &einvoice.APIKey{})
		var e *einvoice.Error
		if !errors.As(err, &e) || e.Code != einvoice.CodeValidationFailed {
			t.Errorf("%s: %v, want VALIDATION_FAILED", c.query, err)
			continue
		}
		if len(e.Fields) != len(c.want) {
			t.Errorf("%s: fields %v, want %d of them", c.query, e.Fields, len(c.want))
		}
		for field, part := range c.want {
			if msgs := e.Fields[field]; len(msgs) != 1 || !strings.Contains(msgs[0], part) {
				t.Errorf("%s: %s = %q, want one message with %q", c.query, field, msgs, part)
			}
		}
	}
}
