package invoicing

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/einvoice/einvoice/internal/einvoice"
)

// ReceiptConvertible lists the statuses from which a receipt may become an
// invoice of its own (DECISIONS 17): open, and excluded (over the limit of
// consolidation, it may only be invoiced).
var ReceiptConvertible = []einvoice.ReceiptStatus{einvoice.ReceiptOpen, einvoice.ReceiptExcluded}

// notConvertible is the 409 of a receipt that already has its invoice or is
// in a consolidated one.
func notConvertible(r *einvoice.Receipt) error {
	if r.Status == einvoice.ReceiptConverted {
		return einvoice.Errorf(einvoice.CodeReceiptNotConvertible,
			"Receipt %s is already converted: its invoice is %s.", r.ReceiptNumber, r.InvoiceID)
	}
	return einvoice.Errorf(einvoice.CodeReceiptNotConvertible,
		"Receipt %s is %s: only open or excluded receipts can be turned into an invoice.", r.ReceiptNumber, r.Status)
}

// InvoiceReceipt issues the invoice of an open or excluded receipt for an
// existing buyer (POST /receipts/{id}/invoice): created, validated and
// submitted as a buyer's request does (convertReceipt). 422 for a missing
// or unknown buyerId, or when the invoice does not pass validation (nothing
// is written then); 409 RECEIPT_NOT_CONVERTIBLE once converted or
// consolidated.
func (s *Service) InvoiceReceipt(ctx context.Context, tenantID, keyID, receiptID, buyerID string) (*einvoice.Document, []einvoice.Event, error) {
	r, err := s.GetReceipt(ctx, tenantID, receiptID)
	if err != nil {
		return nil, nil, err
	}
	if buyerID == "" {
		return nil, nil, einvoice.FieldErrors{"buyerId": {"is required"}}.Err()
	}
	if !slices.Contains(ReceiptConvertible, r.Status) {
		return nil, nil, notConvertible(r)
	}
	t, err := s.GetTenant(ctx, tenantID)
	if err != nil {
		return nil, nil, err
	}
	buyer, err := s.GetParty(ctx, tenantID, einvoice.KindBuyer, buyerID)
	var e *einvoice.Error
	if errors.As(err, &e) && e.Code == einvoice.CodeBuyerNotFound {
		return nil, nil, einvoice.FieldErrors{"buyerId": {"no buyer of yours has this id"}}.Err()
	}
	if err != nil {
		return nil, nil, err
	}
	if err := s.recheckTIN(ctx, t, buyer); err != nil {
		return nil, nil, err
	}
	d, err := s.convertReceipt(ctx, t, keyID, r, buyer, false)
	if err != nil {
		return nil, nil, err
	}
	return s.GetDocument(ctx, tenantID, d.ID)
}

// receiptDefaultClassification is the classification of a receipt line
// that names none, on its invoice: the authority's 022, Others.
const receiptDefaultClassification = "022"

// receiptInvoice is the invoice of receipt r for buyer: its lines,
// currency, exchange rate and payment, computed by autoCalculate (so its
// amounts are the receipt's), its serial number and bill reference number
// the receipt's number.
func receiptInvoice(tenantID string, r *einvoice.Receipt, buyer *einvoice.Party) *einvoice.Document {
	info, _ := einvoice.InfoOf(einvoice.KindInvoice)
	lines := make([]einvoice.Line, len(r.Lines))
	copy(lines, r.Lines)
	for i := range lines {
		// A receipt's line need not be classified; an invoice's must be: a
		// line with neither code is the authority's 022, Others.
		if len(lines[i].Classifications) == 0 && lines[i].AuthorityClassification == "" {
			lines[i].AuthorityClassification = receiptDefaultClassification
		}
	}
	var pay *einvoice.Payment
	if r.Payment != nil {
		p := *r.Payment
		pay = &p
	}
	return &einvoice.Document{TenantID: tenantID, Kind: info.Kind, TypeCode: info.TypeCode, BuyerID: buyer.ID,
		InvoiceSerialNumber: r.ReceiptNumber, BillReferenceNumber: r.ReceiptNumber,
		CurrencyCode: r.CurrencyCode, ExchangeRate: r.ExchangeRate, AutoCalculate: true, Lines: lines, Payment: pay}
}

// convertReceipt turns receipt r into an invoice for buyer (a new one when
// isNew, stored with the invoice): the invoice is made and validated in
// memory first, so a validation failure writes nothing and reports the
// problems (422 VALIDATION_FAILED, errors by field); then the receipt's
// transition (conditional on its status) and the invoice (and the new
// buyer) are written in one transaction (Store.ConvertReceipt), so that two
// requests, a double-posted form or a crash in the middle leave one invoice
// at most; then the stored invoice is validated and submitted (the
// submission queue does the rest). A failure after the transaction leaves
// the receipt converted with its invoice as far as it got:
// ResumeReceiptInvoice takes it on.
func (s *Service) convertReceipt(ctx context.Context, t *einvoice.Tenant, keyID string, r *einvoice.Receipt, buyer *einvoice.Party, isNew bool) (*einvoice.Document, error) {
	if !slices.Contains(ReceiptConvertible, r.Status) {
		return nil, notConvertible(r)
	}
	now := s.now()
	if isNew {
		buyer.ID, buyer.TenantID, buyer.Kind, buyer.CreatedAt, buyer.UpdatedAt = s.newID(), t.ID, einvoice.KindBuyer, now, now
	}
	d := receiptInvoice(t.ID, r, buyer)
	info, _ := einvoice.InfoOf(d.Kind)
	if f := einvoice.PrepareDocument(d, info); len(f) > 0 {
		return nil, f.Err()
	}
	d.ID, d.Status, d.CreatedAt, d.UpdatedAt = s.newID(), einvoice.StatusDraft, now, now
	in := einvoice.ValidationInput{Doc: d, Tenant: t, Party: buyer, Now: s.clock().UTC(), Referenced: map[string][]*einvoice.Document{}}
	if n, err := s.ublSize(t, d, buyer); err == nil {
		in.UBLSize = n
	}
	if problems := einvoice.ValidateDocument(in); len(problems) > 0 {
		return nil, &einvoice.Error{Code: einvoice.CodeValidationFailed, Message: einvoice.Summary(problems),
			Fields: einvoice.ProblemFields(problems)}
	}
	c := einvoice.ReceiptConversion{TenantID: t.ID, ReceiptID: r.ID, From: ReceiptConvertible, Invoice: d, At: now,
		Event: einvoice.Event{ID: s.newID(), Status: einvoice.StatusDraft, KeyID: keyID, By: einvoice.ByOf(ctx),
			Note: "created from receipt " + r.ReceiptNumber, At: now}}
	if isNew {
		c.Buyer = buyer
	}
	err := s.store.ConvertReceipt(ctx, c)
	switch {
	case errors.Is(err, einvoice.ErrWrongState):
		again, gerr := s.store.ReceiptByToken(ctx, r.Token)
		if gerr != nil {
			return nil, fmt.Errorf("convert receipt: read it again: %w", gerr)
		}
		return nil, notConvertible(again)
	case errors.Is(err, einvoice.ErrNotFound):
		return nil, receiptNotFound(r.ID)
	case errors.Is(err, einvoice.ErrConflict):
		return nil, storeError(err, d)
	case err != nil:
		return nil, fmt.Errorf("convert receipt: %w", err)
	}
	s.log.InfoContext(ctx, "receipt converted", "tenant_id", t.ID, "receipt_id", r.ID, "document_id", d.ID)
	out, err := s.ResumeReceiptInvoice(ctx, t.ID, keyID, d.ID)
	if err != nil {
		// The invoice is made: a page load carrying it on at the same moment
		// may have validated or submitted it first. It is answered as it
		// stands.
		s.log.InfoContext(ctx, "receipt invoice not carried on", "document_id", d.ID, "error", err)
		return d, nil
	}
	return out, nil
}

// ResumeReceiptInvoice carries a receipt's invoice on to the authority: a
// draft is validated, a ready one submitted (Submit: recorded, then sent
// within the bounded wait, or by the worker). Any other status is left as
// it is. It returns the invoice as it stands.
func (s *Service) ResumeReceiptInvoice(ctx context.Context, tenantID, keyID, id string) (*einvoice.Document, error) {
	d, err := s.document(ctx, tenantID, id)
	if err != nil {
		return nil, err
	}
	if d.Status == einvoice.StatusDraft {
		res, err := s.ValidateDocument(ctx, tenantID, keyID, id)
		if err != nil {
			return nil, err
		}
		if !res.Passed() {
			s.log.WarnContext(ctx, "receipt invoice failed validation", "document_id", id, "problems", einvoice.Summary(res.Problems))
			return res.Doc, nil
		}
		d = res.Doc
	}
	if d.Status == einvoice.StatusReady && s.Submits() {
		out, err := s.Submit(ctx, tenantID, keyID, id)
		if err != nil {
			// The intent may not be recorded (the authority refused, a
			// conflict): the invoice says where it stands.
			s.log.WarnContext(ctx, "receipt invoice not submitted", "document_id", id, "error", err)
			return s.document(ctx, tenantID, id)
		}
		return out.Doc, nil
	}
	return d, nil
}
