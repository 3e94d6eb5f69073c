package dashboard_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// TestEveryFormRefusesForeignPosts: every POST route of the dashboard,
// the sign-in form included, refuses a post without a valid CSRF token,
// with a foreign Origin, with a null Origin and a foreign Referer, or
// with neither Origin nor Referer (403, nothing done); a post that names
// our origin only by its Referer is welcome.
func TestEveryFormRefusesForeignPosts(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	buyer := f.buyer(t, f.key, "Hebat Group")
	id := f.invoice(t, f.key, buyer, "INV-001")
	b := f.browser(t)
	b.signIn(f.owner)
	token := b.csrf("/app/documents")
	routes := []string{
		"/app/signout", "/app/documents/" + id + "/validate", "/app/documents/" + id + "/submit",
		"/app/documents/" + id + "/cancel", "/app/documents/new", "/app/documents/preview",
		"/app/documents/" + id + "/edit", "/app/received/x/reject", "/app/receipts/x/delete",
		"/app/consolidations", "/app/webhooks", "/app/webhooks/x", "/app/webhooks/x/delete",
		"/app/webhooks/x/rotate", "/app/webhooks/x/test", "/app/webhooks/x/deliveries/y/redeliver",
		"/app/buyers", "/app/buyers/" + buyer, "/app/buyers/" + buyer + "/delete", "/app/sellers",
		"/app/profile", "/app/profile/authority",
	}
	post := func(path string, form url.Values, headers ...string) page {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, f.svc.URL+path, strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		for i := 0; i+1 < len(headers); i += 2 {
			req.Header.Set(headers[i], headers[i+1])
		}
		return b.do(req)
	}
	ours := f.svc.URL
	cases := []struct {
		what    string
		form    url.Values
		headers []string
	}{
		{"no token", url.Values{}, []string{"Origin", ours}},
		{"a foreign Origin", url.Values{"csrf": {token}}, []string{"Origin", "https://evil.example"}},
		{"a null Origin and a foreign Referer", url.Values{"csrf": {token}}, []string{"Origin", "null", "Referer", "https://evil.example/app/x"}},
		{"neither Origin nor Referer", url.Values{"csrf": {token}}, nil},
	}
	for _, path := range routes {
		for _, c := range cases {
			if p := post(path, c.form, c.headers...); p.status != http.StatusForbidden {
				t.Errorf("POST %s with %s = %d, want 403", path, c.what, p.status)
			}
		}
	}
	// Nothing was done: the session lives, the document is a draft, no
	// buyer or document was added or removed.
	if b.session() == "" || b.get("/app/documents").status != http.StatusOK {
		t.Fatalf("the session ended after refused posts")
	}
	api := f.api(f.key)
	if d, err := api.Documents.Get(t.Context(), id); err != nil || d.Status != "draft" {
		t.Errorf("document after refused posts: %v %v, want draft", d, err)
	}
	if n := b.get("/app/buyers"); strings.Count(n.body, "/app/buyers/"+buyer+`"`) == 0 {
		t.Errorf("the buyer is gone after refused posts:\n%s", n.body)
	}
	if p := b.get("/app/documents"); strings.Count(p.body, `href="/app/documents/0`) > 1 || !strings.Contains(p.body, "INV-001") {
		t.Errorf("the documents changed after refused posts:\n%s", p.body)
	}
	// Our own origin by the Referer alone (a browser that sends no Origin).
	if p := post("/app/documents/"+id+"/validate", url.Values{"csrf": {token}}, "Referer", ours+"/app/documents/"+id); p.status != http.StatusSeeOther {
		t.Errorf("validate with our Referer and no Origin = %d, want 303:\n%s", p.status, p.body)
	}

	// The sign-in form: the same rules, and no session is opened.
	s := f.browser(t)
	signInToken := s.csrf("/app/signin")
	for _, c := range []struct {
		what    string
		form    url.Values
		headers []string
	}{
		{"no token", url.Values{"key": {f.key}}, []string{"Origin", ours}},
		{"another browser's token", url.Values{"key": {f.key}, "csrf": {f.browser(t).csrf("/app/signin")}}, []string{"Origin", ours}},
		{"a foreign Origin", url.Values{"key": {f.key}, "csrf": {signInToken}}, []string{"Origin", "https://evil.example"}},
		{"neither Origin nor Referer", url.Values{"key": {f.key}, "csrf": {signInToken}}, nil},
	} {
		req, _ := http.NewRequest(http.MethodPost, f.svc.URL+"/app/signin", strings.NewReader(c.form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		for i := 0; i+1 < len(c.headers); i += 2 {
			req.Header.Set(c.headers[i], c.headers[i+1])
		}
		if p := s.do(req); p.status != http.StatusForbidden || s.session() != "" {
			t.Errorf("sign in with %s = %d, session %q; want 403 and none", c.what, p.status, s.session())
		}
	}
	s.signIn(f.owner) // with its own token and our Origin
}
