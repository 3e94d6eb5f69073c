package invoicing

import (
	"context"
	"time"

	"github.com/einvoice/einvoice/internal/einvoice"
)

// tinWait bounds a TIN check made while answering a request.
const tinWait = 3 * time.Second

// askTIN asks the authority, with the tenant's credentials, whether it
// knows the party's TIN with its id. The answer is cached by the client; a
// failure gives the unverified status (asked again at validate).
func (s *Service) askTIN(ctx context.Context, t *einvoice.Tenant, p *einvoice.Party) einvoice.TINCheck {
	now := s.now()
	c := einvoice.TINCheck{Status: einvoice.TINUnverified, Key: einvoice.TINKey(p), CheckedAt: &now}
	creds, err := s.credentials(t)
	if err != nil {
		return c
	}
	callCtx, cancel := context.WithTimeout(ctx, tinWait)
	defer cancel()
	ok, err := s.authority.ValidateTIN(callCtx, creds, p.TIN, p.IDType, p.IDValue)
	switch {
	case err != nil:
		s.log.InfoContext(ctx, "TIN check failed", "party_id", p.ID, "error", err)
	case ok:
		c.Status = einvoice.TINVerified
	default:
		c.Status = einvoice.TINNotFound
	}
	return c
}
