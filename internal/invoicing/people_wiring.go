package invoicing

import (
	"context"
	"fmt"

	"github.com/einvoice/einvoice/internal/einvoice"
	"github.com/einvoice/einvoice/internal/qr"
)

// notice queues a message of package people (an invitation, a password
// reset) in the mail outbox.
func (s *Service) notice(ctx context.Context, tenantID string, to []string, subject, body string) error {
	_, err := s.Notice(ctx, tenantID, to, subject, body)
	return err
}

// Bootstrapped is what the first start of an empty database made: the demo
// tenant, its read-write key, and its owner's one-time link that sets the
// owner's password.
type Bootstrapped struct {
	Tenant     *einvoice.Tenant
	Key        string
	OwnerEmail string
	OwnerLink  string
}

// Bootstrap creates the demo tenant, its read-write key and its owner on
// the first start of an empty database; nil when the database was
// bootstrapped before.
func (s *Service) Bootstrap(ctx context.Context) (*Bootstrapped, error) {
	t := s.NewTenant(einvoice.DemoProfile())
	k, key := s.NewAPIKey(t.ID, einvoice.PermReadWrite)
	k.Name = "demo key"
	owner, link, secret := s.NewOwner(s.ownerEmail)
	created, err := s.store.Bootstrap(ctx, t, k, owner, link)
	if err != nil {
		return nil, fmt.Errorf("bootstrap: %w", err)
	}
	if !created {
		return nil, nil
	}
	return &Bootstrapped{Tenant: t, Key: key, OwnerEmail: owner.Email, OwnerLink: s.URL(secret)}, nil
}

// QRSVG returns the QR code of text as an inline SVG element (the
// authenticator app's enrolment link).
func (s *Service) QRSVG(text string) (string, error) { return qr.SVG(text) }
