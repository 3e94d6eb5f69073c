package dsig

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"math/big"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// sharedDir holds the public test vectors (never copied into the repository).
const sharedDir = "../../../shared/testdata"

const (
	sampleSigned  = "myinvois-samples/sample-ul-invoice-2.1-signed.min.json"
	dummyCert     = "signing/dummy_signing_cert.pem"
	dummyKey      = "signing/dummy_signing_key.pem"
	goldenSigned  = "signing/golden_invoice_signed.json"
	goldenCNUnsig = "signing/golden_creditnote_unsigned.json"
)

// readShared reads a shared test vector, skipping the test when it is absent.
func readShared(tb testing.TB, rel string) []byte {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join(sharedDir, rel))
	if errors.Is(err, os.ErrNotExist) {
		tb.Skipf("shared test data %s not present (needs ../shared beside the checkout)", rel)
	}
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// readOptional reads a shared test vector if present (for fuzz seeds).
func readOptional(rel string) ([]byte, error) {
	return os.ReadFile(filepath.Join(sharedDir, rel))
}

// dummySigner returns a Signer for the shared dummy certificate and key.
func dummySigner(tb testing.TB) *Signer {
	tb.Helper()
	s, err := NewSigner(readShared(tb, dummyCert), readShared(tb, dummyKey))
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// unsignedOf returns the signed bytes D of a signed document: Invoice[0]
// without UBLExtensions and Signature, minified (what Verify hashes).
func unsignedOf(tb testing.TB, signed []byte) []byte {
	tb.Helper()
	obj, ms, ok := invoiceObject(signed)
	if !ok {
		tb.Fatal("no Invoice[0]")
	}
	body := withoutMembers(signed, obj, ms, func(i int) bool {
		return keyIs(ms[i].key, "UBLExtensions") || keyIs(ms[i].key, "Signature")
	})
	return appendMinified(nil, body)
}

// signatureOf returns the span of UBLExtensions/.../Signature[0] of a signed document.
func signatureOf(tb testing.TB, signed []byte) span {
	tb.Helper()
	_, ms, ok := invoiceObject(signed)
	if !ok {
		tb.Fatal("no Invoice[0]")
	}
	for _, m := range ms {
		if keyIs(m.key, "UBLExtensions") {
			sig, ok := signatureElement(signed, m.val)
			if !ok {
				tb.Fatal("no Signature in UBLExtensions")
			}
			return sig
		}
	}
	tb.Fatal("no UBLExtensions")
	return span{}
}

// text returns the leaf text at the path below sig, failing the test if absent.
func text(tb testing.TB, doc []byte, sig span, names ...string) string {
	tb.Helper()
	s, ok := leafText(doc, sig, names...)
	if !ok {
		tb.Fatalf("no leaf %v", names)
	}
	return s
}

// otherCredentials returns a freshly generated RSA key and a self-signed
// certificate for it (generated once per test binary).
var otherCredentials = sync.OnceValues(func() (*rsa.PrivateKey, *x509.Certificate) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		panic(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(4242),
		Subject:      pkix.Name{CommonName: "Other Signer", Organization: []string{"Other & Sons <Sdn Bhd>"}, Country: []string{"MY"}},
		NotBefore:    time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC),
		NotAfter:     time.Date(2034, 1, 1, 0, 0, 0, 0, time.UTC),
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		panic(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		panic(err)
	}
	return key, cert
})

func pemBlock(typ string, der []byte) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der})
}

// wantCode fails unless err is a *VerifyError with the given code.
func wantCode(tb testing.TB, err error, code string) {
	tb.Helper()
	var ve *VerifyError
	if !errors.As(err, &ve) {
		tb.Fatalf("error = %v, want *VerifyError %s", err, code)
	}
	if ve.Code != code {
		tb.Fatalf("code = %s (%v), want %s", ve.Code, ve, code)
	}
}
