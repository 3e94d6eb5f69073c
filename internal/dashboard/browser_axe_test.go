package dashboard_test

import (
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// axeSource is testdata/axe-core/axe.min.js, read once.
var axeSource = sync.OnceValues(func() (string, error) {
	b, err := os.ReadFile("testdata/axe-core/axe.min.js")
	return string(b), err
})

// axeViolation is the part of an axe-core violation a failing test reports.
type axeViolation struct {
	ID     string `json:"id"`
	Impact string `json:"impact"`
	Help   string `json:"help"`
	Nodes  []struct {
		Target []any `json:"target"`
	} `json:"nodes"`
}

// axeRun injects axe-core into the current page through the DevTools
// protocol (which the page's CSP does not govern) and returns the WCAG 2.0/2.1
// A and AA violations it finds.
func (c *chrome) axeRun() []axeViolation {
	c.t.Helper()
	src, err := axeSource()
	if err != nil {
		c.t.Fatalf("read axe-core: %v", err)
	}
	var out []axeViolation
	c.run(chromedp.WaitReady("body"), chromedp.Evaluate(src+";0", nil),
		chromedp.Evaluate(`axe.run(document, {runOnly: {type: 'tag', values: ['wcag2a','wcag2aa','wcag21a','wcag21aa']}}).then(r => r.violations)`,
			&out, func(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) }))
	return out
}

// checkA11y fails the test with each axe-core violation on the current page.
func (c *chrome) checkA11y(page string) {
	c.t.Helper()
	for _, v := range c.axeRun() {
		var targets []string
		for _, n := range v.Nodes {
			targets = append(targets, fmt.Sprint(n.Target...))
		}
		c.t.Errorf("a11y %s: %s (%s) at %s: %s", page, v.ID, v.Impact, strings.Join(targets, ", "), v.Help)
	}
}

// TestBrowserAccessibility checks the dashboard's pages with axe-core at a
// desktop and a phone width.
func TestBrowserAccessibility(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "--sandbox-delay", "0")
	buyer := f.buyer(t, f.key, "Buyer Sdn Bhd")
	id := f.invoice(t, f.key, buyer, "INV-001")
	// A Valid document (its mail delivery) and its kept message.
	valid := f.validInvoice(t, "INV-002")
	b := f.browser(t)
	b.signIn(f.owner)
	msg := messageLink.FindStringSubmatch(b.get("/app/mail").body)
	if msg == nil {
		t.Fatal("no message on the Mail page")
	}
	c := newChrome(t, f.svc.URL)
	c.visit("/app/signin", "signin")
	c.signIn(f.owner)
	pages := []string{"/app/documents", "/app/documents/" + id, "/app/documents/new", "/app/buyers", "/app/sellers",
		"/app/buyers/" + buyer, "/app/profile", "/app/received", "/app/receipts", "/app/consolidations", "/app/webhooks", "/app/no-such-page",
		"/app/documents/" + valid, "/app/mail", msg[1], "/app/mail/settings"}
	for _, w := range []int64{1280, 375} {
		c.run(chromedp.EmulateViewport(w, 900))
		for _, p := range pages {
			c.visit(p, fmt.Sprint(w, strings.ReplaceAll(p, "/", "-")))
		}
	}
}
