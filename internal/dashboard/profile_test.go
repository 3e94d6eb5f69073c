package dashboard_test

import (
	"bytes"
	"mime/multipart"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/einvoice/einvoice/internal/testcert"
)

// postFiles submits a multipart form from our own origin: fields, and
// files by input name (file name and content).
func (b *browser) postFiles(path string, fields url.Values, files map[string][2]string) page {
	b.t.Helper()
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	for k, vs := range fields {
		for _, v := range vs {
			_ = w.WriteField(k, v)
		}
	}
	for name, file := range files {
		fw, err := w.CreateFormFile(name, file[0])
		if err != nil {
			b.t.Fatal(err)
		}
		_, _ = fw.Write([]byte(file[1]))
	}
	_ = w.Close()
	req, _ := http.NewRequest(http.MethodPost, b.base+path, &body)
	req.Header.Set("Content-Type", w.FormDataContentType())
	req.Header.Set("Origin", b.base)
	return b.do(req)
}

// TestProfileForm: the seller details edited through the form, bad input
// beside its field with what was typed kept; read-only sees no form and
// is refused; CSRF refused.
func TestProfileForm(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	b := f.browser(t)
	b.signIn(f.owner)
	p := b.get("/app/profile")
	if p.status != http.StatusOK || !strings.Contains(p.body, `action="/app/profile"`) {
		t.Fatalf("profile = %d:\n%s", p.status, p.body)
	}
	csrf := b.csrf("/app/profile")
	prof, err := f.api(f.key).Profile.Get(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	form := buyerForm(csrf, "<script>alert(1)</script> Sdn Bhd")
	form.Set("tin", prof.TIN)
	form.Set("msicCode", "62010")
	form.Set("businessActivityDescription", "Computer programming")
	form.Set("address.state", "99")
	p = b.post("/app/profile", form)
	if p.status != http.StatusUnprocessableEntity || !strings.Contains(p.body, `id="e-address.state"`) ||
		!strings.Contains(p.body, `value="&lt;script&gt;alert(1)&lt;/script&gt; Sdn Bhd"`) {
		t.Fatalf("bad profile = %d:\n%s", p.status, p.body)
	}
	if got, _ := f.api(f.key).Profile.Get(t.Context()); got.Name != prof.Name {
		t.Errorf("a refused profile changed the name to %q", got.Name)
	}
	if p := b.post("/app/profile", buyerForm("", "No token")); p.status != http.StatusForbidden {
		t.Errorf("no CSRF token = %d, want 403", p.status)
	}
	form.Set("address.state", "10")
	if p := b.post("/app/profile", form); p.status != http.StatusSeeOther {
		t.Fatalf("profile = %d:\n%s", p.status, p.body)
	}
	if got, _ := f.api(f.key).Profile.Get(t.Context()); got.Name != "<script>alert(1)</script> Sdn Bhd" || got.MSICCode != "62010" {
		t.Errorf("after save: %+v", got)
	}
	if p := b.get("/app/profile"); !strings.Contains(p.body, "Profile saved.") || strings.Contains(p.body, "<script>alert") {
		t.Errorf("after save:\n%s", p.body)
	}

	ro := f.personIn(t, f.demoTenant(t), "viewer", "Aisyah")
	rb := f.browser(t)
	rb.signIn(ro)
	p = rb.get("/app/profile")
	if p.status != http.StatusOK || strings.Contains(p.body, `action="/app/profile"`) || strings.Contains(p.body, `action="/app/profile/authority"`) ||
		!strings.Contains(p.body, "&lt;script&gt;") {
		t.Errorf("read-only profile = %d, shows a form:\n%s", p.status, p.body)
	}
	rcsrf := rb.csrf("/app/profile")
	if p := rb.post("/app/profile", buyerForm(rcsrf, "Read only")); p.status != http.StatusForbidden {
		t.Errorf("read-only profile POST = %d, want 403", p.status)
	}
	if p := rb.postFiles("/app/profile/authority", url.Values{"csrf": {rcsrf}, "authority.environment": {"sandbox"}}, nil); p.status != http.StatusForbidden {
		t.Errorf("read-only authority POST = %d, want 403", p.status)
	}
}

// TestAuthorityForm: a bad certificate file refused beside the file input,
// the secret never shown back; a good PEM certificate (internal/testcert)
// and a PKCS#12 accepted and shown as GET /profile shows them; the go-live
// check's steps listed.
func TestAuthorityForm(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	b := f.browser(t)
	b.signIn(f.owner)
	csrf := b.csrf("/app/profile")
	prof, err := f.api(f.key).Profile.Get(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	fields := url.Values{"csrf": {csrf}, "authority.environment": {"sandbox"}, "authority.mode": {"taxpayer"},
		"authority.clientId": {"client-<b>1</b>"}, "authority.clientSecret": {"s3cr3t-value"}}

	p := b.postFiles("/app/profile/authority", fields, map[string][2]string{"certificate": {"cert.pem", "-----BEGIN CERTIFICATE-----\nbad\n-----END CERTIFICATE-----\n"}})
	if p.status != http.StatusUnprocessableEntity || !strings.Contains(p.body, `id="e-certificate"`) || strings.Contains(p.body, "s3cr3t-value") ||
		!strings.Contains(p.body, `value="client-&lt;b&gt;1&lt;/b&gt;"`) {
		t.Fatalf("bad certificate = %d, want its error beside the file input, the secret not shown:\n%s", p.status, p.body)
	}
	p = b.postFiles("/app/profile/authority", fields, map[string][2]string{"certificate": {"cert.p12", "not a pkcs12 file"}})
	if p.status != http.StatusUnprocessableEntity || !strings.Contains(p.body, `id="e-certificate"`) {
		t.Fatalf("a PKCS#12 without password = %d:\n%s", p.status, p.body)
	}
	withPass := url.Values{"pkcs12Password": {"pw"}}
	for k, v := range fields {
		withPass[k] = v
	}
	p = b.postFiles("/app/profile/authority", withPass, map[string][2]string{"certificate": {"cert.p12", "not a pkcs12 file"}})
	if p.status != http.StatusUnprocessableEntity || !strings.Contains(p.body, `id="e-certificate"`) || strings.Contains(p.body, `value="pw"`) {
		t.Fatalf("a bad PKCS#12 = %d:\n%s", p.status, p.body)
	}
	bigFile := strings.Repeat("x", 70<<10)
	if p := b.postFiles("/app/profile/authority", fields, map[string][2]string{"certificate": {"big.pem", bigFile}}); p.status != http.StatusUnprocessableEntity ||
		!strings.Contains(p.body, "too large") {
		t.Errorf("a large file = %d:\n%s", p.status, p.body)
	}
	other, _ := testcert.New(t, "Another Sdn Bhd", "C9999999990")
	_, otherKey := testcert.New(t, "Another Sdn Bhd", "C9999999990")
	if p := b.postFiles("/app/profile/authority", fields, map[string][2]string{"certificate": {"cert.pem", other}, "privateKey": {"key.pem", otherKey}}); p.status != http.StatusUnprocessableEntity ||
		!strings.Contains(p.body, `id="e-certificate"`) {
		t.Errorf("a certificate with another's key = %d:\n%s", p.status, p.body)
	}
	if got, _ := f.api(f.key).Profile.Get(t.Context()); got.Authority.HasSigningCertificate || got.Authority.ClientID == "client-<b>1</b>" {
		t.Fatalf("a refused form changed the settings: %+v", got.Authority)
	}

	noToken := url.Values{"authority.environment": {"sandbox"}, "authority.mode": {"taxpayer"}, "authority.clientId": {"x"}}
	if p := b.postFiles("/app/profile/authority", noToken, nil); p.status != http.StatusForbidden {
		t.Errorf("no CSRF token = %d, want 403", p.status)
	}

	cert, key := testcert.New(t, prof.Name, prof.TIN)
	p = b.postFiles("/app/profile/authority", fields, map[string][2]string{"certificate": {"both.pem", cert + key}})
	if p.status != http.StatusSeeOther {
		t.Fatalf("good certificate = %d:\n%s", p.status, p.body)
	}
	got, err := f.api(f.key).Profile.Get(t.Context())
	if err != nil || !got.Authority.HasSigningCertificate || !got.Authority.HasClientSecret || got.Authority.ClientID != "client-<b>1</b>" {
		t.Fatalf("after save: %+v, %v", got, err)
	}
	p = b.get("/app/profile")
	if !strings.Contains(p.body, "Tax-authority settings saved.") || !strings.Contains(p.body, got.Authority.Certificate.Subject) ||
		!strings.Contains(p.body, got.Authority.Certificate.FingerprintSHA256) || strings.Contains(p.body, "s3cr3t-value") ||
		!strings.Contains(p.body, "<dt>Client secret</dt><dd>set</dd>") {
		t.Errorf("profile after save:\n%s", p.body)
	}

	p12 := testcert.PKCS12(t, cert, key, "pass word")
	pf := url.Values{"pkcs12Password": {"pass word"}, "csrf": {csrf}, "authority.environment": {"sandbox"}, "authority.mode": {"taxpayer"}, "authority.clientId": {"client-2"}}
	if p := b.postFiles("/app/profile/authority", pf, map[string][2]string{"certificate": {"cert.p12", string(p12)}}); p.status != http.StatusSeeOther {
		t.Fatalf("PKCS#12 = %d:\n%s", p.status, p.body)
	}
	if got, _ := f.api(f.key).Profile.Get(t.Context()); !got.Authority.HasPKCS12 || !got.Authority.HasClientSecret {
		t.Errorf("after the PKCS#12: %+v (a blank secret must keep the one set)", got.Authority)
	}

	p = b.get("/app/profile/check")
	if p.status != http.StatusOK || !strings.Contains(p.body, "<strong>login</strong>") || !strings.Contains(p.body, "<strong>signature</strong>") {
		t.Errorf("go-live check = %d:\n%s", p.status, p.body)
	}
}
