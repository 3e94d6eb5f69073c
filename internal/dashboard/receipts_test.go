package dashboard_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/einvoice/einvoice/client"
)

// receipt records a receipt of key numbered number, issued at.
func (f *fixture) receipt(t *testing.T, key, number string, at time.Time) string {
	t.Helper()
	r, err := f.api(key).Receipts.Create(t.Context(), &client.ReceiptInput{ReceiptNumber: number, IssuedAt: at,
		Lines: []client.Line{{Classifications: []string{"004"}, ProductDescription: "Coffee <b>", Quantity: "1", UnitCode: "C62",
			UnitPrice: "10.00", Taxes: []client.LineTax{{TaxType: "06", TaxRate: "0"}}}}})
	if err != nil {
		t.Fatalf("create receipt %s: %v", number, err)
	}
	return r.ID
}

// TestReceipts: 30 receipts make 2 pages; the month, status and search
// filter; a wrong month is shown beside its field; a receipt's page shows
// its amounts and request page (link and QR code), HTML escaped; delete is
// refused without the CSRF token, for a read-only key and for another
// tenant (404), and done for an open receipt.
func TestReceipts(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "--rate-limit", "100000")
	now := time.Now()
	var first string
	for i := range 30 {
		id := f.receipt(t, f.key, fmt.Sprintf("RC-%03d", i), now.Add(-time.Duration(i)*time.Minute))
		if i == 0 {
			first = id
		}
	}
	f.receipt(t, f.key, "<script>alert(1)</script>", now.Add(-time.Hour))
	b := f.browser(t)
	b.signIn(f.owner)
	p := b.get("/app/receipts")
	if n := strings.Count(p.body, `<a href="/app/receipts/`); p.status != http.StatusOK || n != 25 || !strings.Contains(p.body, "Page 1 of 2") {
		t.Fatalf("page 1 = %d, %d rows:\n%s", p.status, n, p.body)
	}
	if p := b.get("/app/receipts?page=2"); strings.Count(p.body, `<a href="/app/receipts/`) != 6 {
		t.Errorf("page 2:\n%s", p.body)
	}
	if p := b.get("/app/receipts?search=RC-01"); strings.Count(p.body, `<a href="/app/receipts/`) != 10 {
		t.Errorf("search RC-01:\n%s", p.body)
	}
	if p := b.get("/app/receipts?status=consolidated"); !strings.Contains(p.body, "No receipts match.") {
		t.Errorf("status consolidated:\n%s", p.body)
	}
	if p := b.get("/app/receipts?month=2000-01"); !strings.Contains(p.body, "No receipts match.") {
		t.Errorf("month 2000-01:\n%s", p.body)
	}
	if p := b.get("/app/receipts?month=May"); p.status != http.StatusOK || !strings.Contains(p.body, `id="e-month"`) || !strings.Contains(p.body, `value="May"`) {
		t.Errorf("a wrong month = %d:\n%s", p.status, p.body)
	}
	if p := b.get("/app/receipts?search=%3Cscript"); strings.Contains(p.body, "<script>alert(1)</script>") || !strings.Contains(p.body, "&lt;script&gt;alert(1)&lt;/script&gt;") {
		t.Errorf("a receipt number is not escaped:\n%s", p.body)
	}

	doc := "/app/receipts/" + first
	p = b.get(doc)
	if p.status != http.StatusOK || !strings.Contains(p.body, "/r/") || !strings.Contains(p.body, doc+"/qr") || !strings.Contains(p.body, "10.00") ||
		!strings.Contains(p.body, "Coffee &lt;b&gt;") || !strings.Contains(p.body, doc+"/delete") {
		t.Fatalf("the receipt's page = %d:\n%s", p.status, p.body)
	}
	if p := b.get(doc + "/qr"); p.status != http.StatusOK || p.header.Get("Content-Type") != "image/png" {
		t.Errorf("qr = %d %q", p.status, p.header.Get("Content-Type"))
	}
	if p := b.post(doc+"/delete", url.Values{}); p.status != http.StatusForbidden {
		t.Errorf("delete without the CSRF token = %d, want 403", p.status)
	}
	ro := f.personIn(t, f.demoTenant(t), "viewer", "Aisyah")
	rb := f.browser(t)
	rb.signIn(ro)
	if p := rb.get(doc); p.status != http.StatusOK || strings.Contains(p.body, doc+"/delete") {
		t.Errorf("a read-only key's page = %d, with delete: %v", p.status, strings.Contains(p.body, doc+"/delete"))
	}
	if p := rb.post(doc+"/delete", url.Values{"csrf": {rb.csrf("/app/receipts")}}); p.status != http.StatusForbidden {
		t.Errorf("a read-only key's delete = %d, want 403", p.status)
	}
	otherTenant, _ := f.newTenant(t, "Other")
	ob := f.browser(t)
	ob.signIn(f.personIn(t, otherTenant, "owner", "Other owner"))
	if p := ob.get(doc); p.status != http.StatusNotFound {
		t.Errorf("another tenant's receipt = %d, want 404", p.status)
	}
	if p := ob.post(doc+"/delete", url.Values{"csrf": {ob.csrf("/app/receipts")}}); p.status != http.StatusNotFound {
		t.Errorf("another tenant's delete = %d, want 404", p.status)
	}
	p = b.post(doc+"/delete", url.Values{"csrf": {b.csrf(doc)}})
	if p.status != http.StatusSeeOther || p.header.Get("Location") != "/app/receipts" {
		t.Fatalf("delete = %d %q:\n%s", p.status, p.header.Get("Location"), p.body)
	}
	if p := b.get("/app/receipts"); !strings.Contains(p.body, "Receipt deleted.") || !strings.Contains(p.body, "30 receipts.") {
		t.Errorf("after delete:\n%s", p.body)
	}
	if p := b.get(doc); p.status != http.StatusNotFound {
		t.Errorf("the deleted receipt = %d, want 404", p.status)
	}
}

// lastMonth is the Malaysian month before now's, and a time within it.
func lastMonth(now time.Time) (string, time.Time) {
	my := time.FixedZone("MYT", 8*3600)
	local := now.In(my)
	at := time.Date(local.Year(), local.Month(), 1, 12, 0, 0, 0, my).AddDate(0, 0, -10)
	return at.Format("2006-01"), at
}

// TestConsolidations: a wrong month and a month not ended are refused
// beside the field, what was typed kept; last month's receipts make a
// consolidation (its page lists the documents and counts; its receipts
// link to it); consolidating it again is NOTHING_TO_CONSOLIDATE beside the
// month; a read-only key sees no form and its post is refused; a post
// without the CSRF token is refused; another tenant's is a 404.
func TestConsolidations(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "--sandbox-delay", "0", "--rate-limit", "100000")
	month, at := lastMonth(time.Now())
	rid := f.receipt(t, f.key, "C-001", at)
	f.receipt(t, f.key, "C-002", at.Add(time.Hour))
	b := f.browser(t)
	b.signIn(f.owner)
	list := "/app/consolidations"
	if p := b.get(list); p.status != http.StatusOK || !strings.Contains(p.body, "No consolidations yet.") || !strings.Contains(p.body, `id="f-month"`) {
		t.Fatalf("the empty list = %d:\n%s", p.status, p.body)
	}
	if p := b.post(list, url.Values{"csrf": {b.csrf(list)}, "month": {"<b>13"}}); p.status != http.StatusUnprocessableEntity ||
		!strings.Contains(p.body, `id="e-month"`) || !strings.Contains(p.body, `value="&lt;b&gt;13"`) {
		t.Errorf("a wrong month = %d:\n%s", p.status, p.body)
	}
	this := time.Now().In(time.FixedZone("MYT", 8*3600)).Format("2006-01")
	if p := b.post(list, url.Values{"csrf": {b.csrf(list)}, "month": {this}}); p.status != http.StatusUnprocessableEntity || !strings.Contains(p.body, "has not ended") {
		t.Errorf("this month = %d:\n%s", p.status, p.body)
	}
	if p := b.post(list, url.Values{"month": {month}}); p.status != http.StatusForbidden {
		t.Errorf("consolidate without the CSRF token = %d, want 403", p.status)
	}
	ro := f.personIn(t, f.demoTenant(t), "viewer", "Aisyah")
	rb := f.browser(t)
	rb.signIn(ro)
	if p := rb.get(list); strings.Contains(p.body, `id="f-month"`) {
		t.Errorf("a read-only key sees the consolidate form")
	}
	if p := rb.post(list, url.Values{"csrf": {rb.csrf(list)}, "month": {month}}); p.status != http.StatusForbidden {
		t.Errorf("a read-only key's consolidate = %d, want 403", p.status)
	}

	p := b.post(list, url.Values{"csrf": {b.csrf(list)}, "month": {month}})
	loc := p.header.Get("Location")
	if p.status != http.StatusSeeOther || !strings.HasPrefix(loc, list+"/") {
		t.Fatalf("consolidate = %d %q:\n%s", p.status, loc, p.body)
	}
	p = b.get(loc)
	if p.status != http.StatusOK || !strings.Contains(p.body, `class="flash flash-ok"`) || !strings.Contains(p.body, `<a href="/app/documents/`) ||
		!strings.Contains(p.body, "Consolidation of "+month) {
		t.Fatalf("the consolidation's page = %d:\n%s", p.status, p.body)
	}
	if p := b.get(list); !strings.Contains(p.body, `<a href="`+loc+`">`+month) {
		t.Errorf("the list does not link the consolidation:\n%s", p.body)
	}
	if p := b.get("/app/receipts/" + rid); !strings.Contains(p.body, `href="`+loc+`"`) || strings.Contains(p.body, "/delete") {
		t.Errorf("the consolidated receipt's page:\n%s", p.body)
	}
	p = b.post(list, url.Values{"csrf": {b.csrf(list)}, "month": {month}})
	if p.status != http.StatusUnprocessableEntity || !strings.Contains(p.body, `id="e-month"`) || !strings.Contains(p.body, "no receipt left") {
		t.Errorf("consolidate again = %d:\n%s", p.status, p.body)
	}
	otherTenant, _ := f.newTenant(t, "Other")
	ob := f.browser(t)
	ob.signIn(f.personIn(t, otherTenant, "owner", "Other owner"))
	if p := ob.get(loc); p.status != http.StatusNotFound {
		t.Errorf("another tenant's consolidation = %d, want 404", p.status)
	}
}
