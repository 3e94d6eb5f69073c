package dashboard_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/einvoice/einvoice/client"
	"github.com/einvoice/einvoice/internal/invoicing/mail"
)

const noMailServerBanner = "No mail server is configured: messages are kept here, not sent. The operator sets one with --smtp-url."

// validInvoice makes a Valid invoice of a new buyer (whose e-mail is
// ap@hebat.example) through the API and returns its id.
func (f *fixture) validInvoice(t *testing.T, serial string) string {
	t.Helper()
	id := f.invoice(t, f.key, f.buyer(t, f.key, "Hebat Group"), serial)
	api := f.api(f.key)
	if _, err := api.Documents.Validate(t.Context(), id); err != nil {
		t.Fatal(err)
	}
	if _, err := api.Documents.Submit(t.Context(), id); err != nil {
		t.Fatal(err)
	}
	f.waitStatus(t, id, client.StatusValid)
	return id
}

var messageCount = regexp.MustCompile(`(\d+) messages\.`)

// mailCount is the number of the tenant's messages the Mail page counts.
func (b *browser) mailCount() int {
	b.t.Helper()
	p := b.get("/app/mail")
	m := messageCount.FindStringSubmatch(p.body)
	if p.status != http.StatusOK || m == nil {
		b.t.Fatalf("the Mail page = %d, no count:\n%s", p.status, p.body)
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// settingsForm is the mail settings form with the default templates and
// the changes given.
func settingsForm(csrf string, changes map[string]string) url.Values {
	v := url.Values{"csrf": {csrf}, "enabled": {"on"}, "senderName": {""}, "replyTo": {""}, "bcc": {""}, "language": {"en"}}
	for _, l := range mail.Languages {
		v.Set("templates."+l+".subject", mail.DefaultTemplates[l].Subject)
		v.Set("templates."+l+".body", mail.DefaultTemplates[l].Body)
	}
	for k, x := range changes {
		if x == "" {
			v.Del(k)
		} else {
			v.Set(k, x)
		}
	}
	return v
}

var messageLink = regexp.MustCompile(`href="(/app/mail/[0-9a-f-]{36})"`)

// TestMail: a document made Valid without a mail server has its message
// kept, listed on the Mail page (with the banner, the state's note and
// the document linked) and readable (the body's line breaks kept, HTML
// escaped), its PDF downloadable; the document page shows the delivery
// and sends again (a bad address refused beside the field, nothing
// written; good ones write one message); the settings form round-trips,
// refuses a bad template beside it (nothing saved), previews as typed and
// queues a test message. A read-only key sees no write control and its
// posts are refused; another tenant's message is a 404.
func TestMail(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "--sandbox-delay", "0", "--rate-limit", "100000")
	id := f.validInvoice(t, "INV-001")
	doc := "/app/documents/" + id
	b := f.browser(t)
	b.signIn(f.owner)

	// The Mail page.
	p := b.get("/app/mail")
	for _, want := range []string{noMailServerBanner, `aria-current="page">Mail<`, "1 messages.", "ap@hebat.example", "Invoice INV-001 from",
		">Kept<", "not sent: no mail server configured", `href="` + doc + `">INV-001<`, `href="/app/mail/settings"`} {
		if !strings.Contains(p.body, want) {
			t.Fatalf("the Mail page = %d, without %q:\n%s", p.status, want, p.body)
		}
	}
	m := messageLink.FindStringSubmatch(p.body)
	if m == nil {
		t.Fatalf("no link to the message:\n%s", p.body)
	}
	msg := m[1]
	if p := b.get("/app/mail?state=sent"); !strings.Contains(p.body, "0 messages.") || !strings.Contains(p.body, `<option value="sent" selected>`) {
		t.Errorf("the Mail page of sent messages:\n%s", p.body)
	}
	if p := b.get("/app/mail?state=kept"); !strings.Contains(p.body, "1 messages.") {
		t.Errorf("the Mail page of kept messages:\n%s", p.body)
	}

	// The message and its attachment.
	p = b.get(msg)
	for _, want := range []string{noMailServerBanner, "<dd>ap@hebat.example</dd>", `<pre class="mail-body">Dear Hebat Group,` + "\n\n", msg + "/attachment", `href="` + doc + `"`} {
		if p.status != http.StatusOK || !strings.Contains(p.body, want) {
			t.Fatalf("the message = %d, without %q:\n%s", p.status, want, p.body)
		}
	}
	a := b.get(msg + "/attachment")
	if a.status != http.StatusOK || a.header.Get("Content-Type") != "application/pdf" || !strings.HasPrefix(a.header.Get("Content-Disposition"), "attachment;") ||
		!strings.HasPrefix(a.body, "%PDF") {
		t.Errorf("the attachment = %d %q %q, %d bytes", a.status, a.header.Get("Content-Type"), a.header.Get("Content-Disposition"), len(a.body))
	}

	// The document page shows the delivery and sends again.
	p = b.get(doc)
	for _, want := range []string{"Mail to the buyer", ">Not sent<", "no mail server is configured", `href="` + msg + `"`, `action="` + doc + `/deliver"`, "Send again"} {
		if !strings.Contains(p.body, want) {
			t.Fatalf("the document page without %q:\n%s", want, p.body)
		}
	}
	p = b.post(doc+"/deliver", url.Values{"csrf": {b.csrf(doc)}, "to": {"ok@buyer.example, <not an address>"}})
	if p.status != http.StatusUnprocessableEntity || !strings.Contains(p.body, `id="e-to"`) || !strings.Contains(p.body, "&lt;not an address&gt;") ||
		strings.Contains(p.body, "<not an address>") {
		t.Fatalf("send again to a bad address = %d:\n%s", p.status, p.body)
	}
	if n := b.mailCount(); n != 1 {
		t.Fatalf("after a refused send again %d messages, want 1", n)
	}
	p = b.post(doc+"/deliver", url.Values{"csrf": {b.csrf(doc)}, "to": {"one@buyer.example,\r\ntwo@buyer.example"}})
	if p.status != http.StatusSeeOther || p.header.Get("Location") != doc {
		t.Fatalf("send again = %d %q:\n%s", p.status, p.header.Get("Location"), p.body)
	}
	if p := b.get(doc); !strings.Contains(p.body, `class="flash flash-ok"`) || !strings.Contains(p.body, "one@buyer.example, two@buyer.example") {
		t.Errorf("after send again:\n%s", p.body)
	}
	if n := b.mailCount(); n != 2 {
		t.Fatalf("after send again %d messages, want 2", n)
	}

	// A subject and body with HTML are escaped where they are read.
	p = b.post("/app/mail/settings", settingsForm(b.csrf("/app/mail/settings"), map[string]string{
		"templates.en.subject": "<b>Hi</b> {{.Number}}", "templates.en.body": "<script>alert(1)</script>\r\nline 2 {{.Buyer}}\r\n"}))
	if p.status != http.StatusSeeOther {
		t.Fatalf("save the settings = %d:\n%s", p.status, p.body)
	}
	if p := b.post(doc+"/deliver", url.Values{"csrf": {b.csrf(doc)}, "to": {""}}); p.status != http.StatusSeeOther {
		t.Fatalf("send again to the buyer = %d:\n%s", p.status, p.body)
	}
	p = b.get("/app/mail")
	m = messageLink.FindStringSubmatch(p.body) // newest first
	if m == nil || strings.Contains(p.body, "<b>Hi</b>") || !strings.Contains(p.body, "&lt;b&gt;Hi&lt;/b&gt; INV-001") {
		t.Fatalf("the Mail page with an HTML subject:\n%s", p.body)
	}
	p = b.get(m[1])
	if strings.Contains(p.body, "<script>") || strings.Contains(p.body, "<b>Hi") ||
		!strings.Contains(p.body, "<title>&lt;b&gt;Hi&lt;/b&gt; INV-001") ||
		!strings.Contains(p.body, `<pre class="mail-body">&lt;script&gt;alert(1)&lt;/script&gt;`+"\nline 2 Hebat Group\n</pre>") {
		t.Errorf("the message with HTML:\n%s", p.body)
	}

	// The settings round-trip.
	saved := map[string]string{"enabled": "", "senderName": "Demo <Trading>", "replyTo": "billing@demo.example",
		"bcc": "audit@demo.example, boss@demo.example", "language": "ms", "templates.ms.subject": "Invois {{.Number}}"}
	p = b.post("/app/mail/settings", settingsForm(b.csrf("/app/mail/settings"), saved))
	if p.status != http.StatusSeeOther || p.header.Get("Location") != "/app/mail/settings" {
		t.Fatalf("save = %d:\n%s", p.status, p.body)
	}
	p = b.get("/app/mail/settings")
	for _, want := range []string{"Mail settings saved.", `value="Demo &lt;Trading&gt;"`, `value="billing@demo.example"`, `value="audit@demo.example, boss@demo.example"`,
		`<option value="ms" selected>Bahasa Melayu</option>`, `value="Invois {{.Number}}"`, noMailServerBanner, "<code>{{.ValidationURL}}</code>"} {
		if !strings.Contains(p.body, want) {
			t.Fatalf("the saved settings without %q:\n%s", want, p.body)
		}
	}
	if strings.Contains(p.body, `id="f-enabled" checked`) {
		t.Errorf("mail saved off shows checked")
	}
	if p := b.get("/app/profile"); !strings.Contains(p.body, `href="/app/mail/settings"`) {
		t.Errorf("the profile page does not link the mail settings")
	}

	// A template that does not parse and a bad BCC: both beside their
	// fields, nothing saved.
	p = b.post("/app/mail/settings", settingsForm(b.csrf("/app/mail/settings"), map[string]string{"senderName": "Changed",
		"bcc": "audit@demo.example, nope", "templates.en.body": "Hello {{.Nope"}))
	if p.status != http.StatusUnprocessableEntity || !strings.Contains(p.body, `id="e-templates.en.body"`) || !strings.Contains(p.body, `id="e-bcc"`) ||
		!strings.Contains(p.body, "Hello {{.Nope</textarea>") || !strings.Contains(p.body, `value="Changed"`) {
		t.Fatalf("save a bad template = %d:\n%s", p.status, p.body)
	}
	if p := b.get("/app/mail/settings"); strings.Contains(p.body, `value="Changed"`) || !strings.Contains(p.body, `value="Demo &lt;Trading&gt;"`) {
		t.Errorf("a refused save changed the settings:\n%s", p.body)
	}

	// Preview renders what was typed, saving nothing.
	p = b.post("/app/mail/settings/preview", settingsForm(b.csrf("/app/mail/settings"), map[string]string{"templates.en.subject": "Preview for {{.Buyer}} {{.Number}}"}))
	if p.status != http.StatusOK || !strings.Contains(p.body, "<dd>Preview for Pembeli Contoh Sdn Bhd INV-0001</dd>") || !strings.Contains(p.body, `value="Preview for {{.Buyer}} {{.Number}}"`) {
		t.Fatalf("preview = %d:\n%s", p.status, p.body)
	}
	if p := b.get("/app/mail/settings"); strings.Contains(p.body, "Preview for") {
		t.Errorf("preview saved the templates")
	}
	p = b.post("/app/mail/settings/preview", settingsForm(b.csrf("/app/mail/settings"), map[string]string{"templates.ms.subject": "{{.Nope}}"}))
	if p.status != http.StatusUnprocessableEntity || !strings.Contains(p.body, `id="e-templates.ms.subject"`) {
		t.Errorf("preview of a bad template = %d:\n%s", p.status, p.body)
	}

	// The test message.
	p = b.post("/app/mail/settings/test", url.Values{"csrf": {b.csrf("/app/mail/settings")}, "testTo": {"not-an-address"}, "testLanguage": {"en"}})
	if p.status != http.StatusUnprocessableEntity || !strings.Contains(p.body, `id="e-testTo"`) {
		t.Fatalf("a test message to a bad address = %d:\n%s", p.status, p.body)
	}
	if n := b.mailCount(); n != 3 {
		t.Fatalf("after a refused test %d messages, want 3", n)
	}
	p = b.post("/app/mail/settings/test", url.Values{"csrf": {b.csrf("/app/mail/settings")}, "testTo": {"me@demo.example"}, "testLanguage": {"ms"}})
	if p.status != http.StatusSeeOther || p.header.Get("Location") != "/app/mail" {
		t.Fatalf("a test message = %d %q:\n%s", p.status, p.header.Get("Location"), p.body)
	}
	p = b.get("/app/mail")
	if !strings.Contains(p.body, "Test message to me@demo.example") || !strings.Contains(p.body, "[Test] Invois INV-0001") || !strings.Contains(p.body, "4 messages.") {
		t.Errorf("the Mail page after the test message:\n%s", p.body)
	}

	// A read-only key.
	ro := f.personIn(t, f.demoTenant(t), "viewer", "Aisyah")
	rb := f.browser(t)
	rb.signIn(ro)
	if p := rb.get("/app/mail/settings"); p.status != http.StatusOK || strings.Contains(p.body, `method="post" action="/app/mail`) || !strings.Contains(p.body, "Demo &lt;Trading&gt;") {
		t.Errorf("a read-only key's settings page = %d, with write forms:\n%s", p.status, p.body)
	}
	if p := rb.get(doc); p.status != http.StatusOK || strings.Contains(p.body, doc+"/deliver") || !strings.Contains(p.body, "Mail to the buyer") {
		t.Errorf("a read-only key's document page = %d, with the send again form:\n%s", p.status, p.body)
	}
	if p := rb.get(msg); p.status != http.StatusOK {
		t.Errorf("a read-only key's message = %d", p.status)
	}
	posts := map[string]url.Values{
		doc + "/deliver":             {"to": {"x@buyer.example"}},
		"/app/mail/settings":         settingsForm("", nil),
		"/app/mail/settings/preview": settingsForm("", nil),
		"/app/mail/settings/test":    {"testTo": {"x@buyer.example"}},
	}
	for path, form := range posts {
		form.Set("csrf", rb.csrf("/app/mail"))
		if p := rb.post(path, form); p.status != http.StatusForbidden {
			t.Errorf("a read-only key's POST %s = %d, want 403", path, p.status)
		}
		form.Del("csrf")
		if p := b.post(path, form); p.status != http.StatusForbidden {
			t.Errorf("POST %s without the CSRF token = %d, want 403", path, p.status)
		}
	}
	if n := b.mailCount(); n != 4 {
		t.Errorf("after refused posts %d messages, want 4", n)
	}

	// Another tenant.
	otherTenant, _ := f.newTenant(t, "Other")
	ob := f.browser(t)
	ob.signIn(f.personIn(t, otherTenant, "owner", "Other owner"))
	for _, path := range []string{msg, msg + "/attachment"} {
		if p := ob.get(path); p.status != http.StatusNotFound {
			t.Errorf("another tenant's %s = %d, want 404", path, p.status)
		}
	}
	if p := ob.post(doc+"/deliver", url.Values{"csrf": {ob.csrf("/app/mail")}, "to": {"x@buyer.example"}}); p.status != http.StatusNotFound {
		t.Errorf("another tenant's send again = %d, want 404", p.status)
	}
	if n := ob.mailCount(); n != 0 {
		t.Errorf("another tenant sees %d messages", n)
	}
}
