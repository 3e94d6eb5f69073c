package dashboard_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestBrowserBuyersSellersProfile: the buyers list and a buyer's page (a
// hostile name shown as text), the new-buyer form refused beside its
// fields then saved, the sellers list, the profile with the go-live
// check; every page screenshotted, and none wider than a 375 px phone.
func TestBrowserBuyersSellersProfile(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	id := f.buyer(t, f.key, "<script>alert(1)</script>")
	c := newChrome(t, f.svc.URL)
	c.signIn(f.owner)

	c.visit("/app/buyers", "buyers")
	if got := c.text("table tbody td a"); got != "<script>alert(1)</script>" {
		t.Errorf("the list shows the name as %q", got)
	}
	c.visit("/app/buyers/"+id, "buyer")
	if got := c.text("main h1"); got != "<script>alert(1)</script>" {
		t.Errorf("the buyer's page shows the name as %q", got)
	}

	c.visit("/app/buyers/new", "buyer-new")
	c.run(chromedp.SendKeys(`#f-name`, "Kedai Runcit Ali", chromedp.ByQuery),
		chromedp.SetValue(`[id="f-address.state"]`, "14", chromedp.ByQuery),
		chromedp.Click(`main form button[type=submit]`, chromedp.ByQuery),
		chromedp.WaitVisible(`#e-tin`, chromedp.ByQuery))
	c.screenshot("buyer-new-refused")
	var kept string
	c.run(chromedp.Value(`#f-name`, &kept, chromedp.ByQuery))
	if kept != "Kedai Runcit Ali" {
		t.Errorf("after the refusal the name is %q", kept)
	}
	c.run(chromedp.SendKeys(`#f-tin`, "C21638015020", chromedp.ByQuery),
		chromedp.SetValue(`#f-idType`, "BRN", chromedp.ByQuery),
		chromedp.SendKeys(`#f-idValue`, "201901234567", chromedp.ByQuery),
		chromedp.SendKeys(`[id="f-address.line1"]`, "Lot 1", chromedp.ByQuery),
		chromedp.SendKeys(`[id="f-address.city"]`, "Kuala Lumpur", chromedp.ByQuery),
		chromedp.SendKeys(`[id="f-contact.phone"]`, "+60123456789", chromedp.ByQuery),
		chromedp.Click(`main form button[type=submit]`, chromedp.ByQuery),
		chromedp.WaitVisible(`.flash`, chromedp.ByQuery))
	c.screenshot("buyer-saved")
	if got := c.text("main h1"); got != "Kedai Runcit Ali" {
		t.Errorf("after save the page is %q", got)
	}

	c.visit("/app/sellers", "sellers")
	c.visit("/app/sellers/new", "seller-new")
	c.visit("/app/profile", "profile")
	c.run(chromedp.Click(`form[action="/app/profile/check"] button`, chromedp.ByQuery), chromedp.WaitVisible(`ol.check`, chromedp.ByQuery))
	c.screenshot("profile-check")
	if got := c.text("ol.check"); !strings.Contains(got, "login") {
		t.Errorf("the check lists %q", got)
	}

	c.run(chromedp.EmulateViewport(375, 800))
	for _, p := range []string{"/app/buyers", "/app/buyers/" + id, "/app/buyers/new", "/app/sellers", "/app/profile"} {
		c.visit(p, strings.ReplaceAll(strings.TrimPrefix(p, "/app/"), "/", "-")+"-375")
		var overflow int
		c.run(chromedp.Evaluate(`document.documentElement.scrollWidth - document.documentElement.clientWidth`, &overflow))
		if overflow > 0 {
			t.Errorf("at 375 px %s is %d px wider than the screen", p, overflow)
		}
	}
}
