package sandbox_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/einvoice/einvoice/internal/dsig"
	"github.com/einvoice/einvoice/internal/sandbox"
	"github.com/einvoice/einvoice/internal/testcert"
)

// TestSamplesAsPublished resends every official JSON sample as the
// authority publishes it, with only a fresh issue date and time: its
// issuer's placeholder TIN ("Supplier's TIN") is not the logged-in
// taxpayer's, so the submission is refused (403 IncorrectSubmitter). With
// the issuer's TIN the logged-in one (the supplier's, or the buyer's of a
// self-billed type), the other parties' placeholders make each Invalid at
// the taxpayer step, with the code of each such party.
func TestSamplesAsPublished(t *testing.T) {
	t.Parallel()
	names, _ := filepath.Glob(filepath.Join(samplesDir, "*.json"))
	if len(names) == 0 {
		t.Skipf("official samples not found in %s", samplesDir)
	}
	eachEngine(t, func(t *testing.T, e *env) {
		_, hs := e.server(func(o *sandbox.Options) { o.VerifySignature = dsig.Verify })
		seller := login(t, hs.URL, "erp-1", "")            // supplierTIN
		buyer := loginAs(t, hs.URL, "erp-buyer", buyerTIN) // the self-billed issuer
		issued := e.clock.Now().Add(-time.Minute)
		for _, path := range names {
			name := filepath.Base(path)
			root := sample(t, name)
			inv := root["Invoice"].([]any)[0].(map[string]any)
			setLeaf(inv, "IssueDate", issued.Format("2006-01-02"))
			setLeaf(inv, "IssueTime", issued.Format("15:04:05Z"))
			id, _ := inv["ID"].([]any)[0].(map[string]any)["_"].(string)
			typeCode, _ := inv["InvoiceTypeCode"].([]any)[0].(map[string]any)["_"].(string)
			selfBilled := typeCode >= "11"
			c, issuerKey, otherKey, otherCode := seller, "AccountingSupplierParty", "AccountingCustomerParty", "ERR406"
			if selfBilled {
				c, issuerKey, otherKey, otherCode = buyer, "AccountingCustomerParty", "AccountingSupplierParty", "ERR405"
			}
			r := c.do(http.MethodPost, "/api/v1.0/documentsubmissions/", envelope(docOf(id, root)))
			if r.Status != http.StatusForbidden || r.errorCode(t) != "IncorrectSubmitter" {
				t.Errorf("%s as published: %d %s, want 403 IncorrectSubmitter", name, r.Status, r.Body)
			}

			setTIN(inv, issuerKey, map[bool]string{false: supplierTIN, true: buyerTIN}[selfBilled])
			uuid := c.submitOne(docOf(id, root))
			got := c.failedSteps(uuid)
			var want []string
			if other := partyTINText(inv, otherKey); other == "Buyer's TIN" || other == "Supplier's TIN" {
				want = append(want, "Step05-Taxpayer Validator/"+otherCode)
			}
			if _, ok := inv["Delivery"]; ok {
				want = append(want, "Step05-Taxpayer Validator/ERR407")
			}
			if len(want) == 0 {
				// The consolidated samples' buyer is the General Public
				// (EI00000000010), where that TIN belongs.
				if slices.ContainsFunc(got, func(s string) bool { return strings.HasPrefix(s, "Step05") }) {
					t.Errorf("%s: failed steps %v, want none at the taxpayer step", name, got)
				}
				continue
			}
			if st := c.status(uuid); st != "Invalid" {
				t.Errorf("%s: status %s, want Invalid", name, st)
			}
			for _, w := range want {
				if !slices.Contains(got, w) {
					t.Errorf("%s: failed steps %v, want %s among them", name, got, w)
				}
			}
		}
	})
}

func partyTINText(inv map[string]any, k string) string {
	party := inv[k].([]any)[0].(map[string]any)["Party"].([]any)[0].(map[string]any)
	for _, pid := range party["PartyIdentification"].([]any) {
		id := pid.(map[string]any)["ID"].([]any)[0].(map[string]any)
		if id["schemeID"] == "TIN" {
			s, _ := id["_"].(string)
			return s
		}
	}
	return ""
}

// TestTINRules covers each TIN rule of the taxpayer step. The issuer's
// TIN is the logged-in taxpayer's (C20000000010) or the submission is
// refused (refused).
func TestTINRules(t *testing.T) {
	t.Parallel()
	refused := []string{"refused: IncorrectSubmitter"}
	eachEngine(t, func(t *testing.T, e *env) {
		_, hs := e.server()
		c := login(t, hs.URL, "erp-1", "")
		now := e.clock.Now()
		for i, tc := range []struct {
			name               string
			typeCode, supplier string
			buyer              string
			want               []string
		}{
			{"well-formed TINs", "01", "C20000000010", "IG12345678901", nil},
			{"placeholder supplier: not the logged-in issuer", "01", "Supplier's TIN", "", refused},
			{"placeholder buyer", "01", "", "Buyer's TIN", []string{"Step05-Taxpayer Validator/ERR406"}},
			{"malformed buyer (leading zero)", "01", "", "C0123456780", []string{"Step05-Taxpayer Validator/ERR406"}},
			{"buyer not found", "01", "", "C99999999990", []string{"Step05-Taxpayer Validator/ERR406"}},
			{"foreign buyer", "01", "", "EI00000000020", nil},
			{"government buyer", "01", "", "EI00000000040", nil},
			{"general public buyer of an individual invoice", "01", "", "EI00000000010", []string{"Step05-Taxpayer Validator/ERR237"}},
			{"general public buyer of a credit note", "02", "", "EI00000000010", nil},
			{"foreign supplier's TIN for a buyer", "01", "", "EI00000000030", []string{"Step05-Taxpayer Validator/ERR406"}},
			{"special TIN as the issuer", "01", "EI00000000010", "", refused},
			{"foreign supplier of a self-billed invoice", "11", "EI00000000030", supplierTIN, nil},
			{"foreign buyer's TIN for a self-billed supplier", "11", "EI00000000020", supplierTIN, []string{"Step05-Taxpayer Validator/ERR405"}},
			{"special TIN as the self-billed issuer", "11", "", "EI00000000040", refused},
		} {
			t.Run(tc.name, func(t *testing.T) {
				refs := []string(nil)
				if tc.typeCode == "02" {
					refs = []string{"NA"}
				}
				d := invoice(invoiceOpts{code: "TIN-" + strconv.Itoa(i), typeCode: tc.typeCode, supplier: tc.supplier, buyer: tc.buyer, issued: now, refs: refs})
				if slices.Equal(tc.want, refused) {
					// The issuer's TIN must be the logged-in taxpayer's: the
					// authority refuses the submission before judging it.
					r := c.do(http.MethodPost, "/api/v1.0/documentsubmissions/", envelope(d))
					if r.Status != http.StatusForbidden || r.errorCode(t) != "IncorrectSubmitter" {
						t.Errorf("submit: %d %s, want 403 IncorrectSubmitter", r.Status, r.Body)
					}
					return
				}
				if got := c.failedSteps(c.submitOne(d)); !slices.Equal(got, tc.want) {
					t.Errorf("failed steps %v, want %v", got, tc.want)
				}
			})
		}
	})
}

// TestValidateTINCrossCheck: a TIN bound to a client matches only its
// taxpayer's id; any other TIN any id but one of nines.
func TestValidateTINCrossCheck(t *testing.T) {
	t.Parallel()
	eachEngine(t, func(t *testing.T, e *env) {
		_, hs := e.server()
		// erp-1 is bound to C20000000010, BRN 202001234567.
		c := login(t, hs.URL, "erp-1", "")
		for _, tc := range []struct {
			tin, idType, idValue string
			want                 int
		}{
			{"C20000000010", "BRN", "202001234567", http.StatusOK},
			{"C20000000010", "BRN", "202001000002", http.StatusNotFound},
			{"C20000000010", "NRIC", "202001234567", http.StatusNotFound},
			{"C30000000010", "BRN", "201901000005", http.StatusOK},
			{"IG12345678901", "NRIC", "900101015555", http.StatusOK},
			{"C30000000010", "BRN", "999999999999", http.StatusNotFound},
			{"C30000000010", "BRN", "9999-99", http.StatusNotFound},
			{"C99999999990", "BRN", "201901000005", http.StatusNotFound},
			{"Supplier's TIN", "BRN", "201901000005", http.StatusBadRequest},
		} {
			q := url.Values{"idType": {tc.idType}, "idValue": {tc.idValue}}
			r := c.do(http.MethodGet, "/api/v1.0/taxpayer/validate/"+url.PathEscape(tc.tin)+"?"+q.Encode(), nil)
			if r.Status != tc.want {
				t.Errorf("validate %s %s %q: %d %s, want %d", tc.tin, tc.idType, tc.idValue, r.Status, r.Body, tc.want)
			}
		}
	})
}

// TestSigningCertificates signs documents with certificates broken in each
// way the authority checks and wants each Invalid with its code; one issued
// by the sandbox's own test authority, or by an authority given to it, is
// Valid.
func TestSigningCertificates(t *testing.T) {
	t.Parallel()
	eachEngine(t, func(t *testing.T, e *env) {
		other := testcert.NewCA(t, "Other Trusted CA")
		sb, hs := e.server(func(o *sandbox.Options) {
			o.VerifySignature = dsig.Verify
			o.TrustedCAs = []*x509.Certificate{other.Cert}
		})
		ctx := context.Background()
		now := e.clock.Now()
		own, err := sb.IssueCertificate(ctx, sandbox.CertificateRequest{TIN: supplierTIN, Name: "Supplier Sdn. Bhd."})
		if err != nil {
			t.Fatal(err)
		}
		caPEM, err := sb.CACertificatePEM(ctx)
		if err != nil || !bytes.Equal(own.Certificate.RawIssuer, mustCert(t, caPEM).RawSubject) {
			t.Fatalf("CA %v: %q does not issue %v", err, caPEM, own.Certificate.Issuer)
		}
		valid := testcert.Options{Organisation: "Supplier Sdn. Bhd.", TIN: supplierTIN, CA: other,
			NotBefore: now.Add(-time.Hour), NotAfter: now.AddDate(1, 0, 0)}
		with := func(f func(o *testcert.Options)) signing {
			o := valid
			f(&o)
			cert, key := testcert.Make(t, o)
			return signing{cert: cert, key: key}
		}
		c := login(t, hs.URL, "erp-1", "")
		for i, tc := range []struct {
			name string
			s    signing
			want string // the inner code; "" Valid
		}{
			{"version 1.1 unsigned", signing{}, "DS301"},
			{"issued by the sandbox's CA", signing{cert: own.CertificatePEM, key: own.PrivateKeyPEM}, ""},
			{"issued by a CA given to the sandbox", with(func(*testcert.Options) {}), ""},
			{"self-signed", with(func(o *testcert.Options) { o.CA = nil }), "DS329"},
			{"issuer name in another order", signing{cert: own.CertificatePEM, key: own.PrivateKeyPEM, reorderIssuer: true}, "DS326"},
			{"wrong serial number", signing{cert: own.CertificatePEM, key: own.PrivateKeyPEM, serial: "12345"}, "DS328"},
			{"serial number in hex", signing{cert: own.CertificatePEM, key: own.PrivateKeyPEM, serial: "0x1F"}, "DS327"},
			{"no TIN", with(func(o *testcert.Options) { o.TIN = "" }), "DS307"},
			{"another TIN", with(func(o *testcert.Options) { o.TIN = "C30000000010" }), "DS311"},
			{"a TIN not found", with(func(o *testcert.Options) { o.TIN = "C99999999990" }), "DS330"},
			{"a personal certificate", with(func(o *testcert.Options) { o.Personal = true }), "DS309"},
			{"no document signing usage", with(func(o *testcert.Options) { o.NoDocumentSigning = true }), "DS334"},
			{"no non-repudiation", with(func(o *testcert.Options) { o.NoNonRepudiation = true }), "DS334"},
			{"expired", with(func(o *testcert.Options) { o.NotBefore, o.NotAfter = now.AddDate(-1, 0, 0), now.Add(-time.Hour) }), "DS304"},
			{"no BRN", with(func(o *testcert.Options) { o.NoBRN = true }), "DS306"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				d := invoice(invoiceOpts{code: "SIG-" + strconv.Itoa(i), version: "1.1", issued: now})
				if tc.s.cert == "" {
					if got := c.failedSteps(c.submitOne(d)); !slices.Equal(got, []string{"Step08-Document Signature Validator/" + tc.want}) {
						t.Errorf("failed steps %v, want only %s", got, tc.want)
					}
					return
				}
				signed := tc.s.sign(t, d.body, now)
				uuid := c.submitOne(doc{code: d.code, body: signed})
				got := c.failedSteps(uuid)
				if tc.want == "" {
					if got != nil {
						t.Errorf("failed steps %v, want Valid", got)
					}
					return
				}
				if !slices.Equal(got, []string{"Step08-Document Signature Validator/" + tc.want}) {
					t.Errorf("failed steps %v, want only %s", got, tc.want)
				}
			})
		}
	})
}

// TestTestCAShared: the test authority is made once per database: another
// server on it (a replica, a restart) trusts and prints the same one, and
// its key is sealed in the table.
func TestTestCAShared(t *testing.T) {
	t.Parallel()
	eachEngine(t, func(t *testing.T, e *env) {
		a, _ := e.server()
		b, _ := e.server()
		ctx := context.Background()
		pa, err := a.CACertificatePEM(ctx)
		if err != nil {
			t.Fatal(err)
		}
		pb, err := b.CACertificatePEM(ctx)
		if err != nil || pa != pb {
			t.Fatalf("replicas print different CAs (%v)", err)
		}
		issued, err := a.IssueCertificate(ctx, sandbox.CertificateRequest{TIN: supplierTIN})
		if err != nil {
			t.Fatal(err)
		}
		if err := b.CheckChain(ctx, issued.Certificate); err != nil {
			t.Errorf("the other replica does not trust it: %v", err)
		}
		self, _ := testcert.Make(t, testcert.Options{Organisation: "X", TIN: supplierTIN})
		if err := b.CheckChain(ctx, mustCert(t, self)); err == nil || !strings.Contains(err.Error(), "DS329") {
			t.Errorf("self-signed: %v, want DS329", err)
		}
		if _, err := a.IssueCertificate(ctx, sandbox.CertificateRequest{TIN: "Supplier's TIN"}); err == nil {
			t.Error("a certificate for a malformed TIN was issued")
		}
		var sealed string
		if err := e.openStore().DB().QueryRowContext(ctx, `SELECT key_sealed FROM sandbox_ca`).Scan(&sealed); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(sealed, "PRIVATE KEY") {
			t.Error("the CA's key is stored in the clear though the sandbox has a sealer")
		}

		// A sandbox without the secret key cannot open the sealed key: it
		// says so, and judges signed documents against the other trusted
		// authorities (DS329) instead of failing every submission.
		blind, hs := e.server(func(o *sandbox.Options) { o.Secrets, o.VerifySignature = nil, dsig.Verify })
		if _, err := blind.CACertificatePEM(ctx); err == nil {
			t.Error("a sandbox without the secret key read the sealed CA")
		}
		c := login(t, hs.URL, "erp-1", "")
		d := invoice(invoiceOpts{code: "BLIND-1", version: "1.1", issued: e.clock.Now()})
		signed := signing{cert: issued.CertificatePEM, key: issued.PrivateKeyPEM}.sign(t, d.body, e.clock.Now())
		if got := c.failedSteps(c.submitOne(doc{code: d.code, body: signed})); !slices.Equal(got, []string{"Step08-Document Signature Validator/DS329"}) {
			t.Errorf("failed steps %v, want DS329", got)
		}
	})
}

func mustCert(t *testing.T, p string) *x509.Certificate {
	t.Helper()
	cs, err := sandbox.ParseCertificates([]byte(p))
	if err != nil {
		t.Fatal(err)
	}
	return cs[0]
}

// signing is how a test signs a document.
type signing struct {
	cert, key     string
	reorderIssuer bool   // write X509IssuerName in the reverse order of the certificate's
	serial        string // write this X509SerialNumber
}

// sign signs body and, when asked, rewrites the issuer name or serial number
// of the signed properties (and the signed-properties digest with them, so
// that only the certificate particulars are wrong).
func (s signing) sign(t *testing.T, body []byte, now time.Time) []byte {
	t.Helper()
	signer, err := dsig.NewSigner([]byte(s.cert), []byte(s.key))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, body); err != nil {
		t.Fatal(err)
	}
	signed, err := signer.Sign(buf.Bytes(), now)
	if err != nil {
		t.Fatal(err)
	}
	cert := signer.Certificate()
	out := string(signed)
	qpStart := strings.Index(out, `{"Target":"signature"`)
	if qpStart < 0 {
		t.Fatal("no QualifyingProperties")
	}
	qp := out[qpStart : qpStart+objectEnd(out[qpStart:])]
	newQP := qp
	if s.reorderIssuer {
		name := dsig.IssuerName(cert)
		parts := strings.Split(name, ", ")
		slices.Reverse(parts)
		newQP = strings.ReplaceAll(newQP, `"X509IssuerName":[{"_":"`+name+`"}]`, `"X509IssuerName":[{"_":"`+strings.Join(parts, ", ")+`"}]`)
	}
	if s.serial != "" {
		sn := cert.SerialNumber.String()
		newQP = strings.ReplaceAll(newQP, `"X509SerialNumber":[{"_":"`+sn+`"}]`, `"X509SerialNumber":[{"_":"`+s.serial+`"}]`)
	}
	if newQP == qp {
		return signed
	}
	oldSum, newSum := sha256.Sum256([]byte(qp)), sha256.Sum256([]byte(newQP))
	out = strings.Replace(out, qp, newQP, 1)
	out = strings.Replace(out, base64.StdEncoding.EncodeToString(oldSum[:]), base64.StdEncoding.EncodeToString(newSum[:]), 1)
	return []byte(out)
}

// objectEnd returns the length of the JSON object at the start of s.
func objectEnd(s string) int {
	depth, inStr := 0, false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case inStr && c == '\\':
			i++
		case c == '"':
			inStr = !inStr
		case inStr:
		case c == '{':
			depth++
		case c == '}':
			depth--
			if depth == 0 {
				return i + 1
			}
		}
	}
	return len(s)
}

// TestIntermediaryCertificate: an intermediary signs with its own
// certificate: it must carry the TIN its client is bound to (DS311
// otherwise, even the represented taxpayer's).
func TestIntermediaryCertificate(t *testing.T) {
	t.Parallel()
	eachEngine(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		now := e.clock.Now()
		sb, hs := e.server(func(o *sandbox.Options) { o.VerifySignature = dsig.Verify })
		c := login(t, hs.URL, "inter-1", supplierTIN) // bound to intermediaryTIN
		for i, tc := range []struct {
			tin  string
			want []string
		}{
			{intermediaryTIN, nil},
			{supplierTIN, []string{"Step08-Document Signature Validator/DS311"}},
		} {
			crt, err := sb.IssueCertificate(ctx, sandbox.CertificateRequest{TIN: tc.tin})
			if err != nil {
				t.Fatal(err)
			}
			d := invoice(invoiceOpts{code: "INTER-" + strconv.Itoa(i), version: "1.1", issued: now})
			signed := signing{cert: crt.CertificatePEM, key: crt.PrivateKeyPEM}.sign(t, d.body, now)
			if got := c.failedSteps(c.submitOne(doc{code: d.code, body: signed})); !slices.Equal(got, tc.want) {
				t.Errorf("certificate of %s: failed steps %v, want %v", tc.tin, got, tc.want)
			}
		}
	})
}
