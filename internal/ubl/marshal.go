package ubl

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/einvoice/einvoice/internal/einvoice"
	"github.com/einvoice/einvoice/internal/money"
)

// Input is everything one UBL document is made of.
type Input struct {
	Doc      *einvoice.Document
	Supplier einvoice.PartySnapshot // AccountingSupplierParty (has MSIC + description, TTX)
	Customer einvoice.PartySnapshot // AccountingCustomerParty
	IssuedAt time.Time              // written as IssueDate YYYY-MM-DD and IssueTime HH:MM:SSZ in UTC
	// Version is the InvoiceTypeCode's listVersionID: "1.0" (unsigned) or
	// "1.1" (signed by another package; this one writes no UBLExtensions
	// and no Signature for any version). The authority's "1.2" and "1.3"
	// are accepted too.
	Version string
}

// ErrMissing is wrapped by the error of Marshal and Build when a value the
// authority requires is absent (a nil amount, an empty serial number); the
// error names the field by its path in our API ("invoiceLines.1.subtotal").
var ErrMissing = errors.New("required value missing")

// ErrVersion is wrapped by the error of Marshal and Build when Input.Version
// is not one of the authority's versions.
var ErrVersion = errors.New("unknown document version")

// versions are the authority's document versions.
var versions = map[string]bool{"1.0": true, "1.1": true, "1.2": true, "1.3": true}

// currencyMYR is the ringgit, the currency of every tax amount.
const currencyMYR = "MYR"

// Marshal returns the minified UBL 2.1 JSON bytes of in (no HTML escaping,
// no whitespace), keys in the order of the official samples. It is Build
// then Encode. The document should have passed validation: Marshal returns
// an error wrapping ErrMissing, naming the field, when a required amount is
// nil, and never panics.
func Marshal(in Input) ([]byte, error) {
	inv, err := Build(in)
	if err != nil {
		return nil, err
	}
	return Encode(inv)
}

// Encode writes inv as minified JSON without HTML escaping: the bytes to
// hash, sign and send.
func Encode(inv *Invoice) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(inv); err != nil {
		return nil, fmt.Errorf("ubl: encode: %w", err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// Build returns the typed model of in; see the package documentation for
// the mapping.
func Build(in Input) (*Invoice, error) {
	if in.Doc == nil {
		return nil, fmt.Errorf("ubl: document: %w", ErrMissing)
	}
	if !versions[in.Version] {
		return nil, fmt.Errorf("ubl: version %q: %w", in.Version, ErrVersion)
	}
	b := newBuilder(in.Doc)
	body := b.header(in)
	body.AccountingSupplierParty = []SupplierParty{{Party: []Party{supplierParty(in.Supplier)}}}
	body.AccountingCustomerParty = []CustomerParty{{Party: []BuyerParty{customerParty(in.Customer)}}}
	body.Delivery = delivery(b.doc.Delivery)
	b.payment(&body)
	body.AllowanceCharge = b.documentAllowanceCharges()
	body.TaxExchangeRate = b.exchangeRate()
	body.TaxTotal = b.taxTotal()
	body.LegalMonetaryTotal = b.monetaryTotal()
	body.InvoiceLine = b.lines()
	if b.err != nil {
		return nil, b.err
	}
	return &Invoice{
		D: NamespaceInvoice, A: NamespaceAggregate, B: NamespaceBasic,
		Invoice: []InvoiceBody{body},
	}, nil
}

// builder turns one document into the model, keeping the first error.
type builder struct {
	doc     *einvoice.Document
	info    einvoice.KindInfo // zero for an unknown kind
	cur     string            // the document's currency
	foreign bool              // cur is not MYR: tax amounts are written in MYR
	err     error
}

func newBuilder(d *einvoice.Document) *builder {
	info, _ := einvoice.InfoOf(d.Kind)
	cur := d.CurrencyCode
	if cur == "" {
		cur = currencyMYR
	}
	return &builder{doc: d, info: info, cur: cur, foreign: cur != currencyMYR}
}

// missing records that field is absent.
func (b *builder) missing(field string) {
	if b.err == nil {
		b.err = fmt.Errorf("ubl: %s: %w", field, ErrMissing)
	}
}

// required returns a in the document's currency, recording field as missing
// when a is nil.
func (b *builder) required(field string, a *money.Amount) []Amount {
	if a == nil {
		b.missing(field)
		return nil
	}
	return amountIn(*a, b.cur)
}

// optional returns a in the document's currency, nothing when a is nil.
func (b *builder) optional(a *money.Amount) []Amount {
	if a == nil {
		return nil
	}
	return amountIn(*a, b.cur)
}

// tax returns a tax amount: amount in the document's currency, or for a
// foreign currency myr in MYR (field+"Myr" when it is missing).
func (b *builder) tax(field string, amount, myr *money.Amount) []Amount {
	if !b.foreign {
		return b.required(field, amount)
	}
	if myr == nil {
		b.missing(field + "Myr")
		return nil
	}
	return amountIn(*myr, currencyMYR)
}

func amountIn(a money.Amount, cur string) []Amount {
	return []Amount{{Value: amountDecimal(a), CurrencyID: cur}}
}

// header writes ID, dates, type, currencies, period and references.
func (b *builder) header(in Input) InvoiceBody {
	d := b.doc
	if d.InvoiceSerialNumber == "" {
		b.missing("invoiceSerialNumber")
	}
	if in.IssuedAt.IsZero() {
		b.missing("issuedAt")
	}
	typeCode := d.TypeCode
	if typeCode == "" {
		typeCode = b.info.TypeCode
	}
	if typeCode == "" {
		b.missing("typeCode")
	}
	at := in.IssuedAt.UTC()
	body := InvoiceBody{
		ID:                          ident(d.InvoiceSerialNumber, ""),
		IssueDate:                   text(at.Format(time.DateOnly)),
		IssueTime:                   text(at.Format("15:04:05Z")),
		InvoiceTypeCode:             []Code{{Value: typeCode, ListVersionID: in.Version}},
		DocumentCurrencyCode:        code(b.cur),
		InvoicePeriod:               period(d.InvoicePeriod),
		BillingReference:            billingReferences(d),
		AdditionalDocumentReference: additionalReferences(d),
	}
	if b.foreign {
		body.TaxCurrencyCode = code(currencyMYR)
	}
	return body
}

func period(p *einvoice.InvoicePeriod) []Period {
	if p == nil || *p == (einvoice.InvoicePeriod{}) {
		return nil
	}
	return []Period{{
		StartDate:   optText(p.BillingPeriodStartDate),
		EndDate:     optText(p.BillingPeriodEndDate),
		Description: optText(p.FrequencyOfBilling),
	}}
}

// notApplicable is the authority's "NA".
const notApplicable = "NA"

// billingReferences writes one BillingReference per original document (the
// schema allows one InvoiceDocumentReference in each). An original issued
// before e-invoicing (isPreEinvoicing) may have no authority uuid or no
// number: NA stands in for what is missing.
func billingReferences(d *einvoice.Document) []BillingReference {
	var refs []BillingReference
	for _, r := range d.References {
		id, uuid := r.ReferenceNumber, r.UUID
		if d.IsPreEinvoicing {
			id, uuid = orNA(id), orNA(uuid)
		}
		refs = append(refs, BillingReference{InvoiceDocumentReference: []DocumentReference{{
			ID:   ident(id, ""),
			UUID: optIdent(uuid),
		}}})
	}
	if d.BillReferenceNumber != "" {
		// The bill reference number, after the originals as in the notes'
		// samples (BillingReference/AdditionalDocumentReference/ID).
		refs = append(refs, BillingReference{AdditionalDocumentReference: []DocumentReference{{ID: ident(d.BillReferenceNumber, "")}}})
	}
	return refs
}

// The DocumentType of the trade references, and the ID of the free trade
// agreement's (reference myinvois.md 2.3).
const (
	docTypeCustomsImport = "CustomsImportForm"
	docTypeFTA           = "FreeTradeAgreement"
	docTypeK2            = "K2"
	ftaID                = "FTA"
)

// additionalReferences writes the document's trade references as the
// samples carry them, in their order: the Customs Form No. 1 or 9
// (DocumentType CustomsImportForm), the free trade agreement (ID FTA,
// DocumentType FreeTradeAgreement, the agreement in DocumentDescription),
// the Customs Form No. 2 (DocumentType K2), and the Incoterms (an ID
// alone).
func additionalReferences(d *einvoice.Document) []DocumentReference {
	var refs []DocumentReference
	if d.CustomsFormReference != "" {
		refs = append(refs, DocumentReference{ID: ident(d.CustomsFormReference, ""), DocumentType: text(docTypeCustomsImport)})
	}
	if d.FreeTradeAgreement != "" {
		refs = append(refs, DocumentReference{ID: ident(ftaID, ""), DocumentType: text(docTypeFTA), DocumentDescription: text(d.FreeTradeAgreement)})
	}
	if d.CustomsForm2Reference != "" {
		refs = append(refs, DocumentReference{ID: ident(d.CustomsForm2Reference, ""), DocumentType: text(docTypeK2)})
	}
	if d.Incoterms != "" {
		refs = append(refs, DocumentReference{ID: ident(d.Incoterms, "")})
	}
	return refs
}

// payment writes PaymentMeans, PaymentTerms and PrepaidPayment.
func (b *builder) payment(body *InvoiceBody) {
	p := b.doc.Payment
	if p == nil {
		p = &einvoice.Payment{}
	}
	if p.PaymentMode != "" {
		pm := PaymentMeans{PaymentMeansCode: code(AuthorityPaymentMode(p.PaymentMode))}
		if p.SupplierBankAccountNumber != "" {
			pm.PayeeFinancialAccount = []FinancialAccount{{ID: ident(p.SupplierBankAccountNumber, "")}}
		}
		body.PaymentMeans = []PaymentMeans{pm}
	}
	if p.PaymentTerms != "" {
		body.PaymentTerms = []PaymentTerms{{Note: text(p.PaymentTerms)}}
	}
	// The document's prepaymentAmount is the one its totals use.
	paid := b.doc.PrepaymentAmount
	if paid == nil {
		paid = p.PrepaymentAmount
	}
	if (paid != nil && !paid.IsZero()) || p.PrepaymentDate != "" || p.PrepaymentReferenceNumber != "" {
		body.PrepaidPayment = []PrepaidPayment{{
			ID:         optIdent(p.PrepaymentReferenceNumber),
			PaidAmount: b.optional(paid),
			PaidDate:   optText(p.PrepaymentDate),
		}}
	}
}

// documentAllowanceCharges writes the document's discount and fee, when
// non-zero.
func (b *builder) documentAllowanceCharges() []AllowanceCharge {
	var acs []AllowanceCharge
	add := func(charge bool, a *money.Amount, reason string) {
		if a != nil && !a.IsZero() {
			acs = append(acs, AllowanceCharge{
				ChargeIndicator:       []Indicator{{Value: charge}},
				AllowanceChargeReason: optText(reason),
				Amount:                amountIn(*a, b.cur),
			})
		}
	}
	add(false, b.doc.InvoiceDiscount, b.doc.InvoiceDiscountDesc)
	add(true, b.doc.InvoiceFee, b.doc.InvoiceFeeDesc)
	return acs
}

// exchangeRate writes TaxExchangeRate for a foreign currency.
func (b *builder) exchangeRate() []ExchangeRate {
	if !b.foreign {
		return nil
	}
	if b.doc.ExchangeRate == nil {
		b.missing("exchangeRate")
		return nil
	}
	return []ExchangeRate{{
		SourceCurrencyCode: code(b.cur),
		TargetCurrencyCode: code(currencyMYR),
		CalculationRate:    []Numeric{{Value: numberDecimal(*b.doc.ExchangeRate)}},
	}}
}

// monetaryTotal writes LegalMonetaryTotal; the discount, fee and rounding
// totals only when present.
func (b *builder) monetaryTotal() []MonetaryTotal {
	d := b.doc
	return []MonetaryTotal{{
		LineExtensionAmount:   b.required("subtotal", d.Subtotal),
		TaxExclusiveAmount:    b.required("totalExcludingTax", d.TotalExcludingTax),
		TaxInclusiveAmount:    b.required("totalIncludingTax", d.TotalIncludingTax),
		AllowanceTotalAmount:  b.optional(d.TotalDiscountAmount),
		ChargeTotalAmount:     b.optional(d.TotalFeeAmount),
		PayableRoundingAmount: b.optional(d.RoundingAmount),
		PayableAmount:         b.required("totalPayableAmount", d.TotalPayableAmount),
	}}
}

// Leaves.

func text(s string) []Text { return []Text{{Value: s}} }

func optText(s string) []Text {
	if s == "" {
		return nil
	}
	return text(s)
}

func ident(v, scheme string) []Identifier { return []Identifier{{Value: v, SchemeID: scheme}} }

func optIdent(v string) []Identifier {
	if v == "" {
		return nil
	}
	return ident(v, "")
}

func code(v string) []Code { return []Code{{Value: v}} }
