package dashboard

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/einvoice/einvoice/internal/einvoice"
	"github.com/einvoice/einvoice/internal/web"
)

// TestRefusalsKeepTheirStatus: a page answers a refused action with the
// status of web's one table and the service's message: a 409 stays a
// 409, a 429 or a 503 says "try again later" with Retry-After, a 422
// stays a 422; an error without a code is a 500 that names the request id
// and nothing of the error.
func TestRefusalsKeepTheirStatus(t *testing.T) {
	t.Parallel()
	d := New(Options{})
	for _, c := range []struct {
		err        error
		status     int
		title      string
		retryAfter bool
	}{
		{einvoice.Errorf(einvoice.CodeDocumentNotDraft, "The document is Valid: it cannot be changed."), 409, "Not done", false},
		{einvoice.Errorf(einvoice.CodeConsolidationRunning, "A consolidation is running."), 409, "Not done", false},
		{einvoice.Errorf(einvoice.CodeRateLimitExceeded, "Too many requests to the tax authority."), 429, "Try again later", true},
		{einvoice.Errorf(einvoice.CodeAuthorityUnavailable, "The tax authority does not answer."), 503, "Try again later", true},
		{einvoice.Errorf(einvoice.CodeValidationFailed, "Some fields are not right."), 422, "Not done", false},
	} {
		w := httptest.NewRecorder()
		r := httptest.NewRequest("POST", "/app/documents/x/submit", nil)
		r = r.WithContext(web.WithRequestID(r.Context(), "req-dash-1"))
		d.renderError(w, r, nil, c.err)
		body := w.Body.String()
		if w.Code != c.status || !strings.Contains(body, "<h1>"+c.title+"</h1>") || !strings.Contains(body, errorMessage(c.err)) ||
			!strings.Contains(body, "req-dash-1") || (w.Header().Get("Retry-After") != "") != c.retryAfter {
			t.Errorf("%v: %d %v\n%s", c.err, w.Code, w.Header(), body)
		}
	}
	w := httptest.NewRecorder()
	r := httptest.NewRequest("GET", "/app/documents", nil)
	r = r.WithContext(web.WithRequestID(r.Context(), "req-dash-2"))
	d.renderError(w, r, nil, http.ErrHandlerTimeout)
	if w.Code != 500 || !strings.Contains(w.Body.String(), "req-dash-2") || strings.Contains(w.Body.String(), "timeout") {
		t.Errorf("an uncoded error: %d\n%s", w.Code, w.Body)
	}
}
