package dashboard_test

import (
	"net/http"
	"strings"
	"testing"
)

// TestAuditPage: the Audit log page lists the tenant's changes with their
// actor and route, filters them, and is refused to a read-only sign-in.
func TestAuditPage(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	buyerID := f.buyer(t, f.key, "Audited Buyer")
	b := f.browser(t)
	b.signIn(f.key)
	p := b.get("/app/audit?resource=buyer:" + buyerID)
	if p.status != http.StatusOK || !strings.Contains(p.body, "1 entries.") || !strings.Contains(p.body, "POST /api/v1/buyers") ||
		!strings.Contains(p.body, buyerID) {
		t.Fatalf("the Audit log page = %d:\n%s", p.status, p.body)
	}
	if p := b.get("/app/audit?actor=service"); p.status != http.StatusOK || !strings.Contains(p.body, "No entries match.") {
		t.Errorf("filtered by the service = %d:\n%s", p.status, p.body)
	}
	ro := f.browser(t)
	ro.signIn(f.run(t, "key", "create", "--tenant", f.demoTenant(t), "--read-only"))
	if p := ro.get("/app/audit"); p.status != http.StatusForbidden {
		t.Errorf("a read-only sign-in's Audit log page = %d, want 403", p.status)
	}
}
