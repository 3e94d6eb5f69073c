package ubl_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/einvoice/einvoice/internal/einvoice"
	"github.com/einvoice/einvoice/internal/money"
	"github.com/einvoice/einvoice/internal/ubl"
)

// sharedTestdata is the folder of public test data, beside the checkout in
// CI (../shared/testdata from the module root).
const sharedTestdata = "../../../shared/testdata"

// shared returns the path of a file or folder of the shared test data, and
// skips the test when the folder is absent.
func shared(t testing.TB, parts ...string) string {
	t.Helper()
	p := filepath.Join(append([]string{sharedTestdata}, parts...)...)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("shared test data absent (%v): skipping", err)
	}
	return p
}

func num(s string) *money.Number { n := money.MustNumber(s); return &n }
func amt(s string) *money.Amount { a := money.MustAmount(s); return &a }

// fixedNow is one moment after every fixture's issue time.
var fixedNow = time.Date(2026, 11, 21, 0, 15, 0, 0, time.UTC)

// issuedAt is the fixtures' issue time: 07:15 in Kuala Lumpur on 21
// November, so 23:15:00Z on the 20th in UTC.
var issuedAt = time.Date(2026, 11, 21, 7, 15, 0, 0, time.FixedZone("MYT", 8*60*60))

// A referenced original of the notes (26 upper-case letters and digits).
const (
	refNumber   = "INV-2026-0042"
	refUUID     = "F9D425P6DS7D8IU3MTNX2KVPJG"
	sbRefNumber = "SB-2026-0007"
	sbRefUUID   = "QK2M8ZP41XR7TB3N9WCE6HJD5A"
)

// tenantProfile is the tenant: the supplier of invoices and notes, the buyer
// of self-billed documents.
func tenantProfile() einvoice.Profile {
	return einvoice.Profile{
		Name: "Maju Jaya Trading Sdn. Bhd.", TIN: "C2584563200", IDType: "BRN", IDValue: "202001012345",
		SSTRegistrationNumber: "W10-1808-32000032", TourismTaxRegistrationNumber: "NA",
		MSICCode: "46510", BusinessActivityDescription: "Wholesale of computer hardware, software and peripherals",
		Address: einvoice.Address{Line1: "Lot 66, Bangunan Merdeka", Line2: "Persiaran Jaya", City: "Kuala Lumpur",
			State: "14", PostCode: "50480", CountryCode: "MYS"},
		Contact: einvoice.Contact{Phone: "+60312345678", Email: "billing@majujaya.example"},
	}
}

// hotelProfile is a hotel registered for tourism tax.
func hotelProfile() einvoice.Profile {
	return einvoice.Profile{
		Name: "Hotel Seri Pantai Sdn. Bhd.", TIN: "C10293847560", IDType: "BRN", IDValue: "201801023456",
		SSTRegistrationNumber: "B16-1809-22000123", TourismTaxRegistrationNumber: "141-1902-21000010",
		MSICCode: "55101", BusinessActivityDescription: "Hotels and resort hotels",
		Address: einvoice.Address{Line1: "1 Jalan Pantai Cenang", City: "Langkawi", State: "02", PostCode: "07000", CountryCode: "MYS"},
		Contact: einvoice.Contact{Phone: "+6049551234", Email: "frontdesk@seripantai.example"},
	}
}

// buyer is a Malaysian company without SST registration or e-mail, its
// address with an empty second line.
func buyer() *einvoice.Party {
	return &einvoice.Party{
		ID: "0198c0de-0000-7000-8000-0000000000b1", Kind: einvoice.KindBuyer,
		Name: "Hebat Group Berhad", TIN: "C20880050010", IDType: "BRN", IDValue: "201901234567",
		Address: einvoice.Address{Line1: "Lot 7, Jalan Ampang", Line3: "Ampang Point", City: "Ampang",
			State: "10", PostCode: "68000", CountryCode: "MYS"},
		Contact: einvoice.Contact{Phone: "+60123456789"},
	}
}

// foreignBuyer is a hotel guest from abroad.
func foreignBuyer() *einvoice.Party {
	return &einvoice.Party{
		ID: "0198c0de-0000-7000-8000-0000000000b2", Kind: einvoice.KindBuyer,
		Name: "Jane Tan", TIN: einvoice.TINForeignBuyer, IDType: "PASSPORT", IDValue: "K1234567A",
		SSTRegistrationNumber: "NA",
		Address:               einvoice.Address{Line1: "1 Orchard Road", City: "Singapore", State: "17", PostCode: "238824", CountryCode: "SGP"},
		Contact:               einvoice.Contact{Phone: "+6591234567", Email: "jane.tan@example.com"},
	}
}

// seller is an on-behalf seller abroad without a Malaysian TIN.
func seller() *einvoice.Party {
	return &einvoice.Party{
		ID: "0198c0de-0000-7000-8000-0000000000s1", Kind: einvoice.KindSeller,
		Name: "Lee Software Pte. Ltd.", TIN: einvoice.TINForeignSeller, IDType: "BRN", IDValue: "NA",
		SSTRegistrationNumber: "NA", TourismTaxRegistrationNumber: "NA",
		MSICCode: "00000", BusinessActivityDescription: "NOT APPLICABLE",
		Address: einvoice.Address{Line1: "8 Marina View", Line2: "#21-01 Asia Square Tower 1", City: "Singapore",
			State: "17", PostCode: "018960", CountryCode: "SGP"},
		Contact: einvoice.Contact{Phone: "+6562223333", Email: "billing@leesoftware.example"},
	}
}

// fixture is one realistic document with everything around it.
type fixture struct {
	name    string // the golden file, testdata/<name>.json
	sample  string // the official sample of the same kind
	version string
	doc     *einvoice.Document
	profile einvoice.Profile
	party   *einvoice.Party // buyer or on-behalf seller; nil for consolidated
}

// input is what a caller gives Marshal for the fixture.
func (f fixture) input() ubl.Input {
	supplier, customer := einvoice.Parties(f.doc, f.profile, f.party)
	return ubl.Input{Doc: f.doc, Supplier: supplier, Customer: customer, IssuedAt: issuedAt, Version: f.version}
}

// validation is what the service validates the fixture with.
func (f fixture) validation() einvoice.ValidationInput {
	return einvoice.ValidationInput{Doc: f.doc, Tenant: &einvoice.Tenant{ID: "t1", Profile: f.profile}, Party: f.party, Now: fixedNow}
}

// newDoc starts a document of the kind, its amounts calculated at the end
// by fixtures.
func newDoc(kind einvoice.DocumentKind, serial string, lines ...einvoice.Line) *einvoice.Document {
	info, _ := einvoice.InfoOf(kind)
	at := issuedAt
	return &einvoice.Document{
		ID: "doc-" + serial, Kind: kind, TypeCode: info.TypeCode,
		Status: einvoice.StatusReady, InvoiceSerialNumber: serial, CurrencyCode: "MYR", AutoCalculate: true,
		ErpIssuedAt: &at, Lines: lines,
	}
}

func tax(taxType, rate string) einvoice.LineTax {
	return einvoice.LineTax{TaxType: taxType, TaxRate: num(rate)}
}

// fixtures returns one document of each of the nine kinds and a
// foreign-currency hotel invoice with tourism tax and an exemption.
func fixtures() []fixture {
	invoice := newDoc(einvoice.KindInvoice, "INV-2026-0042",
		einvoice.Line{Classifications: []string{"019", "022"}, ProductDescription: "Laptop 14-inch, 16 GB <refurbished> & tested",
			Quantity: num("2"), UnitCode: "PCE", UnitPrice: num("3299.00"),
			DiscountRate: num("5"), DiscountDescription: "Year-end promotion",
			Taxes: []einvoice.LineTax{tax("01", "10")}},
		einvoice.Line{Classifications: []string{"007"}, ProductDescription: "Office space rental, November 2026",
			Quantity: num("1"), UnitCode: "MON", UnitPrice: num("4500"),
			FeeOrChargeRate: num("2.5"), FeeOrChargeDescription: "Service charge",
			Taxes: []einvoice.LineTax{tax("02", "8")}},
		einvoice.Line{Classifications: []string{"001"}, ProductDescription: "A4 paper, box of 5 reams",
			Quantity: num("1e1"), UnitCode: "BOX", UnitPrice: num("62.45"),
			Taxes: []einvoice.LineTax{{TaxType: "06"}}},
	)
	invoice.InvoiceDiscount, invoice.InvoiceDiscountDesc = amt("50.00"), "Loyalty discount"
	invoice.InvoiceFee, invoice.InvoiceFeeDesc = amt("25.00"), "Delivery"
	invoice.Payment = &einvoice.Payment{PaymentMode: "01", PaymentTerms: "Cash on delivery",
		SupplierBankAccountNumber: "1234567890123", PrepaymentAmount: amt("100.00"),
		PrepaymentDate: "2026-11-15", PrepaymentReferenceNumber: "PRE-0007"}
	invoice.InvoicePeriod = &einvoice.InvoicePeriod{FrequencyOfBilling: "Monthly",
		BillingPeriodStartDate: "2026-11-01", BillingPeriodEndDate: "2026-11-30"}
	invoice.Delivery = &einvoice.Delivery{RecipientName: "Hebat Group Warehouse", RecipientTin: "C20880050010",
		RecipientIDType: "BRN", RecipientIDValue: "201901234567",
		RecipientAddress: &einvoice.Address{Line1: "Lot 12, Jalan Perigi", City: "Klang", State: "10", PostCode: "41200", CountryCode: "MYS"}}

	credit := newDoc(einvoice.KindCreditNote, "CN-2026-0003",
		einvoice.Line{Classifications: []string{"019"}, ProductDescription: "Return of one laptop 14-inch",
			Quantity: num("1"), UnitCode: "PCE", UnitPrice: num("3299.00"), Taxes: []einvoice.LineTax{tax("01", "10")}})
	credit.References = []einvoice.DocumentReference{{ReferenceNumber: refNumber, UUID: refUUID}}
	credit.Payment = &einvoice.Payment{PaymentMode: "03", SupplierBankAccountNumber: "1234567890123"}

	debit := newDoc(einvoice.KindDebitNote, "DN-2026-0001",
		einvoice.Line{Classifications: []string{"016"}, ProductDescription: "Additional delivery to Klang",
			Quantity: num("1"), UnitCode: "C62", UnitPrice: num("80"), Taxes: []einvoice.LineTax{tax("02", "8")}})
	debit.References = []einvoice.DocumentReference{
		{ReferenceNumber: refNumber, UUID: refUUID},
		{ReferenceNumber: "INV-2026-0043", UUID: "R7TB3N9WCE6HJD5AQK2M8ZP41X"},
	}

	refund := newDoc(einvoice.KindRefundNote, "RN-2026-0001",
		einvoice.Line{Classifications: []string{"002"}, ProductDescription: "Refund of deposit paid in 2023",
			Quantity: num("1"), UnitCode: "C62", UnitPrice: num("500"), Taxes: []einvoice.LineTax{{TaxType: "06"}}})
	refund.IsPreEinvoicing = true
	refund.References = []einvoice.DocumentReference{{ReferenceNumber: "INV-2023-0815", UUID: "NA"}}
	refund.Payment = &einvoice.Payment{PaymentMode: "03", SupplierBankAccountNumber: "1234567890123"}

	consolidated := newDoc(einvoice.KindConsolidatedInvoice, "CON-2026-0011",
		einvoice.Line{Classifications: []string{"003"}, ProductDescription: "Receipts R0001 - R0150",
			Quantity: num("1"), UnitCode: "C62", UnitPrice: num("1250.40"), Taxes: []einvoice.LineTax{tax("01", "10")}},
		einvoice.Line{Classifications: []string{"001", "004"}, ProductDescription: "Receipts R0151 - R0200",
			Quantity: num("1"), UnitCode: "C62", UnitPrice: num("430.55"), Taxes: []einvoice.LineTax{{TaxType: "06"}}},
	)
	consolidated.InvoicePeriod = &einvoice.InvoicePeriod{FrequencyOfBilling: "Monthly",
		BillingPeriodStartDate: "2026-10-01", BillingPeriodEndDate: "2026-10-31"}
	consolidated.Payment = &einvoice.Payment{PaymentMode: "01"}

	sbLine := func(desc, qty string) einvoice.Line {
		return einvoice.Line{Classifications: []string{"019"}, ProductDescription: desc,
			Quantity: num(qty), UnitCode: "HUR", UnitPrice: num("150"), Taxes: []einvoice.LineTax{{TaxType: "06"}}}
	}
	sbInvoice := newDoc(einvoice.KindSelfBilledInvoice, "SB-2026-0007", sbLine("Software development services, October 2026", "40"))
	sbInvoice.Payment = &einvoice.Payment{PaymentMode: "07", PaymentTerms: "30 days"}
	sbNote := func(kind einvoice.DocumentKind, serial, desc, qty string) *einvoice.Document {
		d := newDoc(kind, serial, sbLine(desc, qty))
		d.References = []einvoice.DocumentReference{{ReferenceNumber: sbRefNumber, UUID: sbRefUUID}}
		return d
	}

	foreign := newDoc(einvoice.KindInvoice, "HSP-2026-1187",
		einvoice.Line{Classifications: []string{"017"}, ProductDescription: "Deluxe room, 3 nights",
			Quantity: num("3"), UnitCode: "DAY", UnitPrice: num("120.00"),
			Taxes: []einvoice.LineTax{tax("02", "8"), tax("03", "2.50")}},
		einvoice.Line{Classifications: []string{"008"}, ProductDescription: "Spa treatment",
			Quantity: num("1"), UnitCode: "C62", UnitPrice: num("85.00"),
			Taxes: []einvoice.LineTax{{TaxType: "E", TaxRate: num("0"),
				ExemptionReason: "Exempt under Service Tax (Exemption) Order 2018, item 3"}}},
		einvoice.Line{Classifications: []string{"003"}, ProductDescription: "Breakfast",
			Quantity: num("2"), UnitCode: "C62", UnitPrice: num("15.50"), Taxes: []einvoice.LineTax{{TaxType: "06"}}},
	)
	foreign.CurrencyCode, foreign.ExchangeRate = "USD", num("4.4725")
	foreign.Payment = &einvoice.Payment{PaymentMode: "04"}

	// An export with the authority's own codes and trade fields
	// (DECISIONS 13): a tariff code and origin per line, an authority
	// classification on one, the customs forms, FTA, Incoterms and a bill
	// reference number.
	trade := newDoc(einvoice.KindInvoice, "EXP-2026-0005",
		einvoice.Line{Classifications: []string{"019"}, AuthorityClassification: "003", TariffCode: "8471.30.1000", CountryOfOrigin: "MYS",
			ProductDescription: "Laptop 14-inch", Quantity: num("20"), UnitCode: "PCE", UnitPrice: num("2899.00"),
			Taxes: []einvoice.LineTax{{TaxType: "06"}}},
		einvoice.Line{Classifications: []string{"001"}, TariffCode: "8473.30.9000", CountryOfOrigin: "CHN",
			ProductDescription: "Laptop batteries", Quantity: num("40"), UnitCode: "PCE", UnitPrice: num("120.00"),
			Taxes: []einvoice.LineTax{{TaxType: "06"}}},
	)
	trade.CustomsFormReference, trade.CustomsForm2Reference = "B12345678912", "E12345678912,E23456789123"
	trade.FreeTradeAgreement, trade.Incoterms, trade.BillReferenceNumber = "ASEAN-Australia-New Zealand FTA (AANZFTA)", "CIF", "BL-2026-0099"
	trade.Payment = &einvoice.Payment{PaymentMode: "03", SupplierBankAccountNumber: "1234567890123"}

	profile, hotel := tenantProfile(), hotelProfile()
	fs := []fixture{
		{"invoice", "1.1-Invoice-Sample.json", "1.1", invoice, profile, buyer()},
		{"credit_note", "1.1-Credit-Note-Sample.json", "1.0", credit, profile, buyer()},
		{"debit_note", "1.1-Debit-Note-Sample.json", "1.1", debit, profile, buyer()},
		{"refund_note", "1.1-Refund-Note-Sample.json", "1.1", refund, profile, buyer()},
		{"consolidated_invoice", "1.1-Invoice-Consolidated-Sample.json", "1.1", consolidated, profile, nil},
		{"self_billed_invoice", "1.1-Self-Billed-Invoice-Sample.json", "1.1", sbInvoice, profile, seller()},
		{"self_billed_credit_note", "1.1-Self-Billed-Credit-Sample.json", "1.1",
			sbNote(einvoice.KindSelfBilledCreditNote, "SBC-2026-0001", "Credit for 5 hours not worked", "5"), profile, seller()},
		{"self_billed_debit_note", "1.1-Self-Billed-Debit-Sample.json", "1.1",
			sbNote(einvoice.KindSelfBilledDebitNote, "SBD-2026-0001", "Additional 4 hours of support", "4"), profile, seller()},
		{"self_billed_refund_note", "1.1-Self-Billed-Refund-Sample.json", "1.0",
			sbNote(einvoice.KindSelfBilledRefundNote, "SBR-2026-0001", "Refund of 2 hours billed twice", "2"), profile, seller()},
		{"foreign_currency", "1.1-Invoice-ForeignCurrency-Sample.json", "1.1", foreign, hotel, foreignBuyer()},
		{"trade_invoice", "1.1-Invoice-MultiLineItem-Sample.json", "1.1", trade, profile, buyer()},
	}
	for _, f := range fs {
		einvoice.Calculate(f.doc)
	}
	return fs
}
