package einvoice

import (
	"github.com/einvoice/einvoice/internal/money"
)

// Calculate computes every amount of d from its inputs, per DECISIONS
// section 6, and stores them on d (lines, line taxes, totals, tax subtotals,
// MYR amounts). It never fails: missing inputs count as zero (quantity,
// price, rates absent = 0; a line without taxes has tax 0.00).
//
// It is one pure pipeline, in the order of section 6, each amount rounded
// with money.Round2 at the step where it appears:
//
//  1. line subtotal = quantity x unitPrice
//  2. line discountAmount = subtotal x discountRate / 100,
//     feeOrChargeAmount = subtotal x feeOrChargeRate / 100
//  3. line totalExcludingTax = subtotal - discountAmount + feeOrChargeAmount
//  4. each line tax: types 01, 02, 04, 05 totalExcludingTax x taxRate / 100;
//     03 (tourism) quantity x taxRate; 06, E (and any unknown type, which
//     validate refuses) 0.00. Line taxAmount = their sum, totalIncludingTax =
//     totalExcludingTax + taxAmount.
//  5. document subtotal = sum of line totalExcludingTax; totalDiscountAmount
//     and totalFeeAmount = invoiceDiscountAmount and invoiceFeeAmount (they
//     do not change the line taxes); totalExcludingTax = subtotal -
//     discount + fee; totalTaxAmount = sum of line taxAmount;
//     totalIncludingTax = totalExcludingTax + totalTaxAmount;
//     prepaymentAmount = payment.prepaymentAmount.
//  6. roundingAmount (MYR paid in cash only) and totalPayableAmount =
//     totalIncludingTax - prepaymentAmount + roundingAmount.
//  7. taxSubtotals, one per (taxType, taxRate by value) in order of first
//     appearance.
//  8. for another currency than MYR with an exchangeRate, the taxAmountMyr of
//     every tax entry, line and subtotal, and totalTaxAmountMyr; otherwise
//     they are nil.
//
// Every other amount is non-nil afterwards, "0.00" when its input is absent,
// and TaxSubtotals is non-nil. Amounts the client sent are replaced (the
// pointers, never the values they point to); inputs are left alone.
//
// The amounts are exact whatever their size, and may pass the limits of
// section 6 although every input is within them (quantity x unitPrice is up
// to 10^24): CheckAmountLimits names them, and create and update refuse such
// a document (PrepareDocument).
func Calculate(d *Document) {
	// Step 8's switch: MYR amounts only for a foreign currency with a rate.
	var exchangeRate money.Decimal
	withMyr := !isMYR(d.CurrencyCode) && d.ExchangeRate != nil
	if withMyr {
		exchangeRate = d.ExchangeRate.Decimal()
	}

	var (
		subtotal    = money.Zero()
		totalTax    = money.Zero()
		totalTaxMyr = money.Zero()
		groups      = taxGroups{list: []TaxSubtotal{}}
	)
	// The amounts of the lines and of their tax entries, in two allocations.
	perEntry := slotsPerEntry(withMyr)
	entries := 0
	for _, l := range d.Lines {
		entries += len(l.Taxes)
	}
	lineBlock := make([]lineAmounts, len(d.Lines))
	entryBlock := make([]money.Amount, perEntry*entries)

	for i := range d.Lines {
		l := &d.Lines[i]
		n := perEntry * len(l.Taxes)
		calculateLine(l, &lineBlock[i], entryBlock[:n:n], withMyr, exchangeRate)
		entryBlock = entryBlock[n:]
		subtotal = subtotal.Add(*l.TotalExcludingTax)
		totalTax = totalTax.Add(*l.TaxAmount)
		if withMyr {
			totalTaxMyr = totalTaxMyr.Add(*l.TaxAmountMyr)
		}
		groups.addLine(l, withMyr) // step 7, line by line
	}

	// Step 5.
	discount := amountOr0(d.InvoiceDiscount)
	fee := amountOr0(d.InvoiceFee)
	excl := subtotal.Sub(discount).Add(fee)
	incl := excl.Add(totalTax)
	prepayment := money.Zero()
	if d.Payment != nil {
		prepayment = amountOr0(d.Payment.PrepaymentAmount)
	}

	// Step 6: cash rounding for MYR paid in cash only.
	rounding := money.Zero()
	if isMYR(d.CurrencyCode) && d.Payment != nil && d.Payment.PaymentMode == paymentModeCash {
		rounding = cashRounding(incl.Sub(prepayment))
	}
	payable := incl.Sub(prepayment).Add(rounding)

	d.Totals = Totals{
		Subtotal:            &subtotal,
		TotalDiscountAmount: &discount,
		TotalFeeAmount:      &fee,
		TotalExcludingTax:   &excl,
		TotalTaxAmount:      &totalTax,
		TotalIncludingTax:   &incl,
		PrepaymentAmount:    &prepayment,
		RoundingAmount:      &rounding,
		TotalPayableAmount:  &payable,
		TaxSubtotals:        groups.list,
	}
	if withMyr {
		d.TotalTaxAmountMyr = &totalTaxMyr
	}
}

// paymentModeCash is the payment mode code of cash, the only one with cash
// rounding.
const paymentModeCash = "01"

// isMYR reports whether a document in currency code is in ringgit: "MYR", or
// no currency at all.
func isMYR(code string) bool { return code == "" || code == "MYR" }

// lineAmounts holds the amounts of one line.
type lineAmounts struct {
	subtotal, discount, fee, excl, tax, incl, taxMyr money.Amount
}

// calculateLine does steps 1 to 4 (and step 8's line part) for one line,
// storing the amounts in a and those of its tax entries in entryAmounts (one
// per entry, two with MYR amounts), which the line then points to.
func calculateLine(l *Line, a *lineAmounts, entryAmounts []money.Amount, withMyr bool, exchangeRate money.Decimal) {
	qty := numberOr0(l.Quantity)

	// Steps 1 to 3.
	a.subtotal = money.Round2(qty.Mul(numberOr0(l.UnitPrice)))
	a.discount = percentOf(a.subtotal, l.DiscountRate)
	a.fee = percentOf(a.subtotal, l.FeeOrChargeRate)
	a.excl = a.subtotal.Sub(a.discount).Add(a.fee)

	// Step 4, and step 8 for the entries and the line.
	a.tax, a.taxMyr = money.Zero(), money.Zero()
	perEntry := slotsPerEntry(withMyr)
	for j := range l.Taxes {
		t := &l.Taxes[j]
		tax := &entryAmounts[perEntry*j]
		switch t.TaxType {
		case "01", "02", "04", "05": // sales, service, high-value goods, low-value goods: a percentage
			*tax = percentOf(a.excl, t.TaxRate)
		case "03": // tourism: an amount per unit of quantity
			*tax = money.Round2(qty.Mul(numberOr0(t.TaxRate)))
		default: // 06 not applicable, E exempt (and unknown types, which validate refuses)
			*tax = money.Zero()
		}
		t.TaxAmount = tax
		a.tax = a.tax.Add(*tax)
		t.TaxAmountMyr = nil
		if withMyr {
			myr := &entryAmounts[perEntry*j+1]
			*myr = money.Round2(tax.Decimal().Mul(exchangeRate))
			t.TaxAmountMyr = myr
			a.taxMyr = a.taxMyr.Add(*myr)
		}
	}
	a.incl = a.excl.Add(a.tax)

	l.Subtotal = &a.subtotal
	l.DiscountAmount = &a.discount
	l.FeeOrChargeAmount = &a.fee
	l.TotalExcludingTax = &a.excl
	l.TaxAmount = &a.tax
	l.TotalIncludingTax = &a.incl
	l.TaxAmountMyr = nil
	if withMyr {
		l.TaxAmountMyr = &a.taxMyr
	}
}

// slotsPerEntry is how many amounts a tax entry has: taxAmount, and
// taxAmountMyr when withMyr.
func slotsPerEntry(withMyr bool) int {
	if withMyr {
		return 2
	}
	return 1
}

// percentOf returns base x rate / 100, rounded; 0.00 when rate is absent.
func percentOf(base money.Amount, rate *money.Number) money.Amount {
	if rate == nil {
		return money.Zero()
	}
	return money.Round2(base.Decimal().Mul(rate.Decimal()).Shift(-2))
}

// cashRounding returns the amount that brings x to the nearest multiple of
// 0.05 (Malaysia's rounding mechanism for cash payments). By the last sen
// digit: 1, 2 -> -0.01, -0.02 (down to 0); 3, 4 -> +0.02, +0.01 (up to 5);
// 6, 7 -> down to 5; 8, 9 -> up to the next 0. Negative values are symmetric,
// cashRounding(-x) = -cashRounding(x), and |result| <= 0.02 always.
//
// Exact halves (a distance of 0.025 to both neighbours) cannot occur: x has
// 2 decimals. Were one to come, x x 20 would end in .5 and decimal's Round(0)
// would take it away from zero, the rule of money.Round2.
func cashRounding(x money.Amount) money.Amount {
	twenty := money.Int(20)
	// x x 20 to the nearest integer, / 20: exact, a multiple of 0.05.
	nearest := x.Decimal().Mul(twenty).Round(0).DivRound(twenty, money.AmountDecimals)
	return money.Round2(nearest).Sub(x)
}

// taxGroups builds the tax subtotals of step 7 (and their part of step 8).
type taxGroups struct {
	list  []TaxSubtotal
	index map[taxKey]int // into list
	seen  []int          // groups the current line has already counted
}

// taxKey identifies a (taxType, taxRate) group, the rate by value: 6 and
// 6.00 are the same group. A rate is coefficient x 10^exp without trailing
// zeros; the rare coefficient too large for an int64 goes in text instead.
type taxKey struct {
	taxType string
	coef    int64
	exp     int32
	text    string
}

func keyOf(t *LineTax) taxKey {
	k := taxKey{taxType: t.TaxType}
	if t.TaxRate == nil {
		return k
	}
	r := t.TaxRate.Decimal()
	if r.IsZero() {
		return k
	}
	if r.NumDigits() > 18 {
		k.text = r.Normalize().String()
		return k
	}
	k.coef, k.exp = r.CoefficientInt64(), r.Exponent()
	for k.coef%10 == 0 {
		k.coef /= 10
		k.exp++
	}
	return k
}

// addLine adds the taxes of a calculated line to their groups. A group's
// taxableAmount counts each line once, even when the line has two entries of
// the group; its taxAmount counts every entry.
func (g *taxGroups) addLine(l *Line, withMyr bool) {
	g.seen = g.seen[:0]
	for j := range l.Taxes {
		t := &l.Taxes[j]
		k := keyOf(t)
		i, ok := g.index[k]
		if !ok {
			if g.index == nil {
				g.index = make(map[taxKey]int)
			}
			i = len(g.list)
			g.index[k] = i
			g.list = append(g.list, newTaxSubtotal(t, withMyr))
		}
		s := &g.list[i]
		if !contains(g.seen, i) {
			g.seen = append(g.seen, i)
			*s.TaxableAmount = s.TaxableAmount.Add(*l.TotalExcludingTax)
		}
		*s.TaxAmount = s.TaxAmount.Add(*t.TaxAmount)
		if withMyr {
			*s.TaxAmountMyr = s.TaxAmountMyr.Add(*t.TaxAmountMyr)
		}
	}
}

// newTaxSubtotal starts the group of t, with its zero sums and a copy of the
// rate as the first line gave it ("0" when absent).
func newTaxSubtotal(t *LineTax, withMyr bool) TaxSubtotal {
	rate := money.NumberOf(money.Decimal{})
	if t.TaxRate != nil {
		rate = *t.TaxRate
	}
	taxable, tax := money.Zero(), money.Zero()
	s := TaxSubtotal{TaxType: t.TaxType, TaxRate: &rate, TaxableAmount: &taxable, TaxAmount: &tax}
	if withMyr {
		myr := money.Zero()
		s.TaxAmountMyr = &myr
	}
	return s
}

func contains(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// numberOr0 returns the value of n, 0 when absent.
func numberOr0(n *money.Number) money.Decimal {
	if n == nil {
		return money.Decimal{}
	}
	return n.Decimal()
}

// amountOr0 returns a copy of *a, 0.00 when absent.
func amountOr0(a *money.Amount) money.Amount {
	if a == nil {
		return money.Zero()
	}
	return *a
}
