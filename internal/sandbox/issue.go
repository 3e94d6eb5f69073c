package sandbox

// Signing certificates issued by the sandbox's test certificate authority
// (`einvoice sandbox issue-cert`).

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/pem"
	"fmt"
	"strings"
	"time"

	"github.com/einvoice/einvoice/internal/dsig"
)

// CertificateRequest says what certificate IssueCertificate makes: by
// default one that conforms to the authority's profile (an organisation's,
// its TIN and BRN in the subject, Document Signing and Non-Repudiation,
// valid for a year from an hour ago).
type CertificateRequest struct {
	TIN  string // the organizationIdentifier (2.5.4.97); required
	Name string // CN and O (default "Sandbox Test Organisation")
	BRN  string // the subject's serialNumber (default "202001000001")
	// NotBefore and NotAfter, when not zero, bound its validity.
	NotBefore, NotAfter time.Time
}

// IssuedCertificate is a certificate the sandbox's test authority issued,
// with its private key, both PEM.
type IssuedCertificate struct {
	CertificatePEM string
	PrivateKeyPEM  string
	Certificate    *x509.Certificate
	PrivateKey     *rsa.PrivateKey
}

// oidSerialNumber is the subject attribute serialNumber (the BRN).
var oidSerialNumber = asn1.ObjectIdentifier{2, 5, 4, 5}

// IssueCertificate issues a signing certificate from the sandbox's test
// certificate authority, for tests and users who sign documents the
// sandbox is to trust.
func (s *Server) IssueCertificate(ctx context.Context, req CertificateRequest) (*IssuedCertificate, error) {
	req.TIN = strings.TrimSpace(req.TIN)
	if !wellFormedTIN(req.TIN) || specialTINs[req.TIN] {
		return nil, fmt.Errorf("sandbox: %q is not a taxpayer's TIN", req.TIN)
	}
	if req.Name = strings.TrimSpace(req.Name); req.Name == "" {
		req.Name = "Sandbox Test Organisation"
	}
	if req.BRN = strings.TrimSpace(req.BRN); req.BRN == "" {
		req.BRN = "202001000001"
	}
	ca, err := s.ca(ctx)
	if err != nil {
		return nil, err
	}
	now := s.now()
	if req.NotBefore.IsZero() {
		req.NotBefore = now.Add(-time.Hour)
	}
	if req.NotAfter.IsZero() {
		req.NotAfter = now.AddDate(1, 0, 0)
	}
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, fmt.Errorf("sandbox: make a key: %w", err)
	}
	serial, err := randomSerial()
	if err != nil {
		return nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject: pkix.Name{CommonName: req.Name, Organization: []string{req.Name}, Country: []string{"MY"},
			ExtraNames: []pkix.AttributeTypeAndValue{{Type: dsig.OIDOrganizationIdentifier, Value: req.TIN}, {Type: oidSerialNumber, Value: req.BRN}}},
		NotBefore:          req.NotBefore,
		NotAfter:           req.NotAfter,
		KeyUsage:           x509.KeyUsageDigitalSignature | x509.KeyUsageContentCommitment,
		UnknownExtKeyUsage: []asn1.ObjectIdentifier{dsig.OIDDocumentSigning},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		return nil, fmt.Errorf("sandbox: issue the certificate: %w", err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, fmt.Errorf("sandbox: issue the certificate: %w", err)
	}
	return &IssuedCertificate{
		CertificatePEM: string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})),
		PrivateKeyPEM:  string(pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})),
		Certificate:    cert,
		PrivateKey:     key,
	}, nil
}
