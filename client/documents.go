package client

import (
	"context"
	"fmt"
	"iter"
	"net/http"
	"net/url"
	"time"
)

// DocumentType is the kind of a document (Document.Type).
type DocumentType string

// The nine kinds of document.
const (
	TypeInvoice              DocumentType = "invoice"
	TypeCreditNote           DocumentType = "credit_note"
	TypeDebitNote            DocumentType = "debit_note"
	TypeRefundNote           DocumentType = "refund_note"
	TypeConsolidatedInvoice  DocumentType = "consolidated_invoice"
	TypeSelfBilledInvoice    DocumentType = "self_billed_invoice"
	TypeSelfBilledCreditNote DocumentType = "self_billed_credit_note"
	TypeSelfBilledDebitNote  DocumentType = "self_billed_debit_note"
	TypeSelfBilledRefundNote DocumentType = "self_billed_refund_note"
)

// createPaths are where each kind is created.
var createPaths = map[DocumentType]string{
	TypeInvoice:              "/api/v1/invoices",
	TypeCreditNote:           "/api/v1/credit-notes",
	TypeDebitNote:            "/api/v1/debit-notes",
	TypeRefundNote:           "/api/v1/refund-notes",
	TypeConsolidatedInvoice:  "/api/v1/consolidated-invoices",
	TypeSelfBilledInvoice:    "/api/v1/self-billed-invoices",
	TypeSelfBilledCreditNote: "/api/v1/self-billed-credit-notes",
	TypeSelfBilledDebitNote:  "/api/v1/self-billed-debit-notes",
	TypeSelfBilledRefundNote: "/api/v1/self-billed-refund-notes",
}

// Status is where a document stands (Document.Status).
type Status string

// The statuses of a document: draft -> ready (validate passed) ->
// submitting (being sent) -> Submitted (accepted by the tax authority) ->
// Valid or Invalid (its verdict); Valid -> Cancelled.
const (
	StatusDraft      Status = "draft"
	StatusReady      Status = "ready"
	StatusSubmitting Status = "submitting"
	StatusSubmitted  Status = "Submitted"
	StatusValid      Status = "Valid"
	StatusInvalid    Status = "Invalid"
	StatusCancelled  Status = "Cancelled"
)

// Document is an e-invoice document of any kind. Create and Update send
// the fields a request takes; the service fills in the rest (ID, TypeCode,
// Status, the authority's record, the frozen parties, the history, the
// times, and with AutoCalculate every amount), and a Document read back
// may be sent again as it is.
type Document struct {
	ID string `json:"id,omitempty"`
	// Type is the kind; Create uses it to choose the endpoint (an invoice
	// when empty).
	Type DocumentType `json:"type,omitempty"`
	// TypeCode is the tax authority's code of the kind ("01" an invoice).
	TypeCode string `json:"typeCode,omitempty"`
	Status   Status `json:"status,omitempty"`

	// BuyerID names the buyer (every kind but the self-billed ones);
	// OnBehalfSellerID the seller (the self-billed kinds).
	BuyerID             string  `json:"buyerId,omitempty"`
	OnBehalfSellerID    string  `json:"onBehalfSellerId,omitempty"`
	InvoiceSerialNumber string  `json:"invoiceSerialNumber"`
	CurrencyCode        string  `json:"currencyCode,omitempty"`
	ExchangeRate        Decimal `json:"exchangeRate,omitempty"`
	// AutoCalculate makes the service compute every amount from the
	// lines' quantities, prices, rates and taxes.
	AutoCalculate bool `json:"autoCalculate,omitempty"`
	// ErpIssuedAt is the issue time; the moment of submission when nil.
	ErpIssuedAt                *time.Time          `json:"erpIssuedAt,omitempty"`
	InvoiceDiscountAmount      Decimal             `json:"invoiceDiscountAmount,omitempty"`
	InvoiceDiscountDescription string              `json:"invoiceDiscountDescription,omitempty"`
	InvoiceFeeAmount           Decimal             `json:"invoiceFeeAmount,omitempty"`
	InvoiceFeeDescription      string              `json:"invoiceFeeDescription,omitempty"`
	Lines                      []Line              `json:"invoiceLines,omitempty"`
	Payment                    *Payment            `json:"payment,omitempty"`
	Delivery                   *Delivery           `json:"delivery,omitempty"`
	InvoicePeriod              *InvoicePeriod      `json:"invoicePeriod,omitempty"`
	References                 []DocumentReference `json:"documentReferences,omitempty"`
	IsPreEinvoicing            bool                `json:"isPreEinvoicing,omitempty"`

	// The tax authority's optional trade fields: the Customs Form No. 1 or
	// 9 reference (import), the Customs Form No. 2 (K2) reference
	// (export), the free trade agreement, the Incoterms ("CIF") and the
	// bill reference number.
	CustomsFormReference  string `json:"customsFormReference,omitempty"`
	CustomsForm2Reference string `json:"customsForm2Reference,omitempty"`
	FreeTradeAgreement    string `json:"freeTradeAgreement,omitempty"`
	Incoterms             string `json:"incoterms,omitempty"`
	BillReferenceNumber   string `json:"billReferenceNumber,omitempty"`

	Totals

	// Authority is what the tax authority holds of the document, from its
	// submission on; Frozen the parties as they were submitted.
	Authority *AuthorityRecord `json:"authority,omitempty"`
	Frozen    *FrozenParties   `json:"frozen,omitempty"`
	// EmailDelivery is how a Valid document reached its buyer by mail:
	// set by Get once a message sharing the document was written (see
	// Deliver), nil otherwise.
	EmailDelivery *DocumentDelivery `json:"emailDelivery,omitempty"`
	// History is every change of status, oldest first.
	History   []Event   `json:"history,omitempty"`
	CreatedAt time.Time `json:"createdAt,omitzero"`
	UpdatedAt time.Time `json:"updatedAt,omitzero"`
}

// Totals are a document's amounts.
type Totals struct {
	Subtotal            Decimal       `json:"subtotal,omitempty"`
	TotalDiscountAmount Decimal       `json:"totalDiscountAmount,omitempty"`
	TotalFeeAmount      Decimal       `json:"totalFeeAmount,omitempty"`
	TotalExcludingTax   Decimal       `json:"totalExcludingTax,omitempty"`
	TotalTaxAmount      Decimal       `json:"totalTaxAmount,omitempty"`
	TotalIncludingTax   Decimal       `json:"totalIncludingTax,omitempty"`
	PrepaymentAmount    Decimal       `json:"prepaymentAmount,omitempty"`
	RoundingAmount      Decimal       `json:"roundingAmount,omitempty"`
	TotalPayableAmount  Decimal       `json:"totalPayableAmount,omitempty"`
	TaxSubtotals        []TaxSubtotal `json:"taxSubtotals,omitempty"`
	// TotalTaxAmountMyr is the tax in ringgit of a foreign-currency
	// document.
	TotalTaxAmountMyr Decimal `json:"totalTaxAmountMyr,omitempty"`
}

// Line is one line of a document. Rates are percentages (6 is 6 %).
type Line struct {
	// Classifications are codes of Codes.Classifications.
	Classifications []string `json:"classifications,omitempty"`
	// AuthorityClassification is a code of Codes.AuthorityClassifications,
	// the tax authority's own: sent to it instead of the codes mapped from
	// Classifications.
	AuthorityClassification string `json:"authorityClassification,omitempty"`
	ProductDescription      string `json:"productDescription,omitempty"`
	// TariffCode is the product tariff code (an HS code, "9800.00.0010");
	// CountryOfOrigin a code of Codes.Countries.
	TariffCode             string    `json:"tariffCode,omitempty"`
	CountryOfOrigin        string    `json:"countryOfOrigin,omitempty"`
	Quantity               Decimal   `json:"quantity,omitempty"`
	UnitCode               string    `json:"unitCode,omitempty"`
	UnitPrice              Decimal   `json:"unitPrice,omitempty"`
	DiscountRate           Decimal   `json:"discountRate,omitempty"`
	DiscountDescription    string    `json:"discountDescription,omitempty"`
	FeeOrChargeRate        Decimal   `json:"feeOrChargeRate,omitempty"`
	FeeOrChargeDescription string    `json:"feeOrChargeDescription,omitempty"`
	Taxes                  []LineTax `json:"invoiceLineTaxes,omitempty"`

	Subtotal          Decimal `json:"subtotal,omitempty"`
	DiscountAmount    Decimal `json:"discountAmount,omitempty"`
	FeeOrChargeAmount Decimal `json:"feeOrChargeAmount,omitempty"`
	TotalExcludingTax Decimal `json:"totalExcludingTax,omitempty"`
	TaxAmount         Decimal `json:"taxAmount,omitempty"`
	TotalIncludingTax Decimal `json:"totalIncludingTax,omitempty"`
	TaxAmountMyr      Decimal `json:"taxAmountMyr,omitempty"`
}

// LineTax is one tax on a line. TaxType is a code of Codes.TaxTypes ("01"
// sales tax ... "06" not applicable, "E" exempt).
type LineTax struct {
	TaxType         string  `json:"taxType"`
	TaxRate         Decimal `json:"taxRate,omitempty"`
	ExemptionReason string  `json:"exemptionReason,omitempty"`
	TaxAmount       Decimal `json:"taxAmount,omitempty"`
	TaxAmountMyr    Decimal `json:"taxAmountMyr,omitempty"`
}

// TaxSubtotal sums one tax type and rate over the document.
type TaxSubtotal struct {
	TaxType       string  `json:"taxType"`
	TaxRate       Decimal `json:"taxRate,omitempty"`
	TaxableAmount Decimal `json:"taxableAmount,omitempty"`
	TaxAmount     Decimal `json:"taxAmount,omitempty"`
	TaxAmountMyr  Decimal `json:"taxAmountMyr,omitempty"`
}

// Payment is how the document is to be paid.
type Payment struct {
	// PaymentMode is a code of Codes.PaymentModes.
	PaymentMode               string  `json:"paymentMode,omitempty"`
	PaymentTerms              string  `json:"paymentTerms,omitempty"`
	SupplierBankAccountNumber string  `json:"supplierBankAccountNumber,omitempty"`
	PrepaymentAmount          Decimal `json:"prepaymentAmount,omitempty"`
	// PrepaymentDate is YYYY-MM-DD.
	PrepaymentDate            string `json:"prepaymentDate,omitempty"`
	PrepaymentReferenceNumber string `json:"prepaymentReferenceNumber,omitempty"`
}

// Delivery names the shipping recipient.
type Delivery struct {
	RecipientName    string   `json:"recipientName,omitempty"`
	RecipientTIN     string   `json:"recipientTin,omitempty"`
	RecipientIDType  string   `json:"recipientIdType,omitempty"`
	RecipientIDValue string   `json:"recipientIdValue,omitempty"`
	RecipientAddress *Address `json:"recipientAddress,omitempty"`
}

// InvoicePeriod is the billing period (dates YYYY-MM-DD).
type InvoicePeriod struct {
	FrequencyOfBilling     string `json:"frequencyOfBilling,omitempty"`
	BillingPeriodStartDate string `json:"billingPeriodStartDate,omitempty"`
	BillingPeriodEndDate   string `json:"billingPeriodEndDate,omitempty"`
}

// DocumentReference names a document a note refers to.
type DocumentReference struct {
	ReferenceNumber string `json:"referenceNumber,omitempty"`
	UUID            string `json:"uuid,omitempty"`
}

// AuthorityRecord is what the tax authority holds of a submitted document.
type AuthorityRecord struct {
	DocumentUUID       string            `json:"documentUuid,omitempty"`
	DocumentLongID     string            `json:"documentLongId,omitempty"`
	SubmissionUID      string            `json:"submissionUid,omitempty"`
	IssuedAt           *time.Time        `json:"issuedAt,omitempty"`
	Version            string            `json:"version,omitempty"`
	SubmittedAt        *time.Time        `json:"submittedAt,omitempty"`
	ValidatedAt        *time.Time        `json:"validatedAt,omitempty"`
	CancelledAt        *time.Time        `json:"cancelledAt,omitempty"`
	CancelReason       string            `json:"cancelReason,omitempty"`
	Errors             []AuthorityError  `json:"errors,omitempty"`
	RejectionRequested *RejectionRequest `json:"rejectionRequested,omitempty"`
}

// AuthorityError is one error of the tax authority, with its details.
type AuthorityError struct {
	Code         string           `json:"code"`
	Message      string           `json:"message"`
	Target       string           `json:"target,omitempty"`
	PropertyPath string           `json:"propertyPath,omitempty"`
	Details      []AuthorityError `json:"details,omitempty"`
	// Hint says what Code means and what to check, in one sentence, for
	// the authority's signature codes (DS3xx); empty for other codes.
	Hint string `json:"hint,omitempty"`
}

// RejectionRequest is a buyer's request to reject a Valid document: the
// issuer may cancel it until CancelBefore.
type RejectionRequest struct {
	Reason       string    `json:"reason"`
	RequestedAt  time.Time `json:"requestedAt"`
	CancelBefore time.Time `json:"cancelBefore"`
}

// FrozenParties are the supplier and the customer as they were submitted.
type FrozenParties struct {
	Supplier PartySnapshot `json:"supplier"`
	Customer PartySnapshot `json:"customer"`
}

// PartySnapshot is a party as it was submitted.
type PartySnapshot struct {
	Name                         string  `json:"name"`
	TIN                          string  `json:"tin"`
	IDType                       string  `json:"idType"`
	IDValue                      string  `json:"idValue"`
	SSTRegistrationNumber        string  `json:"sstRegistrationNumber"`
	TourismTaxRegistrationNumber string  `json:"tourismTaxRegistrationNumber,omitempty"`
	MSICCode                     string  `json:"msicCode,omitempty"`
	BusinessActivityDescription  string  `json:"businessActivityDescription,omitempty"`
	Address                      Address `json:"address"`
	Contact                      Contact `json:"contact"`
}

// Event is one change of a document's status.
type Event struct {
	Status Status `json:"status"`
	// KeyID is the API key that made the change; empty for the service's
	// own (the authority's verdict).
	KeyID string    `json:"keyId"`
	Note  string    `json:"note"`
	At    time.Time `json:"at"`
}

// DocumentListOptions filter a list of documents.
type DocumentListOptions struct {
	// Status and Type keep the documents of one status and one kind.
	Status Status
	Type   DocumentType
	// Search keeps the documents whose serial number starts with it
	// (case-insensitive).
	Search string
	// From and To bound the issue date, inclusive (the date of each as it
	// reads in its own location); the zero time leaves that end open.
	From, To time.Time
	ListOptions
}

func (o *DocumentListOptions) query() url.Values {
	q := url.Values{}
	if o.Status != "" {
		q.Set("status", string(o.Status))
	}
	if o.Type != "" {
		q.Set("type", string(o.Type))
	}
	if o.Search != "" {
		q.Set("search", o.Search)
	}
	if !o.From.IsZero() {
		q.Set("from", o.From.Format(time.DateOnly))
	}
	if !o.To.IsZero() {
		q.Set("to", o.To.Format(time.DateOnly))
	}
	return o.ListOptions.query(q)
}

// DocumentService holds the operations of documents.
type DocumentService struct{ c *Client }

func documentPath(id string) string { return "/api/v1/invoices/" + escape(id) }

// Create stores a new document of d.Type (an invoice when empty) as a
// draft.
func (s *DocumentService) Create(ctx context.Context, d *Document, opts ...CallOption) (*Document, error) {
	t := d.Type
	if t == "" {
		t = TypeInvoice
	}
	path, ok := createPaths[t]
	if !ok {
		return nil, fmt.Errorf("einvoice: create document: unknown type %q", t)
	}
	var out Document
	if _, err := s.c.call(ctx, http.MethodPost, path, nil, d, &out, opts); err != nil {
		return nil, err
	}
	return &out, nil
}

// Get returns one document of any kind, with its history.
func (s *DocumentService) Get(ctx context.Context, id string) (*Document, error) {
	var out Document
	if _, err := s.c.call(ctx, http.MethodGet, documentPath(id), nil, nil, &out, nil); err != nil {
		return nil, err
	}
	return &out, nil
}

// Update replaces a draft, ready or Invalid document with d; it returns to
// draft. Other statuses answer CodeDocumentNotDraft.
func (s *DocumentService) Update(ctx context.Context, id string, d *Document) (*Document, error) {
	var out Document
	if _, err := s.c.call(ctx, http.MethodPut, documentPath(id), nil, d, &out, nil); err != nil {
		return nil, err
	}
	return &out, nil
}

// Delete deletes a draft or ready document.
func (s *DocumentService) Delete(ctx context.Context, id string) error {
	_, err := s.c.call(ctx, http.MethodDelete, documentPath(id), nil, nil, nil, nil)
	return err
}

// List returns one page of documents of every kind, newest first.
func (s *DocumentService) List(ctx context.Context, opts *DocumentListOptions) (*Page[Document], error) {
	if opts == nil {
		opts = &DocumentListOptions{}
	}
	return list[Document](ctx, s.c, "/api/v1/invoices", opts.query())
}

// All iterates over every document the options match, from opts.Page on.
func (s *DocumentService) All(ctx context.Context, opts *DocumentListOptions) iter.Seq2[Document, error] {
	o := DocumentListOptions{}
	if opts != nil {
		o = *opts
	}
	fetch := func(ctx context.Context, page int) (*Page[Document], error) {
		o.Page = page
		return s.List(ctx, &o)
	}
	return all(ctx, fetch, o.Page, func(d Document) string { return d.ID })
}
