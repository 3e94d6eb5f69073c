package einvoice

import (
	"crypto"
	"crypto/x509"
	"encoding/pem"
)

// checkSigningMaterial refuses a certificate or private key that does not
// parse, or a pair that does not belong together. PKCS#12 bundles are read
// when the signer needs them (tax-authority issue).
func checkSigningMaterial(f FieldErrors, a *Authority) {
	var cert *x509.Certificate
	if a.CertificatePEM != "" {
		block, _ := pem.Decode([]byte(a.CertificatePEM))
		c, err := parseCert(block)
		if err != nil {
			f.Add("authority.certificatePem", "is not a PEM-encoded X.509 certificate")
		}
		cert = c
	}
	if a.PrivateKeyPEM != "" {
		block, _ := pem.Decode([]byte(a.PrivateKeyPEM))
		key, ok := parseKey(block)
		switch {
		case !ok:
			f.Add("authority.privateKeyPem", "is not a PEM-encoded RSA private key (PKCS#1 or PKCS#8)")
		case cert != nil:
			pub, _ := key.Public().(interface{ Equal(crypto.PublicKey) bool })
			if pub == nil || !pub.Equal(cert.PublicKey) {
				f.Add("authority.privateKeyPem", "does not belong to the certificate")
			}
		}
	}
	if (a.CertificatePEM == "") != (a.PrivateKeyPEM == "") {
		f.Add("authority.certificatePem", "certificatePem and privateKeyPem go together")
	}
}

func parseCert(block *pem.Block) (*x509.Certificate, error) {
	if block == nil || block.Type != "CERTIFICATE" {
		return nil, errBadPEM
	}
	return x509.ParseCertificate(block.Bytes)
}

func parseKey(block *pem.Block) (crypto.Signer, bool) {
	if block == nil {
		return nil, false
	}
	if k, err := x509.ParsePKCS1PrivateKey(block.Bytes); err == nil {
		return k, true
	}
	if k, err := x509.ParsePKCS8PrivateKey(block.Bytes); err == nil {
		s, ok := k.(crypto.Signer)
		return s, ok
	}
	return nil, false
}

type pemError string

func (e pemError) Error() string { return string(e) }

const errBadPEM = pemError("no PEM certificate block")
