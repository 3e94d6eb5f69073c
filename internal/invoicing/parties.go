package invoicing

import (
	"context"
	"errors"
	"fmt"

	"github.com/einvoice/einvoice/internal/einvoice"
)

func notFoundCode(kind einvoice.PartyKind) einvoice.Code {
	if kind == einvoice.KindSeller {
		return einvoice.CodeSellerNotFound
	}
	return einvoice.CodeBuyerNotFound
}

func partyNoun(kind einvoice.PartyKind) string {
	if kind == einvoice.KindSeller {
		return "on-behalf seller"
	}
	return "buyer"
}

func (s *Service) partyNotFound(kind einvoice.PartyKind, id string) error {
	return einvoice.Errorf(notFoundCode(kind), "No %s with id %q.", partyNoun(kind), id)
}

// CreateParty validates p and stores it as a new party of the tenant.
func (s *Service) CreateParty(ctx context.Context, tenantID string, kind einvoice.PartyKind, p *einvoice.Party) (*einvoice.Party, error) {
	p.Kind, p.TenantID = kind, tenantID
	if err := einvoice.ValidatePartyInput(p).Err(); err != nil {
		return nil, err
	}
	p.TINCheck = einvoice.TINCheck{}
	if err := s.verifyTIN(ctx, p); err != nil {
		return nil, err
	}
	now := s.now()
	p.ID, p.CreatedAt, p.UpdatedAt = s.newID(), now, now
	if err := s.store.CreateParty(ctx, p); err != nil {
		return nil, fmt.Errorf("create %s: %w", kind, err)
	}
	return p, nil
}

// GetParty returns one party of the tenant.
func (s *Service) GetParty(ctx context.Context, tenantID string, kind einvoice.PartyKind, id string) (*einvoice.Party, error) {
	if !einvoice.ValidID(id) {
		return nil, s.partyNotFound(kind, id)
	}
	p, err := s.store.GetParty(ctx, tenantID, kind, id)
	if errors.Is(err, einvoice.ErrNotFound) {
		return nil, s.partyNotFound(kind, id)
	}
	if err != nil {
		return nil, fmt.Errorf("get %s: %w", kind, err)
	}
	return p, nil
}

// UpdateParty replaces every writable field of old, the party GetParty
// returned, with those of p.
func (s *Service) UpdateParty(ctx context.Context, old, p *einvoice.Party) (*einvoice.Party, error) {
	p.ID, p.TenantID, p.Kind, p.CreatedAt = old.ID, old.TenantID, old.Kind, old.CreatedAt
	if err := einvoice.ValidatePartyInput(p).Err(); err != nil {
		return nil, err
	}
	p.TINCheck = einvoice.TINCheck{}
	if old.TINCheck.Status == einvoice.TINVerified && old.TINCheck.Key == einvoice.TINKey(p) {
		p.TINCheck = old.TINCheck // unchanged and known: no need to ask again
	} else if err := s.verifyTIN(ctx, p); err != nil {
		return nil, err
	}
	p.UpdatedAt = s.now()
	if err := s.store.UpdateParty(ctx, p); errors.Is(err, einvoice.ErrNotFound) {
		return nil, s.partyNotFound(p.Kind, p.ID)
	} else if err != nil {
		return nil, fmt.Errorf("update %s: %w", p.Kind, err)
	}
	return p, nil
}

// DeleteParty removes a party that no document references.
func (s *Service) DeleteParty(ctx context.Context, tenantID string, kind einvoice.PartyKind, id string) error {
	if !einvoice.ValidID(id) {
		return s.partyNotFound(kind, id)
	}
	err := s.store.DeleteParty(ctx, tenantID, kind, id)
	switch {
	case errors.Is(err, einvoice.ErrNotFound):
		return s.partyNotFound(kind, id)
	case errors.Is(err, einvoice.ErrInUse):
		return einvoice.Errorf(einvoice.CodeBuyerInUse, "The %s is referenced by documents and cannot be deleted.", partyNoun(kind))
	case err != nil:
		return fmt.Errorf("delete %s: %w", kind, err)
	}
	return nil
}

// ListParties returns one page of the tenant's parties.
func (s *Service) ListParties(ctx context.Context, tenantID string, kind einvoice.PartyKind, f einvoice.PartyFilter) (einvoice.Page[*einvoice.Party], error) {
	page, err := s.store.ListParties(ctx, tenantID, kind, f)
	if err != nil {
		return page, fmt.Errorf("list %s: %w", kind, err)
	}
	return page, nil
}

// verifyTIN asks the authority about a complete party's TIN, when the
// service has an authority and the TIN needs a check.
func (s *Service) verifyTIN(ctx context.Context, p *einvoice.Party) error {
	if s.authority == nil || p.IsDraft || !einvoice.NeedsTINCheck(p) {
		return nil
	}
	t, err := s.GetTenant(ctx, p.TenantID)
	if err != nil {
		return err
	}
	p.TINCheck = s.askTIN(ctx, t, p)
	return nil
}

// recheckTIN asks again about a party whose TIN is not confirmed, and keeps
// the answer.
func (s *Service) recheckTIN(ctx context.Context, t *einvoice.Tenant, p *einvoice.Party) error {
	if s.authority == nil || !einvoice.NeedsTINCheck(p) || (p.TINCheck.Status == einvoice.TINVerified && p.TINCheck.Key == einvoice.TINKey(p)) {
		return nil
	}
	p.TINCheck = s.askTIN(ctx, t, p)
	if err := s.store.SetTINCheck(ctx, p.TenantID, p.Kind, p.ID, p.TINCheck); err != nil && !errors.Is(err, einvoice.ErrNotFound) {
		return fmt.Errorf("record TIN check: %w", err)
	}
	return nil
}
