package dashboard_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/einvoice/einvoice/client"
)

// invoiceForm is a filled create form of one line: 3 x 10.00 at 8 % sales
// tax (payable 32.40).
func invoiceForm(csrf, buyerID, serial string) url.Values {
	return url.Values{"csrf": {csrf}, "type": {"invoice"}, "lines": {"1"}, "op": {"save"},
		"buyerId": {buyerID}, "invoiceSerialNumber": {serial}, "currencyCode": {"MYR"},
		"invoiceLines.0.classifications.0": {"001"}, "invoiceLines.0.productDescription": {"Widget"},
		"invoiceLines.0.quantity": {"3"}, "invoiceLines.0.unitCode": {"H87"}, "invoiceLines.0.unitPrice": {"10.00"},
		"invoiceLines.0.invoiceLineTaxes.0.taxType": {"01"}, "invoiceLines.0.invoiceLineTaxes.0.taxRate": {"8"}}
}

var locationID = regexp.MustCompile(`^/app/documents/([^/]+)$`)

// TestDocumentFormCreate: every kind's form; the totals the service
// computes (those of the API); a number that does not read and a missing
// buyer refused beside their inputs, what was typed kept; lines added and
// removed without script; saved, the document is the API's.
func TestDocumentFormCreate(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	buyer := f.buyer(t, f.key, "Hebat <b>Group</b>")
	b := f.browser(t)
	b.signIn(f.owner)
	if p := b.get("/app/documents"); !strings.Contains(p.body, `href="/app/documents/new"`) {
		t.Errorf("no New document link on the list")
	}
	for _, kind := range []string{"invoice", "credit_note", "debit_note", "refund_note", "consolidated_invoice",
		"self_billed_invoice", "self_billed_credit_note", "self_billed_debit_note", "self_billed_refund_note"} {
		p := b.get("/app/documents/new?type=" + kind)
		if p.status != http.StatusOK || !strings.Contains(p.body, `name="invoiceLines.0.quantity"`) {
			t.Fatalf("new %s = %d:\n%s", kind, p.status, p.body)
		}
		note := strings.Contains(kind, "note")
		if note != strings.Contains(p.body, `name="documentReferences.0.uuid"`) {
			t.Errorf("new %s: references shown = %v", kind, !note)
		}
		if strings.HasPrefix(kind, "self_billed") != strings.Contains(p.body, `name="onBehalfSellerId"`) {
			t.Errorf("new %s: on-behalf seller field wrong", kind)
		}
	}
	if p := b.get("/app/documents/new?type=bogus"); p.status != http.StatusNotFound {
		t.Errorf("new bogus = %d", p.status)
	}
	p := b.get("/app/documents/new")
	if !strings.Contains(p.body, "Hebat &lt;b&gt;Group&lt;/b&gt;") || strings.Contains(p.body, "<b>Group") {
		t.Errorf("the buyer's name is not escaped in the form")
	}
	// By keyboard: Enter in an input submits the form's first button,
	// which computes the totals (never a line's Remove).
	if m := regexp.MustCompile(`<button type="submit" name="op" value="([a-z0-9-]+)"`).FindStringSubmatch(p.body); m == nil || m[1] != "compute" {
		t.Errorf("the form's first submit button: %v", m)
	}
	csrf := b.csrf("/app/documents/new")
	for _, path := range []string{"/app/documents/new?type=invoice", "/app/documents/preview"} {
		form := invoiceForm("", buyer, "X-001")
		form.Del("csrf")
		if p := b.post(path, form); p.status != http.StatusForbidden {
			t.Errorf("POST %s without the CSRF token = %d, want 403", path, p.status)
		}
	}

	// The totals as one types: the preview fragment.
	form := invoiceForm(csrf, buyer, "F-001")
	p = b.post("/app/documents/preview", form)
	if p.status != http.StatusOK || !strings.Contains(p.body, `id="t-payable">MYR 32.40<`) || strings.Contains(p.body, "<html") {
		t.Fatalf("preview = %d:\n%s", p.status, p.body)
	}
	// Without script: Compute totals re-renders the whole form.
	form.Set("op", "compute")
	if p = b.post("/app/documents/new?type=invoice", form); p.status != http.StatusOK || !strings.Contains(p.body, "MYR 32.40") {
		t.Fatalf("compute = %d:\n%s", p.status, p.body)
	}

	// Add a line, then remove the first: the second moves up.
	form.Set("op", "add")
	p = b.post("/app/documents/new?type=invoice", form)
	if !strings.Contains(p.body, `name="invoiceLines.1.quantity"`) || !strings.Contains(p.body, `name="lines" value="2"`) {
		t.Fatalf("add a line:\n%s", p.body)
	}
	two := invoiceForm(csrf, buyer, "F-001")
	two.Set("lines", "2")
	two.Set("invoiceLines.1.productDescription", "Second")
	two.Set("op", "remove-0")
	p = b.post("/app/documents/new?type=invoice", two)
	if !strings.Contains(p.body, `name="invoiceLines.0.productDescription" type="text" value="Second"`) || strings.Contains(p.body, `invoiceLines.1.quantity`) {
		t.Fatalf("remove line 1:\n%s", p.body)
	}

	// Refused: beside the inputs, what was typed kept, nothing stored.
	bad := invoiceForm(csrf, "", "F-001")
	bad.Set("invoiceLines.0.quantity", "three")
	bad.Set("invoiceLines.0.productDescription", "<script>alert(1)</script>")
	p = b.post("/app/documents/new?type=invoice", bad)
	if p.status != http.StatusUnprocessableEntity || !strings.Contains(p.body, `id="e-invoiceLines.0.quantity"`) || !strings.Contains(p.body, `value="three"`) {
		t.Fatalf("bad quantity = %d:\n%s", p.status, p.body)
	}
	if !strings.Contains(p.body, "&lt;script&gt;alert(1)&lt;/script&gt;") || strings.Contains(p.body, "<script>alert(1)") {
		t.Errorf("the description is not escaped")
	}
	bad.Set("invoiceLines.0.quantity", "3")
	p = b.post("/app/documents/new?type=invoice", bad)
	if p.status != http.StatusUnprocessableEntity || !strings.Contains(p.body, `id="e-buyerId"`) {
		t.Fatalf("no buyer = %d:\n%s", p.status, p.body)
	}
	bad.Set("buyerId", buyer)
	bad.Set("invoiceLines.0.unitCode", "NOPE")
	p = b.post("/app/documents/new?type=invoice", bad)
	if p.status != http.StatusUnprocessableEntity || !strings.Contains(p.body, `id="e-invoiceLines.0.unitCode"`) || !strings.Contains(p.body, `value="NOPE"`) {
		t.Fatalf("bad unit = %d:\n%s", p.status, p.body)
	}
	if list, _ := f.api(f.key).Documents.List(t.Context(), nil); list != nil && len(list.Items) != 0 {
		t.Fatalf("a refused form stored %d documents", len(list.Items))
	}

	// Saved: the document is the API's, with the API's amounts.
	form.Set("op", "save")
	p = b.post("/app/documents/new?type=invoice", form)
	m := locationID.FindStringSubmatch(p.header.Get("Location"))
	if p.status != http.StatusSeeOther || m == nil {
		t.Fatalf("save = %d %q:\n%s", p.status, p.header.Get("Location"), p.body)
	}
	doc, err := f.api(f.key).Documents.Get(t.Context(), m[1])
	if err != nil || doc.TotalPayableAmount != "32.40" || doc.InvoiceSerialNumber != "F-001" || doc.Status != client.StatusDraft {
		t.Fatalf("saved document: %+v, %v", doc, err)
	}
	// The same serial again: refused beside the serial number.
	p = b.post("/app/documents/new?type=invoice", form)
	if p.status != http.StatusUnprocessableEntity || !strings.Contains(p.body, `id="e-invoiceSerialNumber"`) {
		t.Errorf("duplicate serial = %d:\n%s", p.status, p.body)
	}
}

// TestDocumentFormEdit: the form filled with the document, saved through
// the update use case; a Valid document is not editable and says why;
// another tenant's document is a 404; a read-only key and a POST without
// the CSRF token are refused.
func TestDocumentFormEdit(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "--sandbox-delay", "0")
	buyer := f.buyer(t, f.key, "Hebat Group")
	id := f.invoice(t, f.key, buyer, "E-001")
	b := f.browser(t)
	b.signIn(f.owner)
	doc := "/app/documents/" + id
	if p := b.get(doc); !strings.Contains(p.body, `href="`+doc+`/edit"`) {
		t.Fatalf("no Edit link on a draft's page")
	}
	p := b.get(doc + "/edit")
	if p.status != http.StatusOK || !strings.Contains(p.body, `value="E-001"`) || !strings.Contains(p.body, `name="invoiceLines.0.unitPrice" type="text" value="50.00"`) {
		t.Fatalf("edit = %d:\n%s", p.status, p.body)
	}
	csrf := b.csrf(doc + "/edit")
	form := invoiceForm(csrf, buyer, "E-001")
	form.Set("invoiceLines.0.quantity", "5")
	if p := b.post(doc+"/edit", url.Values{"op": {"save"}, "lines": {"1"}}); p.status != http.StatusForbidden {
		t.Errorf("edit without CSRF = %d, want 403", p.status)
	}
	if p := b.post(doc+"/edit", form); p.status != http.StatusSeeOther || p.header.Get("Location") != doc {
		t.Fatalf("save edit = %d %q:\n%s", p.status, p.header.Get("Location"), p.body)
	}
	if d, _ := f.api(f.key).Documents.Get(t.Context(), id); d.TotalPayableAmount != "54.00" {
		t.Errorf("after the edit: payable %s, want 54.00", d.TotalPayableAmount)
	}

	// Another tenant's document: 404 for the form and its POST.
	_, otherKey := f.newTenant(t, "Other")
	other := f.invoice(t, otherKey, f.buyer(t, otherKey, "Theirs"), "O-001")
	if p := b.get("/app/documents/" + other + "/edit"); p.status != http.StatusNotFound {
		t.Errorf("another tenant's edit = %d, want 404", p.status)
	}
	if p := b.post("/app/documents/"+other+"/edit", form); p.status != http.StatusNotFound {
		t.Errorf("another tenant's edit POST = %d, want 404", p.status)
	}

	// Read-only: no controls, POSTs refused.
	ro := f.personIn(t, f.demoTenant(t), "viewer", "Aisyah")
	rb := f.browser(t)
	rb.signIn(ro)
	if p := rb.get(doc); strings.Contains(p.body, doc+"/edit") {
		t.Errorf("a read-only key sees the Edit link")
	}
	if p := rb.get("/app/documents"); strings.Contains(p.body, "/app/documents/new") {
		t.Errorf("a read-only key sees New document")
	}
	if p := rb.get("/app/documents/new"); p.status != http.StatusForbidden {
		t.Errorf("read-only new = %d, want 403", p.status)
	}
	if p := rb.get(doc + "/edit"); p.status != http.StatusForbidden {
		t.Errorf("read-only edit = %d, want 403", p.status)
	}
	rcsrf := rb.csrf(doc)
	for _, path := range []string{doc + "/edit", "/app/documents/new?type=invoice", "/app/documents/preview"} {
		form := invoiceForm(rcsrf, buyer, "R-001")
		if p := rb.post(path, form); p.status != http.StatusForbidden {
			t.Errorf("read-only POST %s = %d, want 403", path, p.status)
		}
	}

	// Valid: not editable, and the page says why.
	api := f.api(f.key)
	if _, err := api.Documents.Validate(t.Context(), id); err != nil {
		t.Fatal(err)
	}
	if _, err := api.Documents.Submit(t.Context(), id); err != nil {
		t.Fatal(err)
	}
	f.waitStatus(t, id, client.StatusValid)
	if p := b.get(doc); strings.Contains(p.body, doc+"/edit") {
		t.Errorf("a Valid document's page links to Edit")
	}
	p = b.get(doc + "/edit")
	if p.status != http.StatusConflict || !strings.Contains(p.body, "only draft, ready or Invalid documents can be updated") {
		t.Errorf("edit of a Valid document = %d:\n%s", p.status, p.body)
	}
	if p := b.post(doc+"/edit", form); p.status != http.StatusConflict {
		t.Errorf("save of a Valid document = %d, want 409 (DOCUMENT_NOT_DRAFT keeps its status on a page)", p.status)
	}
}

// TestDocumentFormEditKeeps: an edit through the form keeps what the form
// does not show (a line's second tax, its tariff code, the billing
// period, the Incoterms), also after a line above it is removed; the
// totals count the kept tax.
func TestDocumentFormEditKeeps(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	buyer := f.buyer(t, f.key, "Hebat Group")
	line := func(desc string) client.Line {
		return client.Line{Classifications: []string{"001"}, ProductDescription: desc, Quantity: "1", UnitCode: "H87", UnitPrice: "100.00",
			TariffCode: "9800.00.0010", Taxes: []client.LineTax{{TaxType: "01", TaxRate: "10"}, {TaxType: "02", TaxRate: "6"}}}
	}
	d, err := f.api(f.key).Documents.Create(t.Context(), &client.Document{BuyerID: buyer, InvoiceSerialNumber: "K-001", CurrencyCode: "MYR",
		AutoCalculate: true, Incoterms: "CIF", InvoicePeriod: &client.InvoicePeriod{FrequencyOfBilling: "Monthly", BillingPeriodStartDate: "2026-01-01", BillingPeriodEndDate: "2026-01-31"},
		Lines: []client.Line{line("First"), line("Second")}})
	if err != nil {
		t.Fatal(err)
	}
	b := f.browser(t)
	b.signIn(f.owner)
	edit := "/app/documents/" + d.ID + "/edit"
	p := b.get(edit)
	if !strings.Contains(p.body, "MYR 232.00") {
		t.Fatalf("the edit form's totals miss the second tax:\n%s", p.body)
	}
	form := url.Values{"csrf": {b.csrf(edit)}, "type": {"invoice"}, "id": {d.ID}}
	for _, m := range regexp.MustCompile(`name="([^"]+)" (?:type="[a-z]+" )?value="([^"]*)"`).FindAllStringSubmatch(p.body, -1) {
		if m[1] != "csrf" && m[1] != "op" {
			form.Set(m[1], m[2])
		}
	}
	form.Set("invoiceLines.0.invoiceLineTaxes.0.taxType", "01")
	form.Set("invoiceLines.1.invoiceLineTaxes.0.taxType", "01")
	form.Set("buyerId", buyer)
	form.Set("op", "remove-0")
	p = b.post(edit, form)
	if !strings.Contains(p.body, `name="invoiceLines.0.from" value="1"`) || !strings.Contains(p.body, "MYR 116.00") {
		t.Fatalf("after removing line 1:\n%s", p.body)
	}
	form.Set("op", "save")
	form.Set("lines", "1")
	form.Set("invoiceLines.0.productDescription", "Second")
	form.Set("invoiceLines.0.from", "1")
	if p := b.post(edit, form); p.status != http.StatusSeeOther {
		t.Fatalf("save = %d:\n%s", p.status, p.body)
	}
	got, err := f.api(f.key).Documents.Get(t.Context(), d.ID)
	if err != nil || len(got.Lines) != 1 || len(got.Lines[0].Taxes) != 2 || got.Lines[0].TariffCode != "9800.00.0010" ||
		got.Incoterms != "CIF" || got.InvoicePeriod == nil || got.TotalPayableAmount != "116.00" {
		t.Fatalf("after the edit: %+v, %v", got, err)
	}
}
