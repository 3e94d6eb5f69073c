package client

import (
	"context"
	"iter"
	"net/http"
	"net/url"
	"time"
)

// ReceiptStatus is where a receipt stands.
type ReceiptStatus string

// The statuses of a receipt.
const (
	// ReceiptOpen awaits its buyer's request or the month's consolidation.
	ReceiptOpen ReceiptStatus = "open"
	// ReceiptConverted: its buyer asked; InvoiceID is the invoice made of it.
	ReceiptConverted ReceiptStatus = "converted"
	// ReceiptConsolidated: a consolidated invoice carries it.
	ReceiptConsolidated ReceiptStatus = "consolidated"
	// ReceiptExcluded: the authority does not allow it in a consolidation
	// (ExcludedReason); its buyer may still ask for an invoice.
	ReceiptExcluded ReceiptStatus = "excluded"
)

// ReceiptInput is a sale to the public to record: never its amounts,
// which the service computes as it computes a document's.
type ReceiptInput struct {
	// ReceiptNumber is the tenant's own number, unique among its receipts.
	ReceiptNumber string `json:"receiptNumber"`
	// IssuedAt is when the sale was made.
	IssuedAt time.Time `json:"issuedAt"`
	// CurrencyCode is a code of Codes.Currencies (MYR when empty);
	// ExchangeRate (MYR per unit) is required for another currency.
	CurrencyCode string  `json:"currencyCode,omitempty"`
	ExchangeRate Decimal `json:"exchangeRate,omitempty"`
	// Lines each need a description, a quantity, a unit price and at least
	// one tax.
	Lines   []Line   `json:"invoiceLines"`
	Payment *Payment `json:"payment,omitempty"`
}

// Receipt is a recorded sale to the public, with its computed amounts and
// its buyer's request page.
type Receipt struct {
	ID            string    `json:"id"`
	ReceiptNumber string    `json:"receiptNumber"`
	IssuedAt      time.Time `json:"issuedAt"`
	// Month is the Malaysian month (UTC+8) of IssuedAt, YYYY-MM.
	Month        string   `json:"month"`
	CurrencyCode string   `json:"currencyCode"`
	ExchangeRate Decimal  `json:"exchangeRate,omitempty"`
	Lines        []Line   `json:"invoiceLines"`
	Payment      *Payment `json:"payment"`

	Subtotal            Decimal       `json:"subtotal"`
	TotalDiscountAmount Decimal       `json:"totalDiscountAmount"`
	TotalFeeAmount      Decimal       `json:"totalFeeAmount"`
	TotalExcludingTax   Decimal       `json:"totalExcludingTax"`
	TotalTaxAmount      Decimal       `json:"totalTaxAmount"`
	TotalIncludingTax   Decimal       `json:"totalIncludingTax"`
	PrepaymentAmount    Decimal       `json:"prepaymentAmount"`
	RoundingAmount      Decimal       `json:"roundingAmount"`
	TotalPayableAmount  Decimal       `json:"totalPayableAmount"`
	TaxSubtotals        []TaxSubtotal `json:"taxSubtotals"`
	TotalTaxAmountMyr   Decimal       `json:"totalTaxAmountMyr,omitempty"`

	Status ReceiptStatus `json:"status"`
	// RequestURL is the buyer's request page (what QR encodes).
	RequestURL             string    `json:"requestUrl"`
	InvoiceID              string    `json:"invoiceId,omitempty"`
	ConsolidationID        string    `json:"consolidationId,omitempty"`
	ConsolidatedDocumentID string    `json:"consolidatedDocumentId,omitempty"`
	ExcludedReason         string    `json:"excludedReason,omitempty"`
	CreatedAt              time.Time `json:"createdAt"`
	UpdatedAt              time.Time `json:"updatedAt"`
}

// ReceiptBulkResult is the outcome of CreateBulk: the receipts stored, in
// the order given, and those refused.
type ReceiptBulkResult struct {
	Created []Receipt        `json:"created"`
	Refused []ReceiptRefused `json:"refused"`
}

// ReceiptRefused is a receipt of a bulk create that was not stored: its
// index in the request, the code a single create would have answered
// (CodeValidationFailed, CodeMalformedJSON, CodeDuplicateReceipt) and the
// problems per field.
type ReceiptRefused struct {
	Index     int                 `json:"index"`
	ErrorCode string              `json:"error_code"`
	Message   string              `json:"message"`
	Errors    map[string][]string `json:"errors"`
}

// ReceiptQRCode is the JSON answer of QR.
type ReceiptQRCode struct {
	ID string `json:"id"`
	// URL is what the code encodes: the receipt's RequestURL.
	URL string `json:"url"`
	// PNG is the image (decoded from the answer's base64).
	PNG []byte `json:"qr_code"`
}

// ReceiptListOptions filter a list of receipts.
type ReceiptListOptions struct {
	// Month keeps one Malaysian month, YYYY-MM.
	Month  string
	Status ReceiptStatus
	// Search keeps the receipts whose number starts with it
	// (case-insensitive).
	Search string
	ListOptions
}

func (o *ReceiptListOptions) query() url.Values {
	q := url.Values{}
	for k, v := range map[string]string{"month": o.Month, "status": string(o.Status), "search": o.Search} {
		if v != "" {
			q.Set(k, v)
		}
	}
	return o.ListOptions.query(q)
}

// ReceiptService records and reads the tenant's B2C receipts.
type ReceiptService struct{ c *Client }

func receiptPath(id string) string { return "/api/v1/receipts/" + escape(id) }

// Create records one receipt (CodeDuplicateReceipt for a number the
// tenant already has).
func (s *ReceiptService) Create(ctx context.Context, in *ReceiptInput, opts ...CallOption) (*Receipt, error) {
	var out Receipt
	if _, err := s.c.call(ctx, http.MethodPost, "/api/v1/receipts", nil, in, &out, opts); err != nil {
		return nil, err
	}
	return &out, nil
}

// CreateBulk records up to 1,000 receipts, each stored or refused on its
// own; more is an *Error for the whole request, which stores nothing.
func (s *ReceiptService) CreateBulk(ctx context.Context, in []ReceiptInput, opts ...CallOption) (*ReceiptBulkResult, error) {
	var out ReceiptBulkResult
	body := struct {
		Receipts []ReceiptInput `json:"receipts"`
	}{in}
	if body.Receipts == nil {
		body.Receipts = []ReceiptInput{}
	}
	if _, err := s.c.call(ctx, http.MethodPost, "/api/v1/receipts/bulk", nil, body, &out, opts); err != nil {
		return nil, err
	}
	return &out, nil
}

// List returns one page of receipts, newest issued first.
func (s *ReceiptService) List(ctx context.Context, opts *ReceiptListOptions) (*Page[Receipt], error) {
	if opts == nil {
		opts = &ReceiptListOptions{}
	}
	return list[Receipt](ctx, s.c, "/api/v1/receipts", opts.query())
}

// All iterates over every receipt the options match.
func (s *ReceiptService) All(ctx context.Context, opts *ReceiptListOptions) iter.Seq2[Receipt, error] {
	o := ReceiptListOptions{}
	if opts != nil {
		o = *opts
	}
	fetch := func(ctx context.Context, page int) (*Page[Receipt], error) {
		o.Page = page
		return s.List(ctx, &o)
	}
	return all(ctx, fetch, o.Page, func(r Receipt) string { return r.ID })
}

// Get returns one receipt.
func (s *ReceiptService) Get(ctx context.Context, id string) (*Receipt, error) {
	var out Receipt
	if _, err := s.c.call(ctx, http.MethodGet, receiptPath(id), nil, nil, &out, nil); err != nil {
		return nil, err
	}
	return &out, nil
}

// Delete deletes an open or excluded receipt (CodeReceiptNotDeletable
// once converted or consolidated).
func (s *ReceiptService) Delete(ctx context.Context, id string) error {
	_, err := s.c.call(ctx, http.MethodDelete, receiptPath(id), nil, nil, nil, nil)
	return err
}

// QR returns the QR code of the receipt's request page, size pixels wide
// (64 to 1024; 256 when 0).
func (s *ReceiptService) QR(ctx context.Context, id string, size int) (*ReceiptQRCode, error) {
	var out ReceiptQRCode
	if _, err := s.c.call(ctx, http.MethodGet, receiptPath(id)+"/qr", sizeQuery(size), nil, &out, nil); err != nil {
		return nil, err
	}
	return &out, nil
}

// QRImage returns the QR code of QR as an image of the format.
func (s *ReceiptService) QRImage(ctx context.Context, id string, format ImageFormat, size int) (*File, error) {
	return s.c.file(ctx, receiptPath(id)+"/qr", string(format), sizeQuery(size))
}
