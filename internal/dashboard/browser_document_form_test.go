package dashboard_test

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/einvoice/einvoice/client"
)

// byName is the CSS selector of the form input named name.
func byName(name string) string { return `[name="` + name + `"]` }

// fillLine types line 0 of the document form: price 10.00, sales tax 8 %.
func (c *chrome) fillLine(desc string) {
	c.t.Helper()
	c.run(
		chromedp.SendKeys(byName("invoiceLines.0.productDescription"), desc, chromedp.ByQuery),
		chromedp.SendKeys(byName("invoiceLines.0.classifications.0"), "001", chromedp.ByQuery),
		chromedp.SetValue(byName("invoiceLines.0.unitCode"), "H87", chromedp.ByQuery),
		chromedp.SendKeys(byName("invoiceLines.0.unitPrice"), "10.00", chromedp.ByQuery),
		chromedp.SetValue(byName("invoiceLines.0.invoiceLineTaxes.0.taxType"), "01", chromedp.ByQuery),
		chromedp.SendKeys(byName("invoiceLines.0.invoiceLineTaxes.0.taxRate"), "8", chromedp.ByQuery),
	)
}

// waitText waits until the element's text is want (the totals a fetch
// puts in place), failing after 10 s with what it was.
func (c *chrome) waitText(sel, want string) {
	c.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		var got string
		c.run(chromedp.Evaluate(`(document.querySelector('`+sel+`')||{}).textContent||""`, &got))
		if strings.TrimSpace(got) == want {
			return
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("%s says %q, want %q", sel, got, want)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// location is the tab's path.
func (c *chrome) location() string {
	c.t.Helper()
	var loc string
	c.run(chromedp.Location(&loc))
	return strings.TrimPrefix(loc, c.base)
}

// TestBrowserDocumentFlow is the flow in a browser: the buyer
// (through the API: the buyers form is another part's), an invoice typed
// into the form with its totals following the quantity (the API's
// figure), saved, validated, submitted, Valid, its PDF, cancelled with a
// reason; and a credit note on a document the authority does not know
// turns Invalid and shows the authority's errors. The form is readable at
// 375 px.
func TestBrowserDocumentFlow(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "--sandbox-delay", "0")
	buyer := f.buyer(t, f.key, "Hebat Group")
	c := newChrome(t, f.svc.URL)
	c.signIn(f.owner)
	c.visit("/app/documents/new?type=invoice", "new-invoice")
	c.run(chromedp.SendKeys(byName("invoiceSerialNumber"), "WEB-001", chromedp.ByQuery))
	c.fillLine("Widget <b>bold</b>")
	c.waitText("#t-payable", "MYR 10.80")
	// Saved without a buyer: refused beside it, what was typed kept.
	c.run(chromedp.Click(`button[value="save"]`, chromedp.ByQuery), chromedp.WaitVisible("#e-buyerId", chromedp.ByQuery))
	c.screenshot("refused-beside-the-field")
	var kept string
	c.run(chromedp.Value(byName("invoiceLines.0.productDescription"), &kept, chromedp.ByQuery))
	if kept != "Widget <b>bold</b>" {
		t.Errorf("after a refused save the description is %q", kept)
	}
	c.run(chromedp.SetValue(byName("buyerId"), buyer, chromedp.ByQuery))
	c.screenshot("totals-quantity-1")
	c.run(chromedp.Evaluate(`document.querySelector('[name="invoiceLines.0.quantity"]').value = ""`, nil),
		chromedp.SendKeys(byName("invoiceLines.0.quantity"), "3", chromedp.ByQuery))
	c.waitText("#t-payable", "MYR 32.40")
	c.screenshot("totals-quantity-3")

	// Without a fetch: add a line by its button, then remove it.
	c.run(chromedp.Click(`button[value="add"]`, chromedp.ByQuery), chromedp.WaitVisible(byName("invoiceLines.1.quantity"), chromedp.ByQuery))
	c.screenshot("two-lines")
	c.run(chromedp.Click(`button[value="remove-1"]`, chromedp.ByQuery), chromedp.WaitNotPresent(byName("invoiceLines.1.quantity"), chromedp.ByQuery))

	c.run(chromedp.Click(`button[value="save"]`, chromedp.ByQuery), chromedp.WaitVisible(".flash", chromedp.ByQuery))
	c.screenshot("saved")
	doc := c.location()
	id := strings.TrimPrefix(doc, "/app/documents/")
	saved, err := f.api(f.key).Documents.Get(t.Context(), id)
	if err != nil || "MYR "+string(saved.TotalPayableAmount) != "MYR 32.40" || saved.Lines[0].ProductDescription != "Widget <b>bold</b>" {
		t.Fatalf("saved %s: %+v, %v", doc, saved, err)
	}

	c.run(chromedp.Click(`a[href$="/edit"]`, chromedp.ByQuery), chromedp.WaitVisible(byName("invoiceSerialNumber"), chromedp.ByQuery))
	c.screenshot("edit")
	if got := c.text("#t-payable"); got != "MYR 32.40" {
		t.Errorf("the edit form's totals: %q", got)
	}
	c.visit(doc, "draft")
	c.follow(chromedp.Click(`form[action$="/validate"] button`, chromedp.ByQuery), ".flash")
	c.screenshot("validated")
	c.follow(chromedp.Click(`form[action$="/submit"] button`, chromedp.ByQuery), ".flash")
	c.screenshot("submitted")
	f.waitStatus(t, id, client.StatusValid)
	c.visit(doc, "valid")
	if got := c.text("main .status"); got != "Valid" {
		t.Errorf("the page shows %q, want Valid", got)
	}
	var pdfType string
	c.run(chromedp.Evaluate(`fetch(document.querySelector('iframe.pdf').src).then(r => r.status + " " + r.headers.get('Content-Type'))`, &pdfType,
		func(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) }))
	if pdfType != "200 application/pdf" {
		t.Errorf("the inline PDF answers %q", pdfType)
	}
	c.run(chromedp.SendKeys("#f-reason", "Wrong buyer", chromedp.ByQuery), chromedp.Click(`form.cancel button`, chromedp.ByQuery),
		chromedp.WaitVisible(".flash", chromedp.ByQuery))
	f.waitStatus(t, id, client.StatusCancelled)
	c.visit(doc, "cancelled")
	if got := c.text("#h-authority + dl"); !strings.Contains(got, "Wrong buyer") {
		t.Errorf("the cancelled page's authority record: %q", got)
	}

	// Invalid: a credit note on a document the authority does not know.
	c.visit("/app/documents/new?type=credit_note", "new-credit-note")
	c.run(chromedp.SetValue(byName("buyerId"), buyer, chromedp.ByQuery),
		chromedp.SendKeys(byName("invoiceSerialNumber"), "CN-001", chromedp.ByQuery),
		chromedp.SendKeys(byName("documentReferences.0.referenceNumber"), "OLD-INV-9", chromedp.ByQuery),
		chromedp.SendKeys(byName("documentReferences.0.uuid"), "ABCDEFGHJKLMNPQRSTUVWXYZ12", chromedp.ByQuery))
	c.fillLine("Returned widget")
	c.run(chromedp.Click(`button[value="save"]`, chromedp.ByQuery), chromedp.WaitVisible(".flash", chromedp.ByQuery))
	note := c.location()
	c.follow(chromedp.Click(`form[action$="/validate"] button`, chromedp.ByQuery), ".flash")
	c.follow(chromedp.Click(`form[action$="/submit"] button`, chromedp.ByQuery), ".flash")
	f.waitStatus(t, strings.TrimPrefix(note, "/app/documents/"), client.StatusInvalid)
	c.visit(note, "invalid")
	if got := c.text("ul.problems"); !strings.Contains(got, "RD301") {
		t.Errorf("the Invalid document's errors: %q", got)
	}

	// 375 px: one column, nothing wider than the screen.
	c.run(chromedp.EmulateViewport(375, 800))
	c.visit("/app/documents/new?type=self_billed_credit_note", "new-form-375px")
	var wide bool
	c.run(chromedp.Evaluate(`document.documentElement.scrollWidth > 375`, &wide))
	if wide {
		t.Error("the form is wider than 375 px")
	}
}
