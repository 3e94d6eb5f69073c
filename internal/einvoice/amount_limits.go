package einvoice

import (
	"strconv"

	"github.com/einvoice/einvoice/internal/money"
)

// CheckAmountLimits returns every amount of d, computed or given, beyond the
// limits of DECISIONS section 6 (10^12 in magnitude), each under its field
// path, in the order of the document: the document-level inputs, each line
// (its amounts, those of its tax entries), the totals, the tax subtotals.
//
// A stored document is read back with the request limits (money.ParseAmount),
// so a document with an amount beyond them must never be stored: create and
// update refuse it (PrepareDocument). Inputs are within the limits by
// parsing; sums and products of them (quantity x unitPrice, 1,000 lines of
// 10^12, tourism tax per unit, taxAmount x exchangeRate, a prepayment above
// the total) can pass them.
func CheckAmountLimits(d *Document) FieldErrors {
	f := FieldErrors{}
	check := func(path string, a *money.Amount) {
		if a != nil && !a.InLimits() {
			f.Add(path, "comes to %s: an amount is at most 10^12 in magnitude", a)
		}
	}
	check("invoiceDiscountAmount", d.InvoiceDiscount)
	check("invoiceFeeAmount", d.InvoiceFee)
	if d.Payment != nil {
		check("payment.prepaymentAmount", d.Payment.PrepaymentAmount)
	}
	for i := range d.Lines {
		l := &d.Lines[i]
		p := "invoiceLines." + strconv.Itoa(i) + "."
		check(p+"subtotal", l.Subtotal)
		check(p+"discountAmount", l.DiscountAmount)
		check(p+"feeOrChargeAmount", l.FeeOrChargeAmount)
		check(p+"totalExcludingTax", l.TotalExcludingTax)
		for j := range l.Taxes {
			tp := p + "invoiceLineTaxes." + strconv.Itoa(j) + "."
			check(tp+"taxAmount", l.Taxes[j].TaxAmount)
			check(tp+"taxAmountMyr", l.Taxes[j].TaxAmountMyr)
		}
		check(p+"taxAmount", l.TaxAmount)
		check(p+"totalIncludingTax", l.TotalIncludingTax)
		check(p+"taxAmountMyr", l.TaxAmountMyr)
	}
	t := &d.Totals
	check("subtotal", t.Subtotal)
	check("totalDiscountAmount", t.TotalDiscountAmount)
	check("totalFeeAmount", t.TotalFeeAmount)
	check("totalExcludingTax", t.TotalExcludingTax)
	check("totalTaxAmount", t.TotalTaxAmount)
	check("totalIncludingTax", t.TotalIncludingTax)
	check("prepaymentAmount", t.PrepaymentAmount)
	check("roundingAmount", t.RoundingAmount)
	check("totalPayableAmount", t.TotalPayableAmount)
	check("totalTaxAmountMyr", t.TotalTaxAmountMyr)
	for k := range t.TaxSubtotals {
		s := &t.TaxSubtotals[k]
		p := "taxSubtotals." + strconv.Itoa(k) + "."
		check(p+"taxableAmount", s.TaxableAmount)
		check(p+"taxAmount", s.TaxAmount)
		check(p+"taxAmountMyr", s.TaxAmountMyr)
	}
	return f
}

// PrepareDocument applies to d the rules of a create or update of its kind,
// apart from its parties (which need the store): the input rules
// (ValidateDocumentInput); then, when they pass, the amounts of an
// autoCalculate document (Calculate) and the limits of every amount,
// computed or given (CheckAmountLimits). It returns what makes the request
// refused, empty when nothing does: d may then be stored, and read back.
func PrepareDocument(d *Document, info KindInfo) FieldErrors {
	f := ValidateDocumentInput(d, info)
	if len(f) > 0 {
		// Amounts computed from refused inputs (a rate of 500 %) would only
		// repeat their problems.
		return f
	}
	if d.AutoCalculate {
		Calculate(d)
	}
	return CheckAmountLimits(d)
}
