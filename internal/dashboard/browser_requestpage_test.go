package dashboard_test

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestBrowserRequestPagePosts: the buyer's request page, posted from
// Chromium as a buyer would, passes the same-origin rule (the page's
// Referrer-Policy lets the browser send its Origin): the answer is the
// form again with the fields to fix, never the "sent from another site"
// refusal.
func TestBrowserRequestPagePosts(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	id := f.receipt(t, f.key, "C-001", time.Now().Add(-time.Hour))
	rc, err := f.api(f.key).Receipts.Get(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	c := newChrome(t, f.svc.URL)
	path := strings.TrimPrefix(rc.RequestURL, f.svc.URL)
	c.run(chromedp.Navigate(c.base + path))
	c.run(chromedp.SendKeys("#name", "Hebat Sdn. Bhd.", chromedp.ByQuery))
	c.follow(chromedp.Submit("#name", chromedp.ByQuery), "#name.bad, #city.bad, p.formerror, h1")
	c.screenshot("request-page-posted")
	body := c.text("body")
	if strings.Contains(body, "sent from another site") || !strings.Contains(body, "Please check the fields marked below.") {
		t.Errorf("the page's own post was not judged on its fields:\n%s", body)
	}
}
