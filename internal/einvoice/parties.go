package einvoice

import (
	"context"
	"errors"
	"fmt"
)

func notFoundCode(kind PartyKind) Code {
	if kind == KindSeller {
		return CodeSellerNotFound
	}
	return CodeBuyerNotFound
}

func partyNoun(kind PartyKind) string {
	if kind == KindSeller {
		return "on-behalf seller"
	}
	return "buyer"
}

func (s *Service) partyNotFound(kind PartyKind, id string) error {
	return Errorf(notFoundCode(kind), "No %s with id %q.", partyNoun(kind), id)
}

// CreateParty validates p and stores it as a new party of the tenant.
func (s *Service) CreateParty(ctx context.Context, tenantID string, kind PartyKind, p *Party) (*Party, error) {
	p.Kind, p.TenantID = kind, tenantID
	if err := ValidatePartyInput(p).Err(); err != nil {
		return nil, err
	}
	p.TINCheck = TINCheck{}
	if err := s.checkTIN(ctx, p); err != nil {
		return nil, err
	}
	now := s.now()
	p.ID, p.CreatedAt, p.UpdatedAt = s.NewID(), now, now
	if err := s.Store.CreateParty(ctx, p); err != nil {
		return nil, fmt.Errorf("create %s: %w", kind, err)
	}
	return p, nil
}

// GetParty returns one party of the tenant.
func (s *Service) GetParty(ctx context.Context, tenantID string, kind PartyKind, id string) (*Party, error) {
	if !ValidID(id) {
		return nil, s.partyNotFound(kind, id)
	}
	p, err := s.Store.GetParty(ctx, tenantID, kind, id)
	if errors.Is(err, ErrNotFound) {
		return nil, s.partyNotFound(kind, id)
	}
	if err != nil {
		return nil, fmt.Errorf("get %s: %w", kind, err)
	}
	return p, nil
}

// UpdateParty replaces every writable field of old, the party GetParty
// returned, with those of p.
func (s *Service) UpdateParty(ctx context.Context, old, p *Party) (*Party, error) {
	p.ID, p.TenantID, p.Kind, p.CreatedAt = old.ID, old.TenantID, old.Kind, old.CreatedAt
	if err := ValidatePartyInput(p).Err(); err != nil {
		return nil, err
	}
	p.TINCheck = TINCheck{}
	if old.TINCheck.Status == TINVerified && old.TINCheck.Key == TINKey(p) {
		p.TINCheck = old.TINCheck // unchanged and known: no need to ask again
	} else if err := s.checkTIN(ctx, p); err != nil {
		return nil, err
	}
	p.UpdatedAt = s.now()
	if err := s.Store.UpdateParty(ctx, p); errors.Is(err, ErrNotFound) {
		return nil, s.partyNotFound(p.Kind, p.ID)
	} else if err != nil {
		return nil, fmt.Errorf("update %s: %w", p.Kind, err)
	}
	return p, nil
}

// DeleteParty removes a party that no document references.
func (s *Service) DeleteParty(ctx context.Context, tenantID string, kind PartyKind, id string) error {
	if !ValidID(id) {
		return s.partyNotFound(kind, id)
	}
	err := s.Store.DeleteParty(ctx, tenantID, kind, id)
	switch {
	case errors.Is(err, ErrNotFound):
		return s.partyNotFound(kind, id)
	case errors.Is(err, ErrInUse):
		return Errorf(CodeBuyerInUse, "The %s is referenced by documents and cannot be deleted.", partyNoun(kind))
	case err != nil:
		return fmt.Errorf("delete %s: %w", kind, err)
	}
	return nil
}

// ListParties returns one page of the tenant's parties.
func (s *Service) ListParties(ctx context.Context, tenantID string, kind PartyKind, f PartyFilter) (Page[*Party], error) {
	page, err := s.Store.ListParties(ctx, tenantID, kind, f)
	if err != nil {
		return page, fmt.Errorf("list %s: %w", kind, err)
	}
	return page, nil
}

// checkTIN asks the authority about a complete party's TIN, when an
// authority is configured and the TIN needs a check.
func (s *Service) checkTIN(ctx context.Context, p *Party) error {
	if s.Authority == nil || p.IsDraft || !NeedsTINCheck(p) {
		return nil
	}
	t, err := s.GetTenant(ctx, p.TenantID)
	if err != nil {
		return err
	}
	p.TINCheck = s.Authority.CheckTIN(ctx, t, p)
	return nil
}

// recheckTIN asks again about a party whose TIN is not confirmed, and keeps
// the answer.
func (s *Service) recheckTIN(ctx context.Context, t *Tenant, p *Party) error {
	if s.Authority == nil || !NeedsTINCheck(p) || (p.TINCheck.Status == TINVerified && p.TINCheck.Key == TINKey(p)) {
		return nil
	}
	p.TINCheck = s.Authority.CheckTIN(ctx, t, p)
	if err := s.Store.SetTINCheck(ctx, p.TenantID, p.Kind, p.ID, p.TINCheck); err != nil && !errors.Is(err, ErrNotFound) {
		return fmt.Errorf("record TIN check: %w", err)
	}
	return nil
}
