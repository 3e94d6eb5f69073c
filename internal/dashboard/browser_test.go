package dashboard_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestBrowserSignInListDetailSignOut: a person in Chromium signs in, sees
// the list, opens a document, validates it, and signs out; a phone-wide
// (375 px) screenshot of the list and the detail too.
func TestBrowserSignInListDetailSignOut(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	buyer := f.buyer(t, f.key, "<script>alert(1)</script>")
	id := f.invoice(t, f.key, buyer, "INV-001")
	f.invoice(t, f.key, buyer, "INV-002")
	c := newChrome(t, f.svc.URL)

	c.signIn(f.owner)
	c.screenshot("documents")
	if got := c.text("table tbody"); !strings.Contains(got, "INV-001") || !strings.Contains(got, "INV-002") {
		t.Fatalf("the list shows %q", got)
	}
	c.run(chromedp.Click(`nav.tabs a[href="/app/documents?status=draft"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`nav.tabs a[aria-current][href="/app/documents?status=draft"]`, chromedp.ByQuery))
	c.screenshot("documents-draft")
	c.run(chromedp.Click(`a[href="/app/documents/`+id+`"]`, chromedp.ByQuery), chromedp.WaitVisible("#h-lines", chromedp.ByQuery))
	c.screenshot("document")
	if got := c.text("#h-customer + dl dd"); got != "<script>alert(1)</script>" {
		t.Errorf("the buyer's name shows as %q, want the text itself", got)
	}
	c.follow(chromedp.Click(`form[action$="/validate"] button`, chromedp.ByQuery), ".flash")
	c.screenshot("validated")
	if got := c.text(".flash"); !strings.Contains(got, "Validated") {
		t.Errorf("after validate the flash says %q", got)
	}

	c.run(chromedp.EmulateViewport(375, 800))
	c.visit("/app/documents", "documents-375")
	c.visit("/app/documents/"+id, "document-375")
	var overflow int
	c.run(chromedp.Evaluate(`document.documentElement.scrollWidth - document.documentElement.clientWidth`, &overflow))
	if overflow > 0 {
		t.Errorf("at 375 px the document page is %d px wider than the screen", overflow)
	}
	c.run(chromedp.EmulateViewport(1280, 900))

	c.run(chromedp.Click(`form[action="/app/signout"] button`, chromedp.ByQuery), chromedp.WaitVisible("#f-email", chromedp.ByQuery))
	c.screenshot("signed-out")
	c.visit("/app/documents", "after-signout")
	var url string
	c.run(chromedp.Location(&url))
	if !strings.Contains(url, "/app/signin") {
		t.Errorf("after sign-out /app/documents lands on %s", url)
	}
}

// TestBrowserValidDocument: validate and submit by clicks, then the Valid
// document shows its QR code, and cancel without a reason is refused
// beside the field, what was typed kept.
func TestBrowserValidDocument(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "--sandbox-delay", "0")
	id := f.invoice(t, f.key, f.buyer(t, f.key, "Hebat Group"), "INV-001")
	c := newChrome(t, f.svc.URL)
	c.signIn(f.owner)
	c.visit("/app/documents/"+id, "draft")
	c.follow(chromedp.Click(`form[action$="/validate"] button`, chromedp.ByQuery), ".flash")
	c.follow(chromedp.Click(`form[action$="/submit"] button`, chromedp.ByQuery), ".flash")
	c.screenshot("submitted")
	f.waitStatus(t, id, "Valid")
	c.visit("/app/documents/"+id, "valid")
	var loaded bool
	c.run(chromedp.Evaluate(`document.querySelector('#h-qr + img').naturalWidth > 0`, &loaded))
	if !loaded {
		t.Error("the QR code image did not load")
	}
	c.run(chromedp.SetValue("#f-reason", "  ", chromedp.ByQuery), chromedp.Click(`form.cancel button`, chromedp.ByQuery),
		chromedp.WaitVisible("#e-reason", chromedp.ByQuery))
	c.screenshot("cancel-refused")
	if got := c.text("#e-reason"); got == "" {
		t.Error("no error beside the reason")
	}
}

// TestBrowserReadOnly: a viewer's pages show no write control, and name
// the viewer, the role and the tenant.
func TestBrowserReadOnly(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	id := f.invoice(t, f.key, f.buyer(t, f.key, "Hebat Group"), "INV-001")
	ro := f.personIn(t, f.demoTenant(t), "viewer", "Aisyah")
	c := newChrome(t, f.svc.URL)
	c.signIn(ro)
	c.visit("/app/documents/"+id, "read-only-document")
	var n int
	c.run(chromedp.Evaluate(`document.querySelectorAll('form[method=post]:not([action="/app/signout"])').length`, &n))
	if n != 0 {
		t.Errorf("a read-only key sees %d write forms", n)
	}
	if got := c.text(".who"); !strings.Contains(got, "Aisyah") || !strings.Contains(got, "viewer") || !strings.Contains(got, "Demo Trading") {
		t.Errorf("the page names %q", got)
	}
}

// TestBrowserErrorsAndKeyboard: a wrong password is refused above the
// form; the sign-in form works by keyboard alone (Tab to the e-mail, Tab to
// the password, Enter); an unknown page is our 404 page.
func TestBrowserErrorsAndKeyboard(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	c := newChrome(t, f.svc.URL)
	c.visit("/app/signin", "signin")
	c.run(chromedp.SendKeys("#f-email", f.owner.Email, chromedp.ByQuery), chromedp.SendKeys("#f-password", "not the password\r", chromedp.ByQuery),
		chromedp.WaitVisible(`[role="alert"]`, chromedp.ByQuery))
	c.screenshot("signin-wrong-password")
	if got := c.text(`[role="alert"]`); !strings.Contains(got, "password is wrong") {
		t.Errorf("the sign-in's error says %q", got)
	}
	// By keyboard: the skip link first, then the e-mail, then the password.
	c.visit("/app/signin", "signin-again")
	var focused string
	c.run(chromedp.KeyEvent("\t"), chromedp.KeyEvent("\t"), chromedp.Evaluate(`document.activeElement.id`, &focused))
	if focused != "f-email" {
		t.Fatalf("two Tabs focus %q, want the e-mail field", focused)
	}
	c.run(chromedp.KeyEvent(f.owner.Email), chromedp.KeyEvent("\t"), chromedp.KeyEvent(f.owner.Password), chromedp.KeyEvent("\r"),
		chromedp.WaitVisible("nav.tabs", chromedp.ByQuery))
	c.visit("/app/no-such-page", "not-found")
	if got := c.text("h1"); got != "Not found" {
		t.Errorf("an unknown page's title is %q", got)
	}
}
