package invoicing

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"

	"github.com/einvoice/einvoice/internal/einvoice"
	"github.com/einvoice/einvoice/internal/qr"
)

// receiptTokenBytes is the randomness of a receipt's request token: 160
// bits (DECISIONS 17 asks for at least 128), 27 URL-safe characters.
const receiptTokenBytes = 20

// newReceiptToken returns a fresh request token: crypto/rand, base64url
// without padding.
func newReceiptToken() string {
	b := make([]byte, receiptTokenBytes)
	_, _ = rand.Read(b) // crypto/rand never fails
	return base64.RawURLEncoding.EncodeToString(b)
}

// ReceiptRequestURL is the buyer's request page of a token: the service's
// public base URL, then /r/ and the token.
func (s *Service) ReceiptRequestURL(token string) string { return s.publicURL + "/r/" + token }

func receiptNotFound(id string) error {
	return einvoice.Errorf(einvoice.CodeReceiptNotFound, "No receipt with id %q.", id)
}

func duplicateReceipt(number string) error {
	return &einvoice.Error{Code: einvoice.CodeDuplicateReceipt,
		Message: fmt.Sprintf("Receipt number %q is already used by another receipt.", number),
		Fields:  einvoice.FieldErrors{"receiptNumber": {"is already used by another receipt"}}}
}

// withURL sets the receipt's request URL, for an answer.
func (s *Service) withURL(r *einvoice.Receipt) *einvoice.Receipt {
	r.RequestURL = s.ReceiptRequestURL(r.Token)
	return r
}

// newReceipt checks in and makes the receipt it records for tenant t:
// amounts computed, month derived, a new id and token, and the status open,
// or excluded with its reason (einvoice.ReceiptExclusion).
func (s *Service) newReceipt(t *einvoice.Tenant, in *einvoice.ReceiptInput) (*einvoice.Receipt, error) {
	now := s.now()
	r, f := einvoice.PrepareReceipt(in, now)
	if len(f) > 0 {
		return nil, f.Err()
	}
	r.ID, r.TenantID, r.Token, r.CreatedAt, r.UpdatedAt = s.newID(), t.ID, newReceiptToken(), now, now
	r.Status = einvoice.ReceiptOpen
	if reason := einvoice.ReceiptExclusion(r, t); reason != "" {
		r.Status, r.ExcludedReason = einvoice.ReceiptExcluded, reason
	}
	return r, nil
}

// CreateReceipt records one receipt (DECISIONS 17): 422 for its input,
// DUPLICATE_RECEIPT_NUMBER when the tenant has a receipt of that number.
func (s *Service) CreateReceipt(ctx context.Context, tenantID string, in *einvoice.ReceiptInput) (*einvoice.Receipt, error) {
	t, err := s.GetTenant(ctx, tenantID)
	if err != nil {
		return nil, err
	}
	r, err := s.newReceipt(t, in)
	if err != nil {
		return nil, err
	}
	if err := s.store.CreateReceipt(ctx, r); err != nil {
		if errors.Is(err, einvoice.ErrConflict) {
			return nil, duplicateReceipt(r.ReceiptNumber)
		}
		return nil, fmt.Errorf("create receipt: %w", err)
	}
	return s.withURL(r), nil
}

// ReceiptRequest is one receipt of a bulk create: its input, or Err, the
// error that kept the adapter from reading it (it is refused with it).
type ReceiptRequest struct {
	Input *einvoice.ReceiptInput
	Err   error
}

// ReceiptRefusal is a receipt of a bulk create that was not stored: its
// index in the request and why.
type ReceiptRefusal struct {
	Index int
	Err   *einvoice.Error
}

// ReceiptBulkResult is the outcome of a bulk create: the receipts stored,
// in the order of the request, and those refused.
type ReceiptBulkResult struct {
	Created []*einvoice.Receipt
	Refused []ReceiptRefusal
}

// CreateReceipts records up to einvoice.MaxReceiptsPerBulk receipts, each
// stored or refused on its own; those that pass are stored in one
// transaction. More than the maximum is a 422 for the whole request, which
// stores nothing.
func (s *Service) CreateReceipts(ctx context.Context, tenantID string, reqs []ReceiptRequest) (*ReceiptBulkResult, error) {
	if len(reqs) > einvoice.MaxReceiptsPerBulk {
		return nil, einvoice.FieldErrors{"receipts": {fmt.Sprintf("at most %d receipts per request, this one has %d",
			einvoice.MaxReceiptsPerBulk, len(reqs))}}.Err()
	}
	if len(reqs) == 0 {
		return nil, einvoice.FieldErrors{"receipts": {"give at least one receipt"}}.Err()
	}
	t, err := s.GetTenant(ctx, tenantID)
	if err != nil {
		return nil, err
	}
	res := &ReceiptBulkResult{Created: []*einvoice.Receipt{}, Refused: []ReceiptRefusal{}}
	var rs []*einvoice.Receipt
	var idx []int
	for i, q := range reqs {
		err := q.Err
		var r *einvoice.Receipt
		if err == nil {
			r, err = s.newReceipt(t, q.Input)
		}
		if err != nil {
			res.Refused = append(res.Refused, ReceiptRefusal{Index: i, Err: asError(err)})
			continue
		}
		rs, idx = append(rs, r), append(idx, i)
	}
	if len(rs) > 0 {
		taken, err := s.store.CreateReceipts(ctx, rs)
		if err != nil {
			return nil, fmt.Errorf("create receipts: %w", err)
		}
		for k, r := range rs {
			if taken[k] {
				res.Refused = append(res.Refused, ReceiptRefusal{Index: idx[k], Err: duplicateReceipt(r.ReceiptNumber).(*einvoice.Error)})
				continue
			}
			res.Created = append(res.Created, s.withURL(r))
		}
	}
	sortRefusals(res.Refused)
	return res, nil
}

// asError is err as an *einvoice.Error (a refusal of one receipt is always
// one; anything else is reported as internal).
func asError(err error) *einvoice.Error {
	var e *einvoice.Error
	if errors.As(err, &e) {
		return e
	}
	return &einvoice.Error{Code: einvoice.CodeInternal, Message: "The receipt could not be read.", Err: err}
}

// sortRefusals orders refusals by index (an insertion sort: the list is
// nearly sorted, duplicates found by the store coming last).
func sortRefusals(r []ReceiptRefusal) {
	for i := 1; i < len(r); i++ {
		for j := i; j > 0 && r[j].Index < r[j-1].Index; j-- {
			r[j], r[j-1] = r[j-1], r[j]
		}
	}
}

// GetReceipt returns a receipt of the tenant (not a deleted one).
func (s *Service) GetReceipt(ctx context.Context, tenantID, id string) (*einvoice.Receipt, error) {
	r, err := s.store.GetReceipt(ctx, tenantID, id)
	if errors.Is(err, einvoice.ErrNotFound) {
		return nil, receiptNotFound(id)
	}
	if err != nil {
		return nil, fmt.Errorf("get receipt: %w", err)
	}
	return s.withURL(r), nil
}

// ListReceipts returns one page of the tenant's receipts, newest issued
// first; those that cannot be read back are named in Unreadable.
func (s *Service) ListReceipts(ctx context.Context, tenantID string, f einvoice.ReceiptFilter) (einvoice.Page[*einvoice.Receipt], error) {
	page, err := s.store.ListReceipts(ctx, tenantID, f)
	if err != nil {
		return page, fmt.Errorf("list receipts: %w", err)
	}
	if page.Items == nil {
		page.Items = []*einvoice.Receipt{}
	}
	for _, r := range page.Items {
		s.withURL(r)
	}
	return page, nil
}

// DeleteReceipt deletes an open or excluded receipt (a tombstone stays for
// its request page); RECEIPT_NOT_DELETABLE once converted or consolidated.
func (s *Service) DeleteReceipt(ctx context.Context, tenantID, id string) error {
	err := s.store.DeleteReceipt(ctx, tenantID, id, einvoice.ReceiptDeletable, s.now())
	switch {
	case errors.Is(err, einvoice.ErrNotFound):
		return receiptNotFound(id)
	case errors.Is(err, einvoice.ErrWrongState):
		r, gerr := s.GetReceipt(ctx, tenantID, id)
		if gerr != nil {
			return gerr
		}
		return einvoice.Errorf(einvoice.CodeReceiptNotDeletable,
			"The receipt is %s: only open or excluded receipts can be deleted (a document stands on this one).", r.Status)
	case err != nil:
		return fmt.Errorf("delete receipt: %w", err)
	}
	return nil
}

// ReceiptQRCode is the QR code of a receipt's request URL.
type ReceiptQRCode struct {
	Receipt *einvoice.Receipt
	// URL is what the code holds: exactly the receipt's requestUrl.
	URL   string
	Image []byte
}

// ReceiptQR returns the QR code of a receipt's requestUrl, size pixels
// square (QRMinSize to QRMaxSize), as a PNG or a JPEG.
func (s *Service) ReceiptQR(ctx context.Context, tenantID, id string, size int, format QRFormat) (*ReceiptQRCode, error) {
	r, err := s.GetReceipt(ctx, tenantID, id)
	if err != nil {
		return nil, err
	}
	encode, name := qr.PNG, "png"
	if format == QRJPEG {
		encode, name = qr.JPEG, "jpeg"
	}
	img, err := encode(r.RequestURL, size)
	if err != nil {
		return nil, fmt.Errorf("receipt qr %s: %w", name, err)
	}
	return &ReceiptQRCode{Receipt: r, URL: r.RequestURL, Image: img}, nil
}
