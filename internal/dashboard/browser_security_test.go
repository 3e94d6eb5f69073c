package dashboard_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	cdpage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// TestBrowserClickjacking: a page of another origin framing the dashboard
// gets nothing: Chromium refuses the frame (frame-ancestors 'none').
func TestBrowserClickjacking(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, `<!doctype html><html lang="en"><title>Prize</title><h1>Win a prize</h1><iframe title="prize" src="%s/app/signin" width="600" height="400"></iframe>`, f.svc.URL)
	}))
	t.Cleanup(evil.Close)
	c := newChrome(t, evil.URL)
	c.visit("/", "framed-by-another-site")
	var tree *cdpage.FrameTree
	deadline := time.Now().Add(10 * time.Second)
	for {
		c.run(chromedp.ActionFunc(func(ctx context.Context) error {
			var err error
			tree, err = cdpage.GetFrameTree().Do(ctx)
			return err
		}))
		// The frame starts blank, then holds the page or Chromium's error.
		if len(tree.ChildFrames) == 1 && !slices.Contains([]string{"", "about:blank"}, tree.ChildFrames[0].Frame.URL) || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if len(tree.ChildFrames) != 1 {
		t.Fatalf("%d frames, want the one iframe", len(tree.ChildFrames))
	}
	fr := tree.ChildFrames[0].Frame
	if !strings.HasPrefix(fr.URL, "chrome-error:") {
		t.Errorf("the framed sign-in page loaded (%s, unreachable %q): frame-ancestors did not refuse it", fr.URL, fr.UnreachableURL)
	}
}
