package dsig

import (
	"bytes"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"strings"
	"testing"
	"time"
)

// The golden signed invoice in shared/testdata/signing was produced by the
// klsheng/myinvois-php-sdk signer (through danieyal/myinvois-python's
// scripts/gen_signed_golden.php) with the dummy key. It differs from the
// authority's sample, and so from Sign, in ways that are conventions of that
// signer, plus one bug:
//
//  1. it hashed and signed the document while InvoiceTypeCode listVersionID
//     was still "1.0", then set it to "1.1" in the output (the generator
//     calls setInvoiceTypeCode(..., '1.1') after signing). Its DocDigest and
//     SignatureValue are therefore of a document that differs by one byte
//     from the one it contains, and the authority's rule (and Verify) gives
//     DS322 on it;
//  2. layout: UBLExtensions is the first member of Invoice[0] and Signature
//     sits before AccountingSupplierParty (UBL XML order); inside Signature
//     the order is Id, SignedInfo, SignatureValue, KeyInfo, Object (the
//     sample: Id, Object, KeyInfo, SignatureValue, SignedInfo); the document
//     Reference comes first, as {"Id":"id-doc-signed-data","URI":"",...}
//     (the sample: second, as {"Type":"","URI":"",...});
//  3. X509IssuerName is PHP's openssl_x509_parse issuer array reordered by
//     moving CN, E, OU, O, C (those present) to the end, with OpenSSL names
//     (emailAddress, not E): here "emailAddress=..., CN=..., OU=..., O=...,
//     C=MY", which is not RFC 2253 order ("C=MY, O=..., OU=..., E=..., CN=...");
//  4. X509SerialNumber is PHP's hex form "0x10D7...", not decimal.
//
// Sign follows the authority's sample, so its output cannot equal the golden
// file. This test proves parity anyway: Sign reproduces DocDigest,
// SignatureValue and CertDigest exactly from the pre-bump input, the
// package's own building blocks reproduce the signed-properties digest, and,
// with the four differences above emulated here, the whole file byte for
// byte.

const goldenTime = "2024-01-15T10:00:00Z"

func TestGoldenInvoiceSigned(t *testing.T) {
	golden := readShared(t, goldenSigned)
	s := dummySigner(t)
	if !isMinified(golden) {
		t.Fatal("golden is not minified")
	}
	sig := signatureOf(t, golden)
	gDocDigest, gPropsDigest, ok := references(golden, sig)
	if !ok {
		t.Fatal("golden has no references")
	}
	gSigValue := text(t, golden, sig, "SignatureValue")
	gCertDigest := text(t, golden, sig, "Object", "QualifyingProperties", "SignedProperties",
		"SignedSignatureProperties", "SigningCertificate", "Cert", "CertDigest", "DigestValue")

	// (1) The golden fails the authority's document digest check.
	wantCode(t, Verify(golden), CodeDocDigest)

	// The unsigned input, and the state it was in when it was hashed.
	unsigned := unsignedOf(t, golden)
	v11, v10 := []byte(`"listVersionID":"1.1"`), []byte(`"listVersionID":"1.0"`)
	if bytes.Count(unsigned, v11) != 1 {
		t.Fatal("expected one listVersionID 1.1")
	}
	preBump := bytes.Replace(unsigned, v11, v10, 1)

	// Sign reproduces DocDigest, SignatureValue and CertDigest from it.
	tm, _ := time.Parse(time.RFC3339, goldenTime)
	out, err := s.Sign(preBump, tm)
	if err != nil {
		t.Fatal(err)
	}
	if err := Verify(out); err != nil {
		t.Fatal(err)
	}
	osig := signatureOf(t, out)
	oDocDigest, _, _ := references(out, osig)
	for name, p := range map[string][2]string{
		"DocDigest":      {oDocDigest, gDocDigest},
		"SignatureValue": {text(t, out, osig, "SignatureValue"), gSigValue},
		"CertDigest": {text(t, out, osig, "Object", "QualifyingProperties", "SignedProperties",
			"SignedSignatureProperties", "SigningCertificate", "Cert", "CertDigest", "DigestValue"), gCertDigest},
		"X509Certificate": {text(t, out, osig, "KeyInfo", "X509Data", "X509Certificate"),
			text(t, golden, sig, "KeyInfo", "X509Data", "X509Certificate")},
	} {
		if p[0] != p[1] {
			t.Errorf("%s = %s, golden has %s", name, p[0], p[1])
		}
	}
	// Signing the document as it is in the golden (1.1) also verifies, with
	// a different digest: the golden's digest is of the 1.0 bytes.
	out11, err := s.Sign(unsigned, tm)
	if err != nil {
		t.Fatal(err)
	}
	if err := Verify(out11); err != nil {
		t.Fatal(err)
	}
	if d, _, _ := references(out11, signatureOf(t, out11)); d == gDocDigest {
		t.Error("1.1 document has the golden's digest")
	}

	// (3), (4): the signed-properties digest with the golden's name and serial.
	ci := s.info
	ci.issuer = klshengIssuerName(s.Certificate())
	ci.serial = "0x" + strings.ToUpper(s.Certificate().SerialNumber.Text(16))
	v := sigValues{
		qp:        appendQualifyingProperties(nil, goldenTime, &ci),
		docDigest: oDocDigest,
		sigValue:  text(t, out, osig, "SignatureValue"),
	}
	pd := sha256.Sum256(v.qp)
	v.propsDigest = base64.StdEncoding.EncodeToString(pd[:])
	if v.propsDigest != gPropsDigest {
		t.Errorf("props digest = %s, golden has %s", v.propsDigest, gPropsDigest)
	}

	// (2): the whole document, byte for byte.
	if got := klshengDocument(t, unsigned, &v, &ci); !bytes.Equal(got, golden) {
		i := 0
		for i < len(got) && i < len(golden) && got[i] == golden[i] {
			i++
		}
		t.Errorf("klsheng layout differs from the golden at byte %d:\n got …%.120s\nwant …%.120s", i, got[i:], golden[i:])
	}
}

// The credit-note golden is an unsigned input (listVersionID 1.0, with the
// klsheng "_E" key): Sign accepts it as is and the result round-trips.
func TestGoldenCreditNoteUnsigned(t *testing.T) {
	in := readShared(t, goldenCNUnsig)
	out, err := dummySigner(t).Sign(in, time.Date(2024, 6, 14, 9, 30, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	if err := Verify(out); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(unsignedOf(t, out), in) {
		t.Fatal("stripped output differs from the input")
	}
}

// klshengIssuerName renders an issuer as klsheng does: PHP's
// openssl_x509_parse array (DER order, OpenSSL short names), then CN, E, OU,
// O, C moved to the end in that order, joined by ", ".
func klshengIssuerName(cert *x509.Certificate) string {
	names := map[string]string{"2.5.4.3": "CN", "2.5.4.6": "C", "2.5.4.10": "O", "2.5.4.11": "OU",
		"1.2.840.113549.1.9.1": "emailAddress"}
	var keys, vals []string
	for _, atv := range cert.Issuer.Names {
		keys = append(keys, names[atv.Type.String()])
		vals = append(vals, atv.Value.(string))
	}
	for _, k := range []string{"CN", "E", "OU", "O", "C"} {
		for i := range keys {
			if keys[i] == k {
				keys = append(append(keys[:i:i], keys[i+1:]...), k)
				vals = append(append(vals[:i:i], vals[i+1:]...), vals[i])
				break
			}
		}
	}
	parts := make([]string, len(keys))
	for i := range keys {
		parts[i] = keys[i] + "=" + vals[i]
	}
	return strings.Join(parts, ", ")
}

// klshengDocument splices the klsheng signature block into the unsigned
// document: UBLExtensions first, Signature before AccountingSupplierParty.
func klshengDocument(t *testing.T, unsigned []byte, v *sigValues, ci *certInfo) []byte {
	obj, ms, ok := invoiceObject(unsigned)
	if !ok {
		t.Fatal("no Invoice[0]")
	}
	out := append([]byte(nil), unsigned[:obj.start+1]...)
	out = klshengExtensions(out, v, ci)
	for _, m := range ms {
		if keyIs(m.key, "AccountingSupplierParty") {
			out = append(out, `,"Signature":[{`...)
			out = appendLeaf(out, "ID", referencedSigID)
			out = append(out, ',')
			out = appendLeaf(out, "SignatureMethod", extensionURI)
			out = append(out, `}]`...)
		}
		out = append(append(out, ','), unsigned[m.start:m.val.end]...)
	}
	return append(out, unsigned[obj.end-1:]...)
}

// klshengExtensions appends the klsheng UBLExtensions member.
func klshengExtensions(dst []byte, v *sigValues, ci *certInfo) []byte {
	dst = append(dst, `"UBLExtensions":[{"UBLExtension":[{`...)
	dst = appendLeaf(dst, "ExtensionURI", extensionURI)
	dst = append(dst, `,"ExtensionContent":[{"UBLDocumentSignatures":[{"SignatureInformation":[{`...)
	dst = appendLeaf(dst, "ID", signatureInfoID)
	dst = append(dst, ',')
	dst = appendLeaf(dst, "ReferencedSignatureID", referencedSigID)
	dst = append(dst, `,"Signature":[{"Id":"signature","SignedInfo":[{`...)
	dst = appendAlgorithm(dst, "SignatureMethod", algRSASHA256)
	dst = append(dst, `,"Reference":[{"Id":"id-doc-signed-data","URI":"",`...)
	dst = appendAlgorithm(dst, "DigestMethod", algSHA256)
	dst = append(dst, ',')
	dst = appendLeaf(dst, "DigestValue", v.docDigest)
	dst = append(dst, `},`...)
	dst = appendReference(dst, signedPropsType, signedPropsURI, v.propsDigest)
	dst = append(dst, `]}],`...)
	dst = appendLeaf(dst, "SignatureValue", v.sigValue)
	dst = append(dst, `,"KeyInfo":[{"X509Data":[{`...)
	dst = appendLeaf(dst, "X509Certificate", ci.der)
	dst = append(dst, ',')
	dst = appendLeaf(dst, "X509SubjectName", ci.issuer)
	dst = append(dst, ',')
	dst = appendIssuerSerial(dst, "X509IssuerSerial", ci)
	dst = append(dst, `}]}],"Object":[{"QualifyingProperties":[`...)
	dst = append(dst, v.qp...)
	return append(dst, `]}]}]}]}]}]}]}]`...)
}
