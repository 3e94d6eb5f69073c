package pdf

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"time"

	"github.com/einvoice/einvoice/internal/einvoice"
	"github.com/einvoice/einvoice/internal/money"
)

// Test documents.

func amt(s string) *money.Amount { a := money.MustAmount(s); return &a }
func num(s string) *money.Number { n := money.MustNumber(s); return &n }

var (
	issuedAt    = time.Date(2026, 3, 1, 2, 15, 0, 0, time.UTC) // 10:15 in Malaysia
	validatedAt = time.Date(2026, 3, 1, 2, 17, 30, 0, time.UTC)
)

const (
	testUUID = "42S512YACQBRSRHYKBXBTGQG22"
	testLong = "YQH73576FY9VR57B2026030110172941"
	testURL  = "https://myinvois.hasil.gov.my/" + testUUID + "/share/" + testLong
)

func supplier() einvoice.PartySnapshot {
	return einvoice.PartySnapshot{
		Name: "Syarikat Jaya Sdn. Bhd.", TIN: "C21638015020", IDType: "BRN", IDValue: "201901234567",
		SSTRegistrationNumber: "W10-1808-32000001", TourismTaxRegistrationNumber: "141-1908-12345678",
		MSICCode: "62010", BusinessActivityDescription: "Computer programming activities",
		Address: einvoice.Address{Line1: "Lot 66, Bangunan Merdeka", Line2: "Persiaran Jaya", City: "Kuala Lumpur",
			State: "14", PostCode: "50480", CountryCode: "MYS"},
		Contact: einvoice.Contact{Phone: "+60312345678", Email: "billing@jaya.example.my"},
	}
}

func customer() einvoice.PartySnapshot {
	return einvoice.PartySnapshot{
		Name: "腾讯科技有限公司", TIN: "C20880050010", IDType: "BRN", IDValue: "202001000123",
		SSTRegistrationNumber: "NA",
		Address: einvoice.Address{Line1: "No. 8, Jalan Kenari 5", Line2: "Bandar Puchong Jaya", City: "Puchong",
			State: "10", PostCode: "47100", CountryCode: "MYS"},
		Contact: einvoice.Contact{Phone: "+60380001234", Email: "ap@tencent.example.com"},
	}
}

// testLine is line i of a test document: 10 x 12.50, 10% discount, 8%
// service tax.
func testLine(i int) einvoice.Line {
	return einvoice.Line{
		Classifications:    []string{"022"},
		ProductDescription: fmt.Sprintf("Item %03d: cloud hosting, monthly subscription for the production cluster", i+1),
		Quantity:           num("10"), UnitCode: "C62", UnitPrice: num("12.5"),
		DiscountRate: num("10"), DiscountDescription: "Loyalty discount",
		Taxes: []einvoice.LineTax{{TaxType: "02", TaxRate: num("8"), TaxAmount: amt("9.00")}},

		Subtotal: amt("125.00"), DiscountAmount: amt("12.50"), FeeOrChargeAmount: amt("0.00"),
		TotalExcludingTax: amt("112.50"), TaxAmount: amt("9.00"), TotalIncludingTax: amt("121.50"),
	}
}

// sampleDoc is an invoice with n lines; the totals match them.
func sampleDoc(n int) *einvoice.Document {
	d := &einvoice.Document{
		ID: "doc_1", Kind: einvoice.KindInvoice, TypeCode: "01", Status: einvoice.StatusValid,
		InvoiceSerialNumber: "INV-2026-0001", CurrencyCode: "MYR",
		ErpIssuedAt:   &issuedAt,
		InvoicePeriod: &einvoice.InvoicePeriod{FrequencyOfBilling: "Monthly", BillingPeriodStartDate: "2026-02-01", BillingPeriodEndDate: "2026-02-28"},
		Payment: &einvoice.Payment{PaymentMode: "03", PaymentTerms: "30 days from the invoice date",
			SupplierBankAccountNumber: "5140-1234-5678", PrepaymentAmount: amt("100.00"),
			PrepaymentDate: "2026-02-15", PrepaymentReferenceNumber: "PRE-0042"},
		Delivery: &einvoice.Delivery{RecipientName: "Gudang Puchong", RecipientTin: "C20880050010",
			RecipientAddress: &einvoice.Address{Line1: "Lot 3, Jalan Industri", City: "Puchong", State: "10", PostCode: "47100", CountryCode: "MYS"}},
		Authority: &einvoice.AuthorityRecord{DocumentUUID: testUUID, LongID: testLong, IssuedAt: &issuedAt, Version: "1.1"},
		CreatedAt: issuedAt, UpdatedAt: issuedAt,
	}
	for i := range n {
		d.Lines = append(d.Lines, testLine(i))
	}
	sub := money.Zero()
	tax := money.Zero()
	for range n {
		sub = sub.Add(money.MustAmount("112.50"))
		tax = tax.Add(money.MustAmount("9.00"))
	}
	incl := sub.Add(tax)
	payable := incl.Sub(money.MustAmount("100.00"))
	d.Totals = einvoice.Totals{
		Subtotal: &sub, TotalDiscountAmount: amt("0.00"), TotalFeeAmount: amt("0.00"),
		TotalExcludingTax: &sub, TotalTaxAmount: &tax, TotalIncludingTax: &incl,
		PrepaymentAmount: amt("100.00"), RoundingAmount: amt("0.00"), TotalPayableAmount: &payable,
		TaxSubtotals: []einvoice.TaxSubtotal{{TaxType: "02", TaxRate: num("8"), TaxableAmount: &sub, TaxAmount: &tax}},
	}
	return d
}

// validation is a validation with a QR-like PNG.
func validation() *Validation {
	return &Validation{UUID: testUUID, LongID: testLong, ValidatedAt: validatedAt, URL: testURL, QRPNG: testPNG()}
}

// testPNG is a 29x29-module checkerboard scaled to 232 px, standing in for a
// QR code (the QR package is someone else's).
func testPNG() []byte {
	const modules, scale = 29, 8
	img := image.NewGray(image.Rect(0, 0, modules*scale, modules*scale))
	for y := range modules * scale {
		for x := range modules * scale {
			c := color.Gray{Y: 255}
			if (x/scale+y/scale)%2 == 0 || (x/scale < 7 && y/scale < 7) {
				c = color.Gray{Y: 0}
			}
			img.SetGray(x, y, c)
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		panic(err)
	}
	return buf.Bytes()
}

func sampleInput(n int, valid bool) Input {
	in := Input{Doc: sampleDoc(n), Supplier: supplier(), Customer: customer()}
	if valid {
		in.Validation = validation()
	} else {
		in.Doc.Status = einvoice.StatusDraft
		in.Doc.Authority = nil
	}
	return in
}
