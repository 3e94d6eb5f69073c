package ubl

import "encoding/json"

// The typed model of a UBL 2.1 invoice in the JSON alternative
// representation the authority uses. Every element is a slice (the JSON
// form is an array even for a single element) of a small struct; a leaf
// holds its value in "_" and its attributes beside it. Fields are declared
// in the order of the authority's official samples, so that encoding/json
// writes the keys in that order, and omitted when empty. Decoding the same
// structs is the reader (Parse): elements the model does not name are
// ignored.

// Namespaces of the root object.
const (
	NamespaceInvoice   = "urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"
	NamespaceAggregate = "urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2"
	NamespaceBasic     = "urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2"
)

// Invoice is a whole UBL JSON document: the namespace prefixes and the one
// Invoice element. Every kind (notes and self-billed documents too) has
// this root; only InvoiceTypeCode tells them apart.
type Invoice struct {
	D string `json:"_D"`
	A string `json:"_A"`
	B string `json:"_B"`
	// E is the extension namespace some signers add; the official samples
	// have none.
	E       string        `json:"_E,omitempty"`
	Invoice []InvoiceBody `json:"Invoice"`
}

// Body returns the Invoice element, or nil when there is none.
func (inv *Invoice) Body() *InvoiceBody {
	if inv == nil || len(inv.Invoice) == 0 {
		return nil
	}
	return &inv.Invoice[0]
}

// InvoiceBody is the Invoice element.
type InvoiceBody struct {
	ID                          []Identifier        `json:"ID,omitempty"`
	IssueDate                   []Text              `json:"IssueDate,omitempty"`
	IssueTime                   []Text              `json:"IssueTime,omitempty"`
	InvoiceTypeCode             []Code              `json:"InvoiceTypeCode,omitempty"`
	DocumentCurrencyCode        []Code              `json:"DocumentCurrencyCode,omitempty"`
	TaxCurrencyCode             []Code              `json:"TaxCurrencyCode,omitempty"`
	InvoicePeriod               []Period            `json:"InvoicePeriod,omitempty"`
	BillingReference            []BillingReference  `json:"BillingReference,omitempty"`
	AdditionalDocumentReference []DocumentReference `json:"AdditionalDocumentReference,omitempty"`
	AccountingSupplierParty     []SupplierParty     `json:"AccountingSupplierParty,omitempty"`
	AccountingCustomerParty     []CustomerParty     `json:"AccountingCustomerParty,omitempty"`
	Delivery                    []Delivery          `json:"Delivery,omitempty"`
	PaymentMeans                []PaymentMeans      `json:"PaymentMeans,omitempty"`
	PaymentTerms                []PaymentTerms      `json:"PaymentTerms,omitempty"`
	PrepaidPayment              []PrepaidPayment    `json:"PrepaidPayment,omitempty"`
	AllowanceCharge             []AllowanceCharge   `json:"AllowanceCharge,omitempty"`
	TaxExchangeRate             []ExchangeRate      `json:"TaxExchangeRate,omitempty"`
	TaxTotal                    []TaxTotal          `json:"TaxTotal,omitempty"`
	LegalMonetaryTotal          []MonetaryTotal     `json:"LegalMonetaryTotal,omitempty"`
	InvoiceLine                 []InvoiceLine       `json:"InvoiceLine,omitempty"`
	// UBLExtensions and Signature are kept as read (signed documents), last
	// as in the samples. Marshal writes neither: signing is another
	// package's job.
	UBLExtensions json.RawMessage `json:"UBLExtensions,omitempty"`
	Signature     json.RawMessage `json:"Signature,omitempty"`
}

// Text is a leaf with a string value: names, descriptions, dates
// (YYYY-MM-DD), times (HH:MM:SSZ).
type Text struct {
	Value string `json:"_"`
}

// Identifier is an ID with its scheme: TIN, BRN, SST, ... in schemeID;
// "UN/ECE 5153" with agency "6" for the tax scheme; "CertEX" in
// schemeAgencyName for the certified exporter.
type Identifier struct {
	Value            string `json:"_"`
	SchemeID         string `json:"schemeID,omitempty"`
	SchemeAgencyID   string `json:"schemeAgencyID,omitempty"`
	SchemeAgencyName string `json:"schemeAgencyName,omitempty"`
}

// Code is a code with its list: listVersionID on InvoiceTypeCode, listID
// "CLASS" or "PTC" on classifications, "ISO3166-1" with agency "6" on
// countries, name on the MSIC code.
type Code struct {
	Value         string `json:"_"`
	ListID        string `json:"listID,omitempty"`
	ListAgencyID  string `json:"listAgencyID,omitempty"`
	ListVersionID string `json:"listVersionID,omitempty"`
	Name          string `json:"name,omitempty"`
}

// Amount is money in a currency (currencyID is required by the schema).
type Amount struct {
	Value      Decimal `json:"_"`
	CurrencyID string  `json:"currencyID"`
}

// Quantity is a counted number, with an optional unit.
type Quantity struct {
	Value    Decimal `json:"_"`
	UnitCode string  `json:"unitCode,omitempty"`
}

// Measure is a number with its unit (required by the schema).
type Measure struct {
	Value    Decimal `json:"_"`
	UnitCode string  `json:"unitCode"`
}

// Numeric is a plain number: percentages, rates, multiplier factors.
type Numeric struct {
	Value Decimal `json:"_"`
}

// Indicator is a boolean leaf (ChargeIndicator).
type Indicator struct {
	Value bool `json:"_"`
}

// Period is the billing period.
type Period struct {
	StartDate   []Text `json:"StartDate,omitempty"`
	EndDate     []Text `json:"EndDate,omitempty"`
	Description []Text `json:"Description,omitempty"`
}

// BillingReference names one original document of a note
// (InvoiceDocumentReference) or a bill reference number
// (AdditionalDocumentReference).
type BillingReference struct {
	InvoiceDocumentReference    []DocumentReference `json:"InvoiceDocumentReference,omitempty"`
	AdditionalDocumentReference []DocumentReference `json:"AdditionalDocumentReference,omitempty"`
}

// DocumentReference is a reference to another document: an original
// invoice (ID and its authority UUID), a customs form, an FTA, Incoterms.
type DocumentReference struct {
	ID                  []Identifier `json:"ID,omitempty"`
	UUID                []Identifier `json:"UUID,omitempty"`
	DocumentType        []Text       `json:"DocumentType,omitempty"`
	DocumentDescription []Text       `json:"DocumentDescription,omitempty"`
}

// SupplierParty is the AccountingSupplierParty element.
type SupplierParty struct {
	// AdditionalAccountID carries the certified exporter's authorisation
	// number (schemeAgencyName "CertEX").
	AdditionalAccountID []Identifier `json:"AdditionalAccountID,omitempty"`
	Party               []Party      `json:"Party,omitempty"`
}

// Party is the supplier's party, in the samples' (and the XML schema's)
// order: MSIC code, identifications, address, name, contact.
type Party struct {
	IndustryClassificationCode []Code                `json:"IndustryClassificationCode,omitempty"`
	PartyIdentification        []PartyIdentification `json:"PartyIdentification,omitempty"`
	PostalAddress              []Address             `json:"PostalAddress,omitempty"`
	PartyLegalEntity           []PartyLegalEntity    `json:"PartyLegalEntity,omitempty"`
	Contact                    []Contact             `json:"Contact,omitempty"`
}

// CustomerParty is the AccountingCustomerParty element.
type CustomerParty struct {
	Party []BuyerParty `json:"Party,omitempty"`
}

// BuyerParty is the customer's party. The samples order its keys
// differently from the supplier's (address, name, identifications,
// contact), hence a type of its own.
type BuyerParty struct {
	PostalAddress       []Address             `json:"PostalAddress,omitempty"`
	PartyLegalEntity    []PartyLegalEntity    `json:"PartyLegalEntity,omitempty"`
	PartyIdentification []PartyIdentification `json:"PartyIdentification,omitempty"`
	Contact             []Contact             `json:"Contact,omitempty"`
}

// PartyIdentification holds one identifier of a party.
type PartyIdentification struct {
	ID []Identifier `json:"ID,omitempty"`
}

// Address is a postal address.
type Address struct {
	CityName             []Text        `json:"CityName,omitempty"`
	PostalZone           []Text        `json:"PostalZone,omitempty"`
	CountrySubentityCode []Code        `json:"CountrySubentityCode,omitempty"`
	AddressLine          []AddressLine `json:"AddressLine,omitempty"`
	Country              []Country     `json:"Country,omitempty"`
}

// AddressLine is one line of an address.
type AddressLine struct {
	Line []Text `json:"Line,omitempty"`
}

// Country holds a country code (ISO 3166-1 alpha-3).
type Country struct {
	IdentificationCode []Code `json:"IdentificationCode,omitempty"`
}

// PartyLegalEntity holds a party's registered name.
type PartyLegalEntity struct {
	RegistrationName []Text `json:"RegistrationName,omitempty"`
}

// Contact is how to reach a party.
type Contact struct {
	Telephone      []Text `json:"Telephone,omitempty"`
	ElectronicMail []Text `json:"ElectronicMail,omitempty"`
}

// Delivery names the shipping recipient and other charges of shipment.
type Delivery struct {
	DeliveryParty []DeliveryParty `json:"DeliveryParty,omitempty"`
	Shipment      []Shipment      `json:"Shipment,omitempty"`
}

// DeliveryParty is the shipping recipient, in the samples' order (name,
// address, identifications).
type DeliveryParty struct {
	PartyLegalEntity    []PartyLegalEntity    `json:"PartyLegalEntity,omitempty"`
	PostalAddress       []Address             `json:"PostalAddress,omitempty"`
	PartyIdentification []PartyIdentification `json:"PartyIdentification,omitempty"`
}

// Shipment carries other charges of the delivery.
type Shipment struct {
	ID                     []Identifier      `json:"ID,omitempty"`
	FreightAllowanceCharge []AllowanceCharge `json:"FreightAllowanceCharge,omitempty"`
}

// PaymentMeans is the payment mode and the supplier's bank account.
type PaymentMeans struct {
	PaymentMeansCode      []Code             `json:"PaymentMeansCode,omitempty"`
	PayeeFinancialAccount []FinancialAccount `json:"PayeeFinancialAccount,omitempty"`
}

// FinancialAccount is a bank account number.
type FinancialAccount struct {
	ID []Identifier `json:"ID,omitempty"`
}

// PaymentTerms is the payment terms in words.
type PaymentTerms struct {
	Note []Text `json:"Note,omitempty"`
}

// PrepaidPayment is a prepayment: its reference, amount, date and time.
type PrepaidPayment struct {
	ID         []Identifier `json:"ID,omitempty"`
	PaidAmount []Amount     `json:"PaidAmount,omitempty"`
	PaidDate   []Text       `json:"PaidDate,omitempty"`
	PaidTime   []Text       `json:"PaidTime,omitempty"`
}

// AllowanceCharge is a discount (ChargeIndicator false) or a fee or charge
// (true), of the document or of a line; MultiplierFactorNumeric is the
// rate as a fraction (0.15 for 15 %).
type AllowanceCharge struct {
	ChargeIndicator         []Indicator `json:"ChargeIndicator,omitempty"`
	AllowanceChargeReason   []Text      `json:"AllowanceChargeReason,omitempty"`
	MultiplierFactorNumeric []Numeric   `json:"MultiplierFactorNumeric,omitempty"`
	Amount                  []Amount    `json:"Amount,omitempty"`
}

// ExchangeRate converts the document's currency to MYR.
type ExchangeRate struct {
	SourceCurrencyCode []Code    `json:"SourceCurrencyCode,omitempty"`
	TargetCurrencyCode []Code    `json:"TargetCurrencyCode,omitempty"`
	CalculationRate    []Numeric `json:"CalculationRate,omitempty"`
}

// TaxTotal is the tax of the document or of a line, with one subtotal per
// tax type (and rate).
type TaxTotal struct {
	TaxAmount   []Amount      `json:"TaxAmount,omitempty"`
	TaxSubtotal []TaxSubtotal `json:"TaxSubtotal,omitempty"`
}

// TaxSubtotal is the tax of one type: a percentage rate in Percent, or a
// fixed rate per unit (tourism tax) in PerUnitAmount with the number of
// units in BaseUnitMeasure.
type TaxSubtotal struct {
	TaxableAmount   []Amount      `json:"TaxableAmount,omitempty"`
	TaxAmount       []Amount      `json:"TaxAmount,omitempty"`
	Percent         []Numeric     `json:"Percent,omitempty"`
	BaseUnitMeasure []Measure     `json:"BaseUnitMeasure,omitempty"`
	PerUnitAmount   []Amount      `json:"PerUnitAmount,omitempty"`
	TaxCategory     []TaxCategory `json:"TaxCategory,omitempty"`
}

// TaxCategory is the tax type (ID), the exemption reason of type E, and
// the tax scheme ("OTH").
type TaxCategory struct {
	ID                 []Identifier `json:"ID,omitempty"`
	TaxExemptionReason []Text       `json:"TaxExemptionReason,omitempty"`
	TaxScheme          []TaxScheme  `json:"TaxScheme,omitempty"`
}

// TaxScheme identifies the tax scheme.
type TaxScheme struct {
	ID []Identifier `json:"ID,omitempty"`
}

// MonetaryTotal is the LegalMonetaryTotal element.
type MonetaryTotal struct {
	LineExtensionAmount   []Amount `json:"LineExtensionAmount,omitempty"`
	TaxExclusiveAmount    []Amount `json:"TaxExclusiveAmount,omitempty"`
	TaxInclusiveAmount    []Amount `json:"TaxInclusiveAmount,omitempty"`
	AllowanceTotalAmount  []Amount `json:"AllowanceTotalAmount,omitempty"`
	ChargeTotalAmount     []Amount `json:"ChargeTotalAmount,omitempty"`
	PayableRoundingAmount []Amount `json:"PayableRoundingAmount,omitempty"`
	PayableAmount         []Amount `json:"PayableAmount,omitempty"`
}

// InvoiceLine is one line.
type InvoiceLine struct {
	ID                  []Identifier      `json:"ID,omitempty"`
	InvoicedQuantity    []Quantity        `json:"InvoicedQuantity,omitempty"`
	LineExtensionAmount []Amount          `json:"LineExtensionAmount,omitempty"`
	AllowanceCharge     []AllowanceCharge `json:"AllowanceCharge,omitempty"`
	TaxTotal            []TaxTotal        `json:"TaxTotal,omitempty"`
	Item                []Item            `json:"Item,omitempty"`
	Price               []Price           `json:"Price,omitempty"`
	ItemPriceExtension  []PriceExtension  `json:"ItemPriceExtension,omitempty"`
}

// Item is what a line sells: its classifications (listID "CLASS", and
// "PTC" for a tariff code), description and country of origin.
type Item struct {
	CommodityClassification []CommodityClassification `json:"CommodityClassification,omitempty"`
	Description             []Text                    `json:"Description,omitempty"`
	OriginCountry           []Country                 `json:"OriginCountry,omitempty"`
}

// CommodityClassification holds one classification code of an item.
type CommodityClassification struct {
	ItemClassificationCode []Code `json:"ItemClassificationCode,omitempty"`
}

// Price is the unit price.
type Price struct {
	PriceAmount []Amount `json:"PriceAmount,omitempty"`
}

// PriceExtension is the line subtotal (quantity x unit price).
type PriceExtension struct {
	Amount []Amount `json:"Amount,omitempty"`
}
