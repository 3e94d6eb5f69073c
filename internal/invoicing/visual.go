package invoicing

import (
	"context"

	"github.com/einvoice/einvoice/internal/einvoice"
)

// Visual is what the visual e-invoice (PDF, QR code) of a document shows:
// the document, its parties (frozen at submission, or as they are now), and
// its validation link once Valid.
type Visual struct {
	Doc      *einvoice.Document
	Supplier einvoice.PartySnapshot
	Customer einvoice.PartySnapshot
	// URL is the authority's validation link; "" unless the document is Valid.
	URL string
}

// Visual reads what a document's PDF and QR code show.
func (s *Service) Visual(ctx context.Context, tenantID, id string) (*Visual, error) {
	d, err := s.document(ctx, tenantID, id)
	if err != nil {
		return nil, err
	}
	t, err := s.tenant(ctx, tenantID)
	if err != nil {
		return nil, err
	}
	v := &Visual{Doc: d}
	if d.Frozen != nil {
		v.Supplier, v.Customer = d.Frozen.Supplier, d.Frozen.Customer
	} else {
		p, err := s.party(ctx, d)
		if err != nil {
			return nil, err
		}
		v.Supplier, v.Customer = einvoice.Parties(d, t.Profile, p)
	}
	if d.Status == einvoice.StatusValid {
		v.URL = s.ValidationURL(t, d)
	}
	return v, nil
}
