package dsig

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/einvoice/einvoice/internal/testcert"
)

// TestCheckCertificate: a conforming certificate has no problem; each way of
// departing from the authority's profile is one problem of its kind.
func TestCheckCertificate(t *testing.T) {
	const tin = "C2584563200"
	now := time.Now()
	_, otherKey := testcert.New(t, "Other Sdn. Bhd.", tin)
	cases := []struct {
		name string
		o    testcert.Options
		key  bool // use another certificate's key
		want []string
	}{
		{"conforming", testcert.Options{}, false, nil},
		{"another key", testcert.Options{}, true, []string{ProblemKey}},
		{"expired", testcert.Options{NotBefore: now.Add(-48 * time.Hour), NotAfter: now.Add(-24 * time.Hour)}, false, []string{ProblemExpired}},
		{"not yet valid", testcert.Options{NotBefore: now.Add(24 * time.Hour)}, false, []string{ProblemNotYetValid}},
		{"no document signing", testcert.Options{NoDocumentSigning: true}, false, []string{ProblemDocSigning}},
		{"no non-repudiation", testcert.Options{NoNonRepudiation: true}, false, []string{ProblemNonRepud}},
		{"personal", testcert.Options{Personal: true}, false, []string{ProblemOrganisation}},
		{"no organizationIdentifier", testcert.Options{TIN: "-"}, false, []string{ProblemOrganisation}},
		{"another TIN", testcert.Options{TIN: "C1111111111"}, false, []string{ProblemTIN}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := c.o
			o.Organisation = "Hebat Group Sdn. Bhd."
			switch o.TIN {
			case "":
				o.TIN = tin
			case "-":
				o.TIN = ""
			}
			certPEM, keyPEM := testcert.Make(t, o)
			if c.key {
				keyPEM = otherKey
			}
			cert, key, err := LoadPEM([]byte(certPEM), []byte(keyPEM))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, p := range CheckCertificate(cert, key, " c2584563200 ", now) {
				got = append(got, p.Kind)
				if p.Message == "" {
					t.Errorf("%s: no message", p.Kind)
				}
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("problems %v, want %v", got, c.want)
			}
		})
	}
}

// TestCertificateWarnings: a warning from 30 days before expiry.
func TestCertificateWarnings(t *testing.T) {
	now := time.Now()
	certPEM, _ := testcert.Make(t, testcert.Options{Organisation: "X", TIN: "C1", NotAfter: now.Add(12*24*time.Hour + time.Hour)})
	cert, _, err := LoadPEM([]byte(certPEM), nil)
	if err != nil {
		t.Fatal(err)
	}
	if w := CertificateWarnings(cert, now); !slices.Equal(w, []string{"expires in 12 days"}) {
		t.Errorf("warnings %q", w)
	}
	if w := CertificateWarnings(cert, now.Add(-20*24*time.Hour)); w != nil {
		t.Errorf("warnings 32 days before expiry: %q", w)
	}
	s := Summarize(cert)
	if !strings.Contains(s.Subject, "CN=X") || !strings.Contains(s.Subject, "OID.2.5.4.97=C1") || len(s.FingerprintSHA256) != 64 || s.SerialNumber != cert.SerialNumber.String() {
		t.Errorf("summary %+v", s)
	}
}

// TestLoadPKCS12 reads what testcert.PKCS12 writes, and refuses a wrong
// password.
func TestLoadPKCS12(t *testing.T) {
	c, k := testcert.New(t, "X", "C1")
	p12 := testcert.PKCS12(t, c, k, "pw")
	cert, key, err := LoadPKCS12(p12, "pw")
	if err != nil || CheckCertificate(cert, key, "C1", time.Now()) != nil {
		t.Fatalf("LoadPKCS12: %v", err)
	}
	if _, _, err := LoadPKCS12(p12, "other"); err == nil {
		t.Error("a wrong password was accepted")
	}
}
