// Package testcert makes signing certificates for tests: organisation
// certificates with 2048-bit RSA keys, the size of the tax authority's
// sample certificate, conforming to the authority's certificate profile
// unless told otherwise (Options), self-signed or issued by a test
// certificate authority (NewCA, Options.CA).
package testcert

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/pem"
	"math/big"
	"testing"
	"time"

	"software.sslmate.com/src/go-pkcs12"
)

var (
	oidDocumentSigning        = asn1.ObjectIdentifier{1, 3, 6, 1, 4, 1, 311, 10, 3, 12}
	oidOrganizationIdentifier = asn1.ObjectIdentifier{2, 5, 4, 97}
)

// Options say what the certificate is, and how it departs from the
// authority's profile.
type Options struct {
	Organisation string // CN and O
	TIN          string // the organizationIdentifier (2.5.4.97); none when ""
	// NotBefore and NotAfter default to an hour ago and a year ahead.
	NotBefore, NotAfter time.Time
	NoDocumentSigning   bool // leave out the Document Signing extended key usage
	NoNonRepudiation    bool // leave out the Non-Repudiation key usage
	Personal            bool // a person's certificate: no O, no organizationIdentifier
	// BRN is the subject's serialNumber (2.5.4.5), the business
	// registration number; "" writes 202001000001 unless NoBRN.
	BRN   string
	NoBRN bool
	// CA issues the certificate; nil: self-signed.
	CA *CA
}

// oidSerialNumber is the subject attribute serialNumber (the BRN).
var oidSerialNumber = asn1.ObjectIdentifier{2, 5, 4, 5}

// CA is a certificate authority for tests: its certificate and key.
type CA struct {
	Cert    *x509.Certificate
	Key     *rsa.PrivateKey
	CertPEM string
}

// NewCA returns a new self-signed certificate authority named name, valid
// from five years ago for ten years (tests on a fixed clock in the past
// still see it valid).
func NewCA(t testing.TB, name string) *CA {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(time.Now().UnixNano()),
		Subject:               pkix.Name{CommonName: name, Organization: []string{name}, Country: []string{"MY"}},
		NotBefore:             time.Now().AddDate(-5, 0, 0),
		NotAfter:              time.Now().AddDate(10, 0, 0),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return &CA{Cert: cert, Key: key, CertPEM: string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}))}
}

// New returns a new certificate for the organisation with the TIN, and its
// private key, both PEM-encoded: what the authority's profile asks for
// (organisation name and TIN in the subject, Document Signing, Non-Repudiation),
// valid from an hour ago for a year.
func New(t testing.TB, organisation, tin string) (certPEM, keyPEM string) {
	t.Helper()
	return Make(t, Options{Organisation: organisation, TIN: tin})
}

// Make returns a new certificate as o says, and its private key, both
// PEM-encoded.
func Make(t testing.TB, o Options) (certPEM, keyPEM string) {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	if o.NotBefore.IsZero() {
		o.NotBefore = time.Now().Add(-time.Hour)
	}
	if o.NotAfter.IsZero() {
		o.NotAfter = time.Now().Add(365 * 24 * time.Hour)
	}
	subject := pkix.Name{CommonName: o.Organisation, Country: []string{"MY"}}
	if !o.Personal {
		subject.Organization = []string{o.Organisation}
		if o.TIN != "" {
			subject.ExtraNames = []pkix.AttributeTypeAndValue{{Type: oidOrganizationIdentifier, Value: o.TIN}}
		}
	}
	if !o.NoBRN {
		brn := o.BRN
		if brn == "" {
			brn = "202001000001"
		}
		subject.ExtraNames = append(subject.ExtraNames, pkix.AttributeTypeAndValue{Type: oidSerialNumber, Value: brn})
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(time.Now().UnixNano()),
		Subject:      subject,
		NotBefore:    o.NotBefore,
		NotAfter:     o.NotAfter,
		KeyUsage:     x509.KeyUsageDigitalSignature | x509.KeyUsageContentCommitment,
	}
	if o.NoNonRepudiation {
		tmpl.KeyUsage = x509.KeyUsageDigitalSignature
	}
	if !o.NoDocumentSigning {
		tmpl.UnknownExtKeyUsage = []asn1.ObjectIdentifier{oidDocumentSigning}
	}
	parent, signer := tmpl, any(key)
	if o.CA != nil {
		parent, signer = o.CA.Cert, o.CA.Key
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, &key.PublicKey, signer)
	if err != nil {
		t.Fatal(err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})),
		string(pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)}))
}

// PKCS12 returns the PEM certificate and key (as New and Make return them)
// as a PKCS#12 file protected by password.
func PKCS12(t testing.TB, certPEM, keyPEM, password string) []byte {
	t.Helper()
	cb, _ := pem.Decode([]byte(certPEM))
	kb, _ := pem.Decode([]byte(keyPEM))
	if cb == nil || kb == nil {
		t.Fatal("testcert.PKCS12: not PEM")
	}
	cert, err := x509.ParseCertificate(cb.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	key, err := x509.ParsePKCS1PrivateKey(kb.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	p12, err := pkcs12.Modern.Encode(key, cert, nil, password)
	if err != nil {
		t.Fatal(err)
	}
	return p12
}
