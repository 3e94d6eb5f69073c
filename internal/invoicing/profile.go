package invoicing

import (
	"context"
	"crypto"
	"crypto/x509"
	"errors"
	"fmt"
	"strings"

	"github.com/einvoice/einvoice/internal/dsig"
	"github.com/einvoice/einvoice/internal/einvoice"
)

// GetTenant returns the tenant.
func (s *Service) GetTenant(ctx context.Context, id string) (*einvoice.Tenant, error) {
	t, err := s.store.GetTenant(ctx, id)
	if errors.Is(err, einvoice.ErrNotFound) {
		return nil, einvoice.Errorf(einvoice.CodeNotFound, "No tenant with id %q.", id)
	}
	if err != nil {
		return nil, fmt.Errorf("get tenant: %w", err)
	}
	return t, nil
}

// UpdateProfile replaces the tenant's supplier details with p and, when au
// is not nil (the authority part of a PUT /profile), its authority
// settings; blank secrets in au keep their stored values.
func (s *Service) UpdateProfile(ctx context.Context, tenantID string, p einvoice.Profile, au *einvoice.Authority) (*einvoice.Tenant, error) {
	t, err := s.GetTenant(ctx, tenantID)
	if err != nil {
		return nil, err
	}
	t.Profile = p
	if au != nil {
		a := &t.Authority
		a.Environment, a.Mode, a.OnBehalfOf, a.ClientID = au.Environment, au.Mode, au.OnBehalfOf, au.ClientID
		a.IntermediaryTIN = au.IntermediaryTIN
		if a.Mode != einvoice.ModeIntermediary {
			a.OnBehalfOf, a.IntermediaryTIN = "", ""
		}
		if au.ClientSecret != "" {
			a.ClientSecret = au.ClientSecret
		}
		if au.CertificatePEM != "" {
			a.CertificatePEM = au.CertificatePEM
		}
		if au.PrivateKeyPEM != "" {
			a.PrivateKeyPEM = au.PrivateKeyPEM
		}
		if len(au.PKCS12) > 0 {
			a.PKCS12 = au.PKCS12
		}
		if au.PKCS12Password != "" {
			a.PKCS12Password = au.PKCS12Password
		}
	}
	f := einvoice.ValidateProfileInput(&t.Profile, &t.Authority)
	if au != nil {
		s.checkNewCertificate(f, t, au)
	}
	if err := f.Err(); err != nil {
		return nil, err
	}
	t.UpdatedAt = s.now()
	if err := s.store.UpdateTenant(ctx, t); err != nil {
		return nil, fmt.Errorf("update profile: %w", err)
	}
	return t, nil
}

// checkNewCertificate adds to f what keeps the signing certificate that au
// brings (PEM, or PKCS#12) from signing t's documents (dsig.CheckCertificate
// at the service's time, for the signer's TIN), under the field it came in.
// It checks nothing when au brings no certificate, or when f already finds
// the certificate or key unreadable.
func (s *Service) checkNewCertificate(f einvoice.FieldErrors, t *einvoice.Tenant, au *einvoice.Authority) {
	for path := range f {
		if strings.HasPrefix(path, "authority.certificatePem") || strings.HasPrefix(path, "authority.privateKeyPem") ||
			strings.HasPrefix(path, "authority.pkcs12") {
			return
		}
	}
	a := &t.Authority
	var (
		field string
		cert  *x509.Certificate
		key   crypto.PrivateKey
		err   error
	)
	switch {
	case len(au.PKCS12) > 0 || au.PKCS12Password != "":
		field = "authority.pkcs12Base64"
		if len(a.PKCS12) == 0 {
			f.Add(field, "is required with pkcs12Password")
			return
		}
		if cert, key, err = dsig.LoadPKCS12(a.PKCS12, a.PKCS12Password); err != nil {
			f.Add(field, "cannot be read as a PKCS#12 file with the password given (pkcs12Password): %s", strings.TrimPrefix(err.Error(), "dsig: "))
			return
		}
	case au.CertificatePEM != "" || au.PrivateKeyPEM != "":
		field = "authority.certificatePem"
		if cert, key, err = dsig.LoadPEM([]byte(a.CertificatePEM), []byte(a.PrivateKeyPEM)); err != nil {
			f.Add(field, "cannot be read: %s", strings.TrimPrefix(err.Error(), "dsig: "))
			return
		}
	default:
		return
	}
	for _, p := range dsig.CheckCertificate(cert, key, signerTIN(t), s.now()) {
		f.Add(field, "%s", p.Message)
	}
}

// signerTIN is the TIN the tenant's certificate must carry: the profile's
// TIN, or in intermediary mode the intermediary's own (DECISIONS 3 and 14:
// an intermediary signs with its own organisation certificate); the
// profile's TIN when an intermediary has not given its own.
func signerTIN(t *einvoice.Tenant) string {
	if a := t.Authority; a.Mode == einvoice.ModeIntermediary && a.IntermediaryTIN != "" {
		return a.IntermediaryTIN
	}
	return t.Profile.TIN
}

// Certificate is what the tenant sees of its signing certificate.
type Certificate struct {
	dsig.CertificateSummary
	// Warnings: what stops it from signing now (expired, another TIN...),
	// or that it expires within 30 days.
	Warnings []string
}

// Certificate returns t's signing certificate as shown, or nil when it has
// none (or it cannot be read).
func (s *Service) Certificate(t *einvoice.Tenant) *Certificate {
	sig, err := s.signer(t)
	if err != nil || sig == nil {
		return nil
	}
	cert := sig.Certificate()
	now := s.now()
	c := &Certificate{CertificateSummary: dsig.Summarize(cert), Warnings: []string{}}
	for _, p := range dsig.CheckCertificate(cert, nil, signerTIN(t), now) {
		c.Warnings = append(c.Warnings, p.Message)
	}
	c.Warnings = append(c.Warnings, dsig.CertificateWarnings(cert, now)...)
	return c
}
