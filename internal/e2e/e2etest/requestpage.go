package e2etest

import (
	"html"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/einvoice/einvoice/client"
)

// Browser is a phone's browser on the buyer's request page: plain HTTP,
// no API key, forms posted as application/x-www-form-urlencoded, and
// redirects shown (the tests follow the 303 themselves, checking it).
type Browser struct {
	t    *testing.T
	base string
	hc   *http.Client
}

func NewBrowser(t *testing.T, svc *Service) *Browser {
	return &Browser{t: t, base: svc.URL, hc: &http.Client{Timeout: 30 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

// Page is one answer.
type Page struct {
	Status int
	Header http.Header
	Body   string
}

// Send makes a request of path (absolute or from the service's root) with
// headers as name, value pairs. A 5xx fails the test.
func (b *Browser) Send(method, path, contentType, body string, headers ...string) *Page {
	b.t.Helper()
	if !strings.HasPrefix(path, "http") {
		path = b.base + path
	}
	req, err := http.NewRequest(method, path, strings.NewReader(body))
	if err != nil {
		b.t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := b.hc.Do(req)
	if err != nil {
		b.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode >= 500 {
		b.t.Errorf("%s %s answered %d: %s", method, path, resp.StatusCode, raw)
	}
	return &Page{Status: resp.StatusCode, Header: resp.Header, Body: string(raw)}
}

func (b *Browser) Get(path string, headers ...string) *Page {
	b.t.Helper()
	return b.Send(http.MethodGet, path, "", "", headers...)
}

// Post posts form to path as a browser does: from the service's own
// origin (headers may name another).
func (b *Browser) Post(path string, form url.Values, headers ...string) *Page {
	b.t.Helper()
	return b.Send(http.MethodPost, path, "application/x-www-form-urlencoded", form.Encode(), append([]string{"Origin", b.base}, headers...)...)
}

// Submit posts the form and follows the 303 to the page it names, which
// must be the request page itself.
func (b *Browser) Submit(path string, form url.Values) *Page {
	b.t.Helper()
	p := b.Post(path, form)
	if p.Status != http.StatusSeeOther {
		b.t.Fatalf("POST %s: %d, want 303: %s", path, p.Status, p.Body)
	}
	loc := p.Header.Get("Location")
	if u, _ := url.Parse(loc); u == nil || u.Path != PathOf(path) {
		b.t.Fatalf("POST %s: 303 to %q, want the page itself", path, loc)
	}
	return b.Get(loc)
}

// PathOf is the path of a request URL.
func PathOf(requestURL string) string {
	u, err := url.Parse(requestURL)
	if err != nil {
		return requestURL
	}
	return u.Path
}

var csrfRE = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// CSRF is the page's hidden CSRF token.
func (p *Page) CSRF(t *testing.T) string {
	t.Helper()
	m := csrfRE.FindStringSubmatch(p.Body)
	if m == nil {
		t.Fatalf("no CSRF token on the page: %s", p.Body)
	}
	return html.UnescapeString(m[1])
}

// FieldError is the message shown beside a field ("" when none): the
// paragraph after its input or select.
func (p *Page) FieldError(name string) string {
	i := strings.Index(p.Body, `name="`+name+`"`)
	if i < 0 {
		return ""
	}
	rest := p.Body[i:]
	end := strings.Index(rest[1:], "<label")
	if end < 0 {
		end = len(rest) - 1
	}
	rest = rest[:end+1]
	m := regexp.MustCompile(`<p class="err">([^<]*)</p>`).FindStringSubmatch(rest)
	if m == nil {
		return ""
	}
	return html.UnescapeString(m[1])
}

// Value is the value the form shows in a text input.
func (p *Page) Value(name string) string {
	m := regexp.MustCompile(`name="` + regexp.QuoteMeta(name) + `" value="([^"]*)"`).FindStringSubmatch(p.Body)
	if m == nil {
		return ""
	}
	return html.UnescapeString(m[1])
}

// WantSecure checks the security headers every page carries.
func (p *Page) WantSecure(t *testing.T, what string) {
	t.Helper()
	csp := p.Header.Get("Content-Security-Policy")
	for _, want := range []string{"default-src 'none'", "form-action 'self'", "frame-ancestors 'none'"} {
		if !strings.Contains(csp, want) {
			t.Errorf("%s: CSP %q lacks %q", what, csp, want)
		}
	}
	// same-origin, not no-referrer: under no-referrer a browser's form post
	// carries "Origin: null" and no Referer, which the same-origin rule
	// refuses (dashboard's TestBrowserRequestPagePosts); same-origin still
	// never sends the URL's token to another site.
	for name, want := range map[string]string{"X-Content-Type-Options": "nosniff", "X-Frame-Options": "DENY",
		"Referrer-Policy": "same-origin", "Cache-Control": "no-store"} {
		if got := p.Header.Get(name); got != want {
			t.Errorf("%s: %s = %q, want %q", what, name, got, want)
		}
	}
	if strings.Contains(p.Body, "<script") || regexp.MustCompile(`(src|href)="(https?:)?//`).MatchString(p.Body) {
		t.Errorf("%s: a script or an asset from another host", what)
	}
}

// BuyerForm is the form of a company buyer with its TIN, the page's CSRF
// token csrf.
func BuyerForm(csrf string) url.Values {
	return url.Values{"csrf": {csrf}, "name": {"Hebat Sdn. Bhd."}, "tin": {"C21638015020"}, "idType": {"BRN"},
		"idValue": {"201901234567"}, "addressLine": {"Lot 66, Bangunan Merdeka"}, "city": {"Kuala Lumpur"},
		"postCode": {"50480"}, "state": {"14"}, "country": {"MYS"}, "email": {"ap@hebat.example"}, "phone": {"+60123456789"}}
}

// PageService starts a service whose demo tenant may submit (the samples'
// supplier) with verdicts at once, and records a receipt.
func PageService(t *testing.T, dsn string, args ...string) (*Service, *client.Client, *client.Receipt) {
	t.Helper()
	svc := StartService(t, dsn, append([]string{"--sandbox-delay", "0"}, args...)...)
	api := svc.API(t, svc.DemoKey)
	Must(t, 0, func() error { _, err := api.Profile.Update(t.Context(), SecProfile(t), nil); return err }())
	rc := Got(api.Receipts.Create(t.Context(), ReceiptInput("R-0100")))(t)
	return svc, api, rc
}

// countOf is the total of a list.
func DocsAndBuyers(t *testing.T, api *client.Client) (docs, buyers int) {
	t.Helper()
	d := Got(api.Documents.List(t.Context(), nil))(t)
	b := Got(api.Buyers.List(t.Context(), nil))(t)
	return d.Meta.Total, b.Meta.Total
}
