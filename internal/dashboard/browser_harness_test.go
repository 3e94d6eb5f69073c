package dashboard_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// The browser tests drive headless Chromium through chromedp. Without a
// Chromium they skip, unless EINVOICE_REQUIRE_BROWSER=1 (CI), when they
// fail. Every page visited through visit is saved as a full-page
// screenshot in screenshotDir.

// chromiumPath finds a Chromium: $EINVOICE_CHROMIUM, else the usual names.
func chromiumPath() string {
	if p := os.Getenv("EINVOICE_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"/usr/bin/chromium", "chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// screenshotDir is $EINVOICE_SCREENSHOTS, else test-artifacts/screenshots
// at the repository's root (git-ignored; CI keeps it as an artefact).
func screenshotDir(t *testing.T) string {
	if d := os.Getenv("EINVOICE_SCREENSHOTS"); d != "" {
		return d
	}
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(dir, "test-artifacts", "screenshots")
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's directory")
		}
		dir = parent
	}
}

// chrome is one headless Chromium tab of a test, with its screenshots.
type chrome struct {
	t    *testing.T
	ctx  context.Context
	base string
	dir  string
	shot atomic.Int32
}

// newChrome starts a headless Chromium with a fresh profile for the test,
// 1280 px wide; it ends with the test.
func newChrome(t *testing.T, base string) *chrome {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: no browser")
	}
	path := chromiumPath()
	if path == "" {
		if os.Getenv("EINVOICE_REQUIRE_BROWSER") == "1" {
			t.Fatal("no Chromium found (EINVOICE_REQUIRE_BROWSER=1): install it (apt-get install chromium) or set EINVOICE_CHROMIUM")
		}
		t.Skip("no Chromium found: browser test skipped (set EINVOICE_CHROMIUM, or install chromium)")
	}
	// A profile of its own, removed once Chromium is gone (not t.TempDir:
	// Chromium may still be writing into it as the test ends).
	profile, err := os.MkdirTemp("", "einvoice-chromium-")
	if err != nil {
		t.Fatal(err)
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path), chromedp.UserDataDir(profile),
		chromedp.Flag("headless", true), chromedp.Flag("no-sandbox", true), chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-quic", true), chromedp.Flag("no-first-run", true),
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.Flag("disable-dev-shm-usage", true), chromedp.Flag("hide-scrollbars", true),
		chromedp.WindowSize(1280, 900),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelTab := chromedp.NewContext(actx)
	ctx, cancelTimeout := context.WithTimeout(ctx, 90*time.Second)
	t.Cleanup(func() {
		cancelTimeout()
		cancelTab()
		cancelAlloc()
		for range 50 {
			if os.RemoveAll(profile) == nil {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
		t.Logf("chromium profile %s left behind", profile)
	})
	if err := chromedp.Run(ctx); err != nil {
		t.Fatalf("start chromium %s: %v", path, err)
	}
	dir := screenshotDir(t)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return &chrome{t: t, ctx: ctx, base: base, dir: dir}
}

// run runs chromedp actions, failing the test on error.
func (c *chrome) run(actions ...chromedp.Action) {
	c.t.Helper()
	if err := chromedp.Run(c.ctx, actions...); err != nil {
		c.t.Fatalf("chromium: %v", err)
	}
}

// visit opens path, saves its screenshot named name and checks it with axe-core.
func (c *chrome) visit(path, name string) {
	c.t.Helper()
	c.run(chromedp.Navigate(c.base + path))
	c.screenshot(name)
	c.checkA11y(path)
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9_-]+`)

// screenshot saves the current page, whole, as <test>-<n>-<name>.png.
func (c *chrome) screenshot(name string) {
	c.t.Helper()
	var png []byte
	c.run(chromedp.WaitReady("body"), chromedp.FullScreenshot(&png, 100))
	n := c.shot.Add(1)
	file := filepath.Join(c.dir, fmt.Sprintf("%s-%02d-%s.png", unsafeName.ReplaceAllString(c.t.Name(), "_"), n, name))
	if err := os.WriteFile(file, png, 0o644); err != nil {
		c.t.Fatal(err)
	}
	c.t.Logf("screenshot %s", file)
}

// follow runs act (a click or a submit that loads a page), waits for the
// page it loads (chromedp.RunResponse), then for sel in it: a wait on sel
// alone could match the old page (its flash, its heading) while the new one
// is still loading.
func (c *chrome) follow(act chromedp.Action, sel string) {
	c.t.Helper()
	if _, err := chromedp.RunResponse(c.ctx, act); err != nil {
		c.t.Fatalf("chromium: %v", err)
	}
	c.run(chromedp.WaitVisible(sel, chromedp.ByQuery))
}

// text is the visible text of the first element matching sel.
func (c *chrome) text(sel string) string {
	c.t.Helper()
	var s string
	c.run(chromedp.Text(sel, &s, chromedp.ByQuery))
	return strings.TrimSpace(s)
}

// signIn types the person's e-mail and password into the sign-in page
// and submits it.
func (c *chrome) signIn(who *person) {
	c.t.Helper()
	c.visit("/app/signin", "signin")
	c.run(chromedp.SendKeys("#f-email", who.Email, chromedp.ByQuery), chromedp.SendKeys("#f-password", who.Password, chromedp.ByQuery),
		chromedp.Submit("#f-password", chromedp.ByQuery), chromedp.WaitVisible("nav.tabs", chromedp.ByQuery))
}
