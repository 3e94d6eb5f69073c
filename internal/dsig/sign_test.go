package dsig

import (
	"bytes"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"strings"
	"testing"
	"time"

	"software.sslmate.com/src/go-pkcs12"
)

var testTime = time.Date(2024, 7, 23, 23, 14, 54, 999, time.FixedZone("MYT", 8*3600))

// sampleUnsigned is the official sample without its signature, minified.
func sampleUnsigned(tb testing.TB) []byte {
	return unsignedOf(tb, readShared(tb, sampleSigned))
}

// dummySigned signs the official sample's unsigned form with the dummy key.
func dummySigned(tb testing.TB) []byte {
	out, err := dummySigner(tb).Sign(sampleUnsigned(tb), testTime)
	if err != nil {
		tb.Fatal(err)
	}
	return out
}

func TestSignVerifyRoundTrip(t *testing.T) {
	in := sampleUnsigned(t)
	out, err := dummySigner(t).Sign(in, testTime)
	if err != nil {
		t.Fatal(err)
	}
	if err := Verify(out); err != nil {
		t.Fatal(err)
	}
	if !isMinified(out) {
		t.Error("output is not minified")
	}
	// The members are appended at the end of Invoice[0]: out is
	// in[:k] + ',"UBLExtensions":[...],"Signature":[...]' + in[k:].
	k := len(in) - len("}]}")
	if !bytes.HasPrefix(out, in[:k]) || !bytes.HasSuffix(out, in[k:]) {
		t.Fatal("input is not a prefix/suffix of the output")
	}
	mid := out[k : len(out)-len(in[k:])]
	if !bytes.HasPrefix(mid, []byte(`,"UBLExtensions":[`)) || !bytes.Contains(mid, []byte(`]}]}]}]}]}]}]}],"Signature":[{"ID":`)) {
		t.Fatalf("unexpected inserted members: %.80s…", mid)
	}
	// Removing the signature members gives back the input exactly.
	if got := unsignedOf(t, out); !bytes.Equal(got, in) {
		t.Fatal("stripped output differs from the input")
	}
	sig := signatureOf(t, out)
	if got := text(t, out, sig, "Object", "QualifyingProperties", "SignedProperties",
		"SignedSignatureProperties", "SigningTime"); got != "2024-07-23T15:14:54Z" {
		t.Errorf("SigningTime = %s", got)
	}
	// Deterministic: PKCS#1 v1.5 signatures do not depend on randomness.
	out2, _ := dummySigner(t).Sign(in, testTime)
	if !bytes.Equal(out, out2) {
		t.Error("two signatures of the same input differ")
	}
}

// A signed document whose certificate is replaced by another one fails.
func TestVerifyWithDifferentCertificate(t *testing.T) {
	out := dummySigned(t)
	_, other := otherCredentials()
	mine := dummySigner(t).Certificate()
	bad := bytes.Replace(out, []byte(base64.StdEncoding.EncodeToString(mine.Raw)),
		[]byte(base64.StdEncoding.EncodeToString(other.Raw)), 1)
	if bytes.Equal(bad, out) {
		t.Fatal("certificate not found in output")
	}
	wantCode(t, Verify(bad), CodeSignatureVal)
}

// A document signed by another key verifies with its own certificate, and the
// issuer name keeps '&', '<', '>' unescaped in JSON.
func TestSignOtherKey(t *testing.T) {
	key, cert := otherCredentials()
	s, err := NewSigner(pemBlock("CERTIFICATE", cert.Raw), pemBlock("RSA PRIVATE KEY", x509.MarshalPKCS1PrivateKey(key)))
	if err != nil {
		t.Fatal(err)
	}
	out, err := s.Sign(sampleUnsigned(t), testTime)
	if err != nil {
		t.Fatal(err)
	}
	if err := Verify(out); err != nil {
		t.Fatal(err)
	}
	want := `"X509IssuerName":[{"_":"CN=Other Signer, O=\"Other & Sons <Sdn Bhd>\", C=MY"}]`
	if !bytes.Contains(out, []byte(want)) {
		t.Errorf("output lacks %s", want)
	}
	if !bytes.Contains(out, []byte(`"X509SerialNumber":[{"_":"4242"}]`)) {
		t.Error("serial number not in decimal")
	}
}

func TestSignRejects(t *testing.T) {
	s := dummySigner(t)
	in := sampleUnsigned(t)
	signed, _ := s.Sign(in, testTime)
	for name, doc := range map[string][]byte{
		"invalid JSON":   in[:len(in)-1],
		"no Invoice":     []byte(`{"CreditNote":[{}]}`),
		"already signed": signed,
		"not minified":   append([]byte(" "), in...),
		"pretty":         bytes.Replace(in, []byte(`,"IssueDate"`), []byte(",\n \"IssueDate\""), 1),
	} {
		if _, err := s.Sign(doc, testTime); err == nil {
			t.Errorf("%s: Sign succeeded", name)
		}
	}
	// An empty Invoice[0] gets no leading comma.
	out, err := s.Sign([]byte(`{"Invoice":[{}]}`), testTime)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(out, []byte(`{"Invoice":[{"UBLExtensions":`)) {
		t.Errorf("got %.40s", out)
	}
	if err := Verify(out); err != nil {
		t.Fatal(err)
	}
}

// PKCS#12, PKCS#1 and PKCS#8 forms of the dummy credentials sign identically.
func TestKeyFormats(t *testing.T) {
	pemSigner := dummySigner(t)
	cert := pemSigner.Certificate()
	p12, err := pkcs12.Modern.Encode(pemSigner.key, cert, nil, "s3cret")
	if err != nil {
		t.Fatal(err)
	}
	p12Signer, err := NewSignerPKCS12(p12, "s3cret")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := NewSignerPKCS12(p12, "wrong"); err == nil {
		t.Error("wrong PKCS#12 password accepted")
	}
	pkcs1Signer, err := NewSigner(pemBlock("CERTIFICATE", cert.Raw), pemBlock("RSA PRIVATE KEY", x509.MarshalPKCS1PrivateKey(pemSigner.key)))
	if err != nil {
		t.Fatal(err)
	}
	in := sampleUnsigned(t)
	want, _ := pemSigner.Sign(in, testTime)
	for name, s := range map[string]*Signer{"PKCS#12": p12Signer, "PKCS#1": pkcs1Signer} {
		got, err := s.Sign(in, testTime)
		if err != nil {
			t.Fatal(name, err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s signature differs from PEM/PKCS#8", name)
		}
	}
}

func TestMismatchedKeyRefused(t *testing.T) {
	key, cert := otherCredentials()
	_, err := NewSigner(readShared(t, dummyCert), pemBlock("RSA PRIVATE KEY", x509.MarshalPKCS1PrivateKey(key)))
	if err == nil || !strings.Contains(err.Error(), "does not match") {
		t.Fatalf("mismatched key: err = %v", err)
	}
	p12, err := pkcs12.Modern.Encode(dummySigner(t).key, cert, nil, "pw")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := NewSignerPKCS12(p12, "pw"); err == nil {
		t.Fatal("mismatched PKCS#12 accepted")
	}
	if _, err := NewSigner(readShared(t, dummyCert), []byte("garbage")); err == nil {
		t.Fatal("garbage key accepted")
	}
	if _, err := NewSigner([]byte("garbage"), readShared(t, dummyKey)); err == nil {
		t.Fatal("garbage cert accepted")
	}
}

// Our signature block has the exact bytes of the official sample's, given the
// sample's certificate, signing time and signature value (we cannot sign with
// the sample's key): same members, same order, same place in Invoice[0].
func TestSampleLayout(t *testing.T) {
	signed := appendMinified(nil, readShared(t, sampleSigned))
	obj, ms, _ := invoiceObject(signed)
	n := len(ms)
	if !keyIs(ms[n-2].key, "UBLExtensions") || !keyIs(ms[n-1].key, "Signature") || ms[n-1].val.end+1 != obj.end {
		t.Fatal("sample does not end Invoice[0] with UBLExtensions, Signature")
	}
	want := signed[ms[n-2].start:ms[n-1].val.end]

	sig := signatureOf(t, signed)
	der, _ := base64.StdEncoding.DecodeString(text(t, signed, sig, "KeyInfo", "X509Data", "X509Certificate"))
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	ci, err := newCertInfo(cert)
	if err != nil {
		t.Fatal(err)
	}
	if want := "CN=Trial LHDNM Sub CA V1, OU=Terms of use at http://www.posdigicert.com.my, O=LHDNM, C=MY"; ci.issuer != want {
		t.Errorf("issuer = %q, want %q", ci.issuer, want)
	}
	v := sigValues{
		qp: appendQualifyingProperties(nil, text(t, signed, sig, "Object", "QualifyingProperties",
			"SignedProperties", "SignedSignatureProperties", "SigningTime"), &ci),
		docDigest: "vMs/IdnS7isftqrBDr4F1LK/CkvBkW5Gb3Wn6OVzAxo=",
		sigValue:  text(t, signed, sig, "SignatureValue"),
	}
	pd := sha256.Sum256(v.qp)
	v.propsDigest = base64.StdEncoding.EncodeToString(pd[:])
	if v.propsDigest != "Rzuzz+70GSnGBF1YxhHnjSzFpQ1MW4vyX/Q9bTHkE2c=" {
		t.Errorf("props digest = %s", v.propsDigest)
	}
	if got := appendSignatureMembers(nil, &v, &ci); !bytes.Equal(got, want) {
		t.Errorf("signature members differ from the sample:\n got %s\nwant %s", got, want)
	}
}

func TestAppendString(t *testing.T) {
	for in, want := range map[string]string{
		"a/b<c>&d":       `"a/b<c>&d"`,
		"q\"b\\\n\t\x01": `"q\"b\\\n\t\u0001"`,
		"é\u2028":        `"é\u2028"`,
		"\xff":           `"\ufffd"`,
	} {
		if got := string(appendString(nil, in)); got != want {
			t.Errorf("appendString(%q) = %s, want %s", in, got, want)
		}
	}
}

func BenchmarkSign(b *testing.B) {
	s := dummySigner(b)
	in := sampleUnsigned(b)
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Sign(in, testTime); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkVerify(b *testing.B) {
	out := dummySigned(b)
	b.ReportAllocs()
	for b.Loop() {
		if err := Verify(out); err != nil {
			b.Fatal(err)
		}
	}
}
