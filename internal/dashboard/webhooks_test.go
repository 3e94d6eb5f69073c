package dashboard_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// hookEndpoint is a webhook endpoint of a test: it answers status and counts
// what it received.
func hookEndpoint(t *testing.T, status int) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		n.Add(1)
		w.WriteHeader(status)
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

var secretShown = regexp.MustCompile(`whsec_[0-9a-f]{64}`)

// TestWebhooks: create refused beside the fields (no event, a wrong URL,
// what was typed kept and escaped), then done with the secret shown once;
// edit; send a test, whose delivery is listed and redelivered; rotate
// shows a new secret once; delete. A read-only key sees no write control
// and its posts are refused; posts without the CSRF token are refused;
// another tenant's webhook is a 404.
func TestWebhooks(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "--webhook-allow-private", "--rate-limit", "100000")
	srv, hits := hookEndpoint(t, http.StatusNoContent)
	b := f.browser(t)
	b.signIn(f.owner)
	if p := b.get("/app/webhooks"); p.status != http.StatusOK || !strings.Contains(p.body, "No webhooks yet.") || !strings.Contains(p.body, `href="/app/webhooks/new"`) {
		t.Fatalf("the empty list = %d:\n%s", p.status, p.body)
	}
	p := b.post("/app/webhooks", url.Values{"csrf": {b.csrf("/app/webhooks/new")}, "url": {"<script>alert(1)</script>"}, "enabled": {"on"}})
	if p.status != http.StatusUnprocessableEntity || !strings.Contains(p.body, `id="e-url"`) || !strings.Contains(p.body, `id="e-events"`) ||
		!strings.Contains(p.body, `value="&lt;script&gt;alert(1)&lt;/script&gt;"`) || strings.Contains(p.body, "<script>alert(1)") {
		t.Fatalf("create without events and a wrong URL = %d:\n%s", p.status, p.body)
	}
	p = b.post("/app/webhooks", url.Values{"csrf": {b.csrf("/app/webhooks/new")}, "url": {srv.URL}, "events": {"document.valid", "no.such"}, "enabled": {"on"}})
	if p.status != http.StatusUnprocessableEntity || !strings.Contains(p.body, `id="e-events"`) || !strings.Contains(p.body, `value="document.valid" id="f-events-1" checked`) {
		t.Errorf("create with an unknown event = %d:\n%s", p.status, p.body)
	}
	p = b.post("/app/webhooks", url.Values{"csrf": {b.csrf("/app/webhooks/new")}, "url": {srv.URL + "/hook"}, "events": {"document.valid", "document.cancelled"}, "enabled": {"on"}})
	secret := secretShown.FindString(p.body)
	if p.status != http.StatusCreated || secret == "" {
		t.Fatalf("create = %d, secret %q:\n%s", p.status, secret, p.body)
	}
	m := regexp.MustCompile(`action="(/app/webhooks/[^/"]+)/test"`).FindStringSubmatch(p.body)
	if m == nil {
		t.Fatalf("no test form:\n%s", p.body)
	}
	hook := m[1]
	p = b.get(hook)
	if p.status != http.StatusOK || secretShown.MatchString(p.body) || !strings.Contains(p.body, `value="document.cancelled" id="f-events-3" checked`) {
		t.Errorf("the webhook's page = %d (the secret must not show again):\n%s", p.status, p.body)
	}
	if p := b.get("/app/webhooks"); !strings.Contains(p.body, `href="`+hook+`"`) {
		t.Errorf("the list does not link the webhook:\n%s", p.body)
	}

	// Edit: a wrong URL is refused beside it; then saved, disabled.
	if p := b.post(hook, url.Values{"csrf": {b.csrf(hook)}, "url": {"ftp://x"}, "events": {"document.valid"}}); p.status != http.StatusUnprocessableEntity ||
		!strings.Contains(p.body, `id="e-url"`) || !strings.Contains(p.body, `value="ftp://x"`) {
		t.Errorf("edit with a wrong URL = %d:\n%s", p.status, p.body)
	}
	p = b.post(hook, url.Values{"csrf": {b.csrf(hook)}, "url": {srv.URL + "/v2"}, "events": {"document.invalid"}, "enabled": {"on"}})
	if p.status != http.StatusSeeOther || p.header.Get("Location") != hook {
		t.Fatalf("edit = %d:\n%s", p.status, p.body)
	}
	if p := b.get(hook); !strings.Contains(p.body, "Webhook saved.") || !strings.Contains(p.body, srv.URL+"/v2") || !strings.Contains(p.body, `value="document.invalid" id="f-events-2" checked`) {
		t.Errorf("after edit:\n%s", p.body)
	}

	// Test, then its delivery; redeliver it.
	if p := b.post(hook+"/test", url.Values{"csrf": {b.csrf(hook)}}); p.status != http.StatusSeeOther {
		t.Fatalf("test = %d:\n%s", p.status, p.body)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		p = b.get(hook)
		if strings.Contains(p.body, ">Delivered<") && strings.Contains(p.body, ">204<") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the test delivery is not delivered after 20s (%d hits):\n%s", hits.Load(), p.body)
		}
		time.Sleep(100 * time.Millisecond)
	}
	rm := regexp.MustCompile(`action="(` + regexp.QuoteMeta(hook) + `/deliveries/[^"]+/redeliver)"`).FindStringSubmatch(p.body)
	if rm == nil || !strings.Contains(p.body, "webhook.test") {
		t.Fatalf("no delivery with redeliver:\n%s", p.body)
	}
	if p := b.post(rm[1], url.Values{"csrf": {b.csrf(hook)}}); p.status != http.StatusSeeOther {
		t.Errorf("redeliver = %d:\n%s", p.status, p.body)
	}
	if p := b.post(hook+"/deliveries/nope/redeliver", url.Values{"csrf": {b.csrf(hook)}}); p.status != http.StatusNotFound {
		t.Errorf("redeliver of an unknown delivery = %d, want 404", p.status)
	}

	// Read-only, CSRF, another tenant.
	ro := f.personIn(t, f.demoTenant(t), "viewer", "Aisyah")
	rb := f.browser(t)
	rb.signIn(ro)
	if p := rb.get(hook); p.status != http.StatusOK || strings.Contains(p.body, `method="post" action="/app/webhooks`) {
		t.Errorf("a read-only key's webhook page = %d, with write forms:\n%s", p.status, p.body)
	}
	if p := rb.get("/app/webhooks"); strings.Contains(p.body, "/app/webhooks/new") {
		t.Errorf("a read-only key sees the add link")
	}
	if p := rb.get("/app/webhooks/new"); p.status != http.StatusForbidden {
		t.Errorf("a read-only key's new webhook form = %d, want 403", p.status)
	}
	for _, path := range []string{"/app/webhooks", hook, hook + "/rotate", hook + "/delete", hook + "/test", rm[1]} {
		if p := rb.post(path, url.Values{"csrf": {rb.csrf("/app/webhooks")}, "url": {srv.URL}, "events": {"document.valid"}}); p.status != http.StatusForbidden {
			t.Errorf("a read-only key's POST %s = %d, want 403", path, p.status)
		}
		if p := b.post(path, url.Values{"url": {srv.URL}, "events": {"document.valid"}}); p.status != http.StatusForbidden {
			t.Errorf("POST %s without the CSRF token = %d, want 403", path, p.status)
		}
	}
	otherTenant, _ := f.newTenant(t, "Other")
	ob := f.browser(t)
	ob.signIn(f.personIn(t, otherTenant, "owner", "Other owner"))
	if p := ob.get(hook); p.status != http.StatusNotFound {
		t.Errorf("another tenant's webhook = %d, want 404", p.status)
	}
	for _, path := range []string{hook, hook + "/rotate", hook + "/delete", hook + "/test", rm[1]} {
		if p := ob.post(path, url.Values{"csrf": {ob.csrf("/app/webhooks")}, "url": {srv.URL}, "events": {"document.valid"}}); p.status != http.StatusNotFound {
			t.Errorf("another tenant's POST %s = %d, want 404", path, p.status)
		}
	}

	// Rotate: a new secret, once.
	p = b.post(hook+"/rotate", url.Values{"csrf": {b.csrf(hook)}})
	if again := secretShown.FindString(p.body); p.status != http.StatusOK || again == "" || again == secret {
		t.Errorf("rotate = %d, secret %q (was %q)", p.status, again, secret)
	}
	if p := b.get(hook); secretShown.MatchString(p.body) {
		t.Error("the rotated secret shows again")
	}
	// Delete.
	p = b.post(hook+"/delete", url.Values{"csrf": {b.csrf(hook)}})
	if p.status != http.StatusSeeOther || p.header.Get("Location") != "/app/webhooks" {
		t.Fatalf("delete = %d:\n%s", p.status, p.body)
	}
	if p := b.get(hook); p.status != http.StatusNotFound {
		t.Errorf("the deleted webhook = %d, want 404", p.status)
	}
}
