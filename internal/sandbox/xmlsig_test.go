package sandbox_test

import (
	"bytes"
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/einvoice/einvoice/internal/dsig"
	"github.com/einvoice/einvoice/internal/sandbox"
)

// signingDir holds the dummy certificate and key and the XML signing golden.
const signingDir = "../../../shared/testdata/signing"

func readSigning(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(signingDir, name))
	if os.IsNotExist(err) {
		t.Skipf("signing test data not found in %s", signingDir)
	}
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// signXML signs a canonical XML document (no declaration, C14N form) as
// the authority's scheme says: D is the document itself, the signature
// block is the golden's (same dummy certificate, so the same certificate
// and signed-properties digests) with this document's digest and signature
// value, spliced in after the root's start tag, and cac:Signature after
// DocumentCurrencyCode.
func signXML(t *testing.T, unsigned []byte) []byte {
	t.Helper()
	_, key, err := dsig.LoadPEM(readSigning(t, "dummy_signing_cert.pem"), readSigning(t, "dummy_signing_key.pem"))
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(unsigned)
	sig, err := rsa.SignPKCS1v15(rand.Reader, key.(*rsa.PrivateKey), crypto.SHA256, sum[:])
	if err != nil {
		t.Fatal(err)
	}
	golden := readSigning(t, "golden_invoice_signed.xml")
	block := golden[bytes.Index(golden, []byte("<ext:UBLExtensions>")) : bytes.Index(golden, []byte("</ext:UBLExtensions>"))+len("</ext:UBLExtensions>")]
	block = bytes.Replace(block, []byte("YtB0oeTpmTm7tBNDEaYt+wn+mvYjwzCQqXaxdqR8sjU="), []byte(base64.StdEncoding.EncodeToString(sum[:])), 1)
	sv := block[bytes.Index(block, []byte("<ds:SignatureValue>"))+len("<ds:SignatureValue>") : bytes.Index(block, []byte("</ds:SignatureValue>"))]
	block = bytes.Replace(block, sv, []byte(base64.StdEncoding.EncodeToString(sig)), 1)
	cacSig := []byte("<cac:Signature><cbc:ID>urn:oasis:names:specification:ubl:signature:Invoice</cbc:ID><cbc:SignatureMethod>urn:oasis:names:specification:ubl:dsig:enveloped:xades</cbc:SignatureMethod></cac:Signature>")

	out := slices.Clone(unsigned)
	root := bytes.IndexByte(out, '>') + 1
	out = slices.Insert(out, root, block...)
	dcc := bytes.Index(out, []byte("</cbc:DocumentCurrencyCode>")) + len("</cbc:DocumentCurrencyCode>")
	return slices.Insert(out, dcc, cacSig...)
}

// TestXMLSignatureVerified: with the XML verifier einvoice wires
// (dsig.VerifyXML), a version 1.1 XML document signed by the authority's
// scheme fails only the certificate rules its dummy certificate breaks;
// changed after signing, or the signing golden as published, it is
// Invalid with DS322.
func TestXMLSignatureVerified(t *testing.T) {
	t.Parallel()
	eachEngine(t, func(t *testing.T, e *env) {
		_, hs := e.server(func(o *sandbox.Options) { o.VerifySignature, o.VerifyXMLSignature = dsig.Verify, dsig.VerifyXML })
		c := login(t, hs.URL, "erp-1", "")
		now := e.clock.Now()
		unsigned := xmlInvoice("SX-1", now, "").body
		unsigned = unsigned[bytes.Index(unsigned, []byte("<Invoice")):] // C14N has no declaration
		unsigned = bytes.Replace(unsigned, []byte(`listVersionID="1.0"`), []byte(`listVersionID="1.1"`), 1)
		unsigned = bytes.Replace(unsigned, []byte(`xmlns:cbc="urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2">`),
			[]byte(`xmlns:cbc="urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2" xmlns:ext="urn:oasis:names:specification:ubl:schema:xsd:CommonExtensionComponents-2">`), 1)
		signed := signXML(t, unsigned)
		if err := dsig.VerifyXML(signed); err != nil {
			t.Fatalf("VerifyXML: %v", err)
		}
		tampered := bytes.Replace(signed, []byte("Supplier &amp; Co"), []byte("Supplier &amp; Co."), 1)
		golden := readSigning(t, "golden_invoice_signed.xml")

		res := c.submitXML(doc{"SX-1", signed})
		if len(res.Accepted) != 1 {
			t.Fatalf("signed: %+v", res.Rejected)
		}
		// The signature verifies; the dummy certificate (self-signed, no
		// organisation identifier, its issuer written in another order, a
		// hexadecimal serial, a signing time before it was issued) fails
		// each of the profile's rules it breaks, as a JSON document's would.
		want := []string{"DS326", "DS327", "DS304", "DS334", "DS334", "DS307", "DS306", "DS329"}
		for i, w := range want {
			want[i] = "Step08-Document Signature Validator/" + w
		}
		if got := c.failedSteps(res.Accepted[0].UUID); !slices.Equal(got, want) {
			t.Errorf("signed XML 1.1 with the dummy certificate: failed steps %v, want %v", got, want)
		}
		// The golden's supplier logs in to send it.
		goldenIssuer := loginAs(t, hs.URL, "erp-golden", "C2584563222")
		for name, d := range map[string]doc{"tampered": {"SX-1", tampered}, "golden as published": {"INV-0001", golden}} {
			c := c
			if name == "golden as published" {
				c = goldenIssuer
			}
			res := c.submitXML(d)
			if len(res.Accepted) != 1 {
				t.Fatalf("%s: %+v", name, res.Rejected)
			}
			if got := c.failedSteps(res.Accepted[0].UUID); !slices.Contains(got, "Step08-Document Signature Validator/DS322") {
				t.Errorf("%s: failed steps %v, want DS322", name, got)
			}
		}
	})
}
