package dashboard_test

import (
	"bytes"
	"net/http"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/einvoice/einvoice/client"
)

// TestMalaysianTime: a document issued at 16:35 UTC on 27 November was
// issued on the 28th in Malaysia. Its page, the list and its PDF all say
// the 28th; the times of its history are Malaysian, labelled MYT, and
// machine-readable in their datetime attribute (DECISIONS 19).
func TestMalaysianTime(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	at := time.Date(2026, 11, 27, 16, 35, 0, 0, time.UTC)
	d, err := f.api(f.key).Documents.Create(t.Context(), &client.Document{BuyerID: f.buyer(t, f.key, "Hebat Group"),
		InvoiceSerialNumber: "INV-MYT", CurrencyCode: "MYR", AutoCalculate: true, ErpIssuedAt: &at,
		Lines: []client.Line{{Classifications: []string{"001"}, ProductDescription: "Widget", Quantity: "1", UnitCode: "H87",
			UnitPrice: "50.00", Taxes: []client.LineTax{{TaxType: "01", TaxRate: "8"}}}}})
	if err != nil {
		t.Fatal(err)
	}
	b := f.browser(t)
	b.signIn(f.owner)
	doc := "/app/documents/" + d.ID
	p := b.get(doc)
	if p.status != http.StatusOK || !strings.Contains(p.body, "· issued 2026-11-28 ·") || strings.Contains(p.body, "issued 2026-11-27") {
		t.Errorf("the document's page = %d, want issued 2026-11-28 (its Malaysian date):\n%s", p.status, p.body)
	}
	created := regexp.MustCompile(`<time datetime="([^"]+)">(\d{4}-\d\d-\d\d \d\d:\d\d MYT)</time>`).FindStringSubmatch(p.body)
	if created == nil {
		t.Fatalf("no history time in Malaysian time, labelled MYT, with its datetime:\n%s", p.body)
	}
	if when, err := time.Parse(time.RFC3339, created[1]); err != nil || when.In(time.FixedZone("", 8*3600)).Format("2006-01-02 15:04")+" MYT" != created[2] {
		t.Errorf("the history time %q is not its datetime %q (%v) in Malaysian time", created[2], created[1], err)
	}
	if strings.Contains(p.body, " UTC") {
		t.Errorf("the document's page still shows a UTC time:\n%s", p.body)
	}
	list := b.get("/app/documents?search=INV-MYT")
	if !strings.Contains(list.body, `<td class="wide">2026-11-28</td>`) {
		t.Errorf("the list does not show the Malaysian issue date 2026-11-28:\n%s", list.body)
	}
	if p := b.get(doc + "/edit"); !strings.Contains(p.body, `name="erpIssuedAt" type="date" value="2026-11-28"`) {
		t.Errorf("the edit form does not show the Malaysian issue date 2026-11-28:\n%s", p.body)
	}
	pdf := b.get(doc + "/pdf")
	if pdf.status != http.StatusOK {
		t.Fatalf("pdf = %d", pdf.status)
	}
	text := pdfText(t, []byte(pdf.body))
	if !strings.Contains(text, "2026-11-28 00:35 MYT") || strings.Contains(text, "2026-11-27") {
		t.Errorf("the PDF does not show the page's date, 2026-11-28 00:35 MYT:\n%s", text)
	}
}

// TestIssueDateFormMalaysian: the issue date typed in the form is a
// Malaysian date, stored as its midnight in Malaysia, and shown back as
// typed.
func TestIssueDateFormMalaysian(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	b := f.browser(t)
	b.signIn(f.owner)
	myt := time.FixedZone("MYT", 8*3600)
	today := f.clock.Now().In(myt).Format(time.DateOnly)
	form := invoiceForm(b.csrf("/app/documents/new?type=invoice"), f.buyer(t, f.key, "Hebat Group"), "F-MYT")
	form.Set("erpIssuedAt", today)
	p := b.post("/app/documents/new?type=invoice", form)
	m := locationID.FindStringSubmatch(p.header.Get("Location"))
	if p.status != http.StatusSeeOther || m == nil {
		t.Fatalf("save = %d %q:\n%s", p.status, p.header.Get("Location"), p.body)
	}
	doc, err := f.api(f.key).Documents.Get(t.Context(), m[1])
	if err != nil || doc.ErpIssuedAt == nil {
		t.Fatalf("saved document: %+v, %v", doc, err)
	}
	if got := doc.ErpIssuedAt.In(myt).Format("2006-01-02 15:04"); got != today+" 00:00" {
		t.Errorf("erpIssuedAt %v is %s in Malaysia, want %s 00:00", doc.ErpIssuedAt, got, today)
	}
	if p := b.get("/app/documents/" + m[1]); !strings.Contains(p.body, "· issued "+today+" ·") {
		t.Errorf("the page does not show the date typed, %s:\n%s", today, p.body)
	}
	if p := b.get("/app/documents/" + m[1] + "/edit"); !strings.Contains(p.body, `name="erpIssuedAt" type="date" value="`+today+`"`) {
		t.Errorf("the edit form does not show the date typed, %s:\n%s", today, p.body)
	}
}

// pdfText is the text of a PDF by pdftotext (the test skips without it).
func pdfText(t *testing.T, pdf []byte) string {
	t.Helper()
	path, err := exec.LookPath("pdftotext")
	if err != nil {
		t.Skip("pdftotext not found: install poppler-utils (apt-get install poppler-utils) to read the PDF")
	}
	cmd := exec.Command(path, "-", "-")
	cmd.Stdin = bytes.NewReader(pdf)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("pdftotext: %v", err)
	}
	return strings.Join(strings.Fields(string(out)), " ")
}
