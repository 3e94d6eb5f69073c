package dashboard_test

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// narrow visits path 375 px wide, saves its screenshot, and fails the test
// when the page is wider than the screen; then back to 1280 px.
func (c *chrome) narrow(path, name string) {
	c.t.Helper()
	c.run(chromedp.EmulateViewport(375, 800))
	c.visit(path, name)
	var overflow int
	c.run(chromedp.Evaluate(`document.documentElement.scrollWidth - document.documentElement.clientWidth`, &overflow))
	if overflow > 0 {
		c.t.Errorf("at 375 px %s is %d px wider than the screen", path, overflow)
	}
	c.run(chromedp.EmulateViewport(1280, 900))
}

// TestBrowserReceived: the receiver's list and a document's page with the
// time left to reject; reject without a reason is refused beside the
// field, then done by keyboard.
func TestBrowserReceived(t *testing.T) {
	t.Parallel()
	f := newFixture(t, receivedArgs...)
	tenantB, keyB := f.receiver(t)
	f.issueValid(t, f.buyer(t, f.key, "Hebat Group"), "R-001", "<script>alert(1)</script>")
	id := f.waitReceived(t, keyB, 1)[0].ID
	c := newChrome(t, f.svc.URL)
	c.signIn(f.personIn(t, tenantB, "owner", "Hebat admin"))
	c.visit("/app/received", "received")
	if got := c.text("table tbody"); !strings.Contains(got, "R-001") {
		t.Fatalf("the list shows %q", got)
	}
	c.run(chromedp.Click(`a[href="/app/received/`+id+`"]`, chromedp.ByQuery), chromedp.WaitVisible("#h-lines", chromedp.ByQuery))
	c.screenshot("received-document")
	if got := c.text("table tbody td"); got != "<script>alert(1)</script>" {
		t.Errorf("the line's description shows as %q", got)
	}
	if got := c.text("form.cancel .muted"); !strings.HasPrefix(got, "Rejection possible for 7") {
		t.Errorf("the time left reads %q", got)
	}
	c.narrow("/app/received", "received-375")
	c.narrow("/app/received/"+id, "received-document-375")
	c.run(chromedp.Click(`form.cancel button`, chromedp.ByQuery), chromedp.WaitVisible("#e-reason", chromedp.ByQuery))
	c.screenshot("reject-refused")
	c.run(chromedp.SendKeys("#f-reason", "Wrong amount\r", chromedp.ByQuery), chromedp.WaitVisible(".flash", chromedp.ByQuery))
	c.screenshot("rejected")
	if got := c.text(".flash"); !strings.Contains(got, "Rejection requested") {
		t.Errorf("after reject the flash says %q", got)
	}
}

// TestBrowserReceiptsAndConsolidations: the receipts list and a receipt's
// page (its QR code loads); the consolidations list, a month consolidated
// by keyboard, its page; the refusal of a second time beside the month.
func TestBrowserReceiptsAndConsolidations(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "--sandbox-delay", "0", "--rate-limit", "100000")
	month, at := lastMonth(time.Now())
	id := f.receipt(t, f.key, "C-001", at)
	f.receipt(t, f.key, "<script>alert(1)</script>", at.Add(time.Hour))
	c := newChrome(t, f.svc.URL)
	c.signIn(f.owner)
	c.visit("/app/receipts", "receipts")
	if got := c.text("table tbody"); !strings.Contains(got, "<script>alert(1)</script>") || !strings.Contains(got, "C-001") {
		t.Errorf("the receipts list shows %q", got)
	}
	c.visit("/app/receipts/"+id, "receipt")
	var loaded bool
	c.run(chromedp.Evaluate(`document.querySelector('#h-request ~ img').naturalWidth > 0`, &loaded))
	if !loaded {
		t.Error("the receipt's QR code did not load")
	}
	c.narrow("/app/receipts", "receipts-375")
	c.narrow("/app/receipts/"+id, "receipt-375")

	c.visit("/app/consolidations", "consolidations")
	c.run(chromedp.SendKeys("#f-month", month+"\r", chromedp.ByQuery), chromedp.WaitVisible("#h-docs", chromedp.ByQuery))
	c.screenshot("consolidation")
	if got := c.text("#h-docs + .table-wrap tbody"); got == "" {
		t.Error("the consolidation lists no document")
	}
	c.narrow("/app/consolidations", "consolidations-375")
	c.run(chromedp.SendKeys("#f-month", month+"\r", chromedp.ByQuery), chromedp.WaitVisible("#e-month", chromedp.ByQuery))
	c.screenshot("nothing-to-consolidate")
	if got := c.text("#e-month"); !strings.Contains(got, "no receipt left") {
		t.Errorf("consolidating again says %q", got)
	}
}

// TestBrowserWebhooks: add a webhook by clicks (refused without an event
// beside the events, then done with its secret shown), send a test and
// see its delivery; the list; the pages 375 px wide.
func TestBrowserWebhooks(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "--webhook-allow-private", "--rate-limit", "100000")
	srv, _ := hookEndpoint(t, 200)
	c := newChrome(t, f.svc.URL)
	c.signIn(f.owner)
	c.visit("/app/webhooks", "webhooks-empty")
	c.run(chromedp.Click(`a[href="/app/webhooks/new"]`, chromedp.ByQuery), chromedp.WaitVisible("#f-url", chromedp.ByQuery))
	c.screenshot("webhook-new")
	c.narrow("/app/webhooks/new", "webhook-new-375")
	c.run(chromedp.SendKeys("#f-url", srv.URL+"/hook", chromedp.ByQuery), chromedp.Click(`form.webhook-form button`, chromedp.ByQuery),
		chromedp.WaitVisible("#e-events", chromedp.ByQuery))
	c.screenshot("webhook-no-events")
	var typed string
	c.run(chromedp.Value("#f-url", &typed, chromedp.ByQuery))
	if typed != srv.URL+"/hook" {
		t.Errorf("after the refusal the URL reads %q", typed)
	}
	c.run(chromedp.Click("#f-events-1", chromedp.ByQuery), chromedp.Click(`form.webhook-form button`, chromedp.ByQuery),
		chromedp.WaitVisible(".secret-value", chromedp.ByQuery))
	c.screenshot("webhook-created")
	if got := c.text(".secret-value"); !strings.HasPrefix(got, "whsec_") {
		t.Errorf("the secret reads %q", got)
	}
	var path string
	c.run(chromedp.Evaluate(`document.querySelector('form[action$="/test"]').getAttribute('action').replace(/\/test$/, '')`, &path))
	c.run(chromedp.Click(`form[action$="/test"] button`, chromedp.ByQuery), chromedp.WaitNotPresent(".secret", chromedp.ByQuery), chromedp.WaitVisible(".flash", chromedp.ByQuery))
	if got := c.text(".flash"); !strings.Contains(got, "Test event queued") {
		t.Errorf("after test the flash says %q", got)
	}
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(c.textOr("#h-deliveries ~ .table-wrap tbody"), "Delivered") {
		if time.Now().After(deadline) {
			t.Fatalf("the test delivery is not shown delivered after 20s: %q at %s", c.textOr("main"), path)
		}
		time.Sleep(200 * time.Millisecond)
		c.run(chromedp.Navigate(c.base + path))
	}
	c.screenshot("webhook-delivered")
	c.narrow(path, "webhook-375")
	c.visit("/app/webhooks", "webhooks")
	c.narrow("/app/webhooks", "webhooks-375")
}

// textOr is the text of sel, "" when nothing matches.
func (c *chrome) textOr(sel string) string {
	var s string
	c.run(chromedp.Evaluate(`(document.querySelector(`+"`"+sel+"`"+`) || {}).innerText || ""`, &s))
	return s
}
