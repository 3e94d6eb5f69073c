package einvoice

import (
	"encoding/json"
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/einvoice/einvoice/internal/money"
)

// vtNow is the validation clock of these tests.
var vtNow = time.Date(2026, 8, 20, 6, 30, 0, 0, time.UTC)

// The reference every note of vtInput carries: one of our invoices, Valid.
const (
	vtRefNumber = "INV-2026-0001"
	vtRefUUID   = "F9D425P6DS7D8IU3MTNX2KVPJG" // 26 upper-case letters and digits
)

func vtN(s string) *money.Number { n := money.MustNumber(s); return &n }
func vtA(s string) *money.Amount { a := money.MustAmount(s); return &a }

// vtShift adds by to the amount *a points to, through a new pointer (the
// calculated amounts share blocks).
func vtShift(a **money.Amount, by string) {
	v := (*a).Add(money.MustAmount(by))
	*a = &v
}

func vtBuyer() *Party {
	return &Party{
		ID: "0198c0de-0000-7000-8000-0000000000b1", Kind: KindBuyer,
		Name: "Hebat Group Berhad", TIN: "C20880050010", IDType: "BRN", IDValue: "201901234567",
		SSTRegistrationNumber: "W10-1808-32000001",
		Address:               Address{Line1: "Lot 66", Line2: "Jalan Ampang", City: "Kuala Lumpur", State: "14", PostCode: "50450", CountryCode: CountryMalaysia},
		Contact:               Contact{Phone: "+60123456789", Email: "ap@hebat.example"},
	}
}

func vtSeller() *Party {
	return &Party{
		ID: "0198c0de-0000-7000-8000-0000000000s1", Kind: KindSeller,
		Name: "Ahmad bin Ali", TIN: "IG12345678901", IDType: "NRIC", IDValue: "880101145678",
		SSTRegistrationNumber: "NA", TourismTaxRegistrationNumber: "NA",
		MSICCode: "47190", BusinessActivityDescription: "Retail sale in non-specialized stores",
		Address: Address{Line1: "No. 12, Jalan Melati", City: "Shah Alam", State: "10", PostCode: "40000", CountryCode: CountryMalaysia},
		Contact: Contact{Phone: "0123456789"},
	}
}

// vtForeign makes p a party abroad with the special TIN tin.
func vtForeign(p *Party, tin string) {
	p.TIN, p.IDType, p.IDValue, p.SSTRegistrationNumber = tin, "PASSPORT", "A12345678", "NA"
	p.Address = Address{Line1: "1 Orchard Road", City: "Singapore", State: StateNotApplicable, PostCode: "238824", CountryCode: "SGP"}
}

// vtInput is a complete, valid document of the kind with everything
// validate looks at: the demo tenant, a ready buyer (or on-behalf seller),
// the invoice its notes refer to, and the clock. Its amounts are calculated
// (autoCalculate true): 616.47 subtotal, 5.00 discount, 2.50 fee, 55.99 tax,
// 669.96 including tax, 10.00 prepaid, cash rounding -0.01, 659.95 payable.
func vtInput(kind DocumentKind) ValidationInput {
	info, ok := InfoOf(kind)
	if !ok {
		panic("unknown kind " + kind)
	}
	issued := vtNow.Add(-2 * time.Hour)
	d := &Document{
		ID: "0198c0de-0000-7000-8000-000000000001", Kind: kind, TypeCode: info.TypeCode, Status: StatusDraft,
		InvoiceSerialNumber: "DOC-2026-0042", CurrencyCode: "MYR", AutoCalculate: true, ErpIssuedAt: &issued,
		InvoiceDiscount: vtA("5.00"), InvoiceDiscountDesc: "Loyalty discount",
		InvoiceFee: vtA("2.50"), InvoiceFeeDesc: "Delivery",
		Lines: []Line{
			{Classifications: []string{"005"}, ProductDescription: "Laptop bag", Quantity: vtN("2"), UnitCode: "C62",
				UnitPrice: vtN("49.90"), DiscountRate: vtN("10"), DiscountDescription: "Promotion",
				Taxes: []LineTax{{TaxType: "02", TaxRate: vtN("8")}}},
			{Classifications: []string{"006"}, ProductDescription: "Electric bicycle", Quantity: vtN("1"), UnitCode: "C62",
				UnitPrice: vtN("120.00"),
				Taxes:     []LineTax{{TaxType: "E", TaxRate: vtN("0"), ExemptionReason: "Exempt New Means of Transport"}}},
			{Classifications: []string{"017"}, ProductDescription: "Deluxe room, 2 nights", Quantity: vtN("2"), UnitCode: "DAY",
				UnitPrice: vtN("180"),
				Taxes:     []LineTax{{TaxType: "02", TaxRate: vtN("8.00")}, {TaxType: TaxTourism, TaxRate: vtN("10")}}},
			{Classifications: []string{"001"}, ProductDescription: "Bottled water", Quantity: vtN("3"), UnitCode: "C62",
				UnitPrice: vtN("15.55"),
				Taxes:     []LineTax{{TaxType: "06"}}},
		},
		Payment: &Payment{PaymentMode: "01", PaymentTerms: "Cash on delivery", SupplierBankAccountNumber: "1234567890",
			PrepaymentAmount: vtA("10.00"), PrepaymentDate: "2026-08-18", PrepaymentReferenceNumber: "PRE-0007"},
		InvoicePeriod: &InvoicePeriod{FrequencyOfBilling: "Monthly", BillingPeriodStartDate: "2026-07-01", BillingPeriodEndDate: "2026-07-31"},
		Delivery: &Delivery{RecipientName: "Hebat Warehouse", RecipientTin: "C20880050010", RecipientIDType: "BRN", RecipientIDValue: "201901234567",
			RecipientAddress: &Address{Line1: "Lot 7", City: "Klang", State: "10", CountryCode: CountryMalaysia}},
	}
	in := ValidationInput{Doc: d, Tenant: &Tenant{ID: "tenant-1", Profile: DemoProfile()}, Now: vtNow}
	switch {
	case info.Consolidated:
		d.Delivery = nil
		for i := range d.Lines {
			d.Lines[i].ProductDescription = "Receipts R" + strings.Repeat("0", i) + "1 - R0150"
		}
	case info.SelfBilled:
		in.Party = vtSeller()
		d.OnBehalfSellerID = in.Party.ID
	default:
		in.Party = vtBuyer()
		d.BuyerID = in.Party.ID
	}
	if info.Note {
		d.References = []DocumentReference{{ReferenceNumber: vtRefNumber, UUID: vtRefUUID}}
		ref := vtOurs(KindInvoice, StatusValid)
		if info.SelfBilled {
			ref = vtOurs(KindSelfBilledInvoice, StatusValid)
		}
		in.Referenced = map[string][]*Document{vtRefNumber: {ref}}
	}
	Calculate(d)
	return in
}

// vtOurs is one of the tenant's documents with the number vtRefNumber.
func vtOurs(kind DocumentKind, status Status) *Document {
	info, _ := InfoOf(kind)
	return &Document{ID: "0198c0de-0000-7000-8000-0000000000r1", Kind: kind, TypeCode: info.TypeCode,
		Status: status, InvoiceSerialNumber: vtRefNumber}
}

// vtManual makes the calculated document a manual one: autoCalculate false,
// the amounts as calculated, which validate then checks.
func vtManual(in *ValidationInput) *Document {
	in.Doc.AutoCalculate = false
	return in.Doc
}

type vtProblem struct{ Rule, Field string }

func vtProblems(ps []Problem) []vtProblem {
	var out []vtProblem
	for _, p := range ps {
		out = append(out, vtProblem{p.Rule, p.Field})
	}
	vtSort(out)
	return out
}

func vtSort(ps []vtProblem) {
	sort.Slice(ps, func(i, j int) bool {
		if ps[i].Field != ps[j].Field {
			return ps[i].Field < ps[j].Field
		}
		return ps[i].Rule < ps[j].Rule
	})
}

func TestValidateDocumentValidKinds(t *testing.T) {
	for _, info := range Kinds {
		for _, manual := range []bool{false, true} {
			name := string(info.Kind)
			if manual {
				name += "/autoCalculate false"
			}
			t.Run(name, func(t *testing.T) {
				in := vtInput(info.Kind)
				if manual {
					vtManual(&in)
				}
				if got := ValidateDocument(in); len(got) != 0 {
					t.Errorf("problems with a valid %s:\n%v", info.Kind, got)
				}
			})
		}
	}
}

func TestValidateDocumentBase(t *testing.T) {
	// The base document exercises cash rounding, so a wrong rounding shows.
	d := vtInput(KindInvoice).Doc
	for _, c := range []struct {
		name string
		got  *money.Amount
		want string
	}{
		{"totalIncludingTax", d.TotalIncludingTax, "669.96"},
		{"roundingAmount", d.RoundingAmount, "-0.01"},
		{"totalPayableAmount", d.TotalPayableAmount, "659.95"},
		{"line 1 taxAmount", d.Lines[0].TaxAmount, "7.19"},
		{"line 3 taxAmount", d.Lines[2].TaxAmount, "48.80"},
	} {
		if c.got.String() != c.want {
			t.Errorf("%s = %s, want %s", c.name, c.got, c.want)
		}
	}
	if len(d.TaxSubtotals) != 4 {
		t.Errorf("%d tax subtotals, want 4 (02 at 8, E, 03, 06)", len(d.TaxSubtotals))
	}
}

func TestValidateDocumentLeavesDocumentAlone(t *testing.T) {
	in := vtInput(KindCreditNote)
	d := vtManual(&in)
	d.Lines[0].Subtotal = nil
	vtShift(&d.Lines[1].TotalExcludingTax, "1.00")
	d.TaxSubtotals = d.TaxSubtotals[1:]
	before, _ := json.Marshal(d)
	if len(ValidateDocument(in)) == 0 {
		t.Fatal("no problems")
	}
	if after, _ := json.Marshal(d); string(after) != string(before) {
		t.Errorf("validate changed the document:\n%s\n%s", before, after)
	}
}

type vtCase struct {
	name   string
	kind   DocumentKind // invoice when empty
	change func(in *ValidationInput)
	want   []vtProblem // nil: passes
}

func vtRun(t *testing.T, cases []vtCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			kind := c.kind
			if kind == "" {
				kind = KindInvoice
			}
			in := vtInput(kind)
			c.change(&in)
			if in.Doc.AutoCalculate {
				Calculate(in.Doc) // as create and update do
			}
			got := ValidateDocument(in)
			want := append([]vtProblem(nil), c.want...)
			vtSort(want)
			if diff := cmp.Diff(want, vtProblems(got)); diff != "" {
				t.Errorf("problems (-want +got):\n%s\n%v", diff, got)
			}
		})
	}
}

func vtOne(rule, field string) []vtProblem { return []vtProblem{{rule, field}} }

// TestValidateRules changes one thing of a valid document per case. Every
// rule code validate can emit has a failing case (TestValidateRulesCovered
// checks that), most with a passing neighbour.
func TestValidateRules(t *testing.T) { vtRun(t, vtRuleCases()) }

func vtRuleCases() []vtCase {
	return []vtCase{
		// The tenant's profile.
		{"profile: supplier phone missing", "", func(in *ValidationInput) { in.Tenant.Profile.Contact.Phone = "" },
			vtOne("PROFILE_INCOMPLETE", "supplier.contact.phone")},
		{"profile: supplier MSIC missing", "", func(in *ValidationInput) { in.Tenant.Profile.MSICCode = "" },
			vtOne("PROFILE_INCOMPLETE", "supplier.msicCode")},
		{"profile: supplier activity missing", "", func(in *ValidationInput) { in.Tenant.Profile.BusinessActivityDescription = " " },
			vtOne("PROFILE_INCOMPLETE", "supplier.businessActivityDescription")},
		{"UBL over 300 KB", "", func(in *ValidationInput) { in.UBLSize = MaxUBLBytes + 1 }, vtOne("UBL_TOO_LARGE", "invoiceLines")},
		{"UBL of exactly 300 KB passes", "", func(in *ValidationInput) { in.UBLSize = MaxUBLBytes }, nil},
		{"profile: MSIC 00000 passes", "", func(in *ValidationInput) { in.Tenant.Profile.MSICCode = "00000" }, nil},
		{"profile: supplier postcode of 4 digits", "", func(in *ValidationInput) { in.Tenant.Profile.Address.PostCode = "5048" },
			vtOne("PROFILE_INCOMPLETE", "supplier.address.postCode")},
		{"profile: no e-mail passes", "", func(in *ValidationInput) { in.Tenant.Profile.Contact.Email = "" }, nil},
		{"party: TIN not found by the authority", "", func(in *ValidationInput) {
			in.Party.TINCheck = TINCheck{Status: TINNotFound, Key: TINKey(in.Party)}
		}, vtOne("PARTY_NOT_READY", "buyer.tin")},
		{"party: TIN changed since its check", "", func(in *ValidationInput) {
			in.Party.TINCheck = TINCheck{Status: TINVerified, Key: "C9876543210|BRN|1"}
		}, vtOne("PARTY_NOT_READY", "buyer.tin")},
		{"party: TIN verified passes", "", func(in *ValidationInput) {
			in.Party.TINCheck = TINCheck{Status: TINVerified, Key: TINKey(in.Party)}
		}, nil},
		{"profile: the tenant is the buyer of a self-billed invoice", KindSelfBilledInvoice,
			func(in *ValidationInput) { in.Tenant.Profile.Contact.Phone = "03 1234 5678" },
			vtOne("PROFILE_INCOMPLETE", "buyer.contact.phone")},
		{"profile: consolidated invoice", KindConsolidatedInvoice, func(in *ValidationInput) { in.Tenant.Profile.TIN = "" },
			vtOne("PROFILE_INCOMPLETE", "supplier.tin")},

		// The rules of create, for a draft stored before one of them existed.
		{"stored before the rule: negative discount", "", func(in *ValidationInput) { in.Doc.InvoiceDiscount = vtA("-5.00") },
			vtOne("INPUT_RULE", "invoiceDiscountAmount")},
		{"stored before the rule: a tax type twice on a line", "", func(in *ValidationInput) {
			l := &in.Doc.Lines[0]
			l.Taxes = append(l.Taxes, l.Taxes[0])
		}, vtOne("INPUT_RULE", "invoiceLines.0.invoiceLineTaxes.1.taxType")},

		// Special TINs: where each may appear.
		{"special TIN: tenant EI00000000010", "", func(in *ValidationInput) { in.Tenant.Profile.TIN = TINGeneralPublic },
			vtOne("SPECIAL_TIN_MISUSED", "supplier.tin")},
		{"special TIN: invoice buyer EI00000000010", "", func(in *ValidationInput) { in.Party.TIN = TINGeneralPublic },
			vtOne("SPECIAL_TIN_MISUSED", "buyer.tin")},
		{"special TIN: credit note buyer EI00000000010", KindCreditNote, func(in *ValidationInput) { in.Party.TIN = TINGeneralPublic },
			vtOne("SPECIAL_TIN_MISUSED", "buyer.tin")},
		{"special TIN: credit note buyer EI00000000010 on our consolidated invoice passes", KindCreditNote, func(in *ValidationInput) {
			in.Party.Name, in.Party.TIN, in.Party.IDValue = "General Public", TINGeneralPublic, "NA"
			in.Referenced[vtRefNumber] = []*Document{vtOurs(KindConsolidatedInvoice, StatusValid)}
		}, nil},
		{"special TIN: credit note buyer EI00000000010 on a document not ours", KindCreditNote, func(in *ValidationInput) {
			in.Party.TIN = TINGeneralPublic
			in.Referenced = nil
		}, vtOne("SPECIAL_TIN_MISUSED", "buyer.tin")},
		{"special TIN: invoice buyer EI00000000020 passes", "", func(in *ValidationInput) { vtForeign(in.Party, TINForeignBuyer) }, nil},
		{"special TIN: invoice buyer EI00000000030", "", func(in *ValidationInput) { vtForeign(in.Party, TINForeignSeller) },
			vtOne("SPECIAL_TIN_MISUSED", "buyer.tin")},
		{"special TIN: invoice buyer EI00000000040 passes", "", func(in *ValidationInput) {
			in.Party.Name, in.Party.TIN, in.Party.IDValue = "Majlis Bandaraya Kuala Lumpur", TINGovernment, "NA"
		}, nil},
		{"special TIN: self-billed seller EI00000000030 passes", KindSelfBilledInvoice, func(in *ValidationInput) {
			vtForeign(in.Party, TINForeignSeller)
			in.Party.IDType, in.Party.IDValue = "BRN", "NA"
		}, nil},
		{"special TIN: self-billed credit note seller EI00000000030 passes", KindSelfBilledCreditNote,
			func(in *ValidationInput) { vtForeign(in.Party, TINForeignSeller) }, nil},
		{"special TIN: self-billed seller EI00000000010 passes (consolidated self-billed)", KindSelfBilledInvoice,
			func(in *ValidationInput) { in.Party.TIN, in.Party.IDValue = TINGeneralPublic, "NA" }, nil},
		{"special TIN: self-billed seller EI00000000020", KindSelfBilledInvoice, func(in *ValidationInput) { vtForeign(in.Party, TINForeignBuyer) },
			vtOne("SPECIAL_TIN_MISUSED", "supplier.tin")},
		{"special TIN: self-billed seller EI00000000040", KindSelfBilledDebitNote, func(in *ValidationInput) {
			in.Party.TIN, in.Party.IDType, in.Party.IDValue = TINGovernment, "BRN", "NA"
		}, vtOne("SPECIAL_TIN_MISUSED", "supplier.tin")},

		// The party.
		{"party: invoice without buyer", "", func(in *ValidationInput) { in.Party = nil }, vtOne("PARTY_MISSING", "buyer")},
		{"party: self-billed refund note without seller", KindSelfBilledRefundNote, func(in *ValidationInput) { in.Party = nil },
			vtOne("PARTY_MISSING", "supplier")},
		{"party: consolidated invoice needs none", KindConsolidatedInvoice, func(in *ValidationInput) { in.Party = nil }, nil},
		{"party: buyer phone missing", "", func(in *ValidationInput) { in.Party.Contact.Phone = "" },
			vtOne("PARTY_NOT_READY", "buyer.contact.phone")},
		{"party: buyer phone with spaces", KindDebitNote, func(in *ValidationInput) { in.Party.Contact.Phone = "+60 12 345 6789" },
			vtOne("PARTY_NOT_READY", "buyer.contact.phone")},
		{"party: buyer MY postcode ABC", "", func(in *ValidationInput) { in.Party.Address.PostCode = "ABC" },
			vtOne("PARTY_NOT_READY", "buyer.address.postCode")},
		{"party: buyer MY postcode missing", "", func(in *ValidationInput) { in.Party.Address.PostCode = "" },
			vtOne("PARTY_NOT_READY", "buyer.address.postCode")},
		{"party: buyer state 17 in Malaysia", "", func(in *ValidationInput) { in.Party.Address.State = StateNotApplicable },
			vtOne(RuleState17Restricted, "buyer.address.state")},
		{"party: buyer state 17 abroad passes", "", func(in *ValidationInput) { vtForeign(in.Party, TINForeignBuyer) }, nil},
		{"party: draft buyer", "", func(in *ValidationInput) { in.Party.IsDraft = true }, vtOne("PARTY_NOT_READY", "buyer.isDraft")},
		{"party: seller without MSIC", KindSelfBilledInvoice, func(in *ValidationInput) { in.Party.MSICCode = "" },
			vtOne("PARTY_NOT_READY", "supplier.msicCode")},
		{"party: bad buyer e-mail", "", func(in *ValidationInput) { in.Party.Contact.Email = "ap at hebat" },
			vtOne("PARTY_NOT_READY", "buyer.contact.email")},
		{"party: bad buyer TIN", "", func(in *ValidationInput) { in.Party.TIN = "C0123" }, vtOne("PARTY_NOT_READY", "buyer.tin")},

		// Required fields and lengths.
		{"required: serial number", "", func(in *ValidationInput) { in.Doc.InvoiceSerialNumber = " " },
			vtOne("REQUIRED", "invoiceSerialNumber")},
		{"required: lines", "", func(in *ValidationInput) { in.Doc.Lines = nil }, vtOne("REQUIRED", "invoiceLines")},
		{"required: classification", "", func(in *ValidationInput) { in.Doc.Lines[1].Classifications = nil },
			vtOne("REQUIRED", "invoiceLines.1.classifications")},
		{"required: description", "", func(in *ValidationInput) { in.Doc.Lines[0].ProductDescription = "" },
			vtOne("REQUIRED", "invoiceLines.0.productDescription")},
		{"required: quantity", "", func(in *ValidationInput) { in.Doc.Lines[3].Quantity = nil }, vtOne("REQUIRED", "invoiceLines.3.quantity")},
		{"required: unit price", "", func(in *ValidationInput) { in.Doc.Lines[3].UnitPrice = nil }, vtOne("REQUIRED", "invoiceLines.3.unitPrice")},
		{"required: line taxes", "", func(in *ValidationInput) { in.Doc.Lines[3].Taxes = nil }, vtOne("REQUIRED", "invoiceLines.3.invoiceLineTaxes")},
		{"required: tax type", "", func(in *ValidationInput) { in.Doc.Lines[0].Taxes[0].TaxType = "" },
			vtOne("REQUIRED", "invoiceLines.0.invoiceLineTaxes.0.taxType")},
		{"required: tax rate of 02", "", func(in *ValidationInput) { in.Doc.Lines[2].Taxes[0].TaxRate = nil },
			vtOne("REQUIRED", "invoiceLines.2.invoiceLineTaxes.0.taxRate")},
		{"required: no tax rate for E passes", "", func(in *ValidationInput) { in.Doc.Lines[1].Taxes[0].TaxRate = nil }, nil},
		{"required: prepayment date", "", func(in *ValidationInput) { in.Doc.Payment.PrepaymentDate = "" },
			vtOne("REQUIRED", "payment.prepaymentDate")},
		{"required: no prepayment date for a zero prepayment", "", func(in *ValidationInput) {
			in.Doc.Payment.PrepaymentAmount, in.Doc.Payment.PrepaymentDate = vtA("0"), ""
		}, nil},
		{"required: no payment at all passes", "", func(in *ValidationInput) { in.Doc.Payment = nil }, nil},
		{"required: reference number", KindRefundNote, func(in *ValidationInput) { in.Doc.References[0].ReferenceNumber = "" },
			vtOne("REQUIRED", "documentReferences.0.referenceNumber")},
		{"too long: serial number of 51", "", func(in *ValidationInput) { in.Doc.InvoiceSerialNumber = strings.Repeat("S", 51) },
			vtOne(RuleFieldRulesDec2025, "invoiceSerialNumber")},
		{"too long: serial number of 50 passes", "", func(in *ValidationInput) { in.Doc.InvoiceSerialNumber = strings.Repeat("S", 50) }, nil},
		{"too long: description of 301", "", func(in *ValidationInput) { in.Doc.Lines[2].ProductDescription = strings.Repeat("é", 301) },
			vtOne("TOO_LONG", "invoiceLines.2.productDescription")},
		{"too long: description of 300 passes", "", func(in *ValidationInput) { in.Doc.Lines[2].ProductDescription = strings.Repeat("é", 300) }, nil},
		{"too long: discount description", "", func(in *ValidationInput) { in.Doc.InvoiceDiscountDesc = strings.Repeat("d", 301) },
			vtOne("TOO_LONG", "invoiceDiscountDescription")},
		{"too long: line fee description", "", func(in *ValidationInput) { in.Doc.Lines[0].FeeOrChargeDescription = strings.Repeat("f", 301) },
			vtOne("TOO_LONG", "invoiceLines.0.feeOrChargeDescription")},
		{"too long: payment terms", "", func(in *ValidationInput) { in.Doc.Payment.PaymentTerms = strings.Repeat("t", 301) },
			vtOne(RuleFieldRulesDec2025, "payment.paymentTerms")},
		{"too long: fee description", "", func(in *ValidationInput) { in.Doc.InvoiceFeeDesc = strings.Repeat("f", 301) },
			vtOne("TOO_LONG", "invoiceFeeDescription")},
		{"too long: prepayment reference", "", func(in *ValidationInput) { in.Doc.Payment.PrepaymentReferenceNumber = strings.Repeat("r", 151) },
			vtOne(RuleFieldRulesDec2025, "payment.prepaymentReferenceNumber")},
		{"too long: bank account", "", func(in *ValidationInput) { in.Doc.Payment.SupplierBankAccountNumber = strings.Repeat("1", 151) },
			vtOne(RuleFieldRulesDec2025, "payment.supplierBankAccountNumber")},
		{"too long: billing frequency", "", func(in *ValidationInput) { in.Doc.InvoicePeriod.FrequencyOfBilling = strings.Repeat("m", 51) },
			vtOne(RuleFieldRulesDec2025, "invoicePeriod.frequencyOfBilling")},
		{"too long: recipient name", "", func(in *ValidationInput) { in.Doc.Delivery.RecipientName = strings.Repeat("n", 301) },
			vtOne("TOO_LONG", "delivery.recipientName")},
		{"too long: exemption reason", "", func(in *ValidationInput) { in.Doc.Lines[1].Taxes[0].ExemptionReason = strings.Repeat("e", 301) },
			vtOne("TOO_LONG", "invoiceLines.1.invoiceLineTaxes.0.exemptionReason")},

		// The exchange rate.
		{"exchange rate: USD without rate", "", func(in *ValidationInput) { in.Doc.CurrencyCode = "USD" },
			vtOne("EXCHANGE_RATE_REQUIRED", "exchangeRate")},
		{"exchange rate: USD at 4.72 passes", "", func(in *ValidationInput) { in.Doc.CurrencyCode, in.Doc.ExchangeRate = "USD", vtN("4.72") }, nil},
		{"exchange rate: USD at 0", "", func(in *ValidationInput) { in.Doc.CurrencyCode, in.Doc.ExchangeRate = "USD", vtN("0") },
			vtOne("EXCHANGE_RATE_INVALID", "exchangeRate")},
		{"exchange rate: MYR at 1 passes", "", func(in *ValidationInput) { in.Doc.ExchangeRate = vtN("1.000") }, nil},
		{"exchange rate: MYR at 4.7", "", func(in *ValidationInput) { in.Doc.ExchangeRate = vtN("4.7") },
			vtOne("EXCHANGE_RATE_INVALID", "exchangeRate")},
		{"exchange rate: no currency is MYR", "", func(in *ValidationInput) { in.Doc.CurrencyCode = "" }, nil},

		// Dates.
		{"issue time: a minute ahead", "", func(in *ValidationInput) { *in.Doc.ErpIssuedAt = vtNow.Add(time.Minute) },
			vtOne("ISSUE_TIME_FUTURE", "erpIssuedAt")},
		{"issue time: now passes", "", func(in *ValidationInput) { *in.Doc.ErpIssuedAt = vtNow }, nil},
		{"issue time: absent passes (issued at submission)", "", func(in *ValidationInput) { in.Doc.ErpIssuedAt = nil }, nil},
		{"issue time: 72 h plus a minute ago", "", func(in *ValidationInput) { *in.Doc.ErpIssuedAt = vtNow.Add(-IssueWindow - time.Minute) },
			vtOne("ISSUE_TIME_TOO_OLD", "erpIssuedAt")},
		{"issue time: 72 h minus a minute ago passes", "", func(in *ValidationInput) { *in.Doc.ErpIssuedAt = vtNow.Add(-IssueWindow + time.Minute) }, nil},
		{"issue time: local time written as Z", "", func(in *ValidationInput) {
			*in.Doc.ErpIssuedAt = time.Date(2026, 8, 20, 14, 29, 0, 0, time.UTC) // 14:29 in Kuala Lumpur is 06:29Z
		}, vtOne("ISSUE_TIME_FUTURE", "erpIssuedAt")},
		{"issue time: +08:00 offset, in the past, passes", "", func(in *ValidationInput) {
			*in.Doc.ErpIssuedAt = time.Date(2026, 8, 20, 14, 29, 0, 0, time.FixedZone("MYT", 8*3600))
		}, nil},
		{"billing period reversed", "", func(in *ValidationInput) { in.Doc.InvoicePeriod.BillingPeriodStartDate = "2026-08-01" },
			vtOne("PERIOD_REVERSED", "invoicePeriod.billingPeriodStartDate")},
		{"billing period of one day passes", "", func(in *ValidationInput) { in.Doc.InvoicePeriod.BillingPeriodStartDate = "2026-07-31" }, nil},
		{"billing period without end passes", "", func(in *ValidationInput) { in.Doc.InvoicePeriod.BillingPeriodEndDate = "" }, nil},

		// The shipping recipient.
		{"delivery: recipient TIN", "", func(in *ValidationInput) { in.Doc.Delivery.RecipientTin = "C0880050010" },
			vtOne("TIN_FORMAT", "delivery.recipientTin")},
		{"delivery: foreign recipient EI00000000020 passes", "", func(in *ValidationInput) {
			dl := in.Doc.Delivery
			dl.RecipientTin, dl.RecipientIDType, dl.RecipientIDValue = TINForeignBuyer, "PASSPORT", "NA"
		}, nil},
		{"delivery: recipient NRIC", "", func(in *ValidationInput) {
			dl := in.Doc.Delivery
			dl.RecipientTin, dl.RecipientIDType, dl.RecipientIDValue = "IG12345678901", "NRIC", "880101-14-5678"
		}, vtOne("ID_FORMAT", "delivery.recipientIdValue")},

		// Taxes.
		{"tax: 06 at 6 %", "", func(in *ValidationInput) { in.Doc.Lines[3].Taxes[0].TaxRate = vtN("6") },
			vtOne("TAX_RATE_NOT_ZERO", "invoiceLines.3.invoiceLineTaxes.0.taxRate")},
		{"tax: E at 0.000 passes", "", func(in *ValidationInput) { in.Doc.Lines[1].Taxes[0].TaxRate = vtN("0.000") }, nil},
		{"tax: E without reason", "", func(in *ValidationInput) { in.Doc.Lines[1].Taxes[0].ExemptionReason = "  " },
			vtOne("EXEMPTION_REASON_REQUIRED", "invoiceLines.1.invoiceLineTaxes.0.exemptionReason")},
		{"tax: E reason with a colon", "", func(in *ValidationInput) {
			in.Doc.Lines[1].Taxes[0].ExemptionReason = "Exempt under Sales Tax Act 2018. Reference No: 12"
		}, vtOne("EXEMPTION_REASON_FORMAT", "invoiceLines.1.invoiceLineTaxes.0.exemptionReason")},
		{"tax: E reason with . - , ( ) passes", "", func(in *ValidationInput) {
			in.Doc.Lines[1].Taxes[0].ExemptionReason = "Sales Tax (Goods Exempted From Tax) Order 2022, Schedule A - item 12.3"
		}, nil},
		{"tax: E reason of 300 passes", "", func(in *ValidationInput) { in.Doc.Lines[1].Taxes[0].ExemptionReason = strings.Repeat("e", 300) }, nil},
		{"tax: a second entry E without reason", "", func(in *ValidationInput) {
			in.Doc.Lines[3].Taxes = append(in.Doc.Lines[3].Taxes, LineTax{TaxType: "E"})
		}, vtOne("EXEMPTION_REASON_REQUIRED", "invoiceLines.3.invoiceLineTaxes.1.exemptionReason")},

		// References.
		{"references: on an invoice", "", func(in *ValidationInput) {
			in.Doc.References = []DocumentReference{{ReferenceNumber: vtRefNumber, UUID: vtRefUUID}}
		}, vtOne("REFERENCES_NOT_ALLOWED", "documentReferences")},
		{"references: on a self-billed invoice", KindSelfBilledInvoice, func(in *ValidationInput) {
			in.Doc.References = []DocumentReference{{ReferenceNumber: vtRefNumber, UUID: vtRefUUID}}
		}, vtOne("REFERENCES_NOT_ALLOWED", "documentReferences")},
		{"references: a credit note without", KindCreditNote, func(in *ValidationInput) { in.Doc.References = nil },
			vtOne("REFERENCES_REQUIRED", "documentReferences")},
		{"references: NA without isPreEinvoicing", KindCreditNote, func(in *ValidationInput) {
			in.Doc.References[0] = DocumentReference{ReferenceNumber: "NA", UUID: "NA"}
		}, vtOne("REFERENCE_NA_NOT_ALLOWED", "documentReferences.0")},
		{"references: NA uuid without isPreEinvoicing", KindSelfBilledDebitNote, func(in *ValidationInput) {
			in.Doc.References[0].UUID = "NA"
		}, vtOne("REFERENCE_NA_NOT_ALLOWED", "documentReferences.0")},
		{"references: NA with isPreEinvoicing passes", KindCreditNote, func(in *ValidationInput) {
			in.Doc.References[0] = DocumentReference{ReferenceNumber: "NA", UUID: "NA"}
			in.Doc.IsPreEinvoicing = true
		}, nil},
		{"references: old number, NA uuid, isPreEinvoicing passes", KindRefundNote, func(in *ValidationInput) {
			in.Doc.References[0] = DocumentReference{ReferenceNumber: "OLD-2023-77", UUID: "NA"}
			in.Doc.IsPreEinvoicing = true
		}, nil},
		{"references: lower-case uuid", KindCreditNote, func(in *ValidationInput) { in.Doc.References[0].UUID = strings.ToLower(vtRefUUID) },
			vtOne("REFERENCE_UUID_FORMAT", "documentReferences.0.uuid")},
		{"references: 25-character uuid", KindDebitNote, func(in *ValidationInput) { in.Doc.References[0].UUID = vtRefUUID[1:] },
			vtOne("REFERENCE_UUID_FORMAT", "documentReferences.0.uuid")},
		{"references: our UUID v7 instead of the authority's", KindDebitNote, func(in *ValidationInput) { in.Doc.References[0].UUID = in.Doc.ID },
			vtOne("REFERENCE_UUID_FORMAT", "documentReferences.0.uuid")},
		{"references: a credit note on our self-billed invoice", KindCreditNote, func(in *ValidationInput) {
			in.Referenced[vtRefNumber] = []*Document{vtOurs(KindSelfBilledInvoice, StatusValid)}
		}, vtOne("REFERENCE_WRONG_FAMILY", "documentReferences.0.referenceNumber")},
		{"references: a self-billed credit note on our invoice", KindSelfBilledCreditNote, func(in *ValidationInput) {
			in.Referenced[vtRefNumber] = []*Document{vtOurs(KindInvoice, StatusValid)}
		}, vtOne("REFERENCE_WRONG_FAMILY", "documentReferences.0.referenceNumber")},
		{"references: a debit note on a credit note of ours", KindDebitNote, func(in *ValidationInput) {
			in.Referenced[vtRefNumber] = []*Document{vtOurs(KindCreditNote, StatusValid)}
		}, vtOne("REFERENCE_WRONG_FAMILY", "documentReferences.0.referenceNumber")},
		{"references: an invoice and a credit note share the number, passes", KindCreditNote, func(in *ValidationInput) {
			in.Referenced[vtRefNumber] = []*Document{vtOurs(KindCreditNote, StatusDraft), vtOurs(KindInvoice, StatusValid)}
		}, nil},
		{"references: our consolidated invoice passes", KindRefundNote, func(in *ValidationInput) {
			in.Referenced[vtRefNumber] = []*Document{vtOurs(KindConsolidatedInvoice, StatusValid)}
		}, nil},
		{"references: not one of ours passes", KindCreditNote, func(in *ValidationInput) { in.Referenced = nil }, nil},
		{"references: our invoice, cancelled", KindCreditNote, func(in *ValidationInput) {
			in.Referenced[vtRefNumber] = []*Document{vtOurs(KindInvoice, StatusCancelled)}
		}, vtOne("REFERENCE_NOT_VALID", "documentReferences.0.referenceNumber")},
		{"references: our self-billed invoice, still Submitted", KindSelfBilledRefundNote, func(in *ValidationInput) {
			in.Referenced[vtRefNumber] = []*Document{vtOurs(KindSelfBilledInvoice, StatusSubmitted)}
		}, vtOne("REFERENCE_NOT_VALID", "documentReferences.0.referenceNumber")},
		{"references: the second of two", KindCreditNote, func(in *ValidationInput) {
			in.Doc.References = append(in.Doc.References, DocumentReference{ReferenceNumber: "INV-2026-0002", UUID: "NA"})
		}, vtOne("REFERENCE_NA_NOT_ALLOWED", "documentReferences.1")},
	}
}

// TestValidateAmounts covers the checks of an autoCalculate: false
// document (DECISIONS section 6): each amount is recomputed from the
// client's own amounts of the step before, so one wrong amount that the
// client carried on is reported once.
func TestValidateAmounts(t *testing.T) { vtRun(t, vtAmountCases()) }

func vtAmountCases() []vtCase {
	return []vtCase{
		{"manual: calculated amounts pass", "", func(in *ValidationInput) { vtManual(in) }, nil},
		{"manual: foreign currency with MYR amounts passes", "", func(in *ValidationInput) {
			in.Doc.CurrencyCode, in.Doc.ExchangeRate, in.Doc.Payment.PaymentMode = "USD", vtN("4.7231"), "03"
			Calculate(in.Doc)
			vtManual(in)
		}, nil},

		// Off by 0.02: reported; off by 0.01: tolerated.
		{"mismatch: line total including tax off by 0.02", "", func(in *ValidationInput) {
			vtShift(&vtManual(in).Lines[2].TotalIncludingTax, "0.02")
		}, vtOne("AMOUNT_MISMATCH", "invoiceLines.2.totalIncludingTax")},
		{"mismatch: line total including tax off by 0.01 passes", "", func(in *ValidationInput) {
			vtShift(&vtManual(in).Lines[2].TotalIncludingTax, "0.01")
		}, nil},
		{"mismatch: total payable off by -0.02", "", func(in *ValidationInput) {
			vtShift(&vtManual(in).TotalPayableAmount, "-0.02")
		}, vtOne("AMOUNT_MISMATCH", "totalPayableAmount")},
		{"mismatch: total payable off by -0.01 passes", "", func(in *ValidationInput) {
			vtShift(&vtManual(in).TotalPayableAmount, "-0.01")
		}, nil},
		{"mismatch: tax subtotal taxable amount off by 0.02", "", func(in *ValidationInput) {
			vtShift(&vtManual(in).TaxSubtotals[0].TaxableAmount, "0.02")
		}, vtOne("AMOUNT_MISMATCH", "taxSubtotals.0.taxableAmount")},
		{"mismatch: MYR tax of a tax entry off by 0.02", "", func(in *ValidationInput) {
			in.Doc.CurrencyCode, in.Doc.ExchangeRate = "EUR", vtN("5.1")
			Calculate(in.Doc)
			d := vtManual(in)
			vtShift(&d.Lines[0].Taxes[0].TaxAmountMyr, "0.02")
			vtShift(&d.Lines[0].TaxAmountMyr, "0.02")
			vtShift(&d.TotalTaxAmountMyr, "0.02")
			vtShift(&d.TaxSubtotals[0].TaxAmountMyr, "0.02")
		}, vtOne("AMOUNT_MISMATCH", "invoiceLines.0.invoiceLineTaxes.0.taxAmountMyr")},

		// One wrong amount that every later step was computed from: one
		// problem, at that amount, not in the totals after it.
		{"not cumulative: line subtotal off by 0.02", "", func(in *ValidationInput) {
			l := &in.Doc.Lines[0]
			l.UnitPrice = vtN("49.91") // the client's subtotal 99.82 instead of 99.80
			Calculate(in.Doc)
			l.UnitPrice = vtN("49.90")
			vtManual(in)
		}, vtOne("AMOUNT_MISMATCH", "invoiceLines.0.subtotal")},
		{"not cumulative: line subtotal off by 0.01 passes", "", func(in *ValidationInput) {
			l := &in.Doc.Lines[3]
			l.UnitPrice = vtN("15.553333") // 46.66 instead of 46.65
			Calculate(in.Doc)
			l.UnitPrice = vtN("15.55")
			vtManual(in)
		}, nil},
		{"not cumulative: tourism tax off by 0.02", "", func(in *ValidationInput) {
			tax := &in.Doc.Lines[2].Taxes[1]
			tax.TaxRate = vtN("10.01") // 20.02 instead of 20.00
			Calculate(in.Doc)
			tax.TaxRate = vtN("10")
			in.Doc.TaxSubtotals[2].TaxRate = vtN("10")
			vtManual(in)
		}, vtOne("AMOUNT_MISMATCH", "invoiceLines.2.invoiceLineTaxes.1.taxAmount")},
		{"not cumulative: total discount off by 0.02", "", func(in *ValidationInput) {
			in.Doc.InvoiceDiscount = vtA("5.02")
			Calculate(in.Doc)
			in.Doc.InvoiceDiscount = vtA("5.00")
			vtManual(in)
		}, vtOne("AMOUNT_MISMATCH", "totalDiscountAmount")},
		{"not cumulative: prepayment off by 0.05", "", func(in *ValidationInput) {
			in.Doc.Payment.PrepaymentAmount = vtA("10.05")
			Calculate(in.Doc)
			in.Doc.Payment.PrepaymentAmount = vtA("10.00")
			vtManual(in)
		}, vtOne("AMOUNT_MISMATCH", "prepaymentAmount")},
		{"each step from the client's previous amount: a lone line subtotal", "", func(in *ValidationInput) {
			// The client's line total excluding tax (89.82) is right, but not
			// 99.82 - 9.98: both are reported, the document totals are not.
			vtShift(&vtManual(in).Lines[0].Subtotal, "0.02")
		}, []vtProblem{{"AMOUNT_MISMATCH", "invoiceLines.0.subtotal"}, {"AMOUNT_MISMATCH", "invoiceLines.0.totalExcludingTax"}}},
		{"several lines off", "", func(in *ValidationInput) {
			d := vtManual(in)
			vtShift(&d.Lines[1].TotalIncludingTax, "1")
			vtShift(&d.Lines[3].TotalIncludingTax, "-1")
		}, []vtProblem{{"AMOUNT_MISMATCH", "invoiceLines.1.totalIncludingTax"}, {"AMOUNT_MISMATCH", "invoiceLines.3.totalIncludingTax"}}},
		{"06 with a tax amount", "", func(in *ValidationInput) {
			d := vtManual(in)
			d.Lines[3].Taxes[0].TaxAmount = vtA("2.80")
			vtShift(&d.Lines[3].TaxAmount, "2.80")
			vtShift(&d.Lines[3].TotalIncludingTax, "2.80")
			vtShift(&d.TotalTaxAmount, "2.80")
			vtShift(&d.TotalIncludingTax, "2.80")
			vtShift(&d.TotalPayableAmount, "2.80")
			vtShift(&d.TaxSubtotals[3].TaxAmount, "2.80")
		}, vtOne("AMOUNT_MISMATCH", "invoiceLines.3.invoiceLineTaxes.0.taxAmount")},

		// Missing amounts: reported once; the next steps use the recomputed value.
		{"missing: line subtotal", "", func(in *ValidationInput) { vtManual(in).Lines[0].Subtotal = nil },
			vtOne("AMOUNT_MISSING", "invoiceLines.0.subtotal")},
		{"missing: line tax entry", "", func(in *ValidationInput) { vtManual(in).Lines[2].Taxes[0].TaxAmount = nil },
			vtOne("AMOUNT_MISSING", "invoiceLines.2.invoiceLineTaxes.0.taxAmount")},
		{"missing: discount of a line without discount", "", func(in *ValidationInput) { vtManual(in).Lines[1].DiscountAmount = nil },
			vtOne("AMOUNT_MISSING", "invoiceLines.1.discountAmount")},
		{"missing: total including tax", "", func(in *ValidationInput) { vtManual(in).TotalIncludingTax = nil },
			vtOne("AMOUNT_MISSING", "totalIncludingTax")},
		{"missing: rounding of a document not paid in cash", "", func(in *ValidationInput) {
			in.Doc.Payment.PaymentMode = "03"
			Calculate(in.Doc)
			vtManual(in).RoundingAmount = nil
		}, vtOne("AMOUNT_MISSING", "roundingAmount")},
		{"missing: taxSubtotals", "", func(in *ValidationInput) { vtManual(in).TaxSubtotals = nil },
			vtOne("AMOUNT_MISSING", "taxSubtotals")},
		{"missing: a tax subtotal's tax", "", func(in *ValidationInput) { vtManual(in).TaxSubtotals[1].TaxAmount = nil },
			vtOne("AMOUNT_MISSING", "taxSubtotals.1.taxAmount")},
		{"missing: MYR tax of a line", "", func(in *ValidationInput) {
			in.Doc.CurrencyCode, in.Doc.ExchangeRate = "SGD", vtN("3.45")
			Calculate(in.Doc)
			vtManual(in).Lines[3].TaxAmountMyr = nil
		}, vtOne("AMOUNT_MISSING", "invoiceLines.3.taxAmountMyr")},
		{"missing: total MYR tax", "", func(in *ValidationInput) {
			in.Doc.CurrencyCode, in.Doc.ExchangeRate = "SGD", vtN("3.45")
			Calculate(in.Doc)
			vtManual(in).TotalTaxAmountMyr = nil
		}, vtOne("AMOUNT_MISSING", "totalTaxAmountMyr")},
		{"missing: no MYR amounts without an exchange rate", "", func(in *ValidationInput) {
			in.Doc.CurrencyCode = "SGD"
			Calculate(in.Doc)
			vtManual(in)
		}, vtOne("EXCHANGE_RATE_REQUIRED", "exchangeRate")},

		// Cash rounding.
		{"rounding: none on a cash document", "", func(in *ValidationInput) {
			d := vtManual(in)
			d.RoundingAmount = vtA("0.00")
			vtShift(&d.TotalPayableAmount, "0.01")
		}, vtOne("ROUNDING_MISMATCH", "roundingAmount")},
		{"rounding: to 0.10 instead of 0.05", "", func(in *ValidationInput) {
			d := vtManual(in)
			d.RoundingAmount = vtA("0.04") // 659.96 -> 660.00
			vtShift(&d.TotalPayableAmount, "0.05")
		}, vtOne("ROUNDING_MISMATCH", "roundingAmount")},
		{"rounding: on a transfer", "", func(in *ValidationInput) {
			in.Doc.Payment.PaymentMode = "03"
			Calculate(in.Doc)
			d := vtManual(in)
			d.RoundingAmount = vtA("-0.01")
			vtShift(&d.TotalPayableAmount, "-0.01")
		}, vtOne("ROUNDING_MISMATCH", "roundingAmount")},
		{"rounding: on a cash document in USD", "", func(in *ValidationInput) {
			in.Doc.CurrencyCode, in.Doc.ExchangeRate = "USD", vtN("4.7")
			Calculate(in.Doc)
			d := vtManual(in)
			d.RoundingAmount = vtA("-0.01")
			vtShift(&d.TotalPayableAmount, "-0.01")
		}, vtOne("ROUNDING_MISMATCH", "roundingAmount")},

		// Tax subtotals.
		{"subtotals: one missing", "", func(in *ValidationInput) { d := vtManual(in); d.TaxSubtotals = d.TaxSubtotals[:3] },
			vtOne("TAX_SUBTOTALS_MISMATCH", "taxSubtotals")},
		{"subtotals: one too many", "", func(in *ValidationInput) {
			d := vtManual(in)
			d.TaxSubtotals = append(d.TaxSubtotals, TaxSubtotal{TaxType: "01", TaxRate: vtN("10"), TaxableAmount: vtA("0"), TaxAmount: vtA("0")})
		}, vtOne("TAX_SUBTOTALS_MISMATCH", "taxSubtotals.4")},
		{"subtotals: wrong rate", "", func(in *ValidationInput) { vtManual(in).TaxSubtotals[0].TaxRate = vtN("6") },
			[]vtProblem{{"TAX_SUBTOTALS_MISMATCH", "taxSubtotals"}, {"TAX_SUBTOTALS_MISMATCH", "taxSubtotals.0"}}},
		{"subtotals: the same group twice", "", func(in *ValidationInput) {
			d := vtManual(in)
			d.TaxSubtotals = append(d.TaxSubtotals, d.TaxSubtotals[0])
		}, vtOne("TAX_SUBTOTALS_MISMATCH", "taxSubtotals.4")},
		{"subtotals: another order passes", "", func(in *ValidationInput) {
			d := vtManual(in)
			d.TaxSubtotals[0], d.TaxSubtotals[3] = d.TaxSubtotals[3], d.TaxSubtotals[0]
		}, nil},
		{"subtotals: rate 8.0 for 8 passes", "", func(in *ValidationInput) { vtManual(in).TaxSubtotals[0].TaxRate = vtN("8.0") }, nil},
		{"subtotals: empty", "", func(in *ValidationInput) { vtManual(in).TaxSubtotals = []TaxSubtotal{} },
			vtOne("TAX_SUBTOTALS_MISMATCH", "taxSubtotals")},
	}
}

// TestValidateRulesCovered checks that every rule code validate.go and
// validate_amounts.go can emit has a failing case above.
func TestValidateRulesCovered(t *testing.T) {
	emitted := map[string]bool{}
	for _, file := range []string{"validate.go", "validate_amounts.go"} {
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range regexp.MustCompile(`\badd\("([A-Z_]+)"`).FindAllSubmatch(src, -1) {
			emitted[string(m[1])] = true
		}
	}
	for _, r := range DatedRules { // the dated rules' problems carry their row's id
		if r.Validate {
			emitted[r.ID] = true
		}
	}
	if len(emitted) < 26 {
		t.Fatalf("found only %d rule codes in the sources: %v", len(emitted), emitted)
	}
	// The rules the failing cases of the tables show.
	shown := map[string]bool{}
	collect := func(cases []vtCase) {
		for _, c := range cases {
			for _, p := range c.want {
				shown[p.Rule] = true
			}
		}
	}
	collect(vtRuleCases())
	collect(vtAmountCases())
	collect(vtAuthorityCases())
	for rule := range emitted {
		if !shown[rule] {
			t.Errorf("rule %s has no failing case", rule)
		}
	}
}

func TestSummary(t *testing.T) {
	for _, c := range []struct {
		name     string
		problems []Problem
		want     string
	}{
		{"none", nil, "The document is valid and ready to submit."},
		{"one", []Problem{{"PARTY_NOT_READY", "buyer.contact.phone", "is required"}},
			"1 problem: buyer contact phone is required."},
		{"two", []Problem{
			{"REQUIRED", "invoiceSerialNumber", "is required: the document's own number"},
			{"REQUIRED", "invoiceLines.0.invoiceLineTaxes.1.taxRate", "is required"},
		}, "2 problems: invoiceSerialNumber is required: the document's own number; line 1 tax 2 taxRate is required."},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := Summary(c.problems); got != c.want {
				t.Errorf("Summary = %q, want %q", got, c.want)
			}
		})
	}

	// From validate itself.
	in := vtInput(KindInvoice)
	in.Party.Contact.Phone = ""
	if got, want := Summary(ValidateDocument(in)), "1 problem: buyer contact phone is required."; got != want {
		t.Errorf("Summary = %q, want %q", got, want)
	}
	in = vtInput(KindInvoice)
	vtManual(&in)
	vtShift(&in.Doc.TotalPayableAmount, "1")
	if got, want := Summary(ValidateDocument(in)), "1 problem: totalPayableAmount is 660.95, expected 659.95."; got != want {
		t.Errorf("Summary = %q, want %q", got, want)
	}
}

func TestHumanField(t *testing.T) {
	for path, want := range map[string]string{
		"invoiceLines.0.invoiceLineTaxes.1.taxRate": "line 1 tax 2 taxRate",
		"invoiceLines.9.unitPrice":                  "line 10 unitPrice",
		"invoiceLines":                              "invoiceLines",
		"buyer.contact.phone":                       "buyer contact phone",
		"supplier.address.postCode":                 "supplier address postCode",
		"taxSubtotals.0.taxAmount":                  "tax subtotal 1 taxAmount",
		"documentReferences.2":                      "reference 3",
		"invoiceLines.0.classifications.1":          "line 1 classification 2",
		"delivery.recipientAddress.line1":           "delivery recipientAddress line1",
		"things.3":                                  "things 4",
		"exchangeRate":                              "exchangeRate",
	} {
		if got := humanField(path); got != want {
			t.Errorf("humanField(%q) = %q, want %q", path, got, want)
		}
	}
}

func TestValidateDocumentOrder(t *testing.T) {
	// Problems come in the order of their fields, lines by number.
	in := vtInput(KindInvoice)
	lines := in.Doc.Lines
	for len(in.Doc.Lines) < 12 {
		in.Doc.Lines = append(in.Doc.Lines, lines...)
	}
	in.Doc.Lines = in.Doc.Lines[:12]
	in.Doc.Lines[10].Quantity = nil
	in.Doc.Lines[2].Quantity = nil
	in.Doc.InvoiceSerialNumber = ""
	in.Party.Contact.Phone = ""
	Calculate(in.Doc)
	var got []string
	for _, p := range ValidateDocument(in) {
		got = append(got, p.Field)
	}
	want := []string{"buyer.contact.phone", "invoiceLines.2.quantity", "invoiceLines.10.quantity", "invoiceSerialNumber"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
}

// TestValidateTenantAsBuyer: on self-billed kinds the tenant is the buyer,
// which carries no MSIC code nor tourism tax number; as a supplier it must.
func TestValidateTenantAsBuyer(t *testing.T) {
	noMSIC := func(in *ValidationInput) {
		in.Tenant.Profile.MSICCode, in.Tenant.Profile.BusinessActivityDescription = "", ""
	}
	vtRun(t, []vtCase{
		{name: "self-billed: tenant without MSIC", kind: KindSelfBilledInvoice, change: noMSIC},
		{name: "invoice: tenant without MSIC", kind: KindInvoice, change: noMSIC, want: []vtProblem{
			{"PROFILE_INCOMPLETE", "supplier.businessActivityDescription"}, {"PROFILE_INCOMPLETE", "supplier.msicCode"}}},
	})
}
