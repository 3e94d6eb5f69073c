package invoicing

import (
	"context"
	"errors"
	"fmt"

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
		if a.Mode != einvoice.ModeIntermediary {
			a.OnBehalfOf = ""
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
	if err := einvoice.ValidateProfileInput(&t.Profile, &t.Authority).Err(); err != nil {
		return nil, err
	}
	t.UpdatedAt = s.now()
	if err := s.store.UpdateTenant(ctx, t); err != nil {
		return nil, fmt.Errorf("update profile: %w", err)
	}
	return t, nil
}
