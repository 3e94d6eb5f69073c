package dsig

import (
	"crypto/x509/pkix"
	"encoding/asn1"
	"testing"
)

func TestDistinguishedName(t *testing.T) {
	s := dummySigner(t)
	if got, want := s.info.issuer, "C=MY, O=Test Org, OU=MyInvoice Unit, E=test@example.com, CN=Test LHDN Signing"; got != want {
		t.Errorf("dummy issuer = %q, want %q", got, want)
	}
	if s.info.serial != "96146653779339257975479061075131698684868871205" {
		t.Errorf("serial = %s", s.info.serial)
	}
	seq := pkix.RDNSequence{
		{{Type: asn1.ObjectIdentifier{2, 5, 4, 6}, Value: "MY"}},
		{{Type: asn1.ObjectIdentifier{2, 5, 4, 10}, Value: "A, B \"C\""}, {Type: asn1.ObjectIdentifier{2, 5, 4, 97}, Value: "C123"}},
		{{Type: asn1.ObjectIdentifier{2, 5, 4, 3}, Value: " CA"}},
	}
	der, err := asn1.Marshal(seq)
	if err != nil {
		t.Fatal(err)
	}
	got, err := distinguishedName(der)
	// DER sorts the multi-valued RDN's SET; its members keep that order.
	if want := `CN=" CA", OID.2.5.4.97=C123 + O="A, B ""C""", C=MY`; err != nil || got != want {
		t.Errorf("distinguishedName = %q, %v; want %q", got, err, want)
	}
	if _, err := distinguishedName(append(der, 0)); err == nil {
		t.Error("trailing data accepted")
	}
}
