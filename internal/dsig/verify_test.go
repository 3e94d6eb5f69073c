package dsig

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"testing"
)

// The official signed sample must verify: document digest, signature value,
// certificate digest and signed-properties digest (the file is pretty-printed;
// Verify minifies after cutting the signature out).
func TestVerifyOfficialSample(t *testing.T) {
	signed := readShared(t, sampleSigned)
	if err := Verify(signed); err != nil {
		t.Fatal(err)
	}
	// Known values from the authority's walkthrough (myinvois.md §2.10).
	sig := signatureOf(t, signed)
	d := sha256.Sum256(unsignedOf(t, signed))
	if got, want := base64.StdEncoding.EncodeToString(d[:]), "vMs/IdnS7isftqrBDr4F1LK/CkvBkW5Gb3Wn6OVzAxo="; got != want {
		t.Errorf("doc digest = %s, want %s", got, want)
	}
	if got := text(t, signed, sig, "Object", "QualifyingProperties", "SignedProperties",
		"SignedSignatureProperties", "SigningCertificate", "Cert", "CertDigest", "DigestValue"); got != "KKBSTyiPKGkGl1AFqcPziKCEIDYGtnYUTQN4ukO7G40=" {
		t.Errorf("cert digest = %s", got)
	}
	// The minified form verifies too.
	if err := Verify(appendMinified(nil, signed)); err != nil {
		t.Fatal("minified sample:", err)
	}
}

// Changing one byte of the document body gives DS322.
func TestVerifyTamperedBody(t *testing.T) {
	signed := appendMinified(nil, readShared(t, sampleSigned))
	for _, tc := range []struct{ old, new string }{
		{`"JSON-INV12345"`, `"JSON-INV12346"`},
		{`"_":1436.5`, `"_":1436.6`},
		{`"listVersionID":"1.1"`, `"listVersionID":"1.0"`},
	} {
		i := bytes.Index(signed, []byte(tc.old))
		if i < 0 {
			t.Fatalf("%s not in sample", tc.old)
		}
		bad := bytes.Clone(signed)
		copy(bad[i:], tc.new)
		wantCode(t, Verify(bad), CodeDocDigest)
	}
}

// Changing SigningTime (covered only by the signed-properties digest) gives DS320.
func TestVerifyTamperedSigningTime(t *testing.T) {
	signed := readShared(t, sampleSigned)
	bad := bytes.Replace(signed, []byte(`"2024-07-23T15:14:54Z"`), []byte(`"2024-07-23T15:14:55Z"`), 1)
	if bytes.Equal(bad, signed) {
		t.Fatal("SigningTime not found")
	}
	wantCode(t, Verify(bad), CodePropsDigest)
}

// Changing the signature value gives DS333; changing CertDigest gives DS323
// (checked before the signed-properties digest, which it also breaks).
func TestVerifyTamperedSignatureAndCertDigest(t *testing.T) {
	signed := readShared(t, sampleSigned)
	bad := bytes.Replace(signed, []byte(`"QTvntg4opuS7`), []byte(`"QTvntg4opuS8`), 1)
	wantCode(t, Verify(bad), CodeSignatureVal)

	bad = bytes.Replace(signed, []byte(`"KKBSTyiPKGkG`), []byte(`"KKBSTyiPKGkH`), 1)
	wantCode(t, Verify(bad), CodeCertDigest)
}

// Verify finds UBLExtensions and Signature wherever they are in Invoice[0].
func TestVerifySignatureMembersAnywhere(t *testing.T) {
	signed := dummySigned(t)
	obj, ms, _ := invoiceObject(signed)
	n := len(ms)
	ext, sig := ms[n-2], ms[n-1]
	member := func(m member) []byte { return signed[m.start:m.val.end] }
	// Rebuild Invoice[0] as: UBLExtensions, first two members, Signature, the rest.
	var b []byte
	b = append(b, signed[:obj.start+1]...)
	b = append(append(b, member(ext)...), ',')
	for _, m := range ms[:2] {
		b = append(append(b, member(m)...), ',')
	}
	b = append(b, member(sig)...)
	for _, m := range ms[2 : n-2] {
		b = append(append(b, ','), member(m)...)
	}
	b = append(b, signed[obj.end-1:]...)
	if len(b) != len(signed) || bytes.Equal(b, signed) {
		t.Fatal("reordering went wrong")
	}
	if err := Verify(b); err != nil {
		t.Fatal(err)
	}
}

func TestVerifyMalformed(t *testing.T) {
	for _, doc := range []string{
		``, `nul`, `[]`, `{}`, `{"Invoice":[]}`, `{"Invoice":[{"ID":[{"_":"1"}]}]}`,
		`{"Invoice":[{"UBLExtensions":[],"Signature":[]}]}`,
		`{"Invoice":[{"UBLExtensions":[{}],"Signature":[{}],"UBLExtensions":[{}]}]}`,
	} {
		wantCode(t, Verify([]byte(doc)), CodeMalformed)
	}
}

// manyReferences puts n empty elements before the sample's own References.
func manyReferences(t testing.TB, n int) []byte {
	t.Helper()
	signed := appendMinified(nil, readShared(t, sampleSigned))
	i := bytes.Index(signed, []byte(`"Reference":[`))
	if i < 0 {
		t.Fatal("no Reference array in the sample")
	}
	i += len(`"Reference":[`)
	pad := bytes.Repeat([]byte(`{},`), n)
	return append(append(append([]byte{}, signed[:i]...), pad...), signed[i:]...)
}

// Elements that are not References of ours are skipped, however many.
func TestVerifyManyReferences(t *testing.T) {
	if err := Verify(manyReferences(t, 5000)); err != nil {
		t.Fatal(err)
	}
}

// Verify walks the Reference array once: a hostile document with 100,000
// elements (300 KB) took 33 s when each element was found by index.
func BenchmarkVerifyManyReferences(b *testing.B) {
	doc := manyReferences(b, 100_000)
	for b.Loop() {
		if err := Verify(doc); err != nil {
			b.Fatal(err)
		}
	}
}
