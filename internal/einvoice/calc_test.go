package einvoice_test

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/einvoice/einvoice/internal/einvoice"
	"github.com/einvoice/einvoice/internal/money"
)

// The worked cases of DECISIONS section 6, computed by hand. Each amount is
// rounded half away from zero to 2 decimals at the step where it appears.
// Views show every amount as its String() form; "" is an absent (nil) field.

type calcView struct {
	Lines     []calcLineView
	Totals    calcTotalsView
	Subtotals []calcSubtotalView
}

type calcLineView struct {
	Subtotal, Discount, Fee, Excl, Tax, Incl, TaxMyr string
	Taxes                                            []calcTaxView
}

type calcTaxView struct{ Tax, TaxMyr string }

type calcTotalsView struct {
	Subtotal, Discount, Fee, Excl, Tax, Incl, Prepayment, Rounding, Payable, TaxMyr string
}

type calcSubtotalView struct{ Type, Rate, Taxable, Tax, TaxMyr string }

func calcViewOf(d *einvoice.Document) calcView {
	a := func(x *money.Amount) string {
		if x == nil {
			return ""
		}
		return x.String()
	}
	v := calcView{Totals: calcTotalsView{
		a(d.Subtotal), a(d.TotalDiscountAmount), a(d.TotalFeeAmount), a(d.TotalExcludingTax),
		a(d.TotalTaxAmount), a(d.TotalIncludingTax), a(d.PrepaymentAmount), a(d.RoundingAmount),
		a(d.TotalPayableAmount), a(d.TotalTaxAmountMyr),
	}}
	for _, l := range d.Lines {
		lv := calcLineView{a(l.Subtotal), a(l.DiscountAmount), a(l.FeeOrChargeAmount), a(l.TotalExcludingTax),
			a(l.TaxAmount), a(l.TotalIncludingTax), a(l.TaxAmountMyr), nil}
		for _, t := range l.Taxes {
			lv.Taxes = append(lv.Taxes, calcTaxView{a(t.TaxAmount), a(t.TaxAmountMyr)})
		}
		v.Lines = append(v.Lines, lv)
	}
	if d.TaxSubtotals == nil {
		v.Subtotals = nil // told apart from an empty list by the test
	} else {
		v.Subtotals = []calcSubtotalView{}
	}
	for _, s := range d.TaxSubtotals {
		rate := ""
		if s.TaxRate != nil {
			rate = s.TaxRate.String()
		}
		v.Subtotals = append(v.Subtotals, calcSubtotalView{s.TaxType, rate, a(s.TaxableAmount), a(s.TaxAmount), a(s.TaxAmountMyr)})
	}
	return v
}

// calcN and calcA make input values; "" is absent.
func calcN(s string) *money.Number {
	if s == "" {
		return nil
	}
	n := money.MustNumber(s)
	return &n
}

func calcA(s string) *money.Amount {
	if s == "" {
		return nil
	}
	a := money.MustAmount(s)
	return &a
}

func calcTax(typ, rate string) einvoice.LineTax {
	return einvoice.LineTax{TaxType: typ, TaxRate: calcN(rate)}
}

func calcLine(qty, price string, taxes ...einvoice.LineTax) einvoice.Line {
	return einvoice.Line{Quantity: calcN(qty), UnitPrice: calcN(price), Taxes: taxes}
}

// calcLineDF is calcLine with a discount rate and a fee-or-charge rate.
func calcLineDF(qty, price, discountRate, feeRate string, taxes ...einvoice.LineTax) einvoice.Line {
	l := calcLine(qty, price, taxes...)
	l.DiscountRate, l.FeeOrChargeRate = calcN(discountRate), calcN(feeRate)
	return l
}

func calcCash(prepayment string) *einvoice.Payment {
	return &einvoice.Payment{PaymentMode: "01", PrepaymentAmount: calcA(prepayment)}
}

// calcT is the totals of a document without invoice-level amounts,
// prepayment or cash rounding: subtotal = excl = the lines' sum, incl = payable.
func calcT(subtotal, tax, incl string) calcTotalsView {
	return calcTotalsView{subtotal, "0.00", "0.00", subtotal, tax, incl, "0.00", "0.00", incl, ""}
}

// calcL is a line without discount, fee or MYR amounts: subtotal = excl.
func calcL(subtotal, tax, incl string, taxes ...string) calcLineView {
	l := calcLineView{subtotal, "0.00", "0.00", subtotal, tax, incl, "", nil}
	for _, t := range taxes {
		l.Taxes = append(l.Taxes, calcTaxView{t, ""})
	}
	return l
}

// calcCashDoc is an MYR cash document of one untaxed line of total amount.
func calcCashDoc(currency, mode, amount, prepayment string) einvoice.Document {
	return einvoice.Document{
		CurrencyCode: currency,
		Lines:        []einvoice.Line{calcLine("1", amount)},
		Payment:      &einvoice.Payment{PaymentMode: mode, PrepaymentAmount: calcA(prepayment)},
	}
}

type calcCase struct {
	name string
	doc  einvoice.Document
	want calcView
}

func calcCases() []calcCase {
	return []calcCase{
		{
			name: "one line at 6 %",
			// 2 x 10.50 = 21.00; 21.00 x 6 / 100 = 1.26; 21.00 + 1.26 = 22.26
			doc: einvoice.Document{CurrencyCode: "MYR", Lines: []einvoice.Line{calcLine("2", "10.50", calcTax("01", "6"))}},
			want: calcView{
				Lines:     []calcLineView{calcL("21.00", "1.26", "22.26", "1.26")},
				Totals:    calcT("21.00", "1.26", "22.26"),
				Subtotals: []calcSubtotalView{{"01", "6", "21.00", "1.26", ""}},
			},
		},
		{
			name: "half-way subtotal rounds away from zero",
			// 1 x 0.005 = 0.005 -> 0.01
			doc: einvoice.Document{Lines: []einvoice.Line{calcLine("1", "0.005")}},
			want: calcView{
				Lines:     []calcLineView{calcL("0.01", "0.00", "0.01")},
				Totals:    calcT("0.01", "0.00", "0.01"),
				Subtotals: []calcSubtotalView{},
			},
		},
		{
			name: "negative half-way subtotal rounds away from zero",
			// 1 x -0.005 = -0.005 -> -0.01
			doc: einvoice.Document{Lines: []einvoice.Line{calcLine("1", "-0.005")}},
			want: calcView{
				Lines:     []calcLineView{calcL("-0.01", "0.00", "-0.01")},
				Totals:    calcT("-0.01", "0.00", "-0.01"),
				Subtotals: []calcSubtotalView{},
			},
		},
		{
			name: "just below half-way rounds down",
			// 1 x 0.004999 = 0.004999 -> 0.00
			doc: einvoice.Document{Lines: []einvoice.Line{calcLine("1", "0.004999")}},
			want: calcView{
				Lines:     []calcLineView{calcL("0.00", "0.00", "0.00")},
				Totals:    calcT("0.00", "0.00", "0.00"),
				Subtotals: []calcSubtotalView{},
			},
		},
		{
			name: "half-way tax rounds away from zero",
			// 1 x 2.50 = 2.50; 2.50 x 5 / 100 = 0.125 -> 0.13 (half-even would give 0.12)
			doc: einvoice.Document{Lines: []einvoice.Line{calcLine("1", "2.50", calcTax("01", "5"))}},
			want: calcView{
				Lines:     []calcLineView{calcL("2.50", "0.13", "2.63", "0.13")},
				Totals:    calcT("2.50", "0.13", "2.63"),
				Subtotals: []calcSubtotalView{{"01", "5", "2.50", "0.13", ""}},
			},
		},
		{
			name: "per-line rounding: two lines of 9.42 at 6 %",
			// each line: 9.42 x 6 / 100 = 0.5652 -> 0.57; 9.42 + 0.57 = 9.99
			// tax 0.57 + 0.57 = 1.14 (rounding 18.84 x 6 % = 1.1304 once would give 1.13)
			doc: einvoice.Document{Lines: []einvoice.Line{
				calcLine("1", "9.42", calcTax("01", "6")),
				calcLine("1", "9.42", calcTax("01", "6")),
			}},
			want: calcView{
				Lines: []calcLineView{
					calcL("9.42", "0.57", "9.99", "0.57"),
					calcL("9.42", "0.57", "9.99", "0.57"),
				},
				Totals:    calcT("18.84", "1.14", "19.98"),
				Subtotals: []calcSubtotalView{{"01", "6", "18.84", "1.14", ""}},
			},
		},
		{
			name: "unit price with 6 decimals",
			// 3 x 0.333333 = 0.999999 -> 1.00; 1.00 x 10 / 100 = 0.10; 1.10
			doc: einvoice.Document{Lines: []einvoice.Line{calcLine("3", "0.333333", calcTax("01", "10"))}},
			want: calcView{
				Lines:     []calcLineView{calcL("1.00", "0.10", "1.10", "0.10")},
				Totals:    calcT("1.00", "0.10", "1.10"),
				Subtotals: []calcSubtotalView{{"01", "10", "1.00", "0.10", ""}},
			},
		},
		{
			name: "fractional quantity",
			// 2.5 x 3.99 = 9.975 -> 9.98; 9.98 x 6 / 100 = 0.5988 -> 0.60; 10.58
			doc: einvoice.Document{Lines: []einvoice.Line{calcLine("2.5", "3.99", calcTax("02", "6"))}},
			want: calcView{
				Lines:     []calcLineView{calcL("9.98", "0.60", "10.58", "0.60")},
				Totals:    calcT("9.98", "0.60", "10.58"),
				Subtotals: []calcSubtotalView{{"02", "6", "9.98", "0.60", ""}},
			},
		},
		{
			name: "line discount rate",
			// 3 x 19.99 = 59.97; discount 59.97 x 10 / 100 = 5.997 -> 6.00; excl 59.97 - 6.00 = 53.97
			// tax 53.97 x 10 / 100 = 5.397 -> 5.40; incl 59.37
			doc: einvoice.Document{Lines: []einvoice.Line{calcLineDF("3", "19.99", "10", "", calcTax("01", "10"))}},
			want: calcView{
				Lines:     []calcLineView{{"59.97", "6.00", "0.00", "53.97", "5.40", "59.37", "", []calcTaxView{{"5.40", ""}}}},
				Totals:    calcT("53.97", "5.40", "59.37"),
				Subtotals: []calcSubtotalView{{"01", "10", "53.97", "5.40", ""}},
			},
		},
		{
			name: "line fee rate",
			// 1 x 200 = 200.00; fee 200.00 x 2.5 / 100 = 5.00; excl 205.00
			// tax 205.00 x 8 / 100 = 16.40; incl 221.40
			doc: einvoice.Document{Lines: []einvoice.Line{calcLineDF("1", "200", "", "2.5", calcTax("02", "8"))}},
			want: calcView{
				Lines:     []calcLineView{{"200.00", "0.00", "5.00", "205.00", "16.40", "221.40", "", []calcTaxView{{"16.40", ""}}}},
				Totals:    calcT("205.00", "16.40", "221.40"),
				Subtotals: []calcSubtotalView{{"02", "8", "205.00", "16.40", ""}},
			},
		},
		{
			name: "discount and fee rates on one zero-rated line",
			// 4 x 12.345 = 49.38; discount 49.38 x 15 / 100 = 7.407 -> 7.41;
			// fee 49.38 x 3 / 100 = 1.4814 -> 1.48; excl 49.38 - 7.41 + 1.48 = 43.45; 06: 0.00
			doc: einvoice.Document{Lines: []einvoice.Line{calcLineDF("4", "12.345", "15", "3", calcTax("06", "0"))}},
			want: calcView{
				Lines:     []calcLineView{{"49.38", "7.41", "1.48", "43.45", "0.00", "43.45", "", []calcTaxView{{"0.00", ""}}}},
				Totals:    calcT("43.45", "0.00", "43.45"),
				Subtotals: []calcSubtotalView{{"06", "0", "43.45", "0.00", ""}},
			},
		},
		{
			name: "multiple taxes on one line: 10 % and tourism 10 per unit",
			// 2 x 50 = 100.00; 01: 100.00 x 10 / 100 = 10.00; 03: 2 x 10 = 20.00 (no tax on tax)
			// line tax 30.00; incl 130.00; each subtotal's taxable is the line's 100.00
			doc: einvoice.Document{Lines: []einvoice.Line{calcLine("2", "50", calcTax("01", "10"), calcTax("03", "10"))}},
			want: calcView{
				Lines:  []calcLineView{calcL("100.00", "30.00", "130.00", "10.00", "20.00")},
				Totals: calcT("100.00", "30.00", "130.00"),
				Subtotals: []calcSubtotalView{
					{"01", "10", "100.00", "10.00", ""},
					{"03", "10", "100.00", "20.00", ""},
				},
			},
		},
		{
			name: "tourism tax per unit, quantity 3",
			// 3 x 150 = 450.00; 03: 3 x 10 = 30.00; 480.00
			doc: einvoice.Document{Lines: []einvoice.Line{calcLine("3", "150", calcTax("03", "10"))}},
			want: calcView{
				Lines:     []calcLineView{calcL("450.00", "30.00", "480.00", "30.00")},
				Totals:    calcT("450.00", "30.00", "480.00"),
				Subtotals: []calcSubtotalView{{"03", "10", "450.00", "30.00", ""}},
			},
		},
		{
			name: "tourism tax ignores the line discount",
			// 2 x 100 = 200.00; discount 200.00 x 50 / 100 = 100.00; excl 100.00
			// 03: 2 x 10 = 20.00 (per unit, not a percentage of the discounted amount); 120.00
			doc: einvoice.Document{Lines: []einvoice.Line{calcLineDF("2", "100", "50", "", calcTax("03", "10"))}},
			want: calcView{
				Lines:     []calcLineView{{"200.00", "100.00", "0.00", "100.00", "20.00", "120.00", "", []calcTaxView{{"20.00", ""}}}},
				Totals:    calcT("100.00", "20.00", "120.00"),
				Subtotals: []calcSubtotalView{{"03", "10", "100.00", "20.00", ""}},
			},
		},
		{
			name: "exempt line and zero-rated line",
			// line 1: 1 x 80 = 80.00, E: 0.00; line 2: 5 x 3.30 = 16.50, 06 at 0: 0.00
			doc: einvoice.Document{Lines: []einvoice.Line{
				{Quantity: calcN("1"), UnitPrice: calcN("80"), Taxes: []einvoice.LineTax{{TaxType: "E", TaxRate: calcN("0"), ExemptionReason: "Exempt under Sales Tax Act 2018"}}},
				calcLine("5", "3.30", calcTax("06", "0")),
			}},
			want: calcView{
				Lines: []calcLineView{
					calcL("80.00", "0.00", "80.00", "0.00"),
					calcL("16.50", "0.00", "16.50", "0.00"),
				},
				Totals: calcT("96.50", "0.00", "96.50"),
				Subtotals: []calcSubtotalView{
					{"E", "0", "80.00", "0.00", ""},
					{"06", "0", "16.50", "0.00", ""},
				},
			},
		},
		{
			name: "exempt entry with a rate still has tax 0.00",
			// 1 x 100 = 100.00; E at 6: 0.00 (validate refuses the rate; Calculate does not fail)
			doc: einvoice.Document{Lines: []einvoice.Line{calcLine("1", "100", calcTax("E", "6"))}},
			want: calcView{
				Lines:     []calcLineView{calcL("100.00", "0.00", "100.00", "0.00")},
				Totals:    calcT("100.00", "0.00", "100.00"),
				Subtotals: []calcSubtotalView{{"E", "6", "100.00", "0.00", ""}},
			},
		},
		{
			name: "line without taxes",
			// 2 x 7.25 = 14.50; no tax entries: tax 0.00, no subtotal
			doc: einvoice.Document{Lines: []einvoice.Line{calcLine("2", "7.25")}},
			want: calcView{
				Lines:     []calcLineView{calcL("14.50", "0.00", "14.50")},
				Totals:    calcT("14.50", "0.00", "14.50"),
				Subtotals: []calcSubtotalView{},
			},
		},
		{
			name: "invoice-level discount and fee do not change line taxes",
			// line 1: 1 x 100 = 100.00, 10 % = 10.00; line 2: 1 x 50 = 50.00, 10 % = 5.00
			// subtotal 150.00; excl 150.00 - 15.00 + 4.50 = 139.50; tax 15.00; incl 154.50
			doc: einvoice.Document{
				Lines: []einvoice.Line{
					calcLine("1", "100", calcTax("01", "10")),
					calcLine("1", "50", calcTax("01", "10")),
				},
				InvoiceDiscount: calcA("15.00"),
				InvoiceFee:      calcA("4.50"),
			},
			want: calcView{
				Lines: []calcLineView{
					calcL("100.00", "10.00", "110.00", "10.00"),
					calcL("50.00", "5.00", "55.00", "5.00"),
				},
				Totals:    calcTotalsView{"150.00", "15.00", "4.50", "139.50", "15.00", "154.50", "0.00", "0.00", "154.50", ""},
				Subtotals: []calcSubtotalView{{"01", "10", "150.00", "15.00", ""}},
			},
		},
		{
			name: "invoice discount above the subtotal gives negative totals",
			// 1 x 10 = 10.00; excl 10.00 - 15.00 = -5.00; cash: -5.00 is a multiple of 0.05
			doc: einvoice.Document{
				Lines:           []einvoice.Line{calcLine("1", "10")},
				InvoiceDiscount: calcA("15"),
				Payment:         calcCash(""),
			},
			want: calcView{
				Lines:     []calcLineView{calcL("10.00", "0.00", "10.00")},
				Totals:    calcTotalsView{"10.00", "15.00", "0.00", "-5.00", "0.00", "-5.00", "0.00", "0.00", "-5.00", ""},
				Subtotals: []calcSubtotalView{},
			},
		},
		{
			name: "prepayment, bank transfer",
			// 1 x 1000 = 1000.00; 8 % = 80.00; incl 1080.00; payable 1080.00 - 300.00 = 780.00
			doc: einvoice.Document{
				Lines:   []einvoice.Line{calcLine("1", "1000", calcTax("02", "8"))},
				Payment: &einvoice.Payment{PaymentMode: "03", PrepaymentAmount: calcA("300.00")},
			},
			want: calcView{
				Lines:     []calcLineView{calcL("1000.00", "80.00", "1080.00", "80.00")},
				Totals:    calcTotalsView{"1000.00", "0.00", "0.00", "1000.00", "80.00", "1080.00", "300.00", "0.00", "780.00", ""},
				Subtotals: []calcSubtotalView{{"02", "8", "1000.00", "80.00", ""}},
			},
		},
		{
			name: "cash rounding down: .x2 -> .x0",
			// 1 x 9.45 = 9.45; 6 % = 0.567 -> 0.57; incl 10.02; nearest 0.05 is 10.00: -0.02
			doc: einvoice.Document{CurrencyCode: "MYR", Lines: []einvoice.Line{calcLine("1", "9.45", calcTax("01", "6"))}, Payment: calcCash("")},
			want: calcView{
				Lines:     []calcLineView{calcL("9.45", "0.57", "10.02", "0.57")},
				Totals:    calcTotalsView{"9.45", "0.00", "0.00", "9.45", "0.57", "10.02", "0.00", "-0.02", "10.00", ""},
				Subtotals: []calcSubtotalView{{"01", "6", "9.45", "0.57", ""}},
			},
		},
		{
			name: "cash rounding up: .x3 -> .x5",
			// 10.03: nearest 0.05 is 10.05: +0.02
			doc: calcCashDoc("MYR", "01", "10.03", ""),
			want: calcView{
				Lines:     []calcLineView{calcL("10.03", "0.00", "10.03")},
				Totals:    calcTotalsView{"10.03", "0.00", "0.00", "10.03", "0.00", "10.03", "0.00", "0.02", "10.05", ""},
				Subtotals: []calcSubtotalView{},
			},
		},
		{
			name: "cash rounding up: .x4 -> .x5",
			// 10.04 -> 10.05: +0.01
			doc: calcCashDoc("MYR", "01", "10.04", ""),
			want: calcView{
				Lines:     []calcLineView{calcL("10.04", "0.00", "10.04")},
				Totals:    calcTotalsView{"10.04", "0.00", "0.00", "10.04", "0.00", "10.04", "0.00", "0.01", "10.05", ""},
				Subtotals: []calcSubtotalView{},
			},
		},
		{
			name: "cash rounding exact: .x5 stays",
			// 10.05 is a multiple of 0.05: 0.00
			doc: calcCashDoc("MYR", "01", "10.05", ""),
			want: calcView{
				Lines:     []calcLineView{calcL("10.05", "0.00", "10.05")},
				Totals:    calcTotalsView{"10.05", "0.00", "0.00", "10.05", "0.00", "10.05", "0.00", "0.00", "10.05", ""},
				Subtotals: []calcSubtotalView{},
			},
		},
		{
			name: "cash rounding down: .x6, .x7 -> .x5",
			// 10.07 -> 10.05: -0.02
			doc: calcCashDoc("MYR", "01", "10.07", ""),
			want: calcView{
				Lines:     []calcLineView{calcL("10.07", "0.00", "10.07")},
				Totals:    calcTotalsView{"10.07", "0.00", "0.00", "10.07", "0.00", "10.07", "0.00", "-0.02", "10.05", ""},
				Subtotals: []calcSubtotalView{},
			},
		},
		{
			name: "cash rounding up: .x8 -> next .x0, empty currency is MYR",
			// 10.98 -> 11.00: +0.02
			doc: calcCashDoc("", "01", "10.98", ""),
			want: calcView{
				Lines:     []calcLineView{calcL("10.98", "0.00", "10.98")},
				Totals:    calcTotalsView{"10.98", "0.00", "0.00", "10.98", "0.00", "10.98", "0.00", "0.02", "11.00", ""},
				Subtotals: []calcSubtotalView{},
			},
		},
		{
			name: "cash rounding of a negative total is symmetric",
			// -10.03: nearest 0.05 is -10.05 (0.02 away; -10.00 is 0.03 away): -0.02
			doc: calcCashDoc("MYR", "01", "-10.03", ""),
			want: calcView{
				Lines:     []calcLineView{calcL("-10.03", "0.00", "-10.03")},
				Totals:    calcTotalsView{"-10.03", "0.00", "0.00", "-10.03", "0.00", "-10.03", "0.00", "-0.02", "-10.05", ""},
				Subtotals: []calcSubtotalView{},
			},
		},
		{
			name: "cash rounding applies after the prepayment",
			// incl 10.00; 10.00 - 3.33 = 6.67 -> 6.65: -0.02; payable 10.00 - 3.33 - 0.02 = 6.65
			doc: calcCashDoc("MYR", "01", "10", "3.33"),
			want: calcView{
				Lines:     []calcLineView{calcL("10.00", "0.00", "10.00")},
				Totals:    calcTotalsView{"10.00", "0.00", "0.00", "10.00", "0.00", "10.00", "3.33", "-0.02", "6.65", ""},
				Subtotals: []calcSubtotalView{},
			},
		},
		{
			name: "no cash rounding when not paid in cash",
			// paymentMode 03 (bank transfer): 10.03 stays
			doc: calcCashDoc("MYR", "03", "10.03", ""),
			want: calcView{
				Lines:     []calcLineView{calcL("10.03", "0.00", "10.03")},
				Totals:    calcT("10.03", "0.00", "10.03"),
				Subtotals: []calcSubtotalView{},
			},
		},
		{
			name: "no cash rounding for USD cash",
			// USD, no exchange rate: 10.03 stays, no MYR amounts
			doc: calcCashDoc("USD", "01", "10.03", ""),
			want: calcView{
				Lines:     []calcLineView{calcL("10.03", "0.00", "10.03")},
				Totals:    calcT("10.03", "0.00", "10.03"),
				Subtotals: []calcSubtotalView{},
			},
		},
		{
			name: "credit-note-like negative unit price",
			// 2 x -25.50 = -51.00; discount -51.00 x 5 / 100 = -2.55; excl -51.00 - (-2.55) = -48.45
			// tax -48.45 x 10 / 100 = -4.845 -> -4.85 (away from zero); incl -53.30
			doc: einvoice.Document{Lines: []einvoice.Line{calcLineDF("2", "-25.50", "5", "", calcTax("01", "10"))}},
			want: calcView{
				Lines:     []calcLineView{{"-51.00", "-2.55", "0.00", "-48.45", "-4.85", "-53.30", "", []calcTaxView{{"-4.85", ""}}}},
				Totals:    calcT("-48.45", "-4.85", "-53.30"),
				Subtotals: []calcSubtotalView{{"01", "10", "-48.45", "-4.85", ""}},
			},
		},
		calc100Lines(),
		{
			name: "foreign currency with exchange rate: MYR tax per entry, line, subtotal, document",
			// USD, exchangeRate 4.7231 (MYR per USD), paid in cash (no cash rounding: not MYR).
			// line 1: 3 x 33.33 = 99.99
			//   01 10 %: 99.99 x 10 / 100 = 9.999 -> 10.00; MYR 10.00 x 4.7231 = 47.231 -> 47.23
			//   03 2.5 per unit: 3 x 2.5 = 7.50;          MYR 7.50 x 4.7231 = 35.42325 -> 35.42
			//   tax 17.50, incl 117.49, MYR 47.23 + 35.42 = 82.65
			// line 2: 1 x 12.34 = 12.34
			//   01 10 %: 1.234 -> 1.23; MYR 1.23 x 4.7231 = 5.809413 -> 5.81
			//   tax 1.23, incl 13.57, MYR 5.81
			// subtotal 112.33; tax 18.73; incl 131.06; MYR 82.65 + 5.81 = 88.46
			// subtotals: 01 10 taxable 112.33, tax 11.23, MYR 47.23 + 5.81 = 53.04
			//            03 2.5 taxable 99.99, tax 7.50, MYR 35.42
			doc: einvoice.Document{
				CurrencyCode: "USD",
				ExchangeRate: calcN("4.7231"),
				Lines: []einvoice.Line{
					calcLine("3", "33.33", calcTax("01", "10"), calcTax("03", "2.5")),
					calcLine("1", "12.34", calcTax("01", "10")),
				},
				Payment: calcCash(""),
			},
			want: calcView{
				Lines: []calcLineView{
					{"99.99", "0.00", "0.00", "99.99", "17.50", "117.49", "82.65", []calcTaxView{{"10.00", "47.23"}, {"7.50", "35.42"}}},
					{"12.34", "0.00", "0.00", "12.34", "1.23", "13.57", "5.81", []calcTaxView{{"1.23", "5.81"}}},
				},
				Totals: calcTotalsView{"112.33", "0.00", "0.00", "112.33", "18.73", "131.06", "0.00", "0.00", "131.06", "88.46"},
				Subtotals: []calcSubtotalView{
					{"01", "10", "112.33", "11.23", "53.04"},
					{"03", "2.5", "99.99", "7.50", "35.42"},
				},
			},
		},
		{
			name: "foreign currency: MYR amounts are rounded per entry, then summed",
			// EUR, exchangeRate 4.7231; two lines of 1 x 10.00 at 10 % = 1.00
			// each entry MYR 1.00 x 4.7231 = 4.7231 -> 4.72; sums 4.72 + 4.72 = 9.44
			// (2.00 x 4.7231 = 9.4462 -> 9.45 would be rounding the sum: not what we do)
			doc: einvoice.Document{
				CurrencyCode: "EUR",
				ExchangeRate: calcN("4.7231"),
				Lines: []einvoice.Line{
					calcLine("1", "10.00", calcTax("01", "10")),
					calcLine("1", "10.00", calcTax("01", "10")),
				},
			},
			want: calcView{
				Lines: []calcLineView{
					{"10.00", "0.00", "0.00", "10.00", "1.00", "11.00", "4.72", []calcTaxView{{"1.00", "4.72"}}},
					{"10.00", "0.00", "0.00", "10.00", "1.00", "11.00", "4.72", []calcTaxView{{"1.00", "4.72"}}},
				},
				Totals:    calcTotalsView{"20.00", "0.00", "0.00", "20.00", "2.00", "22.00", "0.00", "0.00", "22.00", "9.44"},
				Subtotals: []calcSubtotalView{{"01", "10", "20.00", "2.00", "9.44"}},
			},
		},
		{
			name: "foreign currency: a line without taxes has MYR tax 0.00",
			// SGD, exchangeRate 3.5: 1 x 10 = 10.00, no taxes: tax 0.00, MYR 0.00
			doc: einvoice.Document{CurrencyCode: "SGD", ExchangeRate: calcN("3.5"), Lines: []einvoice.Line{calcLine("1", "10")}},
			want: calcView{
				Lines:     []calcLineView{{"10.00", "0.00", "0.00", "10.00", "0.00", "10.00", "0.00", nil}},
				Totals:    calcTotalsView{"10.00", "0.00", "0.00", "10.00", "0.00", "10.00", "0.00", "0.00", "10.00", "0.00"},
				Subtotals: []calcSubtotalView{},
			},
		},
		{
			name: "foreign currency without exchange rate: no MYR amounts",
			// EUR: 1 x 100 = 100.00; 10 % = 10.00; every ...Myr field nil
			doc: einvoice.Document{CurrencyCode: "EUR", Lines: []einvoice.Line{calcLine("1", "100", calcTax("01", "10"))}},
			want: calcView{
				Lines:     []calcLineView{calcL("100.00", "10.00", "110.00", "10.00")},
				Totals:    calcT("100.00", "10.00", "110.00"),
				Subtotals: []calcSubtotalView{{"01", "10", "100.00", "10.00", ""}},
			},
		},
		{
			name: "MYR with exchange rate 1: no MYR amounts",
			// 1 x 100 = 100.00; 6 % = 6.00
			doc: einvoice.Document{CurrencyCode: "MYR", ExchangeRate: calcN("1"), Lines: []einvoice.Line{calcLine("1", "100", calcTax("01", "6"))}},
			want: calcView{
				Lines:     []calcLineView{calcL("100.00", "6.00", "106.00", "6.00")},
				Totals:    calcT("100.00", "6.00", "106.00"),
				Subtotals: []calcSubtotalView{{"01", "6", "100.00", "6.00", ""}},
			},
		},
		{
			name: "subtotals: same type, different rates, in order of first appearance",
			// 1 x 100 at 01 10 % = 10.00; 1 x 40 at 01 5 % = 2.00; 1 x 20 at 01 10 % = 2.00;
			// 1 x 50 at 02 8 % = 4.00. Groups: 01/10 (120.00, 12.00), 01/5 (40.00, 2.00), 02/8 (50.00, 4.00)
			doc: einvoice.Document{Lines: []einvoice.Line{
				calcLine("1", "100", calcTax("01", "10")),
				calcLine("1", "40", calcTax("01", "5")),
				calcLine("1", "20", calcTax("01", "10")),
				calcLine("1", "50", calcTax("02", "8")),
			}},
			want: calcView{
				Lines: []calcLineView{
					calcL("100.00", "10.00", "110.00", "10.00"),
					calcL("40.00", "2.00", "42.00", "2.00"),
					calcL("20.00", "2.00", "22.00", "2.00"),
					calcL("50.00", "4.00", "54.00", "4.00"),
				},
				Totals: calcT("210.00", "18.00", "228.00"),
				Subtotals: []calcSubtotalView{
					{"01", "10", "120.00", "12.00", ""},
					{"01", "5", "40.00", "2.00", ""},
					{"02", "8", "50.00", "4.00", ""},
				},
			},
		},
		{
			name: "subtotals: 6, 6.00 and 0.6e1 are one group, keeping the first text",
			// 1 x 10 at 6.00 % = 0.60; 1 x 20 at 6 % = 1.20; 1 x 5 at 0.6e1 % = 0.30
			// group 02/6.00: taxable 35.00, tax 2.10
			doc: einvoice.Document{Lines: []einvoice.Line{
				calcLine("1", "10", calcTax("02", "6.00")),
				calcLine("1", "20", calcTax("02", "6")),
				calcLine("1", "5", calcTax("02", "0.6e1")),
			}},
			want: calcView{
				Lines: []calcLineView{
					calcL("10.00", "0.60", "10.60", "0.60"),
					calcL("20.00", "1.20", "21.20", "1.20"),
					calcL("5.00", "0.30", "5.30", "0.30"),
				},
				Totals:    calcT("35.00", "2.10", "37.10"),
				Subtotals: []calcSubtotalView{{"02", "6.00", "35.00", "2.10", ""}},
			},
		},
		{
			name: "subtotals: same rate, different types are separate groups",
			// 1 x 100 at 01 10 % = 10.00 and at 05 10 % = 10.00 (validate would question it; Calculate does not)
			doc: einvoice.Document{Lines: []einvoice.Line{calcLine("1", "100", calcTax("01", "10"), calcTax("05", "10"))}},
			want: calcView{
				Lines:  []calcLineView{calcL("100.00", "20.00", "120.00", "10.00", "10.00")},
				Totals: calcT("100.00", "20.00", "120.00"),
				Subtotals: []calcSubtotalView{
					{"01", "10", "100.00", "10.00", ""},
					{"05", "10", "100.00", "10.00", ""},
				},
			},
		},
		{
			name: "subtotals: a line with two entries of one group counts once in taxable",
			// 1 x 100 with 01 10 % twice: 10.00 + 10.00 = 20.00; group taxable 100.00 (once), tax 20.00
			doc: einvoice.Document{Lines: []einvoice.Line{calcLine("1", "100", calcTax("01", "10"), calcTax("01", "10.0"))}},
			want: calcView{
				Lines:     []calcLineView{calcL("100.00", "20.00", "120.00", "10.00", "10.00")},
				Totals:    calcT("100.00", "20.00", "120.00"),
				Subtotals: []calcSubtotalView{{"01", "10", "100.00", "20.00", ""}},
			},
		},
		{
			name: "absent inputs count as zero",
			// no quantity, price, rates, taxRate, payment: every amount 0.00; the group's rate is 0
			doc: einvoice.Document{Lines: []einvoice.Line{
				{Taxes: []einvoice.LineTax{{TaxType: "01"}, {TaxType: "03"}}},
				{UnitPrice: calcN("12.50")}, // no quantity
				{Quantity: calcN("4")},      // no price
			}},
			want: calcView{
				Lines: []calcLineView{
					calcL("0.00", "0.00", "0.00", "0.00", "0.00"),
					calcL("0.00", "0.00", "0.00"),
					calcL("0.00", "0.00", "0.00"),
				},
				Totals: calcT("0.00", "0.00", "0.00"),
				Subtotals: []calcSubtotalView{
					{"01", "0", "0.00", "0.00", ""},
					{"03", "0", "0.00", "0.00", ""},
				},
			},
		},
		{
			name: "no lines",
			// everything 0.00, an empty list of subtotals
			doc: einvoice.Document{CurrencyCode: "MYR", Payment: calcCash("")},
			want: calcView{
				Totals:    calcT("0.00", "0.00", "0.00"),
				Subtotals: []calcSubtotalView{},
			},
		},
		{
			name: "no lines, foreign currency with rate",
			// MYR tax total 0.00
			doc: einvoice.Document{CurrencyCode: "USD", ExchangeRate: calcN("4.7231")},
			want: calcView{
				Totals:    calcTotalsView{"0.00", "0.00", "0.00", "0.00", "0.00", "0.00", "0.00", "0.00", "0.00", "0.00"},
				Subtotals: []calcSubtotalView{},
			},
		},
		{
			name: "client amounts are overwritten",
			// the client's 999.99 everywhere and MYR amounts on an MYR document are replaced:
			// 1 x 10 = 10.00; 6 % = 0.60; 10.60
			doc: einvoice.Document{
				Lines: []einvoice.Line{{
					Quantity: calcN("1"), UnitPrice: calcN("10"),
					Taxes:    []einvoice.LineTax{{TaxType: "01", TaxRate: calcN("6"), TaxAmount: calcA("999.99"), TaxAmountMyr: calcA("999.99")}},
					Subtotal: calcA("999.99"), DiscountAmount: calcA("999.99"), FeeOrChargeAmount: calcA("999.99"),
					TotalExcludingTax: calcA("999.99"), TaxAmount: calcA("999.99"), TotalIncludingTax: calcA("999.99"),
					TaxAmountMyr: calcA("999.99"),
				}},
				Totals: einvoice.Totals{
					Subtotal: calcA("999.99"), TotalDiscountAmount: calcA("999.99"), TotalFeeAmount: calcA("999.99"),
					TotalExcludingTax: calcA("999.99"), TotalTaxAmount: calcA("999.99"), TotalIncludingTax: calcA("999.99"),
					PrepaymentAmount: calcA("999.99"), RoundingAmount: calcA("999.99"), TotalPayableAmount: calcA("999.99"),
					TaxSubtotals:      []einvoice.TaxSubtotal{{TaxType: "02", TaxRate: calcN("8"), TaxableAmount: calcA("999.99"), TaxAmount: calcA("999.99")}},
					TotalTaxAmountMyr: calcA("999.99"),
				},
			},
			want: calcView{
				Lines:     []calcLineView{calcL("10.00", "0.60", "10.60", "0.60")},
				Totals:    calcT("10.00", "0.60", "10.60"),
				Subtotals: []calcSubtotalView{{"01", "6", "10.00", "0.60", ""}},
			},
		},
	}
}

// calc100Lines is a document of 100 lines: line k (1 to 100) is k x 1.50 at
// 6 %, so subtotal 1.50k and tax 0.09k, both exact.
// Sums: 1 + ... + 100 = 5050; subtotal 1.50 x 5050 = 7575.00;
// tax 0.09 x 5050 = 454.50; incl 8029.50 (a multiple of 0.05: cash rounding 0.00).
func calc100Lines() calcCase {
	c := calcCase{
		name: "100 lines",
		doc:  einvoice.Document{CurrencyCode: "MYR", Payment: calcCash("")},
		want: calcView{
			Totals:    calcT("7575.00", "454.50", "8029.50"),
			Subtotals: []calcSubtotalView{{"01", "6", "7575.00", "454.50", ""}},
		},
	}
	for k := 1; k <= 100; k++ {
		c.doc.Lines = append(c.doc.Lines, calcLine(fmt.Sprint(k), "1.50", calcTax("01", "6")))
		sub, tax := 150*k, 9*k // in sen
		c.want.Lines = append(c.want.Lines, calcL(calcSen(sub), calcSen(tax), calcSen(sub+tax), calcSen(tax)))
	}
	return c
}

// calcSen writes an amount in sen with two decimals (non-negative only).
func calcSen(sen int) string { return fmt.Sprintf("%d.%02d", sen/100, sen%100) }

func TestCalculate(t *testing.T) {
	cases := calcCases()
	if len(cases) < 30 {
		t.Fatalf("only %d worked cases", len(cases))
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			d := tt.doc
			einvoice.Calculate(&d)
			if diff := cmp.Diff(tt.want, calcViewOf(&d)); diff != "" {
				t.Errorf("Calculate: amounts differ (-want +got):\n%s", diff)
			}
			// Calculate again: nothing changes.
			einvoice.Calculate(&d)
			if diff := cmp.Diff(tt.want, calcViewOf(&d)); diff != "" {
				t.Errorf("second Calculate: amounts differ (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCalculateLeavesClientValuesAlone(t *testing.T) {
	// Calculate replaces the pointers; what the client's pointers pointed to
	// is unchanged, and the subtotal's rate is a copy.
	clientTax := calcA("999.99")
	rate := calcN("6.0")
	d := einvoice.Document{Lines: []einvoice.Line{{
		Quantity: calcN("1"), UnitPrice: calcN("10"), Subtotal: clientTax,
		Taxes: []einvoice.LineTax{{TaxType: "01", TaxRate: rate}},
	}}}
	einvoice.Calculate(&d)
	if got := clientTax.String(); got != "999.99" {
		t.Errorf("client's amount changed to %s", got)
	}
	if d.TaxSubtotals[0].TaxRate == rate {
		t.Error("subtotal shares the line's rate pointer")
	}
	if got := d.TaxSubtotals[0].TaxRate.String(); got != "6.0" {
		t.Errorf("subtotal rate = %s, want the line's text 6.0", got)
	}
	if got := d.Lines[0].Quantity.String(); got != "1" {
		t.Errorf("quantity = %s, want 1", got)
	}
}
