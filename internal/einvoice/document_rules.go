package einvoice

import (
	"fmt"
	"strconv"
	"time"

	"github.com/einvoice/einvoice/internal/money"
	"github.com/einvoice/einvoice/internal/refdata"
)

// DateLayout is the layout of dates in requests and responses.
const DateLayout = "2006-01-02"

// TaxTourism is the tax type whose rate is an amount per unit.
const TaxTourism = "03"

var hundred = money.Int(100)

func checkDate(f FieldErrors, path, value string) {
	if value == "" {
		return
	}
	if _, err := time.Parse(DateLayout, value); err != nil {
		f.Add(path, "must be a date as YYYY-MM-DD")
	}
}

// checkPercent refuses a rate outside 0 to 100.
func checkPercent(f FieldErrors, path string, n *money.Number) {
	if n == nil {
		return
	}
	if d := n.Decimal(); d.IsNegative() || d.GreaterThan(hundred) {
		f.Add(path, "must be a percentage from 0 to 100")
	}
}

func checkNonNegative(f FieldErrors, path string, n *money.Number) {
	if n != nil && n.Decimal().IsNegative() {
		f.Add(path, "must not be negative")
	}
}

// checkNonNegativeAmount refuses a negative document-level discount, fee or
// prepayment: each is taken off or added by its field, so a negative one
// would turn it into the other (DECISIONS 12).
func checkNonNegativeAmount(f FieldErrors, path string, a *money.Amount) {
	if a != nil && a.Cmp(money.Zero()) < 0 {
		f.Add(path, "must not be negative")
	}
}

// ValidateDocumentInput returns what makes a create or update of d refused
// (DECISIONS sections 5 and 12), apart from the parties, which need the
// store, and the limits of computed amounts (PrepareDocument): numbers out
// of range, a negative discount, fee or prepayment, codes not in the lists,
// a tax type twice on a line, unparsable dates, a note without references,
// too many lines. Everything else is validate's
// business: a draft may be incomplete or wrong in content.
func ValidateDocumentInput(d *Document, info KindInfo) FieldErrors {
	f := FieldErrors{}
	checkCode(f, "currencyCode", refdata.Currencies, d.CurrencyCode, "currencies")
	checkNonNegativeAmount(f, "invoiceDiscountAmount", d.InvoiceDiscount)
	checkNonNegativeAmount(f, "invoiceFeeAmount", d.InvoiceFee)
	if p := d.Payment; p != nil {
		checkNonNegativeAmount(f, "payment.prepaymentAmount", p.PrepaymentAmount)
	}
	if len(d.Lines) > MaxLines {
		f.Add("invoiceLines", "a document has at most %d lines, this one has %d", MaxLines, len(d.Lines))
		return f // the lines are not examined one by one
	}
	for i := range d.Lines {
		checkLineInput(f, "invoiceLines."+strconv.Itoa(i), &d.Lines[i])
	}
	if p := d.Payment; p != nil {
		checkCode(f, "payment.paymentMode", refdata.PaymentModes, p.PaymentMode, "payment-modes")
		checkDate(f, "payment.prepaymentDate", p.PrepaymentDate)
	}
	if dl := d.Delivery; dl != nil {
		checkCode(f, "delivery.recipientIdType", refdata.IDTypes, dl.RecipientIDType, "id-types")
		if dl.RecipientAddress != nil {
			checkAddressInput(f, "delivery.recipientAddress", *dl.RecipientAddress)
		}
	}
	if ip := d.InvoicePeriod; ip != nil {
		checkDate(f, "invoicePeriod.billingPeriodStartDate", ip.BillingPeriodStartDate)
		checkDate(f, "invoicePeriod.billingPeriodEndDate", ip.BillingPeriodEndDate)
	}
	if info.Note && len(d.References) == 0 {
		f.Add("documentReferences", "a %s refers to at least one document: give its referenceNumber and uuid (or NA with isPreEinvoicing)", kindNoun(info.Kind))
	}
	return f
}

func checkLineInput(f FieldErrors, path string, l *Line) {
	for j, c := range l.Classifications {
		checkCode(f, fmt.Sprintf("%s.classifications.%d", path, j), refdata.Classifications, c, "classifications")
	}
	checkCode(f, path+".authorityClassification", refdata.AuthorityClassifications, l.AuthorityClassification, "authority-classifications")
	checkCode(f, path+".countryOfOrigin", refdata.Countries, l.CountryOfOrigin, "countries")
	checkCode(f, path+".unitCode", refdata.UnitTypes, l.UnitCode, "unit-types")
	checkNonNegative(f, path+".quantity", l.Quantity)
	checkNonNegative(f, path+".unitPrice", l.UnitPrice)
	checkPercent(f, path+".discountRate", l.DiscountRate)
	checkPercent(f, path+".feeOrChargeRate", l.FeeOrChargeRate)
	checkTaxTypesOnce(f, path, l.Taxes)
	for j := range l.Taxes {
		t := &l.Taxes[j]
		tp := fmt.Sprintf("%s.invoiceLineTaxes.%d", path, j)
		checkCode(f, tp+".taxType", refdata.TaxTypes, t.TaxType, "tax-types")
		if t.TaxType == TaxTourism {
			// Tourism tax is an amount per unit: money, not a percentage.
			checkNonNegative(f, tp+".taxRate", t.TaxRate)
			if t.TaxRate != nil && !t.TaxRate.Decimal().Equal(t.TaxRate.Decimal().Round(money.AmountDecimals)) {
				f.Add(tp+".taxRate", "tourism tax is an amount per unit: at most 2 decimals")
			}
		} else {
			checkPercent(f, tp+".taxRate", t.TaxRate)
		}
	}
}

// checkTaxTypesOnce refuses a tax type a line carries twice (DECISIONS 12),
// naming the second entry: the tax subtotals would count the line's taxable
// amount once and its tax twice.
func checkTaxTypesOnce(f FieldErrors, path string, taxes []LineTax) {
	if len(taxes) < 2 {
		return
	}
	first := make(map[string]int, len(taxes)) // the index of each type's first entry
	for j, t := range taxes {
		if t.TaxType == "" { // no type yet: a draft may be incomplete
			continue
		}
		if k, seen := first[t.TaxType]; seen {
			f.Add(fmt.Sprintf("%s.invoiceLineTaxes.%d.taxType", path, j),
				"tax type %s is already on this line (invoiceLineTaxes.%d): a line carries a tax type at most once", t.TaxType, k)
			continue
		}
		first[t.TaxType] = j
	}
}

// kindNoun names a kind in messages ("self-billed credit note").
func kindNoun(k DocumentKind) string {
	b := []byte(k)
	for i, c := range b {
		if c == '_' {
			b[i] = ' '
		}
	}
	s := string(b)
	if len(s) > 12 && s[:11] == "self billed" {
		s = "self-billed" + s[11:]
	}
	return s
}
