package dashboard_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/einvoice/einvoice/client"
)

// TestDocumentLifecycle: validate, submit, then the Valid document's QR
// code and PDF (framable by our own pages only), and cancel: without a
// reason refused beside the field, with one done.
func TestDocumentLifecycle(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "--sandbox-delay", "0")
	id := f.invoice(t, f.key, f.buyer(t, f.key, "Hebat Group"), "INV-001")
	b := f.browser(t)
	b.signIn(f.owner)
	doc := "/app/documents/" + id
	for _, action := range []string{"validate", "submit"} {
		p := b.post(doc+"/"+action, url.Values{"csrf": {b.csrf(doc)}})
		if p.status != http.StatusSeeOther || p.header.Get("Location") != doc {
			t.Fatalf("%s = %d %q:\n%s", action, p.status, p.header.Get("Location"), p.body)
		}
		if p := b.get(doc); !strings.Contains(p.body, `class="flash flash-ok"`) {
			t.Fatalf("after %s no success message:\n%s", action, p.body)
		}
	}
	f.waitStatus(t, id, client.StatusValid)
	p := b.get(doc)
	if !strings.Contains(p.body, doc+"/qr") || !strings.Contains(p.body, doc+"/cancel") || strings.Contains(p.body, doc+"/submit") {
		t.Fatalf("the Valid document's page:\n%s", p.body)
	}
	if p := b.get(doc + "/qr"); p.status != http.StatusOK || p.header.Get("Content-Type") != "image/png" {
		t.Errorf("qr = %d %q", p.status, p.header.Get("Content-Type"))
	}
	pdf := b.get(doc + "/pdf")
	if pdf.status != http.StatusOK || !strings.HasPrefix(pdf.body, "%PDF") || !strings.Contains(pdf.header.Get("Content-Security-Policy"), "frame-ancestors 'self'") {
		t.Errorf("pdf = %d %q, CSP %q", pdf.status, pdf.header.Get("Content-Type"), pdf.header.Get("Content-Security-Policy"))
	}
	p = b.post(doc+"/cancel", url.Values{"csrf": {b.csrf(doc)}, "reason": {""}})
	if p.status != http.StatusUnprocessableEntity || !strings.Contains(p.body, `id="e-reason"`) {
		t.Fatalf("cancel without a reason = %d:\n%s", p.status, p.body)
	}
	p = b.post(doc+"/cancel", url.Values{"csrf": {b.csrf(doc)}, "reason": {"Wrong buyer <b>"}})
	if p.status != http.StatusSeeOther {
		t.Fatalf("cancel = %d:\n%s", p.status, p.body)
	}
	f.waitStatus(t, id, client.StatusCancelled)
	if p := b.get(doc); !strings.Contains(p.body, "Wrong buyer &lt;b&gt;") {
		t.Errorf("the cancelled document's page does not show the reason:\n%s", p.body)
	}

	// 72 hours after validation the window is closed: no form, and a
	// cancel posted anyway is refused.
	other := f.invoice(t, f.key, f.buyer(t, f.key, "Late Buyer"), "INV-002")
	api := f.api(f.key)
	if _, err := api.Documents.Validate(t.Context(), other); err != nil {
		t.Fatal(err)
	}
	if _, err := api.Documents.Submit(t.Context(), other); err != nil {
		t.Fatal(err)
	}
	f.waitStatus(t, other, client.StatusValid)
	f.clock.Advance(73 * time.Hour)
	b.signIn(f.owner)
	late := "/app/documents/" + other
	if p := b.get(late); p.status != http.StatusOK || strings.Contains(p.body, late+"/cancel") {
		t.Errorf("after the 72-hour window = %d, the cancel form shown: %v", p.status, strings.Contains(p.body, late+"/cancel"))
	}
	if p := b.post(late+"/cancel", url.Values{"csrf": {b.csrf(late)}, "reason": {"Too late"}}); p.status != http.StatusUnprocessableEntity {
		t.Errorf("cancel after the window = %d, want 422", p.status)
	}
}
