package einvoice

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestCheckTIN(t *testing.T) {
	for _, c := range []struct {
		tin string
		ok  bool
	}{
		{"C2584563200", true}, {"C1234567890", true}, {"IG12345678901", true}, {"IG123456789", true},
		{"EI00000000010", true}, {"EI00000000020", true}, {"EI00000000030", true}, {"EI00000000040", true},
		{"CS12345670", true}, {"LE1234560", true}, {"D12345670", true},
		{"C01234567890", false}, // leading zero after the prefix
		{"C1234567891", false},  // does not end in 0
		{"IG12345678", false},   // too few digits
		{"IG1234567890123", false},
		{"EI00000000050", false}, {"X1234567890", false}, {"c1234567890", false}, {"", false},
		{"C12345678901230", false}, // 15 characters
	} {
		if got := CheckTIN(c.tin) == ""; got != c.ok {
			t.Errorf("CheckTIN(%q) ok = %v, want %v (%s)", c.tin, got, c.ok, CheckTIN(c.tin))
		}
	}
}

func TestCheckFormats(t *testing.T) {
	for _, c := range []struct {
		name string
		msg  string
		ok   bool
	}{
		{"phone +60123456789", CheckPhone("+60123456789"), true},
		{"phone 0312345678", CheckPhone("0312345678"), true},
		{"phone with spaces", CheckPhone("+60 12 345 6789"), false},
		{"phone with dash", CheckPhone("03-12345678"), false},
		{"phone too short", CheckPhone("1234567"), false},
		{"phone 21 chars", CheckPhone("+" + strings.Repeat("1", 20)), false},
		{"email ok", CheckEmail("ap@buyer.com.my"), true},
		{"email display name", CheckEmail("Buyer <ap@buyer.com.my>"), false},
		{"email no at", CheckEmail("buyer.com.my"), false},
		{"email space", CheckEmail("a b@c.my"), false},
		{"NRIC 12 digits", CheckIDValue("NRIC", "880101145678", "IG12345678901"), true},
		{"NRIC with dashes", CheckIDValue("NRIC", "880101-14-5678", "IG12345678901"), false},
		{"BRN 20", CheckIDValue("BRN", strings.Repeat("1", 20), "C1234567890"), true},
		{"PASSPORT 13", CheckIDValue("PASSPORT", "A123456789012", "EI00000000020"), false},
		{"ARMY 12", CheckIDValue("ARMY", "123456789012", "IG12345678901"), true},
		{"NA with special TIN", CheckIDValue("BRN", "NA", "EI00000000040"), true},
		{"NA with ordinary TIN", CheckIDValue("BRN", "NA", "C1234567890"), false},
		{"MSIC 00000", CheckMSIC("00000"), true},
		{"MSIC 4 digits", CheckMSIC("4651"), false},
		{"SST two", CheckSST("W10-1808-32000001;W10-1808-32000002"), true},
		{"SST three", CheckSST("A;B;C"), false},
		{"SST NA", CheckSST("NA"), true},
		{"SST slash", CheckSST("W10/1808"), false},
		{"TTX", CheckTTX("123-4567-89012345"), true},
		{"TTX semicolon", CheckTTX("1;2"), false},
		{"postcode MY", CheckPostCode("MYS", "50480"), true},
		{"postcode MY 4", CheckPostCode("MYS", "5048"), false},
		{"postcode SG", CheckPostCode("SGP", "018956"), true},
	} {
		if got := c.msg == ""; got != c.ok {
			t.Errorf("%s: ok = %v, want %v (%s)", c.name, got, c.ok, c.msg)
		}
	}
}

func readyBuyer() *Party {
	return &Party{
		Kind: KindBuyer, Name: "Hebat Group", TIN: "C2584563200", IDType: "BRN", IDValue: "201901234567",
		SSTRegistrationNumber: "NA",
		Address:               Address{Line1: "Lot 66", City: "Kuala Lumpur", State: "14", PostCode: "50480", CountryCode: "MYS"},
		Contact:               Contact{Phone: "+60123456789", Email: "ap@hebat.example"},
	}
}

func paths(f FieldErrors) []string {
	p := f.Paths()
	sort.Strings(p)
	if len(p) == 0 {
		return nil
	}
	return p
}

func TestValidatePartyInput(t *testing.T) {
	for _, c := range []struct {
		name   string
		change func(p *Party)
		want   []string
	}{
		{"complete", func(p *Party) {}, nil},
		{"missing required", func(p *Party) { *p = Party{Kind: KindBuyer} },
			[]string{"address.city", "address.countryCode", "address.line1", "address.state", "contact.phone", "idType", "idValue", "name", "tin"}},
		{"draft may be empty", func(p *Party) { *p = Party{Kind: KindBuyer, IsDraft: true} }, nil},
		{"blank name", func(p *Party) { p.Name = "   " }, []string{"name"}},
		{"301-character name", func(p *Party) { p.Name = strings.Repeat("é", 301) }, []string{"name"}},
		{"300-character name", func(p *Party) { p.Name = strings.Repeat("é", 300) }, nil},
		{"state not in list", func(p *Party) { p.Address.State = "18" }, []string{"address.state"}},
		{"country not in list", func(p *Party) { p.Address.CountryCode = "MY" }, []string{"address.countryCode"}},
		{"id type not in list", func(p *Party) { p.IDType = "SSN" }, []string{"idType"}},
		{"draft still checks codes", func(p *Party) { p.IsDraft = true; p.Address.State = "99" }, []string{"address.state"}},
		{"bad formats do not refuse", func(p *Party) { p.TIN = "X1"; p.Contact.Phone = "abc"; p.Contact.Email = "nope" }, nil},
		{"long tin", func(p *Party) { p.TIN = strings.Repeat("1", 15) }, []string{"tin"}},
		{"long city", func(p *Party) { p.Address.City = strings.Repeat("k", 51) }, []string{"address.city"}},
		{"long phone", func(p *Party) { p.Contact.Phone = strings.Repeat("1", 21) }, []string{"contact.phone"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := readyBuyer()
			c.change(p)
			if diff := cmp.Diff(c.want, paths(ValidatePartyInput(p))); diff != "" {
				t.Errorf("fields at fault (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPartyReadiness(t *testing.T) {
	for _, c := range []struct {
		name   string
		kind   PartyKind
		change func(p *Party)
		want   []string
	}{
		{"ready buyer", KindBuyer, func(p *Party) {}, nil},
		{"draft", KindBuyer, func(p *Party) { p.IsDraft = true }, []string{"isDraft"}},
		{"bad TIN", KindBuyer, func(p *Party) { p.TIN = "C0123" }, []string{"tin"}},
		{"bad phone", KindBuyer, func(p *Party) { p.Contact.Phone = "03-1234 5678" }, []string{"contact.phone"}},
		{"bad email", KindBuyer, func(p *Party) { p.Contact.Email = "not-an-email" }, []string{"contact.email"}},
		{"no email is fine", KindBuyer, func(p *Party) { p.Contact.Email = "" }, nil},
		{"MY postcode", KindBuyer, func(p *Party) { p.Address.PostCode = "ABC" }, []string{"address.postCode"}},
		{"MY postcode missing", KindBuyer, func(p *Party) { p.Address.PostCode = "" }, []string{"address.postCode"}},
		{"state 17 in Malaysia", KindBuyer, func(p *Party) { p.Address.State = "17" }, []string{"address.state"}},
		{"foreign buyer", KindBuyer, func(p *Party) {
			p.TIN, p.IDType, p.IDValue = "EI00000000020", "PASSPORT", "A12345678"
			p.Address = Address{Line1: "1 Orchard Road", City: "Singapore", State: "17", CountryCode: "SGP"}
		}, nil},
		{"NRIC format", KindBuyer, func(p *Party) { p.TIN, p.IDType, p.IDValue = "IG12345678901", "NRIC", "12345" }, []string{"idValue"}},
		{"bad SST", KindBuyer, func(p *Party) { p.SSTRegistrationNumber = "A;B;C" }, []string{"sstRegistrationNumber"}},
		{"seller needs MSIC", KindSeller, func(p *Party) {}, []string{"businessActivityDescription", "msicCode"}},
		{"ready seller", KindSeller, func(p *Party) { p.MSICCode, p.BusinessActivityDescription = "00000", "NOT APPLICABLE" }, nil},
		{"seller bad MSIC", KindSeller, func(p *Party) { p.MSICCode, p.BusinessActivityDescription = "4651X", "Trade" }, []string{"msicCode"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := readyBuyer()
			p.Kind = c.kind
			c.change(p)
			got := PartyReadiness(p)
			if diff := cmp.Diff(c.want, paths(got)); diff != "" {
				t.Errorf("readiness problems (-want +got):\n%s\n%v", diff, got)
			}
		})
	}
}

func TestProfileReadiness(t *testing.T) {
	p := DemoProfile()
	if got := ProfileReadiness(&p); len(got) != 0 {
		t.Errorf("demo profile is not ready: %v", got)
	}
	empty := Profile{}
	want := []string{"address.city", "address.countryCode", "address.line1", "address.state", "businessActivityDescription",
		"contact.phone", "idType", "idValue", "msicCode", "name", "sstRegistrationNumber", "tin", "tourismTaxRegistrationNumber"}
	if diff := cmp.Diff(want, paths(ProfileReadiness(&empty))); diff != "" {
		t.Errorf("empty profile problems (-want +got):\n%s", diff)
	}
}

func TestValidateProfileInputAuthority(t *testing.T) {
	certPEM, keyPEM := selfSigned(t)
	_, otherKey := selfSigned(t)
	for _, c := range []struct {
		name string
		a    Authority
		want []string
	}{
		{"sandbox taxpayer", Authority{Environment: EnvSandbox, Mode: ModeTaxpayer}, nil},
		{"unknown environment", Authority{Environment: "prod", Mode: ModeTaxpayer}, []string{"authority.environment"}},
		{"unknown mode", Authority{Environment: EnvSandbox, Mode: "agent"}, []string{"authority.mode"}},
		{"intermediary needs onBehalfOf", Authority{Environment: EnvPreprod, Mode: ModeIntermediary}, []string{"authority.onBehalfOf"}},
		{"intermediary", Authority{Environment: EnvPreprod, Mode: ModeIntermediary, OnBehalfOf: "C2584563200"}, nil},
		{"certificate and key", Authority{Environment: EnvSandbox, Mode: ModeTaxpayer, CertificatePEM: certPEM, PrivateKeyPEM: keyPEM}, nil},
		{"certificate alone", Authority{Environment: EnvSandbox, Mode: ModeTaxpayer, CertificatePEM: certPEM}, []string{"authority.certificatePem"}},
		{"garbage certificate", Authority{Environment: EnvSandbox, Mode: ModeTaxpayer, CertificatePEM: "nope", PrivateKeyPEM: keyPEM}, []string{"authority.certificatePem"}},
		{"garbage key", Authority{Environment: EnvSandbox, Mode: ModeTaxpayer, CertificatePEM: certPEM, PrivateKeyPEM: "nope"}, []string{"authority.privateKeyPem"}},
		{"key of another certificate", Authority{Environment: EnvSandbox, Mode: ModeTaxpayer, CertificatePEM: certPEM, PrivateKeyPEM: otherKey}, []string{"authority.privateKeyPem"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := DemoProfile()
			if diff := cmp.Diff(c.want, paths(ValidateProfileInput(&p, &c.a))); diff != "" {
				t.Errorf("fields at fault (-want +got):\n%s", diff)
			}
		})
	}
}

// selfSigned returns a throwaway certificate and its PKCS#8 key in PEM.
func selfSigned(t *testing.T) (string, string) {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test"},
		NotBefore: time.Now(), NotAfter: time.Now().Add(time.Hour)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	k8, _ := x509.MarshalPKCS8PrivateKey(key)
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})),
		string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: k8}))
}
