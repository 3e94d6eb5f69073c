package einvoice

import (
	"fmt"
	"strings"

	"github.com/einvoice/einvoice/internal/money"
)

// tolerance is how far a client's amount may be from its recomputation.
var tolerance = money.MustAmount("0.01")

// amountChecker compares the client's amounts of an autoCalculate: false
// document with their recomputation, step by step from the client's own
// values of the previous step (DECISIONS section 6), so that one wrong
// amount is reported once, not in every total after it. Where the client
// gave no amount, the next steps start from the recomputed one, so a missing
// amount too is reported once.
type amountChecker struct {
	v *validation
	// groups are the tax subtotals the client's line amounts give (step 7),
	// in order of first appearance.
	groups []taxGroup
}

// taxGroup sums the taxes of one (taxType, taxRate) over the lines.
type taxGroup struct {
	key                  taxKey
	taxType              string
	rate                 *money.Number // as the first line gave it
	taxable, tax, taxMyr money.Amount
	lastLine             int  // the last line counted in taxable
	matched              bool // by an entry of the client's taxSubtotals
}

func (c *amountChecker) missing(at fieldPath, field string) {
	c.v.add("AMOUNT_MISSING", at.to(field), "is required when autoCalculate is false (or set autoCalculate to true)")
}

// expect reports an amount that is missing or off by more than 0.01 from
// want, and returns the amount the next steps start from: the client's, or
// want when the client gave none.
func (c *amountChecker) expect(at fieldPath, field string, got *money.Amount, want money.Amount) money.Amount {
	if got == nil {
		c.missing(at, field)
		return want
	}
	if diff := got.Sub(want); diff.Cmp(tolerance) > 0 || diff.Neg().Cmp(tolerance) > 0 {
		c.v.add("AMOUNT_MISMATCH", at.to(field), fmt.Sprintf("is %s, expected %s", got, want))
	}
	return *got
}

func dec(n *money.Number) money.Decimal {
	if n == nil {
		return money.Decimal{}
	}
	return n.Decimal()
}

// taxOf is step 4 for one tax entry of a line whose totalExcludingTax is
// excl, as Calculate does it.
func taxOf(t *LineTax, excl money.Amount, qty money.Decimal) money.Amount {
	switch t.TaxType {
	case "01", "02", "04", "05":
		return percentOf(excl, t.TaxRate)
	case TaxTourism:
		return money.Round2(qty.Mul(dec(t.TaxRate)))
	}
	return money.Zero() // 06, E
}

func (c *amountChecker) check(d *Document) {
	withMyr := !isMYR(d.CurrencyCode) && d.ExchangeRate != nil
	rate := dec(d.ExchangeRate)
	var sumExcl, sumTax, sumTaxMyr money.Amount
	for i := range d.Lines {
		l := &d.Lines[i]
		at := lineAt(i)
		qty := dec(l.Quantity)
		sub := c.expect(at, "subtotal", l.Subtotal, money.Round2(qty.Mul(dec(l.UnitPrice))))
		discount := c.expect(at, "discountAmount", l.DiscountAmount, percentOf(sub, l.DiscountRate))
		fee := c.expect(at, "feeOrChargeAmount", l.FeeOrChargeAmount, percentOf(sub, l.FeeOrChargeRate))
		excl := c.expect(at, "totalExcludingTax", l.TotalExcludingTax, sub.Sub(discount).Add(fee))
		var lineTax, lineTaxMyr money.Amount
		for j := range l.Taxes {
			t := &l.Taxes[j]
			tax := c.expect(at.tax(j), "taxAmount", t.TaxAmount, taxOf(t, excl, qty))
			lineTax = lineTax.Add(tax)
			var taxMyr money.Amount
			if withMyr {
				taxMyr = c.expect(at.tax(j), "taxAmountMyr", t.TaxAmountMyr, money.Round2(tax.Decimal().Mul(rate)))
				lineTaxMyr = lineTaxMyr.Add(taxMyr)
			}
			c.addToGroup(i, t, excl, tax, taxMyr)
		}
		tax := c.expect(at, "taxAmount", l.TaxAmount, lineTax)
		c.expect(at, "totalIncludingTax", l.TotalIncludingTax, excl.Add(tax))
		if withMyr {
			sumTaxMyr = sumTaxMyr.Add(c.expect(at, "taxAmountMyr", l.TaxAmountMyr, lineTaxMyr))
		}
		sumExcl = sumExcl.Add(excl)
		sumTax = sumTax.Add(tax)
	}
	sub := c.expect(top, "subtotal", d.Subtotal, sumExcl)
	discount := c.expect(top, "totalDiscountAmount", d.TotalDiscountAmount, amountOr0(d.InvoiceDiscount))
	fee := c.expect(top, "totalFeeAmount", d.TotalFeeAmount, amountOr0(d.InvoiceFee))
	excl := c.expect(top, "totalExcludingTax", d.TotalExcludingTax, sub.Sub(discount).Add(fee))
	tax := c.expect(top, "totalTaxAmount", d.TotalTaxAmount, sumTax)
	incl := c.expect(top, "totalIncludingTax", d.TotalIncludingTax, excl.Add(tax))
	var prepay money.Amount
	if d.Payment != nil {
		prepay = amountOr0(d.Payment.PrepaymentAmount)
	}
	prepay = c.expect(top, "prepaymentAmount", d.PrepaymentAmount, prepay)
	// The rounding follows the cash rule exactly.
	rounding := money.Zero()
	if isMYR(d.CurrencyCode) && d.Payment != nil && d.Payment.PaymentMode == paymentModeCash {
		rounding = cashRounding(incl.Sub(prepay))
	}
	switch {
	case d.RoundingAmount == nil:
		c.missing(top, "roundingAmount")
	case !d.RoundingAmount.Equal(rounding):
		c.v.add("ROUNDING_MISMATCH", "roundingAmount", fmt.Sprintf("is %s, expected %s (cash rounding to 0.05 applies to MYR documents paid in cash only)", d.RoundingAmount, rounding))
		rounding = *d.RoundingAmount
	}
	c.expect(top, "totalPayableAmount", d.TotalPayableAmount, incl.Sub(prepay).Add(rounding))
	if withMyr {
		c.expect(top, "totalTaxAmountMyr", d.TotalTaxAmountMyr, sumTaxMyr)
	}
	c.checkSubtotals(d.TaxSubtotals, withMyr)
}

// addToGroup adds tax entry t of line i, with the line's totalExcludingTax
// and the entry's amounts, to its group. A group's taxable amount counts
// each line once, even when the line has two entries of the group; its tax
// counts every entry (as Calculate does).
func (c *amountChecker) addToGroup(i int, t *LineTax, excl, tax, taxMyr money.Amount) {
	k := keyOf(t)
	g := c.group(k)
	if g == nil {
		c.groups = append(c.groups, taxGroup{key: k, taxType: t.TaxType, rate: t.TaxRate, lastLine: -1})
		g = &c.groups[len(c.groups)-1]
	}
	if g.lastLine != i {
		g.lastLine = i
		g.taxable = g.taxable.Add(excl)
	}
	g.tax = g.tax.Add(tax)
	g.taxMyr = g.taxMyr.Add(taxMyr)
}

// group returns the group of k, nil when there is none yet. A document has
// few groups: a linear search is the fastest.
func (c *amountChecker) group(k taxKey) *taxGroup {
	for i := range c.groups {
		if c.groups[i].key == k {
			return &c.groups[i]
		}
	}
	return nil
}

// checkSubtotals compares the client's taxSubtotals with the groups its
// lines give: one entry per (taxType, taxRate), in any order.
func (c *amountChecker) checkSubtotals(got []TaxSubtotal, withMyr bool) {
	if got == nil {
		c.v.add("AMOUNT_MISSING", "taxSubtotals", "is required when autoCalculate is false: one entry per (taxType, taxRate)")
		return
	}
	for i := range got {
		s := &got[i]
		at := fieldPath{list: "taxSubtotals", i: i}
		g := c.group(keyOf(&LineTax{TaxType: s.TaxType, TaxRate: s.TaxRate}))
		switch {
		case g == nil:
			c.v.add("TAX_SUBTOTALS_MISMATCH", at.to(""), fmt.Sprintf("is for tax %s at %s, which no line has", s.TaxType, rateText(s.TaxRate)))
			continue
		case g.matched:
			c.v.add("TAX_SUBTOTALS_MISMATCH", at.to(""), fmt.Sprintf("repeats tax %s at %s: one entry per taxType and taxRate", s.TaxType, rateText(s.TaxRate)))
			continue
		}
		g.matched = true
		c.expect(at, "taxableAmount", s.TaxableAmount, g.taxable)
		c.expect(at, "taxAmount", s.TaxAmount, g.tax)
		if withMyr {
			c.expect(at, "taxAmountMyr", s.TaxAmountMyr, g.taxMyr)
		}
	}
	var unmatched []string
	for _, g := range c.groups {
		if !g.matched {
			unmatched = append(unmatched, g.taxType+" at "+rateText(g.rate))
		}
	}
	if len(unmatched) > 0 {
		c.v.add("TAX_SUBTOTALS_MISMATCH", "taxSubtotals", "has no entry for tax "+strings.Join(unmatched, ", tax ")+", which the lines have: one entry per taxType and taxRate")
	}
}

// rateText writes a rate as the client gave it, "0" when absent.
func rateText(n *money.Number) string {
	if n == nil {
		return "0"
	}
	return n.String()
}
