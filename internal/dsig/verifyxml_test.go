package dsig

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"testing"
)

const (
	goldenSignedXML   = "signing/golden_invoice_signed.xml"
	goldenUnsignedXML = "signing/golden_invoice_unsigned.xml"
	sampleSignedXML   = "myinvois-samples/one-doc-signed.xml"
)

// relabelled is the XML signing golden as it was signed: its generator
// (klsheng's signer, via danieyal/myinvois-python) signs the document with
// listVersionID 1.0 and sets 1.1 afterwards.
func relabelled(tb testing.TB) []byte {
	return bytes.Replace(readShared(tb, goldenSignedXML), []byte(`listVersionID="1.1"`), []byte(`listVersionID="1.0"`), 1)
}

func wantXMLCode(t *testing.T, name string, err error, code string) {
	t.Helper()
	var ve *VerifyError
	switch {
	case code == "" && err != nil:
		t.Errorf("%s: %v, want nil", name, err)
	case code != "" && (!errors.As(err, &ve) || ve.Code != code):
		t.Errorf("%s: %v, want %s", name, err, code)
	}
}

// TestVerifyXMLGolden: the golden verifies (document digest, signature value,
// certificate digest, signed-properties digest as its bytes stand) over the
// document it was signed as; the C14N 1.1 of that document without the
// signature is byte for byte the golden unsigned document; as published
// (relabelled 1.1 after signing) its digest does not match.
func TestVerifyXMLGolden(t *testing.T) {
	wantXMLCode(t, "golden as signed (1.0)", VerifyXML(relabelled(t)), "")
	wantXMLCode(t, "golden as published (relabelled 1.1)", VerifyXML(readShared(t, goldenSignedXML)), CodeDocDigest)

	unsigned := readShared(t, goldenUnsignedXML)
	signed := relabelled(t)
	start := bytes.Index(signed, []byte("<ext:UBLExtensions>"))
	end := bytes.Index(signed, []byte("</ext:UBLExtensions>")) + len("</ext:UBLExtensions>")
	cut := append(append([]byte{}, signed[:start]...), signed[end:]...)
	cut = bytes.Replace(cut, []byte("<cac:Signature><cbc:ID>urn:oasis:names:specification:ubl:signature:Invoice</cbc:ID><cbc:SignatureMethod>urn:oasis:names:specification:ubl:dsig:enveloped:xades</cbc:SignatureMethod></cac:Signature>"), nil, 1)
	if !bytes.Equal(cut, unsigned) {
		t.Errorf("golden without its signature (%d bytes) is not the unsigned golden (%d bytes)", len(cut), len(unsigned))
	}
}

// TestVerifyXMLTampered: each part changed fails with its code.
func TestVerifyXMLTampered(t *testing.T) {
	good := relabelled(t)
	edit := func(old, new string) []byte {
		t.Helper()
		if !bytes.Contains(good, []byte(old)) {
			t.Fatalf("golden lacks %q", old)
		}
		return bytes.Replace(good, []byte(old), []byte(new), 1)
	}
	for _, tc := range []struct {
		name string
		doc  []byte
		code string
	}{
		{"a party's name", edit("Hebat Group", "Hebat Groop"), CodeDocDigest},
		{"an attribute", edit(`currencyID="MYR"`, `currencyID="USD"`), CodeDocDigest},
		{"whitespace between elements", edit("<cac:AccountingCustomerParty>", "\n<cac:AccountingCustomerParty>"), CodeDocDigest},
		{"the signature value", edit("bst+LGcu", "bst+LGcv"), CodeSignatureVal},
		{"the certificate digest", edit("UlhmSPmya4BK8Vd", "UlhmSPmya4BK8Ve"), CodeCertDigest},
		{"the signing time", edit("2024-01-15T10:00:00Z", "2024-01-15T10:00:01Z"), CodePropsDigest},
		{"not XML", []byte(`{"Invoice":[]}`), CodeMalformed},
		{"another root", bytes.Replace(edit("<Invoice ", "<CreditNote "), []byte("</Invoice>"), []byte("</CreditNote>"), 1), CodeMalformed},
		{"no UBLExtensions", bytes.Replace(good, []byte("ext:UBLExtensions>"), []byte("ext:UBLExtensionz>"), 2), CodeMalformed},
		{"no document Reference", edit(`Id="id-doc-signed-data" URI=""`, `Id="id-doc-signed-data" URI="#x"`), CodeMalformed},
		{"certificate not base64", edit("<ds:X509Certificate>MIID", "<ds:X509Certificate>@@@@"), CodeMalformed},
	} {
		wantXMLCode(t, tc.name, VerifyXML(tc.doc), tc.code)
	}
}

// TestVerifyXMLOfficialSample: the authority's signed XML sample does not
// reproduce (measured with C14N 1.1, its declared exclusive C14N and C14N
// 1.0): its document digest fails.
func TestVerifyXMLOfficialSample(t *testing.T) {
	wantXMLCode(t, "one-doc-signed.xml", VerifyXML(readShared(t, sampleSignedXML)), CodeDocDigest)
}

// TestVerifyXMLSignedPropertiesInScope: a SignedProperties digest over the
// element's C14N 1.1 form, with every namespace in scope declared on it (the
// pitfall of go-libraries.md 10: goxmldsig alone drops inherited ones), is
// accepted too. The expected canonical bytes are written out by hand here.
func TestVerifyXMLSignedPropertiesInScope(t *testing.T) {
	good := relabelled(t)
	i := bytes.Index(good, []byte("<xades:SignedProperties "))
	j := bytes.Index(good, []byte("</xades:SignedProperties>")) + len("</xades:SignedProperties>")
	if i < 0 || j < i {
		t.Fatal("golden has no SignedProperties")
	}
	el := good[i:j]
	// The document with SignedProperties inheriting xmlns:xades instead of
	// declaring it.
	const own = ` xmlns:xades="http://uri.etsi.org/01903/v1.3.2#"`
	inherit := bytes.Replace(el, []byte(own), nil, 1)
	// Its canonical form: all namespaces in scope on the apex (default
	// first, then by prefix), then Id; the children's xmlns:ds redundant.
	apex := `<xades:SignedProperties xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"` +
		` xmlns:cac="urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2"` +
		` xmlns:cbc="urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2"` +
		` xmlns:ds="http://www.w3.org/2000/09/xmldsig#"` +
		` xmlns:ext="urn:oasis:names:specification:ubl:schema:xsd:CommonExtensionComponents-2"` +
		` xmlns:sac="urn:oasis:names:specification:ubl:schema:xsd:SignatureAggregateComponents-2"` +
		` xmlns:sbc="urn:oasis:names:specification:ubl:schema:xsd:SignatureBasicComponents-2"` +
		` xmlns:sig="urn:oasis:names:specification:ubl:schema:xsd:CommonSignatureComponents-2"` +
		` xmlns:xades="http://uri.etsi.org/01903/v1.3.2#" Id="id-xades-signed-props">`
	canon := bytes.ReplaceAll(inherit, []byte(` xmlns:ds="http://www.w3.org/2000/09/xmldsig#"`), nil)
	canon = bytes.Replace(canon, []byte(`<xades:SignedProperties Id="id-xades-signed-props">`), []byte(apex), 1)
	sum := sha256.Sum256(canon)
	doc := bytes.Replace(good, el, inherit, 1)
	wantXMLCode(t, "inherited namespace, the digest of the declared form", VerifyXML(doc), CodePropsDigest)
	doc = bytes.Replace(doc, []byte("YcW987MWbZLRt0NDwjbU746lTtKStZ0grXZlak/X+xE="), []byte(base64.StdEncoding.EncodeToString(sum[:])), 1)
	wantXMLCode(t, "inherited namespace, the digest of its canonical form", VerifyXML(doc), "")
}

// BenchmarkVerifyXML verifies the signing golden (as signed).
func BenchmarkVerifyXML(b *testing.B) {
	doc := relabelled(b)
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	for b.Loop() {
		if err := VerifyXML(doc); err != nil {
			b.Fatal(err)
		}
	}
}
