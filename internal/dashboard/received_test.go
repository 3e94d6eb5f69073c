package dashboard_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// TestReceived: the demo tenant issues two invoices to a second tenant's
// TIN; that tenant's list shows them (filtered, HTML escaped), a document's
// page shows the time left to reject; reject without a reason is refused
// beside the field, a read-only key and a post without the CSRF token are
// refused, another tenant's id is a 404; a rejection within the window is
// done, and after the 72 hours the form is gone and a reject posted anyway
// is refused with the service's message.
func TestReceived(t *testing.T) {
	t.Parallel()
	f := newFixture(t, receivedArgs...)
	tenantB, keyB := f.receiver(t)
	buyer := f.buyer(t, f.key, "Hebat Group")
	f.issueValid(t, buyer, "R-001", "<script>alert(1)</script>")
	f.issueValid(t, buyer, "R-002", "Widget")
	got := f.waitReceived(t, keyB, 2)
	late, first := got[0].ID, got[1].ID
	if got[1].Number != "R-001" {
		late, first = first, late
	}

	b := f.browser(t)
	b.signIn(f.personIn(t, tenantB, "owner", "Hebat admin"))
	p := b.get("/app/received")
	if p.status != http.StatusOK || strings.Count(p.body, `<a href="/app/received/`) != 2 || !strings.Contains(p.body, "R-001") {
		t.Fatalf("the received list = %d:\n%s", p.status, p.body)
	}
	if p := b.get("/app/received?search=R-002"); strings.Count(p.body, `<a href="/app/received/`) != 1 || !strings.Contains(p.body, "R-002") {
		t.Errorf("search R-002:\n%s", p.body)
	}
	if p := b.get("/app/received?status=Cancelled"); !strings.Contains(p.body, "No received documents match.") {
		t.Errorf("status Cancelled:\n%s", p.body)
	}
	if p := b.get("/app/received?from=soon"); p.status != http.StatusOK || !strings.Contains(p.body, `id="e-from"`) || !strings.Contains(p.body, `value="soon"`) {
		t.Errorf("a wrong date = %d:\n%s", p.status, p.body)
	}

	doc := "/app/received/" + first
	p = b.get(doc)
	if p.status != http.StatusOK || !strings.Contains(p.body, "Rejection possible for 7") || !strings.Contains(p.body, doc+"/reject") {
		t.Fatalf("the received document's page = %d:\n%s", p.status, p.body)
	}
	if strings.Contains(p.body, "<script>alert(1)</script>") || !strings.Contains(p.body, "&lt;script&gt;alert(1)&lt;/script&gt;") {
		t.Errorf("the line's description is not escaped:\n%s", p.body)
	}
	if pdf := b.get(doc + "/pdf"); pdf.status != http.StatusOK || !strings.HasPrefix(pdf.body, "%PDF") {
		t.Errorf("pdf = %d", pdf.status)
	}
	if p := b.post(doc+"/reject", url.Values{"csrf": {b.csrf(doc)}, "reason": {"  "}}); p.status != http.StatusUnprocessableEntity || !strings.Contains(p.body, `id="e-reason"`) {
		t.Errorf("reject without a reason = %d:\n%s", p.status, p.body)
	}
	if p := b.post(doc+"/reject", url.Values{"reason": {"Wrong amount"}}); p.status != http.StatusForbidden {
		t.Errorf("reject without the CSRF token = %d, want 403", p.status)
	}

	// A read-only key sees no form, and its post is refused.
	ro := f.personIn(t, tenantB, "viewer", "Aisyah")
	rb := f.browser(t)
	rb.signIn(ro)
	if p := rb.get(doc); p.status != http.StatusOK || strings.Contains(p.body, doc+"/reject") {
		t.Errorf("a read-only key's page = %d, with the reject form: %v", p.status, strings.Contains(p.body, doc+"/reject"))
	}
	if p := rb.post(doc+"/reject", url.Values{"csrf": {rb.csrf("/app/received")}, "reason": {"Wrong amount"}}); p.status != http.StatusForbidden {
		t.Errorf("a read-only key's reject = %d, want 403", p.status)
	}
	// Another tenant (the issuer) does not see it.
	ab := f.browser(t)
	ab.signIn(f.owner)
	if p := ab.get(doc); p.status != http.StatusNotFound {
		t.Errorf("another tenant's received document = %d, want 404", p.status)
	}
	if p := ab.post(doc+"/reject", url.Values{"csrf": {ab.csrf("/app/received")}, "reason": {"x"}}); p.status != http.StatusNotFound {
		t.Errorf("another tenant's reject = %d, want 404", p.status)
	}

	p = b.post(doc+"/reject", url.Values{"csrf": {b.csrf(doc)}, "reason": {"Wrong amount <b>"}})
	if p.status != http.StatusSeeOther || p.header.Get("Location") != doc {
		t.Fatalf("reject = %d %q:\n%s", p.status, p.header.Get("Location"), p.body)
	}
	if p := b.get(doc); !strings.Contains(p.body, "Rejection requested") || strings.Contains(p.body, doc+"/reject") {
		t.Errorf("after the rejection:\n%s", p.body)
	}

	// After the 72 hours: no form; a reject posted anyway is refused.
	f.clock.Advance(73 * time.Hour)
	b.signIn(f.personIn(t, tenantB, "owner", "Hebat admin"))
	other := "/app/received/" + late
	if p := b.get(other); p.status != http.StatusOK || strings.Contains(p.body, other+"/reject") || !strings.Contains(p.body, "rejection window is closed") {
		t.Errorf("after the window = %d:\n%s", p.status, p.body)
	}
	p = b.post(other+"/reject", url.Values{"csrf": {b.csrf(other)}, "reason": {"Too late"}})
	if p.status != http.StatusUnprocessableEntity || !strings.Contains(p.body, "72 hours ago") || !strings.Contains(p.body, `value="Too late"`) {
		t.Errorf("reject after the window = %d:\n%s", p.status, p.body)
	}
}
