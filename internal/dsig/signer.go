package dsig

import (
	"crypto"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"time"

	"software.sslmate.com/src/go-pkcs12"
)

// Signer signs documents with one certificate and RSA key.
// It is safe for concurrent use.
type Signer struct {
	cert *x509.Certificate
	key  *rsa.PrivateKey
	info certInfo
}

// NewSigner returns a Signer for a PEM certificate (the first CERTIFICATE
// block is used) and a PEM RSA private key in PKCS#1 ("RSA PRIVATE KEY") or
// PKCS#8 ("PRIVATE KEY") form. Encrypted PEM keys are not supported. It
// refuses a key that does not match the certificate's public key.
func NewSigner(certPEM, keyPEM []byte) (*Signer, error) {
	cert, err := parseCertPEM(certPEM)
	if err != nil {
		return nil, err
	}
	key, err := parseKeyPEM(keyPEM)
	if err != nil {
		return nil, err
	}
	return newSigner(cert, key)
}

// NewSignerPKCS12 returns a Signer for a DER-encoded PKCS#12 (.p12/.pfx)
// file holding the certificate and its RSA key. BER-encoded files must be
// re-exported first (go-pkcs12 limitation).
func NewSignerPKCS12(p12 []byte, password string) (*Signer, error) {
	key, cert, _, err := pkcs12.DecodeChain(p12, password)
	if err != nil {
		return nil, fmt.Errorf("dsig: reading PKCS#12: %w", err)
	}
	return newSigner(cert, key)
}

// Certificate returns the signer's certificate (for reading its subject and
// issuer). It must not be modified.
func (s *Signer) Certificate() *x509.Certificate { return s.cert }

func parseCertPEM(data []byte) (*x509.Certificate, error) {
	for {
		var block *pem.Block
		block, data = pem.Decode(data)
		if block == nil {
			return nil, errors.New("dsig: no CERTIFICATE block in certificate PEM")
		}
		if block.Type == "CERTIFICATE" {
			cert, err := x509.ParseCertificate(block.Bytes)
			if err != nil {
				return nil, fmt.Errorf("dsig: parsing certificate: %w", err)
			}
			return cert, nil
		}
	}
}

func parseKeyPEM(data []byte) (any, error) {
	for {
		var block *pem.Block
		block, data = pem.Decode(data)
		if block == nil {
			return nil, errors.New("dsig: no private key block in key PEM")
		}
		switch block.Type {
		case "RSA PRIVATE KEY":
			return x509.ParsePKCS1PrivateKey(block.Bytes)
		case "PRIVATE KEY":
			return x509.ParsePKCS8PrivateKey(block.Bytes)
		case "ENCRYPTED PRIVATE KEY":
			return nil, errors.New("dsig: encrypted private keys are not supported; use PKCS#12")
		}
	}
}

// newSigner checks that key is an RSA key matching cert and precomputes the
// certificate values of the signature block.
func newSigner(cert *x509.Certificate, key any) (*Signer, error) {
	if cert == nil {
		return nil, errors.New("dsig: no certificate")
	}
	rk, ok := key.(*rsa.PrivateKey)
	if !ok {
		return nil, fmt.Errorf("dsig: private key is %T, want RSA", key)
	}
	pub, ok := cert.PublicKey.(*rsa.PublicKey)
	if !ok {
		return nil, errors.New("dsig: certificate key is not RSA")
	}
	if !pub.Equal(&rk.PublicKey) {
		return nil, errors.New("dsig: private key does not match the certificate")
	}
	info, err := newCertInfo(cert)
	if err != nil {
		return nil, err
	}
	return &Signer{cert: cert, key: rk, info: info}, nil
}

func newCertInfo(cert *x509.Certificate) (certInfo, error) {
	issuer, err := distinguishedName(cert.RawIssuer)
	if err != nil {
		return certInfo{}, fmt.Errorf("dsig: certificate issuer: %w", err)
	}
	d := sha256.Sum256(cert.Raw)
	return certInfo{
		der:    base64.StdEncoding.EncodeToString(cert.Raw),
		digest: base64.StdEncoding.EncodeToString(d[:]),
		issuer: issuer,
		serial: cert.SerialNumber.String(),
	}, nil
}

// Sign takes the minified unsigned UBL JSON document (root
// {"_D","_A","_B","Invoice":[{...}]}, InvoiceTypeCode listVersionID already
// "1.1", no UBLExtensions/Signature) and returns the minified signed document:
// UBLExtensions and Signature appended as the last members of Invoice[0], as
// in the authority's signed sample. Removing them gives back exactly the
// input bytes. signingTime is written in UTC to whole seconds.
//
// Sign does not check listVersionID: signing a "1.0" document is allowed (the
// authority ignores signatures on 1.0 documents).
func (s *Signer) Sign(unsigned []byte, signingTime time.Time) ([]byte, error) {
	if !json.Valid(unsigned) {
		return nil, errors.New("dsig: document is not valid JSON")
	}
	obj, ms, ok := invoiceObject(unsigned)
	if !ok {
		return nil, errors.New(`dsig: document has no "Invoice":[{...}]`)
	}
	for _, m := range ms {
		if keyIs(m.key, "UBLExtensions") || keyIs(m.key, "Signature") {
			return nil, fmt.Errorf("dsig: Invoice[0] already has %s", m.key)
		}
	}
	if !isMinified(unsigned) {
		return nil, errors.New("dsig: document is not minified")
	}

	docHash := sha256.Sum256(unsigned)
	sig, err := rsa.SignPKCS1v15(nil, s.key, crypto.SHA256, docHash[:])
	if err != nil {
		return nil, fmt.Errorf("dsig: signing: %w", err)
	}
	v := sigValues{
		qp:        appendQualifyingProperties(make([]byte, 0, 640), signingTime.UTC().Format(signingTimeLayout), &s.info),
		docDigest: base64.StdEncoding.EncodeToString(docHash[:]),
		sigValue:  base64.StdEncoding.EncodeToString(sig),
	}
	propsHash := sha256.Sum256(v.qp)
	v.propsDigest = base64.StdEncoding.EncodeToString(propsHash[:])

	closing := obj.end - 1 // the '}' of Invoice[0]
	out := make([]byte, 0, len(unsigned)+len(v.qp)+len(s.info.der)+2048)
	out = append(out, unsigned[:closing]...)
	if len(ms) > 0 {
		out = append(out, ',')
	}
	out = appendSignatureMembers(out, &v, &s.info)
	return append(out, unsigned[closing:]...), nil
}
