package einvoice_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/einvoice/einvoice/internal/einvoice"
)

const calcTera = "1000000000000" // 10^12

// PrepareDocument: what create and update refuse of a document's amounts
// (DECISIONS 12), every field at fault named.
func TestPrepareDocumentAmounts(t *testing.T) {
	line := func(qty, price string, taxes ...einvoice.LineTax) []einvoice.Line {
		return []einvoice.Line{calcLine(qty, price, taxes...)}
	}
	thousand := make([]einvoice.Line, 1000)
	for i := range thousand {
		thousand[i] = calcLine("1", calcTera)
	}
	for _, tt := range []struct {
		name string
		doc  einvoice.Document
		want []string // the fields named, sorted
	}{
		{"quantity x price", einvoice.Document{AutoCalculate: true, Lines: line(calcTera, calcTera)}, []string{
			"invoiceLines.0.subtotal", "invoiceLines.0.totalExcludingTax", "invoiceLines.0.totalIncludingTax",
			"subtotal", "totalExcludingTax", "totalIncludingTax", "totalPayableAmount"}},
		{"1,000 lines at the limit", einvoice.Document{AutoCalculate: true, Lines: thousand}, []string{
			"subtotal", "totalExcludingTax", "totalIncludingTax", "totalPayableAmount"}},
		{"tourism tax per unit", einvoice.Document{AutoCalculate: true, Lines: line("1000000", "0", calcTax("03", "10000000"))}, []string{
			"invoiceLines.0.invoiceLineTaxes.0.taxAmount", "invoiceLines.0.taxAmount", "invoiceLines.0.totalIncludingTax",
			"taxSubtotals.0.taxAmount", "totalIncludingTax", "totalPayableAmount", "totalTaxAmount"}},
		{"exchange rate", einvoice.Document{AutoCalculate: true, CurrencyCode: "USD", ExchangeRate: calcN("1000000"),
			Lines: line("1", "1000000000", calcTax("02", "100"))}, []string{
			"invoiceLines.0.invoiceLineTaxes.0.taxAmountMyr", "invoiceLines.0.taxAmountMyr", "taxSubtotals.0.taxAmountMyr", "totalTaxAmountMyr"}},
		{"negative payable", einvoice.Document{AutoCalculate: true, Lines: line("1", "1"), InvoiceDiscount: calcA(calcTera),
			Payment: &einvoice.Payment{PrepaymentAmount: calcA(calcTera)}}, []string{"totalPayableAmount"}},
		{"at the limit", einvoice.Document{AutoCalculate: true, Lines: line("1", calcTera), InvoiceDiscount: calcA(calcTera),
			Payment: calcCash("0.01")}, nil},
		// Given amounts are within the limits by parsing; the products of the
		// inputs are validate's business, not a reason to refuse a draft.
		{"manual amounts", einvoice.Document{Lines: []einvoice.Line{{Quantity: calcN(calcTera), UnitPrice: calcN(calcTera),
			Subtotal: calcA(calcTera)}}, Totals: einvoice.Totals{TotalPayableAmount: calcA("-" + calcTera)}}, nil},
		// Refused inputs are not calculated: a 500 % discount is one problem.
		{"refused input", einvoice.Document{AutoCalculate: true, Lines: []einvoice.Line{calcLineDF(calcTera, calcTera, "500", "")}},
			[]string{"invoiceLines.0.discountRate"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := tt.doc
			got := einvoice.PrepareDocument(&d, einvoice.Kinds[0])
			wantPaths(t, got, tt.want)
			if tt.name == "refused input" {
				if d.Subtotal != nil {
					t.Errorf("refused inputs were calculated: subtotal %s", d.Subtotal)
				}
				return
			}
			for path, msgs := range got {
				if len(msgs) != 1 || !strings.Contains(msgs[0], "at most 10^12") {
					t.Errorf("%s: %q does not say the limit", path, msgs)
				}
			}
		})
	}
}

// ValidateDocumentInput refuses a negative discount, fee or prepayment and
// a tax type twice on a line, naming the second entry (DECISIONS 12).
func TestValidateDocumentInputAmounts(t *testing.T) {
	for _, tt := range []struct {
		name string
		doc  einvoice.Document
		want []string
	}{
		{"negative discount, fee, prepayment", einvoice.Document{InvoiceDiscount: calcA("-5"), InvoiceFee: calcA("-0.01"),
			Payment: &einvoice.Payment{PrepaymentAmount: calcA("-5")}},
			[]string{"invoiceDiscountAmount", "invoiceFeeAmount", "payment.prepaymentAmount"}},
		{"zero discount, fee, prepayment", einvoice.Document{InvoiceDiscount: calcA("0"), InvoiceFee: calcA("0"),
			Payment: &einvoice.Payment{PrepaymentAmount: calcA("0")}}, nil},
		{"a tax type twice", einvoice.Document{Lines: []einvoice.Line{calcLine("1", "1"),
			calcLine("1", "1", calcTax("01", "6"), calcTax("E", "0"), calcTax("01", "10"), calcTax("E", "0"), calcTax("01", "6"))}},
			[]string{"invoiceLines.1.invoiceLineTaxes.2.taxType", "invoiceLines.1.invoiceLineTaxes.3.taxType", "invoiceLines.1.invoiceLineTaxes.4.taxType"}},
		{"distinct types, and types not given yet", einvoice.Document{Lines: []einvoice.Line{
			calcLine("1", "1", calcTax("01", "6"), calcTax("02", "6"), calcTax("", ""), calcTax("", ""))}}, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			wantPaths(t, einvoice.ValidateDocumentInput(&tt.doc, einvoice.Kinds[0]), tt.want)
		})
	}
}

// wantPaths checks that f names exactly the fields of want, sorted.
func wantPaths(t *testing.T, f einvoice.FieldErrors, want []string) {
	t.Helper()
	if got := f.Paths(); !cmp.Equal(got, want, cmpopts.EquateEmpty()) {
		t.Errorf("fields %v, want %v: %v", got, want, f)
	}
}
