package einvoice

import (
	"fmt"

	"github.com/shopspring/decimal"

	"github.com/einvoice/einvoice/internal/money"
)

// tolerance is how far a client's amount may be from its recomputation.
var tolerance = money.MustAmount("0.01")

// amountChecker compares the client's amounts of an autoCalculate: false
// document with their recomputation, step by step from the client's own
// values of the previous step (DECISIONS section 6), so that one wrong
// amount is reported once, not in every total after it.
type amountChecker struct {
	v *validation
}

// have reports a missing amount and returns whether it is present.
func (c amountChecker) have(path string, a *money.Amount) bool {
	if a == nil {
		c.v.add("AMOUNT_MISSING", path, "is required when autoCalculate is false (or set autoCalculate to true)")
		return false
	}
	return true
}

// expect reports an amount off by more than 0.01 from want.
func (c amountChecker) expect(path string, got *money.Amount, want money.Amount) {
	if !c.have(path, got) {
		return
	}
	diff := got.Sub(want)
	if diff.Cmp(money.Zero()) < 0 {
		diff = diff.Neg()
	}
	if diff.Cmp(tolerance) > 0 {
		c.v.add("AMOUNT_MISMATCH", path, fmt.Sprintf("is %s, expected %s", got, want))
	}
}

func or0(a *money.Amount) money.Amount {
	if a == nil {
		return money.Zero()
	}
	return *a
}

func dec(n *money.Number) decimal.Decimal {
	if n == nil {
		return decimal.Zero
	}
	return n.Decimal()
}

func (c amountChecker) check(d *Document) {
	withMyr := !isMYR(d.CurrencyCode) && d.ExchangeRate != nil
	rate := dec(d.ExchangeRate)
	var sumExcl, sumTax, sumTaxMyr money.Amount
	for i := range d.Lines {
		l := &d.Lines[i]
		p := fmt.Sprintf("invoiceLines.%d", i)
		qty := dec(l.Quantity)
		c.expect(p+".subtotal", l.Subtotal, money.Round2(qty.Mul(dec(l.UnitPrice))))
		sub := or0(l.Subtotal)
		c.expect(p+".discountAmount", l.DiscountAmount, money.Round2(sub.Decimal().Mul(dec(l.DiscountRate)).Shift(-2)))
		c.expect(p+".feeOrChargeAmount", l.FeeOrChargeAmount, money.Round2(sub.Decimal().Mul(dec(l.FeeOrChargeRate)).Shift(-2)))
		c.expect(p+".totalExcludingTax", l.TotalExcludingTax, sub.Sub(or0(l.DiscountAmount)).Add(or0(l.FeeOrChargeAmount)))
		excl := or0(l.TotalExcludingTax)
		var lineTax, lineTaxMyr money.Amount
		for j := range l.Taxes {
			t := &l.Taxes[j]
			tp := fmt.Sprintf("%s.invoiceLineTaxes.%d", p, j)
			var want money.Amount
			switch t.TaxType {
			case "01", "02", "04", "05":
				want = money.Round2(excl.Decimal().Mul(dec(t.TaxRate)).Shift(-2))
			case TaxTourism:
				want = money.Round2(qty.Mul(dec(t.TaxRate)))
			}
			c.expect(tp+".taxAmount", t.TaxAmount, want)
			lineTax = lineTax.Add(or0(t.TaxAmount))
			if withMyr {
				c.expect(tp+".taxAmountMyr", t.TaxAmountMyr, money.Round2(or0(t.TaxAmount).Decimal().Mul(rate)))
				lineTaxMyr = lineTaxMyr.Add(or0(t.TaxAmountMyr))
			}
		}
		c.expect(p+".taxAmount", l.TaxAmount, lineTax)
		c.expect(p+".totalIncludingTax", l.TotalIncludingTax, excl.Add(or0(l.TaxAmount)))
		if withMyr {
			c.expect(p+".taxAmountMyr", l.TaxAmountMyr, lineTaxMyr)
			sumTaxMyr = sumTaxMyr.Add(or0(l.TaxAmountMyr))
		}
		sumExcl = sumExcl.Add(excl)
		sumTax = sumTax.Add(or0(l.TaxAmount))
	}
	c.expect("subtotal", d.Subtotal, sumExcl)
	c.expect("totalDiscountAmount", d.TotalDiscountAmount, or0(d.InvoiceDiscount))
	c.expect("totalFeeAmount", d.TotalFeeAmount, or0(d.InvoiceFee))
	c.expect("totalExcludingTax", d.TotalExcludingTax, or0(d.Subtotal).Sub(or0(d.TotalDiscountAmount)).Add(or0(d.TotalFeeAmount)))
	c.expect("totalTaxAmount", d.TotalTaxAmount, sumTax)
	c.expect("totalIncludingTax", d.TotalIncludingTax, or0(d.TotalExcludingTax).Add(or0(d.TotalTaxAmount)))
	var prepay money.Amount
	if d.Payment != nil {
		prepay = or0(d.Payment.PrepaymentAmount)
	}
	c.expect("prepaymentAmount", d.PrepaymentAmount, prepay)
	// The rounding follows the cash rule exactly.
	wantRounding := money.Zero()
	if isMYR(d.CurrencyCode) && d.Payment != nil && d.Payment.PaymentMode == paymentModeCash {
		wantRounding = cashRounding(or0(d.TotalIncludingTax).Sub(or0(d.PrepaymentAmount)))
	}
	if c.have("roundingAmount", d.RoundingAmount) && !d.RoundingAmount.Equal(wantRounding) {
		c.v.add("ROUNDING_MISMATCH", "roundingAmount", fmt.Sprintf("is %s, expected %s (cash rounding to 0.05 applies to MYR documents paid in cash only)", d.RoundingAmount, wantRounding))
	}
	c.expect("totalPayableAmount", d.TotalPayableAmount, or0(d.TotalIncludingTax).Sub(or0(d.PrepaymentAmount)).Add(or0(d.RoundingAmount)))
	if withMyr {
		c.expect("totalTaxAmountMyr", d.TotalTaxAmountMyr, sumTaxMyr)
	}
	c.checkSubtotals(d, withMyr)
}

// checkSubtotals compares the client's taxSubtotals with those its lines give.
func (c amountChecker) checkSubtotals(d *Document, withMyr bool) {
	if d.TaxSubtotals == nil {
		c.v.add("AMOUNT_MISSING", "taxSubtotals", "is required when autoCalculate is false: one entry per (taxType, taxRate)")
		return
	}
	// The groups the client's own line amounts give.
	g := taxGroups{list: []TaxSubtotal{}}
	for i := range d.Lines {
		l := d.Lines[i]
		l.TotalExcludingTax = ptr(or0(l.TotalExcludingTax))
		taxes := make([]LineTax, len(l.Taxes))
		for j, t := range l.Taxes {
			t.TaxAmount, t.TaxAmountMyr = ptr(or0(t.TaxAmount)), ptr(or0(t.TaxAmountMyr))
			taxes[j] = t
		}
		l.Taxes = taxes
		g.addLine(&l, withMyr)
	}
	if len(g.list) != len(d.TaxSubtotals) {
		c.v.add("TAX_SUBTOTALS_MISMATCH", "taxSubtotals", fmt.Sprintf("has %d entries, the lines give %d (one per taxType and taxRate)", len(d.TaxSubtotals), len(g.list)))
		return
	}
	for i, want := range g.list {
		got := &d.TaxSubtotals[i]
		p := fmt.Sprintf("taxSubtotals.%d", i)
		if got.TaxType != want.TaxType || !dec(got.TaxRate).Equal(dec(want.TaxRate)) {
			c.v.add("TAX_SUBTOTALS_MISMATCH", p, fmt.Sprintf("is for tax %s at %s, expected %s at %s (order of first appearance)", got.TaxType, dec(got.TaxRate), want.TaxType, dec(want.TaxRate)))
			continue
		}
		c.expect(p+".taxableAmount", got.TaxableAmount, *want.TaxableAmount)
		c.expect(p+".taxAmount", got.TaxAmount, *want.TaxAmount)
		if withMyr {
			c.expect(p+".taxAmountMyr", got.TaxAmountMyr, *want.TaxAmountMyr)
		}
	}
}

func ptr(a money.Amount) *money.Amount { return &a }
