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
	f := newFixture(t)
	buyer := f.buyer(t, f.key, "<script>alert(1)</script>")
	id := f.invoice(t, f.key, buyer, "INV-001")
	f.invoice(t, f.key, buyer, "INV-002")
	c := newChrome(t, f.svc.URL)

	c.signIn(f.key)
	c.screenshot("documents")
	if got := c.text("table tbody"); !strings.Contains(got, "INV-001") || !strings.Contains(got, "INV-002") {
		t.Fatalf("the list shows %q", got)
	}
	c.run(chromedp.Click(`a[href="/app/documents/`+id+`"]`, chromedp.ByQuery), chromedp.WaitVisible("#h-lines", chromedp.ByQuery))
	c.screenshot("document")
	if got := c.text("#h-customer + dl dd"); got != "<script>alert(1)</script>" {
		t.Errorf("the buyer's name shows as %q, want the text itself", got)
	}
	c.run(chromedp.Click(`form[action$="/validate"] button`, chromedp.ByQuery), chromedp.WaitVisible(".flash", chromedp.ByQuery))
	c.screenshot("validated")
	if got := c.text(".flash"); !strings.Contains(got, "Validated") {
		t.Errorf("after validate the flash says %q", got)
	}

	c.run(chromedp.EmulateViewport(375, 800))
	c.visit("/app/documents", "documents-375")
	c.visit("/app/documents/"+id, "document-375")
	var scrollWidth int
	c.run(chromedp.Evaluate(`document.documentElement.scrollWidth`, &scrollWidth))
	if scrollWidth > 375 {
		t.Errorf("at 375 px the document page is %d px wide", scrollWidth)
	}
	c.run(chromedp.EmulateViewport(1280, 900))

	c.run(chromedp.Click(`form[action="/app/signout"] button`, chromedp.ByQuery), chromedp.WaitVisible("#f-key", chromedp.ByQuery))
	c.screenshot("signed-out")
	c.visit("/app/documents", "after-signout")
	var url string
	c.run(chromedp.Location(&url))
	if !strings.Contains(url, "/app/signin") {
		t.Errorf("after sign-out /app/documents lands on %s", url)
	}
}
