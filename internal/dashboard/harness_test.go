package dashboard_test

import (
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/einvoice/einvoice/client"
	"github.com/einvoice/einvoice/internal/servetest"
	"github.com/einvoice/einvoice/internal/testclock"
	"github.com/einvoice/einvoice/internal/testdb/migrated"
)

// fixture is a running serve (SQLite) with its demo tenant's key, the
// demo tenant's owner (its password set through the link serve printed)
// and a clock the tests can move.
type fixture struct {
	svc   *servetest.Service
	key   string
	owner *person
	clock *testclock.Clock
}

// person is a user who signs in to the dashboard.
type person struct {
	Name, Email, Password string
}

func newFixture(t *testing.T, serveArgs ...string) *fixture {
	t.Helper()
	clock := &testclock.Clock{}
	svc := servetest.StartAt(t, migrated.SQLite(t), clock.Now, serveArgs...)
	if svc.DemoKey == "" || svc.OwnerLink == "" {
		t.Fatal("serve printed no demo key or no owner link")
	}
	f := &fixture{svc: svc, key: svc.DemoKey, clock: clock}
	f.owner = &person{Name: "Owner", Email: "owner@example.com", Password: "owner password 1"}
	f.setPassword(t, svc.OwnerLink, f.owner)
	return f
}

// personIn makes a user of the tenant with the role (`user add`), sets
// its password through the link printed, and returns it.
func (f *fixture) personIn(t *testing.T, tenantID, role, name string) *person {
	t.Helper()
	p := &person{Name: name, Email: strings.ToLower(strings.ReplaceAll(name, " ", ".")) + "." + role + "@" + tenantID[len(tenantID)-8:] + ".example",
		Password: name + " secret pass"}
	link := f.run(t, "user", "add", "--tenant", tenantID, "--email", p.Email, "--role", role, "--name", name)
	f.setPassword(t, link, p)
	return p
}

// setPassword follows a one-time link in a browser of its own and sets
// the person's password (which signs that browser in).
func (f *fixture) setPassword(t *testing.T, link string, p *person) {
	t.Helper()
	b := f.browser(t)
	path := linkPath(t, link) // the CLI's links name the default address, not this test's port
	if r := b.post(path, url.Values{"csrf": {b.csrf(path)}, "name": {p.Name}, "password": {p.Password}}); r.status != http.StatusSeeOther {
		t.Fatalf("set the password of %s at %s = %d:\n%s", p.Email, path, r.status, r.body)
	}
}

// api is the public client of the API with key.
func (f *fixture) api(key string) *client.Client { return client.New(f.svc.URL, key) }

// run runs an administration command on the fixture's database and
// returns its standard output, trimmed.
func (f *fixture) run(t *testing.T, args ...string) string {
	t.Helper()
	code, out, errOut := servetest.Run(t, f.svc.DSN, args...)
	if code != 0 {
		t.Fatalf("%v = %d: %s", args, code, errOut)
	}
	return strings.TrimSpace(out)
}

// newTenant creates another tenant and a read-write key of it.
func (f *fixture) newTenant(t *testing.T, name string) (tenantID, key string) {
	t.Helper()
	tenantID = f.run(t, "tenant", "create", "--name", name, "--tin", "C2584563222", "--id-value", "202001099999")
	return tenantID, f.run(t, "key", "create", "--tenant", tenantID, "--name", name+" admin")
}

// tenantOf is the tenant of the demo key (from `tenant list`).
func (f *fixture) demoTenant(t *testing.T) string {
	t.Helper()
	out := f.run(t, "tenant", "list")
	lines := strings.Split(out, "\n")
	if len(lines) < 2 {
		t.Fatalf("tenant list: %q", out)
	}
	return strings.Fields(lines[1])[0]
}

// buyer creates a ready buyer named name and returns its id.
func (f *fixture) buyer(t *testing.T, key, name string) string {
	t.Helper()
	p, err := f.api(key).Buyers.Create(t.Context(), &client.Party{
		Name: name, TIN: "C21638015020", IDType: client.IDTypeBRN, IDValue: "201901234567", SSTRegistrationNumber: "NA",
		Address: client.Address{Line1: "Lot 66, Bangunan Merdeka", City: "Kuala Lumpur", State: "14", PostCode: "50480", CountryCode: "MYS"},
		Contact: client.Contact{Phone: "+60123456789", Email: "ap@hebat.example"},
	})
	if err != nil {
		t.Fatalf("create buyer: %v", err)
	}
	return p.ID
}

// invoice creates a draft invoice of the buyer and returns its id.
func (f *fixture) invoice(t *testing.T, key, buyerID, serial string) string {
	t.Helper()
	d, err := f.api(key).Documents.Create(t.Context(), &client.Document{BuyerID: buyerID, InvoiceSerialNumber: serial,
		CurrencyCode: "MYR", AutoCalculate: true, Lines: []client.Line{{Classifications: []string{"001"}, ProductDescription: "Widget",
			Quantity: "2", UnitCode: "H87", UnitPrice: "50.00", Taxes: []client.LineTax{{TaxType: "01", TaxRate: "8"}}}}})
	if err != nil {
		t.Fatalf("create invoice: %v", err)
	}
	return d.ID
}

// waitStatus polls the API until the document has the status.
func (f *fixture) waitStatus(t *testing.T, id string, want client.Status) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		st, err := f.api(f.key).Documents.Status(t.Context(), id)
		if err == nil && st.Status == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("document %s: %+v, %v after 20s; want %s", id, st, err, want)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// browser is a plain HTTP client with its cookies: a browser without
// script, for the tests of status codes and headers.
type browser struct {
	t    *testing.T
	base string
	c    *http.Client
}

func (f *fixture) browser(t *testing.T) *browser {
	jar, _ := cookiejar.New(nil)
	return &browser{t: t, base: f.svc.URL, c: &http.Client{Jar: jar, Timeout: 30 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

// page is one answer read whole.
type page struct {
	status int
	header http.Header
	body   string
}

func (b *browser) do(req *http.Request) page {
	b.t.Helper()
	resp, err := b.c.Do(req)
	if err != nil {
		b.t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return page{status: resp.StatusCode, header: resp.Header, body: string(body)}
}

func (b *browser) get(path string) page {
	b.t.Helper()
	req, _ := http.NewRequest(http.MethodGet, b.base+path, nil)
	return b.do(req)
}

// post submits a form from our own origin (as a browser's form would).
func (b *browser) post(path string, form url.Values) page {
	b.t.Helper()
	req, _ := http.NewRequest(http.MethodPost, b.base+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", b.base)
	return b.do(req)
}

// signIn signs the person in and checks the redirect to the documents.
func (b *browser) signIn(who *person) {
	b.t.Helper()
	p := b.post("/app/signin", url.Values{"email": {who.Email}, "password": {who.Password}, "csrf": {b.csrf("/app/signin")}})
	if p.status != http.StatusSeeOther || p.header.Get("Location") != "/app/documents" {
		b.t.Fatalf("sign in = %d %q, want 303 to /app/documents:\n%s", p.status, p.header.Get("Location"), p.body)
	}
}

// session is the browser's session cookie.
func (b *browser) session() string {
	u, _ := url.Parse(b.base + "/app/")
	for _, c := range b.c.Jar.Cookies(u) {
		if c.Name == "einvoice_session" {
			return c.Value
		}
	}
	return ""
}

var csrfField = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// csrf reads the CSRF token of a page's forms.
func (b *browser) csrf(path string) string {
	b.t.Helper()
	p := b.get(path)
	m := csrfField.FindStringSubmatch(p.body)
	if m == nil {
		b.t.Fatalf("GET %s = %d: no csrf field:\n%s", path, p.status, p.body)
	}
	return m[1]
}
