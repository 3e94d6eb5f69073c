package dsig

import "testing"

// TestReadSignature reads the official signed sample's certificate
// particulars: its issuer name and serial number match the certificate
// inside, as the authority's validator wants them to.
func TestReadSignature(t *testing.T) {
	si, ok := ReadSignature(readShared(t, sampleSigned))
	if !ok || si.Certificate == nil {
		t.Fatalf("ReadSignature: ok %v, %+v", ok, si)
	}
	const issuer = "CN=Trial LHDNM Sub CA V1, OU=Terms of use at http://www.posdigicert.com.my, O=LHDNM, C=MY"
	if si.IssuerName != issuer || !SameDistinguishedName(si.IssuerName, IssuerName(si.Certificate)) {
		t.Errorf("issuer name %q; the certificate's %q", si.IssuerName, IssuerName(si.Certificate))
	}
	if si.SerialNumber != si.Certificate.SerialNumber.String() || si.SigningTime != "2024-07-23T15:14:54Z" {
		t.Errorf("serial %q (certificate %s), signing time %q", si.SerialNumber, si.Certificate.SerialNumber, si.SigningTime)
	}
	for name, doc := range map[string]string{
		"unsigned":   `{"_D":"x","Invoice":[{"ID":[{"_":"1"}]}]}`,
		"not JSON":   `{"Invoice":[`,
		"no Invoice": `{"_D":"x"}`,
	} {
		if _, ok := ReadSignature([]byte(doc)); ok {
			t.Errorf("%s: read a signature", name)
		}
	}
	bad := `{"Invoice":[{"UBLExtensions":[{"UBLExtension":[{"ExtensionContent":[{"UBLDocumentSignatures":[{"SignatureInformation":[{"Signature":[{"KeyInfo":[{"X509Data":[{"X509Certificate":[{"_":"bm90IGEgY2VydA=="}]}]}]}]}]}]}]}]}]}]}`
	if si, ok := ReadSignature([]byte(bad)); !ok || si.Certificate != nil || si.CertificateError == "" {
		t.Errorf("a certificate that does not parse: %v %+v", ok, si)
	}
}

// TestSameDistinguishedName: the order of the names matters (DS326);
// spaces around '=' and ',' and the case of attribute names do not.
func TestSameDistinguishedName(t *testing.T) {
	const want = "CN=Trial LHDNM Sub CA V1, OU=Terms of use at http://www.posdigicert.com.my, O=LHDNM, C=MY"
	for _, tc := range []struct {
		written string
		same    bool
	}{
		{want, true},
		{"CN = Trial LHDNM Sub CA V1, OU = Terms of use at http://www.posdigicert.com.my, O = LHDNM, C = MY", true},
		{"cn=Trial LHDNM Sub CA V1,OU=Terms of use at http://www.posdigicert.com.my,O=LHDNM,C=MY", true},
		{"C=MY, O=LHDNM, OU=Terms of use at http://www.posdigicert.com.my, CN=Trial LHDNM Sub CA V1", false},
		{"CN=Trial LHDNM Sub CA V2, OU=Terms of use at http://www.posdigicert.com.my, O=LHDNM, C=MY", false},
		{"CN=Trial LHDNM Sub CA V1, O=LHDNM, C=MY", false},
		{"", false},
	} {
		if got := SameDistinguishedName(tc.written, want); got != tc.same {
			t.Errorf("SameDistinguishedName(%q) = %v, want %v", tc.written, got, tc.same)
		}
	}
	if !SameDistinguishedName("EMAILADDRESS=a@b.my, CN=X", "E=a@b.my, CN=X") || !SameDistinguishedName(`CN=A\, B, C=MY`, `CN=A\, B, C=MY`) ||
		SameDistinguishedName(`CN=A\, B, C=MY`, `CN=A, B=, C=MY`) {
		t.Error("aliases or escaped commas")
	}
}
