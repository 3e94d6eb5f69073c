package dashboard_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// buyerForm is a complete buyer as the form posts it.
func buyerForm(csrf, name string) url.Values {
	return url.Values{"csrf": {csrf}, "name": {name}, "tin": {"C21638015020"}, "idType": {"BRN"}, "idValue": {"201901234567"},
		"sstRegistrationNumber": {"NA"}, "address.line1": {"Lot 66, Bangunan Merdeka"}, "address.city": {"Kuala Lumpur"},
		"address.state": {"14"}, "address.postCode": {"50480"}, "address.countryCode": {"MYS"}, "contact.phone": {"+60123456789"},
		"contact.email": {"ap@hebat.example"}}
}

// TestBuyersEscaped: a buyer named <script>alert(1)</script> shows as text
// on the list and its page, marked ready.
func TestBuyersEscaped(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	id := f.buyer(t, f.key, "<script>alert(1)</script>")
	b := f.browser(t)
	b.signIn(f.owner)
	for _, path := range []string{"/app/buyers", "/app/buyers?search=script", "/app/buyers/" + id} {
		p := b.get(path)
		if p.status != http.StatusOK || !strings.Contains(p.body, "&lt;script&gt;alert(1)&lt;/script&gt;") || strings.Contains(p.body, "<script>alert") {
			t.Fatalf("GET %s = %d, want the name escaped:\n%s", path, p.status, p.body)
		}
		if !strings.Contains(p.body, "Ready") {
			t.Errorf("GET %s does not say the buyer is ready", path)
		}
	}
	if p := b.get("/app/buyers?search=nobody"); !strings.Contains(p.body, "0 buyers") {
		t.Errorf("a search for nobody:\n%s", p.body)
	}
	if p := b.get("/app/buyers?search=" + url.QueryEscape(strings.Repeat("x", 101))); p.status != http.StatusOK || !strings.Contains(p.body, `id="e-search"`) {
		t.Errorf("a long search = %d, want its error beside the field", p.status)
	}
}

// TestBuyerForms: create with bad input (errors beside the fields, values
// kept), create, edit, delete refused while in use and done when not;
// CSRF, read-only and another tenant's ids refused.
func TestBuyerForms(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	b := f.browser(t)
	b.signIn(f.owner)
	csrf := b.csrf("/app/buyers/new")

	bad := buyerForm(csrf, "Kedai <b>Ali</b>")
	bad.Set("tin", "")
	bad.Set("address.state", "99")
	p := b.post("/app/buyers", bad)
	if p.status != http.StatusUnprocessableEntity || !strings.Contains(p.body, `id="e-tin"`) || !strings.Contains(p.body, `id="e-address.state"`) ||
		!strings.Contains(p.body, `value="Kedai &lt;b&gt;Ali&lt;/b&gt;"`) {
		t.Fatalf("bad buyer = %d, want 422 with errors beside tin and state, the name kept:\n%s", p.status, p.body)
	}
	if p := b.get("/app/buyers"); !strings.Contains(p.body, "0 buyers") {
		t.Fatalf("a refused buyer was stored:\n%s", p.body)
	}

	if p := b.post("/app/buyers", buyerForm("", "No token")); p.status != http.StatusForbidden {
		t.Errorf("no CSRF token = %d, want 403", p.status)
	}
	p = b.post("/app/buyers", buyerForm(csrf, "Hebat Group"))
	if p.status != http.StatusSeeOther || !strings.HasPrefix(p.header.Get("Location"), "/app/buyers/") {
		t.Fatalf("create = %d %q:\n%s", p.status, p.header.Get("Location"), p.body)
	}
	path := p.header.Get("Location")
	id := strings.TrimPrefix(path, "/app/buyers/")
	if p := b.get(path); !strings.Contains(p.body, "Saved.") || !strings.Contains(p.body, "Hebat Group") {
		t.Errorf("after create:\n%s", p.body)
	}
	if p := b.get(path + "/edit"); p.status != http.StatusOK || !strings.Contains(p.body, `value="Hebat Group"`) ||
		!strings.Contains(p.body, `<option value="14" selected>`) {
		t.Errorf("edit form = %d:\n%s", p.status, p.body)
	}
	edit := buyerForm(csrf, "Hebat Group Bhd")
	edit.Set("idType", "XYZ")
	if p := b.post(path, edit); p.status != http.StatusUnprocessableEntity || !strings.Contains(p.body, `id="e-idType"`) || !strings.Contains(p.body, `value="Hebat Group Bhd"`) {
		t.Errorf("bad edit = %d, want the id type's error beside it:\n%s", p.status, p.body)
	}
	if p := b.post(path, buyerForm(csrf, "Hebat Group Bhd")); p.status != http.StatusSeeOther {
		t.Errorf("edit = %d:\n%s", p.status, p.body)
	}
	if got, _ := f.api(f.key).Buyers.Get(t.Context(), id); got == nil || got.Name != "Hebat Group Bhd" {
		t.Errorf("after edit: %+v", got)
	}

	// Read-only: no write controls, and its POSTs refused.
	ro := f.personIn(t, f.demoTenant(t), "viewer", "Aisyah")
	rb := f.browser(t)
	rb.signIn(ro)
	if p := rb.get(path); p.status != http.StatusOK || strings.Contains(p.body, "/edit") || strings.Contains(p.body, "/delete") {
		t.Errorf("read-only buyer page = %d, shows write controls:\n%s", p.status, p.body)
	}
	if p := rb.get("/app/buyers"); strings.Contains(p.body, "/app/buyers/new") {
		t.Error("read-only list offers a new buyer")
	}
	rcsrf := rb.csrf("/app/buyers")
	for _, post := range []string{"/app/buyers", path, path + "/delete"} {
		if p := rb.post(post, buyerForm(rcsrf, "Read only")); p.status != http.StatusForbidden {
			t.Errorf("read-only POST %s = %d, want 403", post, p.status)
		}
	}

	// Another tenant's buyer: 404 everywhere.
	_, other := f.newTenant(t, "Other")
	otherID := f.buyer(t, other, "Theirs")
	for _, get := range []string{"/app/buyers/" + otherID, "/app/buyers/" + otherID + "/edit", "/app/sellers/" + id} {
		if p := b.get(get); p.status != http.StatusNotFound {
			t.Errorf("GET %s = %d, want 404", get, p.status)
		}
	}
	for _, post := range []string{"/app/buyers/" + otherID, "/app/buyers/" + otherID + "/delete"} {
		if p := b.post(post, buyerForm(csrf, "Mine now")); p.status != http.StatusNotFound {
			t.Errorf("POST %s = %d, want 404", post, p.status)
		}
	}

	// Delete: refused with the API's message while a document uses it.
	f.invoice(t, f.key, id, "INV-001")
	if p := b.post(path+"/delete", url.Values{"csrf": {csrf}}); p.status != http.StatusUnprocessableEntity || !strings.Contains(p.body, "referenced by documents") {
		t.Errorf("delete in use = %d:\n%s", p.status, p.body)
	}
	unused := f.buyer(t, f.key, "Unused")
	if p := b.post("/app/buyers/"+unused+"/delete", url.Values{"csrf": {csrf}}); p.status != http.StatusSeeOther {
		t.Errorf("delete = %d:\n%s", p.status, p.body)
	}
	if p := b.get("/app/buyers/" + unused); p.status != http.StatusNotFound {
		t.Errorf("after delete = %d, want 404", p.status)
	}
}

// TestSellerForms: an on-behalf seller created through its form, with the
// seller's own fields; a draft one listed as not ready with the reason.
func TestSellerForms(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	b := f.browser(t)
	b.signIn(f.owner)
	csrf := b.csrf("/app/sellers/new")
	form := buyerForm(csrf, "Pembekal <i>Kecil</i>")
	form.Set("msicCode", "01111")
	form.Set("businessActivityDescription", "Growing of maize")
	form.Set("tourismTaxRegistrationNumber", "NA")
	p := b.post("/app/sellers", form)
	if p.status != http.StatusSeeOther || !strings.HasPrefix(p.header.Get("Location"), "/app/sellers/") {
		t.Fatalf("create seller = %d:\n%s", p.status, p.body)
	}
	created := p.header.Get("Location")
	p = b.get(created)
	if !strings.Contains(p.body, "Growing of maize") || !strings.Contains(p.body, "Pembekal &lt;i&gt;Kecil&lt;/i&gt;") {
		t.Errorf("seller page:\n%s", p.body)
	}
	if p := b.get("/app/sellers"); !strings.Contains(p.body, "1 on-behalf sellers") || !strings.Contains(p.body, "Pembekal &lt;i&gt;") {
		t.Errorf("sellers list:\n%s", p.body)
	}
	if p := b.get("/app/buyers"); !strings.Contains(p.body, "0 buyers") {
		t.Errorf("a seller shows among the buyers:\n%s", p.body)
	}
	sellerID := strings.TrimPrefix(created, "/app/sellers/")
	otherTenant, _ := f.newTenant(t, "Other")
	ob := f.browser(t)
	ob.signIn(f.personIn(t, otherTenant, "owner", "Other owner"))
	ocsrf := ob.csrf("/app/sellers")
	for _, path := range []string{"/app/sellers/" + sellerID, "/app/sellers/" + sellerID + "/edit", "/app/buyers/" + sellerID} {
		if p := ob.get(path); p.status != http.StatusNotFound {
			t.Errorf("another tenant's GET %s = %d, want 404", path, p.status)
		}
	}
	if p := ob.post("/app/sellers/"+sellerID+"/delete", url.Values{"csrf": {ocsrf}}); p.status != http.StatusNotFound {
		t.Errorf("another tenant's delete = %d, want 404", p.status)
	}
	if p := b.post(created, buyerForm("", "No token")); p.status != http.StatusForbidden {
		t.Errorf("no CSRF token = %d, want 403", p.status)
	}
}

// TestBuyersPaged: 26 buyers make two pages, the search kept in the links.
func TestBuyersPaged(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	for i := range 26 {
		f.buyer(t, f.key, "Kedai "+strings.Repeat("x", i+1))
	}
	b := f.browser(t)
	b.signIn(f.owner)
	p := b.get("/app/buyers?search=kedai")
	if !strings.Contains(p.body, "26 buyers") || !strings.Contains(p.body, "Page 1 of 2") || !strings.Contains(p.body, `href="?page=2&amp;search=kedai"`) {
		t.Fatalf("first page:\n%s", p.body)
	}
	p = b.get("/app/buyers?page=2&search=kedai")
	if n := strings.Count(p.body, `<a href="/app/buyers/`); n != 1 || !strings.Contains(p.body, "Page 2 of 2") {
		t.Errorf("second page has %d rows:\n%s", n, p.body)
	}
}
