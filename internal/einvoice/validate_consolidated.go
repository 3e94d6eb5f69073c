package einvoice

import (
	"fmt"

	"github.com/einvoice/einvoice/internal/money"
)

// receiptSums checks a consolidated invoice made by a consolidation against
// the receipts it carries: every line, tax entry and total must be exactly
// what those receipts sum to (ConsolidatedDocument), the rounding the sum
// of the receipts' roundings; nothing is recomputed from rates.
func (v *validation) receiptSums(d *Document, receipts []*Receipt) {
	want := ConsolidatedDocument(receipts)
	if len(d.Lines) != len(want.Lines) {
		v.add("CONSOLIDATION_MISMATCH", "invoiceLines", fmt.Sprintf("has %d lines, the %d receipts it carries make %d", len(d.Lines), len(receipts), len(want.Lines)))
	}
	for i := range min(len(d.Lines), len(want.Lines)) {
		got, exp := &d.Lines[i], &want.Lines[i]
		at := lineAt(i)
		if got.ProductDescription != exp.ProductDescription {
			v.add("CONSOLIDATION_MISMATCH", at.to("productDescription"), fmt.Sprintf("is %q, the receipts make %q", got.ProductDescription, exp.ProductDescription))
		}
		v.sameAmount(at, "subtotal", got.Subtotal, exp.Subtotal)
		v.sameAmount(at, "discountAmount", got.DiscountAmount, exp.DiscountAmount)
		v.sameAmount(at, "feeOrChargeAmount", got.FeeOrChargeAmount, exp.FeeOrChargeAmount)
		v.sameAmount(at, "totalExcludingTax", got.TotalExcludingTax, exp.TotalExcludingTax)
		v.sameAmount(at, "taxAmount", got.TaxAmount, exp.TaxAmount)
		v.sameAmount(at, "totalIncludingTax", got.TotalIncludingTax, exp.TotalIncludingTax)
		v.sameAmount(at, "taxAmountMyr", got.TaxAmountMyr, exp.TaxAmountMyr)
		if len(got.Taxes) != len(exp.Taxes) {
			v.add("CONSOLIDATION_MISMATCH", at.to("invoiceLineTaxes"), fmt.Sprintf("has %d taxes, the receipts' lines have %d", len(got.Taxes), len(exp.Taxes)))
			continue
		}
		for j := range got.Taxes {
			gt, et := &got.Taxes[j], &exp.Taxes[j]
			if keyOf(gt) != keyOf(et) || gt.ExemptionReason != et.ExemptionReason {
				v.add("CONSOLIDATION_MISMATCH", at.tax(j).to("taxType"), fmt.Sprintf("is tax %s at %s, the receipts' lines have %s at %s", gt.TaxType, rateText(gt.TaxRate), et.TaxType, rateText(et.TaxRate)))
			}
			v.sameAmount(at.tax(j), "taxAmount", gt.TaxAmount, et.TaxAmount)
			v.sameAmount(at.tax(j), "taxAmountMyr", gt.TaxAmountMyr, et.TaxAmountMyr)
		}
	}
	v.sameAmount(top, "subtotal", d.Subtotal, want.Subtotal)
	v.sameAmount(top, "totalDiscountAmount", d.TotalDiscountAmount, want.TotalDiscountAmount)
	v.sameAmount(top, "totalFeeAmount", d.TotalFeeAmount, want.TotalFeeAmount)
	v.sameAmount(top, "totalExcludingTax", d.TotalExcludingTax, want.TotalExcludingTax)
	v.sameAmount(top, "totalTaxAmount", d.TotalTaxAmount, want.TotalTaxAmount)
	v.sameAmount(top, "totalIncludingTax", d.TotalIncludingTax, want.TotalIncludingTax)
	v.sameAmount(top, "prepaymentAmount", d.PrepaymentAmount, want.PrepaymentAmount)
	if !sameAmount(d.RoundingAmount, want.RoundingAmount) {
		v.add("ROUNDING_MISMATCH", "roundingAmount", fmt.Sprintf("is %s, the receipts' roundings sum to %s", amountText(d.RoundingAmount), amountText(want.RoundingAmount)))
	}
	v.sameAmount(top, "totalPayableAmount", d.TotalPayableAmount, want.TotalPayableAmount)
	v.sameAmount(top, "totalTaxAmountMyr", d.TotalTaxAmountMyr, want.TotalTaxAmountMyr)
	if len(d.TaxSubtotals) != len(want.TaxSubtotals) {
		v.add("TAX_SUBTOTALS_MISMATCH", "taxSubtotals", fmt.Sprintf("has %d entries, the lines make %d", len(d.TaxSubtotals), len(want.TaxSubtotals)))
		return
	}
	for i := range d.TaxSubtotals {
		g, e := &d.TaxSubtotals[i], &want.TaxSubtotals[i]
		at := fieldPath{list: "taxSubtotals", i: i}
		v.sameAmount(at, "taxableAmount", g.TaxableAmount, e.TaxableAmount)
		v.sameAmount(at, "taxAmount", g.TaxAmount, e.TaxAmount)
		v.sameAmount(at, "taxAmountMyr", g.TaxAmountMyr, e.TaxAmountMyr)
	}
}

// sameAmount reports an amount that is not exactly the receipts' sum.
func (v *validation) sameAmount(at fieldPath, field string, got, want *money.Amount) {
	if !sameAmount(got, want) {
		v.add("CONSOLIDATION_MISMATCH", at.to(field), fmt.Sprintf("is %s, the receipts it carries sum to %s", amountText(got), amountText(want)))
	}
}

func sameAmount(a, b *money.Amount) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return a.Equal(*b)
}

func amountText(a *money.Amount) string {
	if a == nil {
		return "absent"
	}
	return a.String()
}
