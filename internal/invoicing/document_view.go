package invoicing

import (
	"context"

	"github.com/einvoice/einvoice/internal/einvoice"
)

// DocumentView is a document as a page shows it: the document, its history
// and its two parties (as frozen at submission, else as they are now).
type DocumentView struct {
	Doc      *einvoice.Document
	Events   []einvoice.Event
	Supplier einvoice.PartySnapshot
	Customer einvoice.PartySnapshot
}

// ViewDocument returns a document of the tenant with its history and
// parties; NOT_FOUND for another tenant's.
func (s *Service) ViewDocument(ctx context.Context, tenantID, id string) (*DocumentView, error) {
	v, err := s.visual(ctx, tenantID, id)
	if err != nil {
		return nil, err
	}
	d, events, err := s.GetDocument(ctx, tenantID, id)
	if err != nil {
		return nil, err
	}
	return &DocumentView{Doc: d, Events: events, Supplier: v.supplier, Customer: v.customer}, nil
}
