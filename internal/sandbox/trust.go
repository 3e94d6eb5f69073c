package sandbox

// The trust store: the authorities a signing certificate must chain to
// (DS329), the sandbox's test CA and Options.TrustedCAs.

import (
	"context"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"time"

	"github.com/einvoice/einvoice/internal/dsig"
)

// roots is the pool of the authorities the sandbox trusts: its own test CA
// and Options.TrustedCAs.
func (s *Server) roots(ctx context.Context) (*x509.CertPool, error) {
	ca, err := s.ca(ctx)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	pool.AddCert(ca.cert)
	for _, c := range s.trusted {
		pool.AddCert(c)
	}
	return pool, nil
}

// chainTrusted reports whether cert chains to an authority in roots. The
// chain is judged at a time within cert's validity, so that an expired
// certificate is reported as such (DS304) and not as untrusted.
func chainTrusted(cert *x509.Certificate, roots *x509.CertPool, now time.Time) bool {
	at := now
	if at.After(cert.NotAfter) || at.Before(cert.NotBefore) {
		at = cert.NotBefore.Add(cert.NotAfter.Sub(cert.NotBefore) / 2)
	}
	_, err := cert.Verify(x509.VerifyOptions{Roots: roots, CurrentTime: at, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageAny}})
	return err == nil
}

// CheckChain reports whether cert chains to an authority the sandbox
// trusts (its test CA, or one of Options.TrustedCAs): what the go-live
// check asks for a tenant of the built-in sandbox. The error is nil when
// it does.
func (s *Server) CheckChain(ctx context.Context, cert *x509.Certificate) error {
	roots, err := s.roots(ctx)
	if err != nil {
		return err
	}
	if !chainTrusted(cert, roots, s.now()) {
		return fmt.Errorf("the certificate (issued by %s) does not chain to a certificate authority the sandbox trusts (DS329): sign with one issued by `einvoice sandbox issue-cert`, or start the sandbox with --sandbox-trust-ca and its authority's certificate", dsig.IssuerName(cert))
	}
	return nil
}

// ParseCertificates reads every CERTIFICATE block of PEM text.
func ParseCertificates(pemText []byte) ([]*x509.Certificate, error) {
	var out []*x509.Certificate
	for {
		var b *pem.Block
		b, pemText = pem.Decode(pemText)
		if b == nil {
			break
		}
		if b.Type != "CERTIFICATE" {
			continue
		}
		c, err := x509.ParseCertificate(b.Bytes)
		if err != nil {
			return nil, fmt.Errorf("parse certificate: %w", err)
		}
		out = append(out, c)
	}
	if len(out) == 0 {
		return nil, errors.New("no PEM CERTIFICATE block")
	}
	return out, nil
}
