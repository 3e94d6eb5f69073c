package golive

import (
	"strings"
	"testing"
	"time"

	"github.com/einvoice/einvoice/internal/e2e/e2etest"

	"github.com/einvoice/einvoice/client"
	"github.com/einvoice/einvoice/internal/testcert"
)

// TestCertificatesChecked: PUT /profile refuses a signing certificate the
// authority would refuse, naming the field and saying why; GET /profile
// shows the certificate in use, with a warning from 30 days before its
// expiry, and nothing when there is none.
func TestCertificatesChecked(t *testing.T) {
	t.Parallel()
	e2etest.EachEngine(t, func(t *testing.T, dsn string) {
		ctx := t.Context()
		svc, c := e2etest.StartLifecycleAPI(t, dsn)
		cur, err := c.Profile.Get(ctx)
		if e2etest.Must(t, cur, err).Authority.Certificate != nil {
			t.Errorf("a tenant without a certificate shows one: %+v", cur.Authority.Certificate)
		}
		prof := e2etest.ProfileOf(t, e2etest.SampleProfile())
		tin := prof.TIN
		org := prof.Name
		now := time.Now()
		_, otherKey := testcert.New(t, org, tin)
		pem := func(o testcert.Options) (string, string) {
			if o.Organisation == "" {
				o.Organisation = org
			}
			if o.TIN == "" && !o.Personal {
				o.TIN = tin
			}
			return testcert.Make(t, o)
		}
		update := func(au client.AuthorityUpdate) (*client.Profile, error) {
			au.Environment, au.Mode, au.ClientID = "sandbox", "taxpayer", cur.Authority.ClientID
			return c.Profile.Update(ctx, prof, &au)
		}
		type refusal struct {
			name, field, says string
			au                client.AuthorityUpdate
		}
		var cases []refusal
		add := func(name, says string, o testcert.Options) {
			cert, key := pem(o)
			cases = append(cases, refusal{name, "authority.certificatePem", says, client.AuthorityUpdate{CertificatePEM: cert, PrivateKeyPEM: key}})
		}
		add("expired", "expired on", testcert.Options{NotBefore: now.Add(-48 * time.Hour), NotAfter: now.Add(-24 * time.Hour)})
		add("not yet valid", "not valid before", testcert.Options{NotBefore: now.Add(48 * time.Hour)})
		add("no document signing", "Document Signing (1.3.6.1.4.1.311.10.3.12)", testcert.Options{NoDocumentSigning: true})
		add("no non-repudiation", "Non-Repudiation", testcert.Options{NoNonRepudiation: true})
		add("personal", "not an organisation certificate", testcert.Options{Personal: true})
		add("another TIN", "issued to TIN C9999999990", testcert.Options{TIN: "C9999999990"})
		good, goodKey := pem(testcert.Options{})
		cases = append(cases, refusal{"another key", "authority.privateKeyPem", "does not belong to the certificate",
			client.AuthorityUpdate{CertificatePEM: good, PrivateKeyPEM: otherKey}})
		expired, expiredKey := pem(testcert.Options{NotBefore: now.Add(-48 * time.Hour), NotAfter: now.Add(-24 * time.Hour)})
		cases = append(cases,
			refusal{"PKCS#12 expired", "authority.pkcs12Base64", "expired on",
				client.AuthorityUpdate{PKCS12: testcert.PKCS12(t, expired, expiredKey, "pw"), PKCS12Password: "pw"}},
			refusal{"PKCS#12 wrong password", "authority.pkcs12Base64", "cannot be read",
				client.AuthorityUpdate{PKCS12: testcert.PKCS12(t, good, goodKey, "pw"), PKCS12Password: "not it"}})
		for _, r := range cases {
			_, err := update(r.au)
			e := e2etest.WantErr(t, err, 422, client.CodeValidationFailed)
			if msgs := e.Fields[r.field]; len(msgs) != 1 || !strings.Contains(msgs[0], r.says) {
				t.Errorf("%s: errors %v, want one on %s saying %q", r.name, e.Fields, r.field, r.says)
			}
		}
		if p, err := c.Profile.Get(ctx); e2etest.Must(t, p, err).Authority.HasSigningCertificate || p.Authority.HasPKCS12 {
			t.Errorf("a refused certificate was stored: %+v", p.Authority)
		}

		// A conforming certificate that expires in 20 days is stored, with
		// a warning; as PKCS#12 too.
		soon, soonKey := pem(testcert.Options{NotAfter: now.Add(20*24*time.Hour + time.Hour)})
		p, err := update(client.AuthorityUpdate{CertificatePEM: soon, PrivateKeyPEM: soonKey})
		crt := e2etest.Must(t, p, err).Authority.Certificate
		if crt == nil || !strings.Contains(crt.Subject, "CN="+org) || !strings.Contains(crt.Subject, tin) || crt.Issuer != crt.Subject ||
			len(crt.FingerprintSHA256) != 64 || crt.SerialNumber == "" || !crt.NotAfter.After(now) ||
			len(crt.Warnings) != 1 || crt.Warnings[0] != "expires in 20 days" {
			t.Errorf("certificate shown after PUT: %+v", crt)
		}
		p, err = c.Profile.Get(ctx)
		if got := e2etest.Must(t, p, err).Authority.Certificate; got == nil || got.FingerprintSHA256 != crt.FingerprintSHA256 {
			t.Errorf("certificate shown by GET: %+v", got)
		}
		// What GET answers, certificate included, a PUT takes back.
		raw := svc.Client(t, svc.DemoKey)
		back := raw.Do("GET", "/api/v1/profile", nil).Want(t, 200, "").Data()
		if back["authority"].(map[string]any)["certificate"] == nil {
			t.Errorf("GET /profile without its certificate: %v", back)
		}
		raw.Do("PUT", "/api/v1/profile", back).Want(t, 200, "")
		p, err = update(client.AuthorityUpdate{PKCS12: testcert.PKCS12(t, good, goodKey, "pw"), PKCS12Password: "pw"})
		if got := e2etest.Must(t, p, err).Authority.Certificate; got == nil || len(got.Warnings) != 0 || got.FingerprintSHA256 == crt.FingerprintSHA256 {
			t.Errorf("certificate shown after a PKCS#12 upload: %+v", got)
		}

		// An intermediary signs with its own certificate, which carries its
		// own TIN (authority.intermediaryTin), not the represented
		// taxpayer's.
		const interTIN = "C2000000010"
		inter := func(au client.AuthorityUpdate) (*client.Profile, error) {
			au.Environment, au.Mode, au.OnBehalfOf, au.ClientID = "sandbox", "intermediary", tin, cur.Authority.ClientID
			if au.IntermediaryTIN == "" {
				au.IntermediaryTIN = interTIN
			}
			return c.Profile.Update(ctx, prof, &au)
		}
		ic, ik := pem(testcert.Options{TIN: interTIN})
		p, err = inter(client.AuthorityUpdate{PKCS12: testcert.PKCS12(t, ic, ik, "pw"), PKCS12Password: "pw"})
		if got := e2etest.Must(t, p, err).Authority; got.IntermediaryTIN != interTIN || got.Certificate == nil ||
			!strings.Contains(got.Certificate.Subject, interTIN) || len(got.Certificate.Warnings) != 0 {
			t.Errorf("intermediary with its own certificate: %+v %+v", got, got.Certificate)
		}
		_, err = inter(client.AuthorityUpdate{PKCS12: testcert.PKCS12(t, good, goodKey, "pw"), PKCS12Password: "pw"})
		e := e2etest.WantErr(t, err, 422, client.CodeValidationFailed)
		if msgs := e.Field("authority.pkcs12Base64"); len(msgs) != 1 || !strings.Contains(msgs[0], "issued to TIN "+tin) {
			t.Errorf("the taxpayer's certificate for its intermediary: %v, want it refused naming TIN %s", e.Fields, tin)
		}
		_, err = inter(client.AuthorityUpdate{IntermediaryTIN: "X12"})
		if e := e2etest.WantErr(t, err, 422, client.CodeValidationFailed); e.Field("authority.intermediaryTin") == nil {
			t.Errorf("a malformed intermediary TIN: %v, want it named", e.Fields)
		}
		// Back in taxpayer mode the intermediary's TIN is dropped, and the
		// intermediary's certificate stored shows that it no longer fits.
		p, err = update(client.AuthorityUpdate{})
		if got := e2etest.Must(t, p, err).Authority; got.IntermediaryTIN != "" || got.Certificate == nil || len(got.Certificate.Warnings) == 0 {
			t.Errorf("taxpayer mode again: %+v %+v", got, got.Certificate)
		}
	})
}

// TestProfileCheck: the go-live check passes for the demo tenant against
// the built-in sandbox, without a certificate (the certificate steps
// skipped) and with one; and fails, naming the certificate step, once the
// stored certificate no longer carries the profile's TIN.
func TestProfileCheck(t *testing.T) {
	t.Parallel()
	e2etest.EachEngine(t, func(t *testing.T, dsn string) {
		ctx := t.Context()
		_, c := e2etest.StartLifecycleAPI(t, dsn)
		steps := func(pc *client.ProfileCheck) string {
			var b strings.Builder
			for _, s := range pc.Steps {
				b.WriteString(s.Name + ":" + s.Status + " ")
			}
			return strings.TrimSpace(b.String())
		}
		pc, err := c.Profile.Check(ctx)
		if got := steps(e2etest.Must(t, pc, err)); !pc.Passed || pc.Environment != "sandbox" || got != "login:passed tin:passed certificate:skipped signature:skipped" {
			t.Errorf("check without a certificate: %+v", pc)
		}

		cur, err := c.Profile.Get(ctx)
		e2etest.Must(t, cur, err)
		prof := e2etest.ProfileOf(t, e2etest.SampleProfile())
		// A self-signed certificate: the sandbox would answer DS329.
		self, selfKey := testcert.New(t, prof.Name, prof.TIN)
		p, err := c.Profile.Update(ctx, prof, &client.AuthorityUpdate{Environment: "sandbox", Mode: "taxpayer", ClientID: cur.Authority.ClientID,
			CertificatePEM: self, PrivateKeyPEM: selfKey})
		e2etest.Must(t, p, err)
		pc, err = c.Profile.Check(ctx)
		if e2etest.Must(t, pc, err).Passed || len(pc.Failed()) != 1 || pc.Failed()[0].Name != client.CheckCertificate ||
			!strings.Contains(pc.Failed()[0].Detail, "DS329") || !strings.Contains(pc.Failed()[0].Action, "einvoice sandbox issue-cert") {
			t.Errorf("check with a self-signed certificate: %+v", pc)
		}

		cert, key := e2etest.SandboxCert(t, dsn, prof.Name, prof.TIN)
		au := &client.AuthorityUpdate{Environment: "sandbox", Mode: "taxpayer", ClientID: cur.Authority.ClientID, CertificatePEM: cert, PrivateKeyPEM: key}
		p, err = c.Profile.Update(ctx, prof, au)
		e2etest.Must(t, p, err)
		pc, err = c.Profile.Check(ctx)
		if got := steps(e2etest.Must(t, pc, err)); !pc.Passed || got != "login:passed tin:passed certificate:passed signature:passed" {
			t.Errorf("check with a certificate: %+v", pc)
		}

		// The profile's TIN changes; the stored certificate stays, and no
		// longer fits.
		prof.TIN = "C20880050010"
		p, err = c.Profile.Update(ctx, prof, nil)
		if w := e2etest.Must(t, p, err).Authority.Certificate; w == nil || len(w.Warnings) != 1 || !strings.Contains(w.Warnings[0], "not to C20880050010") {
			t.Errorf("the certificate of another TIN shown as %+v", w)
		}
		pc, err = c.Profile.Check(ctx)
		if e2etest.Must(t, pc, err).Passed || len(pc.Failed()) != 1 || pc.Failed()[0].Name != client.CheckCertificate ||
			!strings.Contains(pc.Failed()[0].Detail, "C20880050010") || pc.Failed()[0].Action == "" {
			t.Errorf("check with the certificate of another TIN: %+v", pc)
		}
	})
}
