package e2etest

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/einvoice/einvoice/client"
	"github.com/einvoice/einvoice/internal/einvoice"
)

// samplePostalAddress is the samples' address of every party.
func samplePostalAddress() client.Address {
	return client.Address{Line1: "Lot 66", Line2: "Bangunan Merdeka", Line3: "Persiaran Jaya",
		City: "Kuala Lumpur", PostCode: "50480", State: "14", CountryCode: "MYS"}
}

// SampleSupplier is the tenant: the samples' supplier.
func SampleSupplier() *client.Profile {
	return &client.Profile{
		Name: "Supplier's Name", TIN: "C2584563200", IDType: client.IDTypeBRN, IDValue: "202001012345",
		SSTRegistrationNumber: "NA", TourismTaxRegistrationNumber: "NA",
		MSICCode: "46510", BusinessActivityDescription: "Wholesale of computer hardware, software and peripherals",
		Address: samplePostalAddress(), Contact: client.Contact{Phone: "+60123456789", Email: "supplier@email.com"},
	}
}

// SampleBuyerParty is the samples' buyer.
func SampleBuyerParty() *client.Party {
	return &client.Party{
		Name: "Buyer's Name", TIN: "C20880050010", IDType: client.IDTypeBRN, IDValue: "201901234567",
		SSTRegistrationNumber: "NA", Address: samplePostalAddress(),
		Contact: client.Contact{Phone: "+60123456789", Email: "buyer@email.com"},
	}
}

// SampleSellerParty is the supplier of the self-billed samples, the
// on-behalf seller: here a sole proprietor (an individual's TIN, a BRN).
func SampleSellerParty() *client.Party {
	return &client.Party{
		Name: "Supplier's Name", TIN: "IG21136626090", IDType: client.IDTypeBRN, IDValue: "202301045678",
		SSTRegistrationNumber: "NA", TourismTaxRegistrationNumber: "NA",
		MSICCode: "46510", BusinessActivityDescription: "Wholesale of computer hardware, software and peripherals",
		Address: samplePostalAddress(), Contact: client.Contact{Phone: "+60123456789", Email: "supplier@email.com"},
	}
}

// WireMap is v as the typed client sends it, decoded untyped (numbers as
// json.Number, so that they are sent again as written).
func WireMap(v any) map[string]any {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		panic(err)
	}
	return m
}

// SampleProfile is sampleSupplier as the body of PUT /profile: the fields
// Profile.Update sends (without authority settings).
func SampleProfile() map[string]any {
	m := WireMap(SampleSupplier())
	delete(m, "isReady")   // read-only
	delete(m, "authority") // the settings as shown, not an update of them
	return m
}

// SampleBuyer is sampleBuyerParty as a JSON object.
func SampleBuyer() map[string]any { return WireMap(SampleBuyerParty()) }

// SampleSeller is sampleSellerParty as a JSON object.
func SampleSeller() map[string]any { return WireMap(SampleSellerParty()) }

// DocBody is a document as the body of a create or update: the kind is the
// endpoint's, not a field.
func DocBody(d *client.Document) map[string]any {
	m := WireMap(d)
	delete(m, "type")
	return m
}

func Tax(taxType, rate, reason string) client.LineTax {
	return client.LineTax{TaxType: taxType, TaxRate: client.Decimal(rate), ExemptionReason: reason}
}

func SampleLine(desc, qty, unit, price string, taxes ...client.LineTax) client.Line {
	return client.Line{Classifications: []string{"004"}, ProductDescription: desc, Quantity: client.Decimal(qty),
		UnitCode: unit, UnitPrice: client.Decimal(price), Taxes: taxes}
}

// laptopPeripherals is the line of the single-line samples: 15 % discount,
// 10 % charge, exempt.
func laptopPeripherals() client.Line {
	l := SampleLine("Laptop Peripherals", "1", "C62", "17", Tax("E", "0", "Exempt New Means of Transport"))
	l.DiscountRate, l.DiscountDescription = "15", "Sample Description"
	l.FeeOrChargeRate, l.FeeOrChargeDescription = "10", "Sample Description"
	return l
}

// SingleLineDoc is the document of 1.1-Invoice-Sample.json, which the
// notes, the self-billed and the foreign-currency samples repeat.
func SingleLineDoc(serial string) *client.Document {
	addr := samplePostalAddress()
	return &client.Document{
		InvoiceSerialNumber: serial, CurrencyCode: "MYR", AutoCalculate: true,
		InvoiceDiscountAmount: "100", InvoiceDiscountDescription: "Sample Description",
		InvoiceFeeAmount: "100", InvoiceFeeDescription: "Service charge",
		Lines: []client.Line{laptopPeripherals()},
		Payment: &client.Payment{PaymentMode: "03", PaymentTerms: "Payment method is cash",
			SupplierBankAccountNumber: "1234567890123", PrepaymentAmount: "1",
			PrepaymentDate: "2024-07-23", PrepaymentReferenceNumber: "E12345678912"},
		InvoicePeriod: &client.InvoicePeriod{FrequencyOfBilling: "Monthly",
			BillingPeriodStartDate: "2024-01-01", BillingPeriodEndDate: "2024-07-31"},
		Delivery: &client.Delivery{RecipientName: "Recipient's Name", RecipientTIN: "C9876543210",
			RecipientIDType: client.IDTypeBRN, RecipientIDValue: "199801012345", RecipientAddress: &addr},
	}
}

// SingleLineBody is singleLineDoc as a JSON object.
func SingleLineBody(serial string) map[string]any { return DocBody(SingleLineDoc(serial)) }

// Realistic is one document modelled on one of the authority's samples.
type Realistic struct {
	Sample  string // the file of myinvois-samples it follows
	Kind    einvoice.DocumentKind
	Doc     *client.Document // its Type is kind
	Body    map[string]any   // the document as a JSON object (without the type)
	Payable string           // the totalPayableAmount autoCalculate gives
}

// Our serial numbers and the authority's uuids of the documents the notes
// refer to.
const (
	InvoiceSerial   = "INV-2025-000101"
	InvoiceUUID     = "F9D425P6DS7D8IUMKB4TJ6MY10"
	SbInvoiceSerial = "SBI-2025-000031"
	SbInvoiceUUID   = "42S512YACQBRSRHYKBXBTGQG22"
)

// NoteDoc makes d a note on the document refSerial, refUUID.
func NoteDoc(d *client.Document, refSerial, refUUID string) *client.Document {
	d.References = []client.DocumentReference{{ReferenceNumber: refSerial, UUID: refUUID}}
	return d
}

// NoteOf is noteDoc for a document as a JSON object.
func NoteOf(body map[string]any, refSerial, refUUID string) map[string]any {
	body["documentReferences"] = []any{map[string]any{"referenceNumber": refSerial, "uuid": refUUID}}
	return body
}

// RealisticSet returns the documents, those that notes refer to first.
func RealisticSet(buyerID, sellerID string) []Realistic {
	buyer := func(d *client.Document) *client.Document { d.BuyerID = buyerID; return d }
	seller := func(d *client.Document) *client.Document { d.OnBehalfSellerID = sellerID; return d }

	inv := buyer(SingleLineDoc(InvoiceSerial))
	// Issued an hour ago, Malaysian time (validate accepts up to 72 hours),
	// to the second.
	issued := time.Now().In(time.FixedZone("MYT", 8*3600)).Add(-time.Hour).Truncate(time.Second)
	inv.ErpIssuedAt = &issued

	multi := buyer(&client.Document{
		InvoiceSerialNumber: "INV-2025-000102", CurrencyCode: "MYR", AutoCalculate: true,
		Lines: []client.Line{
			SampleLine("Computer Monitor", "1", "C62", "1000", Tax("03", "10", "")),
			SampleLine("Laptop Peripherals", "1", "C62", "1500", Tax("02", "5", "")),
			SampleLine("Wireless Mouse", "1", "C62", "2000", Tax("E", "0", "Special Case")),
		},
		InvoicePeriod: &client.InvoicePeriod{FrequencyOfBilling: "Monthly",
			BillingPeriodStartDate: "2025-01-01", BillingPeriodEndDate: "2025-01-31"},
	})

	usd := buyer(SingleLineDoc("INV-2025-000103"))
	usd.CurrencyCode, usd.ExchangeRate = "USD", "4.72"

	consolidated := &client.Document{
		InvoiceSerialNumber: "CON-2025-07", CurrencyCode: "MYR", AutoCalculate: true,
		Lines: []client.Line{
			SampleLine("Receipt 001 - 100", "1", "C62", "10000", Tax("01", "10", "")),
			SampleLine("Receipt 101 - 200", "1", "C62", "20000", Tax("01", "10", "")),
		},
	}

	refund := buyer(SingleLineDoc("RN-2025-000004"))
	refund.References = []client.DocumentReference{{ReferenceNumber: "NA", UUID: "NA"}}
	refund.IsPreEinvoicing = true

	set := []Realistic{
		{"1.1-Invoice-Sample.json", einvoice.KindInvoice, inv, nil, "15.15"},
		{"1.1-Invoice-MultiLineItem-Sample.json", einvoice.KindInvoice, multi, nil, "4585.00"},
		{"1.1-Invoice-ForeignCurrency-Sample.json", einvoice.KindInvoice, usd, nil, "15.15"},
		{"1.1-Invoice-Consolidated-Sample.json", einvoice.KindConsolidatedInvoice, consolidated, nil, "33000.00"},
		{"1.1-Self-Billed-Invoice-Sample.json", einvoice.KindSelfBilledInvoice, seller(SingleLineDoc(SbInvoiceSerial)), nil, "15.15"},
		{"1.1-Credit-Note-Sample.json", einvoice.KindCreditNote, NoteDoc(buyer(SingleLineDoc("CN-2025-000017")), InvoiceSerial, InvoiceUUID), nil, "15.15"},
		{"1.1-Debit-Note-Sample.json", einvoice.KindDebitNote, NoteDoc(buyer(SingleLineDoc("DN-2025-000009")), InvoiceSerial, InvoiceUUID), nil, "15.15"},
		{"1.1-Refund-Note-Sample.json", einvoice.KindRefundNote, refund, nil, "15.15"},
		{"1.1-Self-Billed-Credit-Sample.json", einvoice.KindSelfBilledCreditNote, NoteDoc(seller(SingleLineDoc("SBC-2025-000005")), SbInvoiceSerial, SbInvoiceUUID), nil, "15.15"},
		{"1.1-Self-Billed-Debit-Sample.json", einvoice.KindSelfBilledDebitNote, NoteDoc(seller(SingleLineDoc("SBD-2025-000002")), SbInvoiceSerial, SbInvoiceUUID), nil, "15.15"},
		{"1.1-Self-Billed-Refund-Sample.json", einvoice.KindSelfBilledRefundNote, NoteDoc(seller(SingleLineDoc("SBR-2025-000001")), SbInvoiceSerial, SbInvoiceUUID), nil, "15.15"},
	}
	for i := range set {
		set[i].Doc.Type = client.DocumentType(set[i].Kind)
		set[i].Body = DocBody(set[i].Doc)
	}
	return set
}

func KindInfo(t *testing.T, k einvoice.DocumentKind) einvoice.KindInfo {
	t.Helper()
	info, ok := einvoice.InfoOf(k)
	if !ok {
		t.Fatalf("unknown kind %s", k)
	}
	return info
}

const PassedMessage = "The document is valid and ready to submit."

// Problem is a rule broken at a field.
type Problem struct{ Rule, Field string }

// WantValidationPassed validates a document that must pass.
func WantValidationPassed(t *testing.T, c *client.Client, what, id string) {
	t.Helper()
	r, err := c.Documents.Validate(t.Context(), id)
	checkValidationPassed(t, what, id, Must(t, r, err))
}

// checkValidationPassed checks the result of a validation that must pass.
func checkValidationPassed(t *testing.T, what, id string, r *client.ValidationResult) {
	t.Helper()
	if r.ID != id || r.Status != client.StatusReady || !r.ValidationPassed || r.Message != PassedMessage {
		t.Errorf("%s: validate = %+v, want ready and passed", what, r)
	}
	// Neither is in the answer: present, even empty, each decodes to a
	// non-nil value (and null breaks the OpenAPI document, which every
	// answer of the typed client is checked against).
	if r.Errors != nil {
		t.Errorf("%s: a passed validation has errors: %v", what, r.Errors)
	}
	if r.Problems != nil {
		t.Errorf("%s: a passed validation has problems: %v", what, r.Problems)
	}
}

// WantValidationFailed validates a document that must fail with exactly
// the given problems, and returns the result.
func WantValidationFailed(t *testing.T, c *client.Client, what, id string, want ...Problem) *client.ValidationResult {
	t.Helper()
	r, err := c.Documents.Validate(t.Context(), id)
	r = Must(t, r, err)
	checkValidationFailed(t, what, id, r, want...)
	return r
}

// checkValidationFailed checks the result of a validation that must fail
// with exactly the given problems.
func checkValidationFailed(t *testing.T, what, id string, r *client.ValidationResult, want ...Problem) {
	t.Helper()
	if r.ID != id || r.Status != client.StatusDraft || r.ValidationPassed {
		t.Errorf("%s: validate = %+v, want draft and not passed", what, r)
	}
	var got []Problem
	for _, p := range r.Problems {
		got = append(got, Problem{p.Rule, p.Field})
		if p.Message == "" {
			t.Errorf("%s: problem without a message: %+v", what, p)
		}
	}
	key := func(p Problem) string { return p.Rule + " " + p.Field }
	sortProblems := func(ps []Problem) {
		sort.Slice(ps, func(i, j int) bool { return key(ps[i]) < key(ps[j]) })
	}
	want = slices.Clone(want)
	sortProblems(got)
	sortProblems(want)
	if !slices.Equal(got, want) {
		t.Errorf("%s: problems = %v, want %v: %+v", what, got, want, r.Problems)
	}
	fields := map[string]bool{}
	for _, p := range want {
		fields[p.Field] = true
		if len(r.Errors[p.Field]) == 0 {
			t.Errorf("%s: errors = %v, want %q named", what, r.Errors, p.Field)
		}
	}
	if len(r.Errors) != len(fields) {
		t.Errorf("%s: errors name %d fields, want %d: %v", what, len(r.Errors), len(fields), r.Errors)
	}
	noun := "problems"
	if len(want) == 1 {
		noun = "problem"
	}
	if msg := r.Message; !strings.HasPrefix(msg, fmt.Sprintf("%d %s: ", len(want), noun)) || !strings.HasSuffix(msg, ".") {
		t.Errorf("%s: message = %q, want %q...", what, msg, fmt.Sprintf("%d %s: ", len(want), noun))
	}
}

// UBL walks a UBL JSON document: each name takes the first element of the
// array under it.
func UBL(v any, names ...string) map[string]any {
	for _, n := range names {
		m, _ := v.(map[string]any)
		a, _ := m[n].([]any)
		if len(a) == 0 {
			return nil
		}
		v = a[0]
	}
	m, _ := v.(map[string]any)
	return m
}

// UBLText is the value ("_") of the element at the path, "" when absent.
func UBLText(v any, names ...string) string {
	m := UBL(v, names...)
	if m == nil || m["_"] == nil {
		return ""
	}
	return Str(m["_"])
}
