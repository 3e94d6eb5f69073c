package client

import (
	"context"
	"net/http"
)

// Code is one entry of a reference code list.
type Code struct {
	Code string `json:"code"`
	Name string `json:"name"`
}

// CodeService holds the reference code lists; each is answered whole.
type CodeService struct{ c *Client }

func (s *CodeService) get(ctx context.Context, name string) ([]Code, error) {
	var out []Code
	if _, err := s.c.call(ctx, http.MethodGet, "/api/v1/"+name, nil, nil, &out, nil); err != nil {
		return nil, err
	}
	return out, nil
}

// States returns the Malaysian state codes (Address.State).
func (s *CodeService) States(ctx context.Context) ([]Code, error) { return s.get(ctx, "states") }

// Countries returns the ISO 3166-1 alpha-3 country codes (Address.CountryCode).
func (s *CodeService) Countries(ctx context.Context) ([]Code, error) { return s.get(ctx, "countries") }

// Classifications returns the product classifications (Line.Classifications).
func (s *CodeService) Classifications(ctx context.Context) ([]Code, error) {
	return s.get(ctx, "classifications")
}

// UnitTypes returns the units of measure (Line.UnitCode).
func (s *CodeService) UnitTypes(ctx context.Context) ([]Code, error) { return s.get(ctx, "unit-types") }

// TaxTypes returns the tax types (LineTax.TaxType).
func (s *CodeService) TaxTypes(ctx context.Context) ([]Code, error) { return s.get(ctx, "tax-types") }

// Currencies returns the currency codes (Document.CurrencyCode).
func (s *CodeService) Currencies(ctx context.Context) ([]Code, error) {
	return s.get(ctx, "currencies")
}

// PaymentModes returns the payment modes (Payment.PaymentMode).
func (s *CodeService) PaymentModes(ctx context.Context) ([]Code, error) {
	return s.get(ctx, "payment-modes")
}

// IDTypes returns the identification types (Party.IDType).
func (s *CodeService) IDTypes(ctx context.Context) ([]Code, error) { return s.get(ctx, "id-types") }

// AuthorityClassifications returns the tax authority's own classification
// codes, 001 to 045 (Line.AuthorityClassification).
func (s *CodeService) AuthorityClassifications(ctx context.Context) ([]Code, error) {
	return s.get(ctx, "authority-classifications")
}
