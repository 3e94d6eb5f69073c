package ubl

import (
	"strconv"

	"github.com/einvoice/einvoice/internal/einvoice"
	"github.com/einvoice/einvoice/internal/money"
)

// Tax types with their own shape in UBL.
const (
	taxTourism = einvoice.TaxTourism // a fixed rate per unit: PerUnitAmount, no Percent
	taxExempt  = "E"                 // no rate: TaxExemptionReason, no Percent
)

// taxScheme is the scheme every tax category carries.
var taxScheme = []TaxScheme{{ID: []Identifier{{Value: "OTH", SchemeID: "UN/ECE 5153", SchemeAgencyID: "6"}}}}

// taxCategory writes the tax type, the exemption reasons and the scheme.
func taxCategory(taxType string, reasons ...string) []TaxCategory {
	c := TaxCategory{ID: ident(taxType, ""), TaxScheme: taxScheme}
	for _, r := range reasons {
		c.TaxExemptionReason = append(c.TaxExemptionReason, Text{Value: r})
	}
	return []TaxCategory{c}
}

// percent returns the rate of a percentage tax type (0 when absent, as
// for 06 Not Applicable), nothing for tourism tax and exemptions.
func percent(taxType string, rate *money.Number) []Numeric {
	if taxType == taxTourism || taxType == taxExempt {
		return nil
	}
	var r money.Number
	if rate != nil {
		r = *rate
	}
	return []Numeric{{Value: numberDecimal(r)}}
}

// perUnit returns the tourism tax's amount per unit, in the document's
// currency.
func (b *builder) perUnit(taxType string, rate *money.Number) []Amount {
	if rate == nil || taxType != taxTourism {
		return nil
	}
	return []Amount{{Value: numberDecimal(*rate), CurrencyID: b.cur}}
}

// taxTotal writes the document's TaxTotal: totalTaxAmount (in MYR for a
// foreign currency) and one TaxSubtotal per entry of taxSubtotals, with the
// rate (Percent, or PerUnitAmount for tourism tax) and, for exemptions, the
// distinct reasons the lines give.
func (b *builder) taxTotal() []TaxTotal {
	d := b.doc
	t := TaxTotal{TaxAmount: b.tax("totalTaxAmount", d.TotalTaxAmount, d.TotalTaxAmountMyr)}
	if d.TaxSubtotals == nil {
		b.missing("taxSubtotals")
	}
	for i := range d.TaxSubtotals {
		s := &d.TaxSubtotals[i]
		p := "taxSubtotals." + strconv.Itoa(i) + "."
		var reasons []string
		if s.TaxType == taxExempt {
			reasons = b.exemptionReasons(s.TaxRate)
		}
		t.TaxSubtotal = append(t.TaxSubtotal, TaxSubtotal{
			TaxableAmount: b.required(p+"taxableAmount", s.TaxableAmount),
			TaxAmount:     b.tax(p+"taxAmount", s.TaxAmount, s.TaxAmountMyr),
			Percent:       percent(s.TaxType, s.TaxRate),
			PerUnitAmount: b.perUnit(s.TaxType, s.TaxRate),
			TaxCategory:   taxCategory(s.TaxType, reasons...),
		})
	}
	return []TaxTotal{t}
}

// exemptionReasons returns the distinct exemption reasons of the lines' E
// entries of the given rate, in order of appearance.
func (b *builder) exemptionReasons(rate *money.Number) []string {
	var reasons []string
	seen := map[string]bool{}
	for i := range b.doc.Lines {
		for _, t := range b.doc.Lines[i].Taxes {
			if t.TaxType != taxExempt || t.ExemptionReason == "" || seen[t.ExemptionReason] || !sameRate(t.TaxRate, rate) {
				continue
			}
			seen[t.ExemptionReason] = true
			reasons = append(reasons, t.ExemptionReason)
		}
	}
	return reasons
}

// sameRate compares rates by value, an absent rate being 0 (as the
// calculation groups them).
func sameRate(a, b *money.Number) bool {
	var x, y money.Number
	if a != nil {
		x = *a
	}
	if b != nil {
		y = *b
	}
	return x.Decimal().Equal(y.Decimal())
}
