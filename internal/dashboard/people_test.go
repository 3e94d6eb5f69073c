package dashboard_test

import (
	"net/http"
	"net/url"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/einvoice/einvoice/internal/invoicing/people"
	"github.com/einvoice/einvoice/internal/servetest"
	"github.com/einvoice/einvoice/internal/testsmtp"
)

var (
	mailedLink = servetest.LinkPattern
	totpSecret = regexp.MustCompile(`id="totp-secret">([A-Z2-7]+)<`)
	recovery   = regexp.MustCompile(`<li><code>([a-z2-9]{5}-[a-z2-9]{5})</code></li>`)
	removeLink = regexp.MustCompile(`/app/people/([0-9a-f-]{36})/remove`)
)

// linkPath is the path of a one-time link (its host is the service's).
func linkPath(t *testing.T, link string) string {
	t.Helper()
	i := strings.Index(link, "/app/link/")
	if i < 0 {
		t.Fatalf("not a one-time link: %q", link)
	}
	return link[i:]
}

// TestInviteTOTPSignIn: an owner invites an accountant, whose mail (at a
// real SMTP server on loopback) carries the link; the accountant sets a
// password, enrols TOTP (codes computed here), and signs in with both
// factors, the session id changing at each step; a recovery code works
// once.
func TestInviteTOTPSignIn(t *testing.T) {
	t.Parallel()
	srv := testsmtp.Start(t, testsmtp.Options{TLS: true})
	f := newFixture(t, "--smtp-url", srv.URL(), "--mail-from", "einvoice@supplier.example", "--smtp-ca", srv.CAFile(t), "--mail-retry-base", "50ms")
	ob := f.browser(t)
	ob.signIn(f.owner)
	if p := ob.post("/app/people/invite", url.Values{"csrf": {ob.csrf("/app/people")}, "email": {"siti@hebat.example"}, "role": {"accountant"}}); p.status != http.StatusOK ||
		!strings.Contains(p.body, "mailed to siti@hebat.example") || strings.Contains(p.body, "/app/link/") {
		t.Fatalf("invite = %d:\n%s", p.status, p.body)
	}
	srv.WaitCount(t, 1, 20*time.Second)
	msg := srv.Messages()[0]
	link := mailedLink.FindString(msg.Text)
	if len(msg.To) != 1 || msg.To[0] != "siti@hebat.example" || link == "" || !strings.Contains(msg.Text, "accountant") {
		t.Fatalf("the invitation mail: to %v:\n%s", msg.To, msg.Text)
	}

	siti := &person{Name: "Siti Aminah", Email: "siti@hebat.example", Password: "a long pass phrase 7"}
	b := f.browser(t)
	path := linkPath(t, link)
	if p := b.post(path, url.Values{"csrf": {b.csrf(path)}, "name": {siti.Name}, "password": {"1qaz2wsx3edc"}}); p.status != http.StatusUnprocessableEntity ||
		!strings.Contains(p.body, "most common") {
		t.Errorf("a common password = %d, want 422 naming the rule:\n%s", p.status, p.body)
	}
	if p := b.post(path, url.Values{"csrf": {b.csrf(path)}, "name": {siti.Name}, "password": {siti.Password}}); p.status != http.StatusSeeOther {
		t.Fatalf("accept = %d:\n%s", p.status, p.body)
	}
	if p := b.get("/app/documents"); p.status != http.StatusOK || !strings.Contains(p.body, "Siti Aminah") || !strings.Contains(p.body, "(accountant)") {
		t.Fatalf("after accepting, documents = %d:\n%s", p.status, p.body)
	}
	if p := f.browser(t).get(path); p.status != http.StatusNotFound {
		t.Errorf("the invitation link used twice = %d, want 404", p.status)
	}
	// The audit log names the invitation and the person who accepted it,
	// never the link's secret.
	linkSecret := path[len("/app/link/"):]
	if p := ob.get("/app/audit?resource=invitation"); !strings.Contains(p.body, "siti@hebat.example") || strings.Contains(p.body, linkSecret) {
		t.Errorf("the audit log of invitations:\n%s", p.body)
	}
	if p := ob.get("/app/audit?actor=siti@hebat.example"); !strings.Contains(p.body, "used a one-time link: invite") || strings.Contains(p.body, linkSecret) {
		t.Errorf("the audit log of siti's changes:\n%s", p.body)
	}

	// TOTP: enrol with a code computed from the secret shown.
	p := b.post("/app/account/totp/start", url.Values{"csrf": {b.csrf("/app/account")}})
	m := totpSecret.FindStringSubmatch(p.body)
	if p.status != http.StatusOK || m == nil || !strings.Contains(p.body, "<svg") {
		t.Fatalf("start totp = %d:\n%s", p.status, p.body)
	}
	secret := m[1]
	code := func() string {
		c, err := people.TOTPAt(secret, f.clock.Now())
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	if p := b.post("/app/account/totp", url.Values{"csrf": {b.csrf("/app/account")}, "secret": {secret}, "code": {"000000"}}); p.status != http.StatusUnprocessableEntity {
		t.Errorf("enrol with a wrong code = %d, want 422", p.status)
	}
	p = b.post("/app/account/totp", url.Values{"csrf": {b.csrf("/app/account")}, "secret": {secret}, "code": {code()}})
	codes := recovery.FindAllStringSubmatch(p.body, -1)
	if p.status != http.StatusOK || len(codes) != 10 {
		t.Fatalf("enrol = %d, %d recovery codes:\n%s", p.status, len(codes), p.body)
	}

	// Sign in again: the password opens only the code's page.
	b2 := f.browser(t)
	p = b2.post("/app/signin", url.Values{"email": {siti.Email}, "password": {siti.Password}, "csrf": {b2.csrf("/app/signin")}})
	pending := b2.session()
	if p.status != http.StatusSeeOther || !strings.HasPrefix(p.header.Get("Location"), "/app/signin/code") || pending == "" {
		t.Fatalf("password with TOTP = %d %q", p.status, p.header.Get("Location"))
	}
	if p := b2.get("/app/documents"); p.status != http.StatusSeeOther {
		t.Errorf("documents before the code = %d, want a redirect to sign in", p.status)
	}
	if p := b2.post("/app/signin/code", url.Values{"csrf": {b2.csrf("/app/signin/code")}, "code": {"123456"}}); p.status != http.StatusUnprocessableEntity {
		t.Errorf("a wrong code = %d, want 422", p.status)
	}
	lastCode := code()
	p = b2.post("/app/signin/code", url.Values{"csrf": {b2.csrf("/app/signin/code")}, "code": {lastCode}})
	if p.status != http.StatusSeeOther || p.header.Get("Location") != "/app/documents" || b2.session() == pending || b2.session() == "" {
		t.Fatalf("the code = %d %q; session changed: %v", p.status, p.header.Get("Location"), b2.session() != pending)
	}
	if p := b2.get("/app/documents"); p.status != http.StatusOK {
		t.Errorf("documents after both factors = %d", p.status)
	}
	replay := f.browser(t)
	replay.post("/app/signin", url.Values{"email": {siti.Email}, "password": {siti.Password}, "csrf": {replay.csrf("/app/signin")}})
	if p := replay.post("/app/signin/code", url.Values{"csrf": {replay.csrf("/app/signin/code")}, "code": {lastCode}}); p.status != http.StatusUnprocessableEntity {
		t.Errorf("the same code again = %d, want 422 (a code is accepted once)", p.status)
	}

	// A recovery code signs in once.
	for i, want := range []int{http.StatusSeeOther, http.StatusUnprocessableEntity} {
		b3 := f.browser(t)
		b3.post("/app/signin", url.Values{"email": {siti.Email}, "password": {siti.Password}, "csrf": {b3.csrf("/app/signin")}})
		if p := b3.post("/app/signin/code", url.Values{"csrf": {b3.csrf("/app/signin/code")}, "code": {codes[0][1]}}); p.status != want {
			t.Errorf("recovery code, use %d = %d, want %d", i+1, p.status, want)
		}
	}
}

// TestLockout: 5 wrong passwords lock the e-mail for 15 minutes (the right
// password too is refused, as for an unknown e-mail), then it opens again.
func TestLockout(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	b := f.browser(t)
	try := func(email, password string) int {
		return b.post("/app/signin", url.Values{"email": {email}, "password": {password}, "csrf": {b.csrf("/app/signin")}}).status
	}
	for i := range 5 {
		if got := try(f.owner.Email, "wrong password "+string(rune('a'+i))); got != http.StatusUnauthorized {
			t.Fatalf("wrong password %d = %d, want 401", i+1, got)
		}
		try("nobody@example.com", "wrong password")
	}
	if got := try(f.owner.Email, f.owner.Password); got != http.StatusTooManyRequests {
		t.Errorf("the right password while locked = %d, want 429", got)
	}
	if got := try("nobody@example.com", "anything at all"); got != http.StatusTooManyRequests {
		t.Errorf("an unknown e-mail after 5 failures = %d, want 429 as a known one", got)
	}
	f.clock.Advance(16 * time.Minute)
	if got := try(f.owner.Email, f.owner.Password); got != http.StatusSeeOther {
		t.Errorf("after 16 minutes = %d, want signed in", got)
	}
}

// TestResetLinkAndLastOwner: an admin's reset link of a member (no mail
// server: shown to copy) works once and expires after an hour; the last
// owner can be neither demoted nor removed; a password change ends the
// user's other sessions.
func TestResetLinkAndLastOwner(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	tenant := f.demoTenant(t)
	aisyah := f.personIn(t, tenant, "accountant", "Aisyah")
	other := f.browser(t)
	other.signIn(aisyah)
	ob := f.browser(t)
	ob.signIn(f.owner)
	ids := map[string]string{}
	body := ob.get("/app/people").body
	for _, who := range []*person{aisyah, f.owner} {
		i := strings.Index(body, who.Email)
		m := removeLink.FindStringSubmatch(body[max(i, 0):])
		if i < 0 || m == nil {
			t.Fatalf("the people page does not list %s:\n%s", who.Email, body)
		}
		ids[who.Email] = m[1]
	}
	reset := func() string {
		p := ob.post("/app/people/"+ids[aisyah.Email]+"/reset", url.Values{"csrf": {ob.csrf("/app/people")}})
		link := mailedLink.FindString(p.body)
		if p.status != http.StatusOK || link == "" {
			t.Fatalf("reset link = %d:\n%s", p.status, p.body)
		}
		return linkPath(t, link)
	}
	path := reset()
	b := f.browser(t)
	if p := b.post(path, url.Values{"csrf": {b.csrf(path)}, "password": {"a brand new password"}}); p.status != http.StatusSeeOther {
		t.Fatalf("reset = %d:\n%s", p.status, p.body)
	}
	if p := f.browser(t).get(path); p.status != http.StatusNotFound {
		t.Errorf("the reset link used twice = %d, want 404", p.status)
	}
	if p := other.get("/app/documents"); p.status != http.StatusSeeOther {
		t.Errorf("aisyah's other session after the reset = %d, want ended", p.status)
	}
	late := reset()
	f.clock.Advance(61 * time.Minute)
	if p := f.browser(t).get(late); p.status != http.StatusNotFound {
		t.Errorf("a reset link after an hour = %d, want 404", p.status)
	}

	owner := ids[f.owner.Email]
	if p := ob.post("/app/people/"+owner+"/role", url.Values{"csrf": {ob.csrf("/app/people")}, "role": {"admin"}}); p.status != http.StatusSeeOther ||
		!strings.Contains(ob.get("/app/people").body, "owner") {
		t.Errorf("demote the last owner = %d", p.status)
	}
	if p := ob.post("/app/people/"+owner+"/remove", url.Values{"csrf": {ob.csrf("/app/people")}}); p.status != http.StatusSeeOther {
		t.Errorf("remove the last owner = %d", p.status)
	}
	if p := ob.get("/app/people"); p.status != http.StatusOK || !strings.Contains(p.body, f.owner.Email) {
		t.Errorf("after the refused changes the owner is gone: %d", p.status)
	}
}

// postRoute is one POST route of the dashboard and the right it needs.
type postRoute struct {
	pattern, right string
}

// dashboardPostRoutes reads routes.go: every POST route and its wrapper
// (post: any role; write: the work right; settings: the settings right).
func dashboardPostRoutes(t *testing.T) []postRoute {
	t.Helper()
	src, err := os.ReadFile("routes.go")
	if err != nil {
		t.Fatal(err)
	}
	var out []postRoute
	for _, m := range regexp.MustCompile(`d\.handle\("POST ([^"]+)"(?:\+k\.Path\(\)\+"([^"]*)")?, d\.(post|write|settings)\(`).FindAllStringSubmatch(string(src), -1) {
		if strings.Contains(m[0], "k.Path()") {
			for _, kind := range []string{"/app/buyers", "/app/sellers"} {
				out = append(out, postRoute{kind + m[2], m[3]})
			}
			continue
		}
		out = append(out, postRoute{m[1], m[3]})
	}
	for _, m := range regexp.MustCompile(`d\.handle\("POST "\+k\.Path\(\)(?:\+"([^"]*)")?, d\.(post|write|settings)\(`).FindAllStringSubmatch(string(src), -1) {
		for _, kind := range []string{"/app/buyers", "/app/sellers"} {
			out = append(out, postRoute{kind + m[1], m[2]})
		}
	}
	if len(out) < 40 {
		t.Fatalf("read %d POST routes from routes.go: the pattern no longer matches", len(out))
	}
	return out
}

// TestRoles: every POST route of the dashboard, as each role: 403 (nothing
// done) exactly when the role lacks the route's right.
func TestRoles(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	tenant := f.demoTenant(t)
	can := map[string]map[string]bool{
		"owner":      {"post": true, "write": true, "settings": true},
		"admin":      {"post": true, "write": true, "settings": true},
		"accountant": {"post": true, "write": true},
		"viewer":     {"post": true},
	}
	routes := dashboardPostRoutes(t)
	const someID = "01a20120-6682-7b03-af77-86f05b09f38d"
	fill := regexp.MustCompile(`\{[a-z]+\}`)
	for _, role := range []string{"owner", "admin", "accountant", "viewer"} {
		who := f.personIn(t, tenant, role, "Role "+role)
		b := f.browser(t)
		b.signIn(who)
		for _, r := range routes {
			if strings.HasPrefix(r.pattern, "/app/signout") {
				continue // ends the session: below
			}
			path := fill.ReplaceAllString(r.pattern, someID)
			form := url.Values{"csrf": {b.csrf("/app/account")}}
			if path == "/app/tenant" {
				form.Set("tenant", tenant) // its own: switching to another is refused
			}
			p := b.post(path, form)
			if refused := p.status == http.StatusForbidden; refused == can[role][r.right] {
				t.Errorf("%s: POST %s (%s) = %d, want refused %v", role, path, r.right, p.status, !can[role][r.right])
			}
			if p.status >= 500 {
				t.Errorf("%s: POST %s = %d", role, path, p.status)
			}
			if b.get("/app/account").status != http.StatusOK {
				b.signIn(who) // a route that signs out or switches: sign in again
			}
		}
		if p := b.post("/app/signout/everywhere", url.Values{"csrf": {b.csrf("/app/account")}}); p.status != http.StatusSeeOther ||
			b.get("/app/documents").status != http.StatusSeeOther {
			t.Errorf("%s: sign out everywhere = %d", role, p.status)
		}
	}
}

// TestPeopleFormsHostile: every form of people (sign-in, forgotten
// password, a one-time link, invite, role, API keys, the account) with the
// bad-input table's values: never a 5xx, and a refused invite or key
// stores nothing.
func TestPeopleFormsHostile(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	tenant := f.demoTenant(t)
	bad := map[string]string{
		"long": strings.Repeat("a", 100_000), "empty": "", "unicode": "名前 😀 \u202e", "html": `<script>alert(1)</script>`,
		"sql": "' OR 1=1; DROP TABLE users; --", "nul": "a\x00b", "newlines": "a\r\nBcc: x@evil.example",
	}
	ob := f.browser(t)
	ob.signIn(f.owner)
	memberID := removeLink.FindStringSubmatch(ob.get("/app/people").body)[1]
	link := linkPath(t, f.run(t, "user", "add", "--tenant", tenant, "--email", "hostile@example.com", "--role", "viewer"))
	keysBefore := strings.Count(ob.get("/app/keys").body, "<code>eik_")
	peopleBefore := strings.Count(ob.get("/app/people").body, "/remove")
	for name, v := range bad {
		pre := f.browser(t) // a link's password may be a good one: it signs this browser in
		forms := []struct {
			b    *browser
			path string
			form url.Values
		}{
			{pre, "/app/signin", url.Values{"email": {v}, "password": {v}}},
			{pre, "/app/signin/forgot", url.Values{"email": {v}}},
			{pre, link, url.Values{"name": {v}, "password": {v}}},
			{ob, "/app/people/invite", url.Values{"email": {v}, "role": {v}}},
			{ob, "/app/people/invite", url.Values{"email": {"ok" + name + "@example.com"}, "role": {v}}},
			{ob, "/app/people/" + memberID + "/role", url.Values{"role": {v}}},
			{ob, "/app/keys", url.Values{"name": {v}, "permission": {v}}},
			{ob, "/app/account/name", url.Values{"name": {v}}},
			{ob, "/app/account/password", url.Values{"current": {v}, "password": {v}}},
			{ob, "/app/account/totp", url.Values{"secret": {v}, "code": {v}}},
			{ob, "/app/tenant", url.Values{"tenant": {v}}},
			{ob, "/app/people/" + url.PathEscape(v) + "x/remove", url.Values{}},
		}
		for _, c := range forms {
			// The forms before a session share one token (bound to the
			// browser's pre-session cookie), those after the session's.
			c.form.Set("csrf", c.b.csrf(map[bool]string{true: "/app/account", false: "/app/signin"}[c.b == ob]))
			c.form.Add("email", v) // a field twice
			if p := c.b.post(c.path, c.form); p.status >= 500 || p.status == http.StatusOK && c.b == ob && c.path == "/app/people/invite" {
				t.Errorf("%s: POST %s = %d", name, c.path, p.status)
			}
		}
	}
	if n := strings.Count(ob.get("/app/keys").body, "<code>eik_"); n != keysBefore {
		t.Errorf("%d keys after the hostile forms, want %d", n, keysBefore)
	}
	if n := strings.Count(ob.get("/app/people").body, "/remove"); n != peopleBefore {
		t.Errorf("%d people after the hostile forms, want %d", n, peopleBefore)
	}
	if p := ob.get("/app/account"); p.status != http.StatusOK || !strings.Contains(p.body, f.owner.Email) {
		t.Errorf("the owner's account after the hostile forms = %d", p.status)
	}
}
