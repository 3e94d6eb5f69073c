package dashboard_test

import (
	"net/http"
	"strings"
	"testing"
)

// TestAuditPage: the Audit log page lists the tenant's changes with their
// actor and route, filters them, and is refused to accountants and viewers (owners and admins read it).
func TestAuditPage(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	buyerID := f.buyer(t, f.key, "Audited Buyer")
	b := f.browser(t)
	b.signIn(f.owner)
	p := b.get("/app/audit?resource=buyer:" + buyerID)
	if p.status != http.StatusOK || !strings.Contains(p.body, "1 entries.") || !strings.Contains(p.body, "POST /api/v1/buyers") ||
		!strings.Contains(p.body, buyerID) {
		t.Fatalf("the Audit log page = %d:\n%s", p.status, p.body)
	}
	if p := b.get("/app/audit?actor=service"); p.status != http.StatusOK || !strings.Contains(p.body, "No entries match.") {
		t.Errorf("filtered by the service = %d:\n%s", p.status, p.body)
	}
	if p := b.get("/app/audit?actor=owner@example.com"); p.status != http.StatusOK || !strings.Contains(p.body, "Owner") {
		t.Errorf("filtered by the owner = %d:\n%s", p.status, p.body)
	}
	for _, role := range []string{"accountant", "viewer"} {
		rb := f.browser(t)
		rb.signIn(f.personIn(t, f.demoTenant(t), role, "Audit "+role))
		if p := rb.get("/app/audit"); p.status != http.StatusForbidden {
			t.Errorf("an %s's Audit log page = %d, want 403", role, p.status)
		}
	}
}
