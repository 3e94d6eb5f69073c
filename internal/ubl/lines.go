package ubl

import (
	"slices"
	"strconv"

	"github.com/shopspring/decimal"

	"github.com/einvoice/einvoice/internal/einvoice"
	"github.com/einvoice/einvoice/internal/money"
)

// listClassCode is the listID of the authority's classification codes,
// listTariffCode that of product tariff codes.
const (
	listClassCode  = "CLASS"
	listTariffCode = "PTC"
)

// defaultUnit is written as the unit of a tourism tax's BaseUnitMeasure
// (the schema requires one) when the line has no unit: "one", as in the
// samples.
const defaultUnit = "C62"

// lines writes one InvoiceLine per line, numbered from 1.
func (b *builder) lines() []InvoiceLine {
	if len(b.doc.Lines) == 0 {
		b.missing("invoiceLines")
		return nil
	}
	out := make([]InvoiceLine, len(b.doc.Lines))
	for i := range b.doc.Lines {
		out[i] = b.line("invoiceLines."+strconv.Itoa(i)+".", i+1, &b.doc.Lines[i])
	}
	return out
}

// line writes one line; p is the prefix of its fields' paths.
func (b *builder) line(p string, n int, l *einvoice.Line) InvoiceLine {
	unit := AuthorityUnit(l.UnitCode)
	var qty []Quantity
	if l.Quantity == nil {
		b.missing(p + "quantity")
	} else {
		qty = []Quantity{{Value: numberDecimal(*l.Quantity), UnitCode: unit}}
	}
	var price []Price
	if l.UnitPrice == nil {
		b.missing(p + "unitPrice")
	} else {
		price = []Price{{PriceAmount: []Amount{{Value: numberDecimal(*l.UnitPrice), CurrencyID: b.cur}}}}
	}
	return InvoiceLine{
		ID:                  ident(strconv.Itoa(n), ""),
		InvoicedQuantity:    qty,
		LineExtensionAmount: b.required(p+"totalExcludingTax", l.TotalExcludingTax),
		AllowanceCharge:     b.lineAllowanceCharges(l),
		TaxTotal:            b.lineTaxTotal(p, l, unit),
		Item: []Item{{
			CommodityClassification: b.classifications(l),
			Description:             text(l.ProductDescription),
			OriginCountry:           originCountry(l.CountryOfOrigin),
		}},
		Price:              price,
		ItemPriceExtension: []PriceExtension{{Amount: b.required(p+"subtotal", l.Subtotal)}},
	}
}

// lineAllowanceCharges writes the line's discount and fee, when non-zero,
// with their rate as a fraction (MultiplierFactorNumeric 0.15 for 15 %).
func (b *builder) lineAllowanceCharges(l *einvoice.Line) []AllowanceCharge {
	var acs []AllowanceCharge
	add := func(charge bool, a *money.Amount, rate *money.Number, reason string) {
		if a == nil || a.IsZero() {
			return
		}
		ac := AllowanceCharge{
			ChargeIndicator:       []Indicator{{Value: charge}},
			AllowanceChargeReason: optText(reason),
			Amount:                amountIn(*a, b.cur),
		}
		if rate != nil {
			ac.MultiplierFactorNumeric = []Numeric{{Value: DecimalOf(fraction(rate.Decimal()))}}
		}
		acs = append(acs, ac)
	}
	add(false, l.DiscountAmount, l.DiscountRate, l.DiscountDescription)
	add(true, l.FeeOrChargeAmount, l.FeeOrChargeRate, l.FeeOrChargeDescription)
	return acs
}

// fraction returns a percentage as a fraction, exactly: 15 -> 0.15.
func fraction(pct decimal.Decimal) decimal.Decimal { return pct.Shift(-2) }

// lineTaxTotal writes the line's TaxTotal: its taxAmount (in MYR for a
// foreign currency) and one TaxSubtotal per entry of invoiceLineTaxes, the
// taxable amount being the line's totalExcludingTax. Tourism tax (03) has
// the quantity in BaseUnitMeasure and the rate in PerUnitAmount instead of
// a Percent; an exemption (E) has its reason.
func (b *builder) lineTaxTotal(p string, l *einvoice.Line, unit string) []TaxTotal {
	t := TaxTotal{TaxAmount: b.tax(p+"taxAmount", l.TaxAmount, l.TaxAmountMyr)}
	for j := range l.Taxes {
		tx := &l.Taxes[j]
		tp := p + "invoiceLineTaxes." + strconv.Itoa(j) + "."
		s := TaxSubtotal{
			TaxableAmount: b.required(p+"totalExcludingTax", l.TotalExcludingTax),
			TaxAmount:     b.tax(tp+"taxAmount", tx.TaxAmount, tx.TaxAmountMyr),
			Percent:       percent(tx.TaxType, tx.TaxRate),
			PerUnitAmount: b.perUnit(tx.TaxType, tx.TaxRate),
		}
		if s.PerUnitAmount != nil && l.Quantity != nil {
			u := unit
			if u == "" {
				u = defaultUnit
			}
			s.BaseUnitMeasure = []Measure{{Value: numberDecimal(*l.Quantity), UnitCode: u}}
		}
		var reasons []string
		if tx.TaxType == taxExempt && tx.ExemptionReason != "" {
			reasons = []string{tx.ExemptionReason}
		}
		s.TaxCategory = taxCategory(tx.TaxType, reasons...)
		t.TaxSubtotal = append(t.TaxSubtotal, s)
	}
	return []TaxTotal{t}
}

// classifications writes the line's tariff code (listID "PTC") first, as
// the samples do, then its classifications as the authority's codes
// (listID "CLASS"), each once: the line's authorityClassification when it
// has one, else the mapping of its classifications; on a consolidated
// invoice, 004 only.
func (b *builder) classifications(l *einvoice.Line) []CommodityClassification {
	var out []CommodityClassification
	if l.TariffCode != "" {
		out = append(out, classification(l.TariffCode, listTariffCode))
	}
	switch {
	case b.info.Consolidated:
		return append(out, classification(ClassificationConsolidated, listClassCode))
	case l.AuthorityClassification != "":
		return append(out, classification(l.AuthorityClassification, listClassCode))
	}
	codes := make([]string, 0, len(l.Classifications))
	for _, c := range l.Classifications {
		if a := AuthorityClassification(c); !slices.Contains(codes, a) {
			codes = append(codes, a)
		}
	}
	for _, c := range codes {
		out = append(out, classification(c, listClassCode))
	}
	return out
}

func classification(c, list string) CommodityClassification {
	return CommodityClassification{ItemClassificationCode: []Code{{Value: c, ListID: list}}}
}

// originCountry writes the line's country of origin as the samples do
// (Item/OriginCountry/IdentificationCode, no list attributes).
func originCountry(c string) []Country {
	if c == "" {
		return nil
	}
	return []Country{{IdentificationCode: code(c)}}
}
