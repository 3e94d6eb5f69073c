package sandbox

import (
	"crypto/x509"
	"testing"
	"time"

	"github.com/einvoice/einvoice/internal/dsig"
	"github.com/einvoice/einvoice/internal/testcert"
)

// BenchmarkSignatureStep is what Step08 costs a signed document: the
// signature verified (dsig.Verify) and its certificate read and judged
// against the trust store (the chain included).
func BenchmarkSignatureStep(b *testing.B) {
	ca := testcert.NewCA(b, "Bench CA")
	certPEM, keyPEM := testcert.Make(b, testcert.Options{Organisation: "Bench Sdn. Bhd.", TIN: "C20000000010", CA: ca})
	signer, err := dsig.NewSigner([]byte(certPEM), []byte(keyPEM))
	if err != nil {
		b.Fatal(err)
	}
	now := time.Now()
	doc := []byte(`{"_D":"urn:oasis:names:specification:ubl:schema:xsd:Invoice-2","_A":"a","_B":"b","Invoice":[{"ID":[{"_":"INV-1"}],"InvoiceTypeCode":[{"_":"01","listVersionID":"1.1"}]}]}`)
	signed, err := signer.Sign(doc, now)
	if err != nil {
		b.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(ca.Cert)
	s := &Server{verify: dsig.Verify}
	j := &certJudge{roots: pool, now: now}
	d := docInfo{TypeCode: "01", Version: "1.1", SupplierTIN: "C20000000010"}
	if fail := s.checkSignature(d, signed, false, j); fail != nil {
		b.Fatalf("the benchmark's document fails: %+v", fail)
	}
	for name, j := range map[string]*certJudge{"verify only": nil, "verify and certificate": j} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if s.checkSignature(d, signed, false, j) != nil {
					b.Fatal("failed")
				}
			}
		})
	}
}
