package dashboard_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestSignInListDetailSignOut: the path of a person, without a browser.
func TestSignInListDetailSignOut(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	id := f.invoice(t, f.key, f.buyer(t, f.key, "Hebat Group"), "INV-001")
	b := f.browser(t)
	if p := b.get("/app/documents"); p.status != http.StatusSeeOther || !strings.HasPrefix(p.header.Get("Location"), "/app/signin") {
		t.Fatalf("documents without a session = %d %q, want the sign-in page", p.status, p.header.Get("Location"))
	}
	b.signIn(f.owner)
	p := b.get("/app/documents")
	if p.status != http.StatusOK || !strings.Contains(p.body, "INV-001") || !strings.Contains(p.body, `Draft <span class="count">1</span>`) {
		t.Fatalf("documents = %d:\n%s", p.status, p.body)
	}
	p = b.get("/app/documents/" + id)
	if p.status != http.StatusOK || !strings.Contains(p.body, "Hebat Group") || !strings.Contains(p.body, "108.00") {
		t.Fatalf("document = %d:\n%s", p.status, p.body)
	}
	if p := b.post("/app/signout", url.Values{"csrf": {b.csrf("/app/documents")}}); p.status != http.StatusSeeOther {
		t.Fatalf("sign out = %d:\n%s", p.status, p.body)
	}
	if p := b.get("/app/documents"); p.status != http.StatusSeeOther {
		t.Fatalf("documents after sign-out = %d, want a redirect to sign in", p.status)
	}
}

// TestWrongPassword: an unknown e-mail and a wrong password get the same
// page (but the CSRF token), no cookie; an API key is no sign-in.
func TestWrongPassword(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	b := f.browser(t)
	csrf := b.csrf("/app/signin")
	answer := func(email, password string) page {
		p := b.post("/app/signin", url.Values{"email": {email}, "password": {password}, "csrf": {csrf}})
		p.body = csrfField.ReplaceAllString(p.body, "")
		return p
	}
	wrong, unknown := answer(f.owner.Email, "not the password"), answer("nobody@example.com", "not the password")
	if wrong.status != http.StatusUnauthorized || unknown.status != wrong.status || unknown.body != strings.ReplaceAll(wrong.body, f.owner.Email, "nobody@example.com") ||
		!strings.Contains(wrong.body, "The e-mail or the password is wrong.") || b.session() != "" {
		t.Fatalf("wrong password = %d, unknown e-mail = %d, session %q:\n%s\n---\n%s", wrong.status, unknown.status, b.session(), wrong.body, unknown.body)
	}
	if p := answer("", f.key); p.status != http.StatusUnauthorized || b.session() != "" {
		t.Errorf("the API key as a password = %d, session %q", p.status, b.session())
	}
}

// TestSecurityHeaders: every answer forbids framing and foreign origins.
func TestSecurityHeaders(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	b := f.browser(t)
	for _, path := range []string{"/app/signin", "/app/nowhere", "/app/documents"} {
		p := b.get(path)
		csp := p.header.Get("Content-Security-Policy")
		if !strings.Contains(csp, "frame-ancestors 'none'") || !strings.Contains(csp, "default-src 'self'") ||
			p.header.Get("X-Frame-Options") != "DENY" {
			t.Errorf("GET %s = %d: CSP %q, X-Frame-Options %q", path, p.status, csp, p.header.Get("X-Frame-Options"))
		}
	}
	if p := b.get("/app/nowhere"); p.status != http.StatusNotFound {
		t.Errorf("unknown page = %d, want 404", p.status)
	}
}

// TestCSRF: a POST without the token, with another session's, or from
// another origin is refused and changes nothing.
func TestCSRF(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	id := f.invoice(t, f.key, f.buyer(t, f.key, "Hebat Group"), "INV-001")
	alice, mallory := f.browser(t), f.browser(t)
	alice.signIn(f.owner)
	mallory.signIn(f.owner)
	stolen := mallory.csrf("/app/documents")
	for name, form := range map[string]url.Values{"missing": {}, "another session's": {"csrf": {stolen}}, "garbage": {"csrf": {"x"}}} {
		if p := alice.post("/app/documents/"+id+"/validate", form); p.status != http.StatusForbidden {
			t.Errorf("validate with %s token = %d, want 403", name, p.status)
		}
	}
	req, _ := http.NewRequest(http.MethodPost, f.svc.URL+"/app/documents/"+id+"/validate",
		strings.NewReader(url.Values{"csrf": {alice.csrf("/app/documents")}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", "https://evil.example")
	if p := alice.do(req); p.status != http.StatusForbidden {
		t.Errorf("validate from another origin = %d, want 403", p.status)
	}
	d, err := f.api(f.key).Documents.Get(t.Context(), id)
	if err != nil || d.Status != "draft" {
		t.Fatalf("after the refused posts: %v %v, want still draft", d, err)
	}
	if p := alice.post("/app/documents/"+id+"/validate", url.Values{"csrf": {alice.csrf("/app/documents")}}); p.status != http.StatusSeeOther {
		t.Fatalf("validate with the token = %d:\n%s", p.status, p.body)
	}
	if d, _ := f.api(f.key).Documents.Get(t.Context(), id); d.Status != "ready" {
		t.Errorf("after validate: %s, want ready", d.Status)
	}
}

// TestOtherTenant: a session of tenant B does not see tenant A's document.
func TestOtherTenant(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	id := f.invoice(t, f.key, f.buyer(t, f.key, "Hebat Group"), "INV-001")
	tenantB, _ := f.newTenant(t, "Other Sdn. Bhd.")
	b := f.browser(t)
	b.signIn(f.personIn(t, tenantB, "owner", "Other admin"))
	if p := b.get("/app/documents/" + id); p.status != http.StatusNotFound || strings.Contains(p.body, "Hebat") {
		t.Errorf("another tenant's document = %d:\n%s", p.status, p.body)
	}
	if p := b.get("/app/documents/" + id + "/pdf"); p.status != http.StatusNotFound {
		t.Errorf("another tenant's PDF = %d, want 404", p.status)
	}
	if p := b.post("/app/documents/"+id+"/validate", url.Values{"csrf": {b.csrf("/app/documents")}}); p.status != http.StatusNotFound {
		t.Errorf("validate another tenant's document = %d, want 404", p.status)
	}
	if p := b.get("/app/documents/not-an-id"); p.status != http.StatusNotFound {
		t.Errorf("a malformed id = %d, want 404", p.status)
	}
	if p := b.get("/app/documents"); strings.Contains(p.body, "INV-001") {
		t.Errorf("another tenant's list shows INV-001:\n%s", p.body)
	}
	if p := b.get("/app/documents"); !strings.Contains(p.body, "Other admin") || !strings.Contains(p.body, "Other Sdn. Bhd.") {
		t.Errorf("the page does not name the person and the tenant:\n%s", p.body)
	}
}

// TestExpiredSession: a session unused for longer than the idle timeout,
// or older than its lifetime, or of a user removed from the tenant, is over.
func TestExpiredSession(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	b := f.browser(t)
	b.signIn(f.owner)
	f.clock.Advance(3 * time.Hour)
	if p := b.get("/app/documents"); p.status != http.StatusSeeOther {
		t.Errorf("after 3 idle hours = %d, want a redirect to sign in", p.status)
	}
	b.signIn(f.owner)
	for range 13 {
		f.clock.Advance(time.Hour)
		b.get("/app/documents")
	}
	if p := b.get("/app/documents"); p.status != http.StatusSeeOther {
		t.Errorf("after 13 busy hours = %d, want a redirect to sign in", p.status)
	}
	temp := f.personIn(t, f.demoTenant(t), "accountant", "Temp")
	b.signIn(temp)
	ob := f.browser(t)
	ob.signIn(f.owner)
	people := ob.get("/app/people").body
	i := strings.Index(people, temp.Email)
	m := regexp.MustCompile(`/app/people/([0-9a-f-]{36})/remove`).FindStringSubmatch(people[i:])
	if i < 0 || m == nil {
		t.Fatalf("the people page does not list %s:\n%s", temp.Email, people)
	}
	if p := ob.post("/app/people/"+m[1]+"/remove", url.Values{"csrf": {ob.csrf("/app/people")}}); p.status != http.StatusSeeOther {
		t.Fatalf("remove = %d:\n%s", p.status, p.body)
	}
	if p := b.get("/app/documents"); p.status != http.StatusSeeOther {
		t.Errorf("after its user was removed from the tenant = %d, want a redirect to sign in", p.status)
	}
}

// TestReadOnlyKey: no write button rendered, and a write POST refused.
func TestReadOnlyKey(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	id := f.invoice(t, f.key, f.buyer(t, f.key, "Hebat Group"), "INV-001")
	ro := f.personIn(t, f.demoTenant(t), "viewer", "Aisyah")
	b := f.browser(t)
	b.signIn(ro)
	p := b.get("/app/documents/" + id)
	if p.status != http.StatusOK || strings.Contains(p.body, "/validate") || !strings.Contains(p.body, "Aisyah") {
		t.Fatalf("read-only document page = %d:\n%s", p.status, p.body)
	}
	if p := b.post("/app/documents/"+id+"/validate", url.Values{"csrf": {b.csrf("/app/documents")}}); p.status != http.StatusForbidden {
		t.Errorf("read-only validate = %d, want 403", p.status)
	}
	if d, _ := f.api(f.key).Documents.Get(t.Context(), id); d.Status != "draft" {
		t.Errorf("after a read-only validate: %s, want draft", d.Status)
	}
}

// TestHTMLEscaped: a buyer named <script>alert(1)</script> is text.
func TestHTMLEscaped(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	id := f.invoice(t, f.key, f.buyer(t, f.key, "<script>alert(1)</script>"), "<b>INV</b>")
	b := f.browser(t)
	b.signIn(f.owner)
	for _, path := range []string{"/app/documents/" + id, "/app/documents"} {
		p := b.get(path)
		if strings.Contains(p.body, "<script>") || strings.Contains(p.body, "<b>INV") {
			t.Errorf("%s renders markup from data:\n%s", path, p.body)
		}
	}
	if p := b.get("/app/documents/" + id); !strings.Contains(p.body, "&lt;script&gt;alert(1)&lt;/script&gt;") {
		t.Errorf("the buyer's name is not shown as text:\n%s", p.body)
	}
}

// TestCSV: the export of the current filter, quoted, formulas guarded.
func TestCSV(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	buyer := f.buyer(t, f.key, "Hebat Group")
	f.invoice(t, f.key, buyer, "=HYPERLINK(1)")
	f.invoice(t, f.key, buyer, "A,\"quoted\"")
	b := f.browser(t)
	b.signIn(f.owner)
	p := b.get("/app/documents.csv?status=draft")
	if p.status != http.StatusOK || !strings.HasPrefix(p.header.Get("Content-Type"), "text/csv") {
		t.Fatalf("csv = %d %q", p.status, p.header.Get("Content-Type"))
	}
	if !strings.Contains(p.body, ",'=HYPERLINK(1),") || !strings.Contains(p.body, `,"A,""quoted""",`) || strings.Count(p.body, "\n") != 3 {
		t.Errorf("csv:\n%s", p.body)
	}
}

// TestServiceRootLeadsBrowsers: GET / from a browser (it accepts HTML)
// leads to the dashboard; an API client and any other method get the
// JSON 404 of a path no route knows.
func TestServiceRootLeadsBrowsers(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	b := f.browser(t)
	req, _ := http.NewRequest(http.MethodGet, f.svc.URL+"/", nil)
	req.Header.Set("Accept", "text/html,application/xhtml+xml,*/*;q=0.8")
	if p := b.do(req); p.status != http.StatusSeeOther || p.header.Get("Location") != "/app/documents" {
		t.Errorf("GET / from a browser = %d %q, want 303 to /app/documents", p.status, p.header.Get("Location"))
	}
	for _, c := range []struct{ method, accept string }{{"GET", "application/json"}, {"GET", ""}, {"POST", "text/html"}} {
		req, _ := http.NewRequest(c.method, f.svc.URL+"/", nil)
		req.Header.Set("Accept", c.accept)
		if p := b.do(req); p.status != http.StatusNotFound || !strings.Contains(p.body, `"error_code":"NOT_FOUND"`) {
			t.Errorf("%s / (Accept %q) = %d %s, want the JSON 404", c.method, c.accept, p.status, p.body)
		}
	}
}
