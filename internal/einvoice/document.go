package einvoice

import (
	"time"

	"github.com/einvoice/einvoice/internal/money"
)

// DocumentKind is one of the nine kinds of document.
type DocumentKind string

// The kinds of document.
const (
	KindInvoice              DocumentKind = "invoice"
	KindCreditNote           DocumentKind = "credit_note"
	KindDebitNote            DocumentKind = "debit_note"
	KindRefundNote           DocumentKind = "refund_note"
	KindConsolidatedInvoice  DocumentKind = "consolidated_invoice"
	KindSelfBilledInvoice    DocumentKind = "self_billed_invoice"
	KindSelfBilledCreditNote DocumentKind = "self_billed_credit_note"
	KindSelfBilledDebitNote  DocumentKind = "self_billed_debit_note"
	KindSelfBilledRefundNote DocumentKind = "self_billed_refund_note"
)

// KindInfo describes a kind: its authority type code, its create path, and
// the rules that follow from it.
type KindInfo struct {
	Kind     DocumentKind
	TypeCode string
	// Path is the create endpoint under /api/v1.
	Path string
	// SelfBilled kinds name an on-behalf seller (the supplier) instead of a buyer.
	SelfBilled bool
	// Note kinds (credit, debit, refund) need at least one document reference.
	Note bool
	// Consolidated: the buyer is General Public, filled in by the service.
	Consolidated bool
}

// Kinds lists every kind, in the order of the API reference.
var Kinds = []KindInfo{
	{KindInvoice, "01", "/invoices", false, false, false},
	{KindCreditNote, "02", "/credit-notes", false, true, false},
	{KindDebitNote, "03", "/debit-notes", false, true, false},
	{KindRefundNote, "04", "/refund-notes", false, true, false},
	{KindConsolidatedInvoice, "01", "/consolidated-invoices", false, false, true},
	{KindSelfBilledInvoice, "11", "/self-billed-invoices", true, false, false},
	{KindSelfBilledCreditNote, "12", "/self-billed-credit-notes", true, true, false},
	{KindSelfBilledDebitNote, "13", "/self-billed-debit-notes", true, true, false},
	{KindSelfBilledRefundNote, "14", "/self-billed-refund-notes", true, true, false},
}

// InfoOf returns the description of a kind.
func InfoOf(k DocumentKind) (KindInfo, bool) {
	for _, ki := range Kinds {
		if ki.Kind == k {
			return ki, true
		}
	}
	return KindInfo{}, false
}

// Status is where a document is in its life.
type Status string

// The statuses: draft -> ready -> submitting -> Submitted -> Valid | Invalid;
// Valid -> Cancelled. The lower-case ones are ours, the others the authority's.
const (
	StatusDraft      Status = "draft"
	StatusReady      Status = "ready"
	StatusSubmitting Status = "submitting"
	StatusSubmitted  Status = "Submitted"
	StatusValid      Status = "Valid"
	StatusInvalid    Status = "Invalid"
	StatusCancelled  Status = "Cancelled"
)

// Statuses lists every status (the values of the status filter).
var Statuses = []Status{StatusDraft, StatusReady, StatusSubmitting, StatusSubmitted, StatusValid, StatusInvalid, StatusCancelled}

// Editable reports whether a document in this status may be updated.
func (s Status) Editable() bool {
	return s == StatusDraft || s == StatusReady || s == StatusInvalid
}

// Deletable reports whether a document in this status may be deleted.
func (s Status) Deletable() bool { return s == StatusDraft || s == StatusReady }

// MaxLines is the most lines one document may have.
const MaxLines = 1000

// Document is an e-invoice document of any kind. Amount fields are nil when
// absent: with AutoCalculate they are all computed; without it they are the
// client's, stored as given, and validate checks them.
type Document struct {
	ID       string       `json:"id"`
	TenantID string       `json:"-"`
	Kind     DocumentKind `json:"type"`
	TypeCode string       `json:"typeCode"`
	Status   Status       `json:"status"`

	BuyerID             string              `json:"buyerId,omitempty"`
	OnBehalfSellerID    string              `json:"onBehalfSellerId,omitempty"`
	InvoiceSerialNumber string              `json:"invoiceSerialNumber"`
	CurrencyCode        string              `json:"currencyCode"`
	ExchangeRate        *money.Number       `json:"exchangeRate"`
	AutoCalculate       bool                `json:"autoCalculate"`
	ErpIssuedAt         *time.Time          `json:"erpIssuedAt"`
	InvoiceDiscount     *money.Amount       `json:"invoiceDiscountAmount"`
	InvoiceDiscountDesc string              `json:"invoiceDiscountDescription"`
	InvoiceFee          *money.Amount       `json:"invoiceFeeAmount"`
	InvoiceFeeDesc      string              `json:"invoiceFeeDescription"`
	Lines               []Line              `json:"invoiceLines"`
	Payment             *Payment            `json:"payment"`
	Delivery            *Delivery           `json:"delivery"`
	InvoicePeriod       *InvoicePeriod      `json:"invoicePeriod"`
	References          []DocumentReference `json:"documentReferences"`
	IsPreEinvoicing     bool                `json:"isPreEinvoicing"`

	// The authority's optional trade fields (DECISIONS 13), absent from
	// responses when empty: the Customs Form No. 1 or 9 reference (import),
	// the Customs Form No. 2 (K2) reference (export), the free trade
	// agreement's description, the Incoterms (e.g. CIF) and the bill
	// reference number.
	CustomsFormReference  string `json:"customsFormReference,omitempty"`
	CustomsForm2Reference string `json:"customsForm2Reference,omitempty"`
	FreeTradeAgreement    string `json:"freeTradeAgreement,omitempty"`
	Incoterms             string `json:"incoterms,omitempty"`
	BillReferenceNumber   string `json:"billReferenceNumber,omitempty"`

	Totals

	// Authority is what the tax authority holds of the document, from its
	// submission on; Frozen the parties as they were submitted. Both are
	// read-only: the service sets them.
	Authority *AuthorityRecord `json:"authority,omitempty"`
	Frozen    *FrozenParties   `json:"frozen,omitempty"`

	CreatedAt time.Time `json:"createdAt"`
	UpdatedAt time.Time `json:"updatedAt"`

	// Rendering, when not nil, is the document's JSON rendering as the
	// store wrote it (what json.Marshal makes of the document): a store
	// that keeps renderings sets it as it creates or replaces the
	// document, so that the answer need not encode it again. Any change to
	// the document after the write makes it stale: only the answer to that
	// write may use it.
	Rendering []byte `json:"-"`
}

// IssueDate is the UTC calendar date on which the document is issued, the
// date the list's from and to bound (DECISIONS sections 5 and 9), as
// midnight UTC: the date of erpIssuedAt when given; otherwise, once the
// document has been sent, of the issue time written into its UBL
// (Authority.IssuedAt, the moment of submission); otherwise (a draft) of its
// creation.
func (d *Document) IssueDate() time.Time {
	y, m, day := d.IssueTime().UTC().Date()
	return time.Date(y, m, day, 0, 0, 0, 0, time.UTC)
}

// IssueTime is the moment whose date IssueDate is: erpIssuedAt when given,
// otherwise the issue time recorded at submission, otherwise the creation.
// A person reads its Malaysian date (DECISIONS 19), which IssueDate, a UTC
// date, is not.
func (d *Document) IssueTime() time.Time {
	switch {
	case d.ErpIssuedAt != nil:
		return *d.ErpIssuedAt
	case d.Authority != nil && d.Authority.IssuedAt != nil:
		return *d.Authority.IssuedAt
	}
	return d.CreatedAt
}

// Totals are the document-level amounts (DECISIONS section 6, step 5 on).
type Totals struct {
	Subtotal            *money.Amount `json:"subtotal"`
	TotalDiscountAmount *money.Amount `json:"totalDiscountAmount"`
	TotalFeeAmount      *money.Amount `json:"totalFeeAmount"`
	TotalExcludingTax   *money.Amount `json:"totalExcludingTax"`
	TotalTaxAmount      *money.Amount `json:"totalTaxAmount"`
	TotalIncludingTax   *money.Amount `json:"totalIncludingTax"`
	PrepaymentAmount    *money.Amount `json:"prepaymentAmount"`
	RoundingAmount      *money.Amount `json:"roundingAmount"`
	TotalPayableAmount  *money.Amount `json:"totalPayableAmount"`
	TaxSubtotals        []TaxSubtotal `json:"taxSubtotals"`
	// TotalTaxAmountMyr is the tax in MYR of a foreign-currency document.
	TotalTaxAmountMyr *money.Amount `json:"totalTaxAmountMyr,omitempty"`
}

// Line is one invoice line with its inputs and its amounts.
type Line struct {
	Classifications []string `json:"classifications"`
	// AuthorityClassification is one of the authority's own codes
	// (refdata.AuthorityClassifications): when given, the UBL carries it
	// instead of the codes mapped from Classifications (DECISIONS 13).
	AuthorityClassification string `json:"authorityClassification,omitempty"`
	ProductDescription      string `json:"productDescription"`
	// TariffCode is the product tariff code (PTC, an HS code such as
	// 9800.00.0010); CountryOfOrigin an ISO 3166-1 alpha-3 country code
	// (refdata.Countries). Both optional, absent from responses when empty.
	TariffCode             string        `json:"tariffCode,omitempty"`
	CountryOfOrigin        string        `json:"countryOfOrigin,omitempty"`
	Quantity               *money.Number `json:"quantity"`
	UnitCode               string        `json:"unitCode"`
	UnitPrice              *money.Number `json:"unitPrice"`
	DiscountRate           *money.Number `json:"discountRate"`
	DiscountDescription    string        `json:"discountDescription"`
	FeeOrChargeRate        *money.Number `json:"feeOrChargeRate"`
	FeeOrChargeDescription string        `json:"feeOrChargeDescription"`
	Taxes                  []LineTax     `json:"invoiceLineTaxes"`

	Subtotal          *money.Amount `json:"subtotal"`
	DiscountAmount    *money.Amount `json:"discountAmount"`
	FeeOrChargeAmount *money.Amount `json:"feeOrChargeAmount"`
	TotalExcludingTax *money.Amount `json:"totalExcludingTax"`
	TaxAmount         *money.Amount `json:"taxAmount"`
	TotalIncludingTax *money.Amount `json:"totalIncludingTax"`
	TaxAmountMyr      *money.Amount `json:"taxAmountMyr,omitempty"`
}

// LineTax is one tax on a line. TaxRate is a percentage (0 to 100), except
// for tourism tax (03), where it is an amount per unit of quantity.
type LineTax struct {
	TaxType         string        `json:"taxType"`
	TaxRate         *money.Number `json:"taxRate"`
	ExemptionReason string        `json:"exemptionReason"`
	TaxAmount       *money.Amount `json:"taxAmount"`
	TaxAmountMyr    *money.Amount `json:"taxAmountMyr,omitempty"`
}

// TaxSubtotal sums the taxes of one (type, rate) over the document.
type TaxSubtotal struct {
	TaxType       string        `json:"taxType"`
	TaxRate       *money.Number `json:"taxRate"`
	TaxableAmount *money.Amount `json:"taxableAmount"`
	TaxAmount     *money.Amount `json:"taxAmount"`
	TaxAmountMyr  *money.Amount `json:"taxAmountMyr,omitempty"`
}

// Payment holds how the document is paid.
type Payment struct {
	PaymentMode               string        `json:"paymentMode"`
	PaymentTerms              string        `json:"paymentTerms"`
	SupplierBankAccountNumber string        `json:"supplierBankAccountNumber"`
	PrepaymentAmount          *money.Amount `json:"prepaymentAmount"`
	PrepaymentDate            string        `json:"prepaymentDate"`
	PrepaymentReferenceNumber string        `json:"prepaymentReferenceNumber"`
}

// Delivery names the shipping recipient.
type Delivery struct {
	RecipientName    string   `json:"recipientName"`
	RecipientTin     string   `json:"recipientTin"`
	RecipientIDType  string   `json:"recipientIdType"`
	RecipientIDValue string   `json:"recipientIdValue"`
	RecipientAddress *Address `json:"recipientAddress"`
}

// InvoicePeriod is the billing period.
type InvoicePeriod struct {
	FrequencyOfBilling     string `json:"frequencyOfBilling"`
	BillingPeriodStartDate string `json:"billingPeriodStartDate"`
	BillingPeriodEndDate   string `json:"billingPeriodEndDate"`
}

// DocumentReference names a document a note refers to.
type DocumentReference struct {
	ReferenceNumber string `json:"referenceNumber"`
	UUID            string `json:"uuid"`
}
