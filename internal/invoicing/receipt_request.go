package invoicing

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/einvoice/einvoice/internal/einvoice"
)

// RequestState is where a receipt's request page stands.
type RequestState string

// The states of a request page: open (the form), converted (the invoice's
// status), closed (deleted or consolidated: the receipt can no longer
// become an e-invoice of its own).
const (
	RequestOpen      RequestState = "open"
	RequestConverted RequestState = "converted"
	RequestClosed    RequestState = "closed"
)

// ReceiptRequestView is what the buyer's request page of a token shows.
type ReceiptRequestView struct {
	Receipt *einvoice.Receipt
	// Shop is the tenant's name.
	Shop  string
	State RequestState
	// Deleted tells, for a closed page, a deleted receipt from a
	// consolidated one.
	Deleted bool
	// Invoice is the receipt's invoice (converted), as it stands after a
	// refresh from the authority.
	Invoice *einvoice.Document
}

// BuyerRequest is the request page's form: who asks for the e-invoice.
// Individual: an individual who does not know their TIN, found by Search
// TIN from the NRIC or passport.
type BuyerRequest struct {
	Name, TIN, IDType, IDValue                  string
	AddressLine, City, PostCode, State, Country string
	Email, Phone                                string
	Individual                                  bool
}

// maxTokenLen bounds what is looked up as a token (they are 27 characters).
const maxTokenLen = 64

// tokenNotFound is the one answer for a token that names no receipt: it
// tells nothing about other tokens.
func tokenNotFound() error {
	return einvoice.Errorf(einvoice.CodeNotFound, "Not found.")
}

// wellFormedToken reports whether token could be a request token
// (base64url characters, bounded), before any lookup.
func wellFormedToken(token string) bool {
	if token == "" || len(token) > maxTokenLen {
		return false
	}
	for _, c := range token {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// receiptOfToken returns the receipt of a token (deleted ones included)
// and its tenant; NOT_FOUND for any token that names none.
func (s *Service) receiptOfToken(ctx context.Context, token string) (*einvoice.Receipt, *einvoice.Tenant, error) {
	if !wellFormedToken(token) {
		return nil, nil, tokenNotFound()
	}
	r, err := s.store.ReceiptByToken(ctx, token)
	if errors.Is(err, einvoice.ErrNotFound) {
		return nil, nil, tokenNotFound()
	}
	if err != nil {
		return nil, nil, fmt.Errorf("receipt by token: %w", err)
	}
	t, err := s.tenant(ctx, r.TenantID)
	if err != nil {
		return nil, nil, err
	}
	return s.withURL(r), t, nil
}

// ReceiptRequest is the request page of a token: the receipt and where it
// stands. With refresh (GET /r/{token}), a converted receipt's invoice is
// carried on (ResumeReceiptInvoice, for a request interrupted after its
// transaction) and refreshed from the authority; without (the form's
// post), it is read as it stands. NOT_FOUND for an unknown token.
func (s *Service) ReceiptRequest(ctx context.Context, token string, refresh bool) (*ReceiptRequestView, error) {
	r, t, err := s.receiptOfToken(ctx, token)
	if err != nil {
		return nil, err
	}
	v := &ReceiptRequestView{Receipt: r, Shop: t.Profile.Name, State: RequestOpen}
	switch {
	case r.DeletedAt != nil:
		v.State, v.Deleted = RequestClosed, true
	case r.Status == einvoice.ReceiptConsolidated:
		v.State = RequestClosed
	case r.Status == einvoice.ReceiptConverted:
		v.State = RequestConverted
		if refresh {
			s.carryOn(ctx, t.ID, r.InvoiceID)
		}
		d, err := s.document(ctx, t.ID, r.InvoiceID)
		if err != nil {
			return nil, err
		}
		v.Invoice = d
	}
	return v, nil
}

// carryOn takes a receipt's invoice on where it stands: a draft or ready
// one is validated and submitted (a request that stopped after its
// transaction), a submitted one refreshed from the authority. Failures
// are logged: another request may be doing the same at the same moment
// (its validation or submission wins), and the page shows the invoice as
// it stands.
func (s *Service) carryOn(ctx context.Context, tenantID, id string) {
	d, err := s.ResumeReceiptInvoice(ctx, tenantID, "", id)
	if err != nil {
		s.log.InfoContext(ctx, "receipt invoice not carried on", "document_id", id, "error", err)
		return
	}
	if s.Submits() && (d.Status == einvoice.StatusSubmitted || d.Status == einvoice.StatusSubmitting) {
		if _, err := s.Status(ctx, tenantID, id); err != nil {
			s.log.InfoContext(ctx, "receipt invoice status not refreshed", "document_id", id, "error", err)
		}
	}
}

// RequestReceiptInvoice is the buyer's request from the page (POST
// /r/{token}): the form is checked as a buyer is (the party rules, the
// patterns of readiness, the TIN confirmed by the authority, or for an
// individual without a TIN the one Search TIN finds from the NRIC or
// passport); any problem is a 422 whose fields are the party's paths and
// nothing is written. Then the buyer and the invoice are made from the
// receipt, validated and submitted (convertReceipt). A receipt no longer
// open or excluded is RECEIPT_NOT_CONVERTIBLE (the page shows it as it is).
func (s *Service) RequestReceiptInvoice(ctx context.Context, token string, in BuyerRequest) (*einvoice.Document, error) {
	r, t, err := s.receiptOfToken(ctx, token)
	if err != nil {
		return nil, err
	}
	if r.DeletedAt != nil {
		return nil, notConvertible(&einvoice.Receipt{ReceiptNumber: r.ReceiptNumber, Status: "deleted"})
	}
	p := &einvoice.Party{Kind: einvoice.KindBuyer, TenantID: t.ID, Name: strings.TrimSpace(in.Name),
		TIN: strings.ToUpper(strings.TrimSpace(in.TIN)), IDType: strings.TrimSpace(in.IDType), IDValue: strings.TrimSpace(in.IDValue),
		Address: einvoice.Address{Line1: strings.TrimSpace(in.AddressLine), City: strings.TrimSpace(in.City),
			PostCode: strings.TrimSpace(in.PostCode), State: strings.TrimSpace(in.State), CountryCode: strings.TrimSpace(in.Country)},
		Contact: einvoice.Contact{Email: strings.TrimSpace(in.Email), Phone: strings.TrimSpace(in.Phone)},
		// The page does not ask for an SST registration: a buyer who asks
		// from a receipt is taken as not registered.
		SSTRegistrationNumber: "NA"}
	if in.Individual {
		p.TIN = ""
	}
	f := einvoice.PartyReadiness(p)
	if in.Individual {
		delete(f, "tin")
		if _, ok := f["idType"]; !ok && p.IDType != "NRIC" && p.IDType != "PASSPORT" {
			f.Add("idType", "an individual without a TIN gives an NRIC or a passport number")
		}
	}
	if len(f) > 0 {
		return nil, f.Err()
	}
	if !s.Submits() {
		return nil, einvoice.Errorf(einvoice.CodeAuthorityUnavailable, "The tax authority cannot be reached from this service.")
	}
	if in.Individual {
		tin, err := s.searchTIN(ctx, t, p)
		if err != nil {
			return nil, err
		}
		p.TIN = tin
	}
	if einvoice.NeedsTINCheck(p) {
		p.TINCheck = s.askTIN(ctx, t, p)
		switch p.TINCheck.Status {
		case einvoice.TINVerified:
		case einvoice.TINNotFound:
			return nil, einvoice.FieldErrors{"tin": {"the tax authority does not know this TIN with this id"}}.Err()
		default:
			return nil, einvoice.FieldErrors{"tin": {"could not be checked with the tax authority just now; try again in a minute"}}.Err()
		}
	}
	return s.convertReceipt(ctx, t, "", r, p, true)
}

// searchTIN finds an individual's TIN from the NRIC or passport (Search
// TIN, file type 1); a field error on idValue when the authority finds
// none, or more than one.
func (s *Service) searchTIN(ctx context.Context, t *einvoice.Tenant, p *einvoice.Party) (string, error) {
	creds, err := s.credentials(t)
	if err != nil {
		return "", fmt.Errorf("search TIN: %w", err)
	}
	callCtx, cancel := context.WithTimeout(ctx, tinWait)
	defer cancel()
	tin, err := s.authority.SearchTIN(callCtx, creds, einvoice.TINSearch{IDType: p.IDType, IDValue: p.IDValue, FileType: "1"})
	switch {
	case errors.Is(err, einvoice.ErrTINNotFound):
		return "", einvoice.FieldErrors{"idValue": {"the tax authority finds no individual's TIN for this id: give your TIN"}}.Err()
	case errors.Is(err, einvoice.ErrTINAmbiguous):
		return "", einvoice.FieldErrors{"idValue": {"the tax authority finds more than one TIN for this id: give your TIN"}}.Err()
	case err != nil:
		s.log.InfoContext(ctx, "search TIN failed", "error", err)
		return "", einvoice.FieldErrors{"idValue": {"your TIN could not be looked up just now; try again in a minute, or give your TIN"}}.Err()
	}
	return tin, nil
}

// ReceiptRequestPDF is the PDF of the invoice of a token's receipt, once
// Valid; NOT_FOUND otherwise (no invoice, or not Valid yet).
func (s *Service) ReceiptRequestPDF(ctx context.Context, token string) (*PDFFile, error) {
	r, t, err := s.receiptOfToken(ctx, token)
	if err != nil {
		return nil, err
	}
	if r.DeletedAt != nil || r.Status != einvoice.ReceiptConverted || r.InvoiceID == "" {
		return nil, tokenNotFound()
	}
	d, err := s.document(ctx, t.ID, r.InvoiceID)
	if err != nil {
		return nil, err
	}
	if d.Status != einvoice.StatusValid && d.Status != einvoice.StatusCancelled {
		return nil, tokenNotFound()
	}
	return s.PDF(ctx, t.ID, d.ID)
}
