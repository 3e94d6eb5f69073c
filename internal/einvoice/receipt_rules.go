package einvoice

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/einvoice/einvoice/internal/money"
)

// ReceiptFutureSlack is how far ahead of the service's clock a receipt's
// issuedAt may be (the clocks of points of sale drift).
const ReceiptFutureSlack = 10 * time.Minute

// consolidationLimit is the largest total payable, in MYR, that the
// authority allows in a consolidated invoice (RuleConsolidationLimit).
var consolidationLimit = money.MustAmount("10000.00")

// PrepareReceipt turns a client's input into a receipt, or says what makes
// it refused: the rules of a document's create for the same fields
// (PrepareDocument, as an invoice with autoCalculate: code lists, ranges,
// a tax type twice, the limits of every computed amount), and what a
// receipt needs because it is never edited: a receipt number (at most 50
// characters, no control characters), issuedAt (not in the future beyond
// ReceiptFutureSlack of now), at least one line, each with a description,
// a quantity, a unit price and at least one tax (an exempt one with its
// reason), and the exchange rate of a currency other than MYR (absent or 1
// for MYR). The amounts are always computed; amounts given are ignored.
// The receipt's id, tenant, status, token and times are the caller's.
func PrepareReceipt(in *ReceiptInput, now time.Time) (*Receipt, FieldErrors) {
	f := FieldErrors{}
	num := in.ReceiptNumber
	switch {
	case strings.TrimSpace(num) == "":
		f.Add("receiptNumber", "is required")
	case len([]rune(num)) > MaxReceiptNumberLen:
		f.Add("receiptNumber", "must be at most %d characters", MaxReceiptNumberLen)
	case strings.IndexFunc(num, unicode.IsControl) >= 0:
		f.Add("receiptNumber", "must not contain control characters")
	case strings.TrimSpace(num) != num:
		f.Add("receiptNumber", "must not begin or end with spaces")
	}
	if in.IssuedAt == nil {
		f.Add("issuedAt", "is required (RFC 3339 with an offset, e.g. 2026-11-22T10:30:00+08:00)")
	} else if in.IssuedAt.After(now.Add(ReceiptFutureSlack)) {
		f.Add("issuedAt", "must not be in the future")
	}
	cur := in.CurrencyCode
	if cur == "" {
		cur = "MYR"
	}
	if isMYR(cur) {
		if in.ExchangeRate != nil && !in.ExchangeRate.Decimal().Equal(money.Int(1)) {
			f.Add("exchangeRate", "must be absent or 1 for MYR")
		}
	} else if in.ExchangeRate == nil {
		f.Add("exchangeRate", "is required for a currency other than MYR (MYR per one %s)", cur)
	} else if !in.ExchangeRate.Decimal().IsPositive() {
		f.Add("exchangeRate", "must be more than 0")
	}
	if len(in.Lines) == 0 {
		f.Add("invoiceLines", "a receipt has at least one line")
	}
	for i := range in.Lines {
		checkReceiptLine(f, "invoiceLines."+strconv.Itoa(i), &in.Lines[i])
	}
	d := &Document{Kind: KindInvoice, TypeCode: "01", CurrencyCode: cur, ExchangeRate: in.ExchangeRate,
		AutoCalculate: true, Lines: in.Lines, Payment: in.Payment}
	info, _ := InfoOf(KindInvoice)
	f.Merge("", PrepareDocument(d, info))
	if len(f) > 0 {
		return nil, f
	}
	r := &Receipt{ReceiptNumber: num, IssuedAt: in.IssuedAt.UTC().Truncate(time.Microsecond), CurrencyCode: cur,
		ExchangeRate: in.ExchangeRate, Lines: d.Lines, Payment: d.Payment, Totals: d.Totals}
	r.Month = ReceiptMonth(r.IssuedAt)
	return r, nil
}

// checkReceiptLine adds what a receipt's line needs beyond a document's
// input rules: a receipt is never edited, so what validate asks of a
// document's line (validation.lines) is asked now, but a classification,
// which the consolidated invoice (004) or the buyer's invoice gives.
func checkReceiptLine(f FieldErrors, path string, l *Line) {
	if blank(l.ProductDescription) {
		f.Add(path+".productDescription", "is required")
	}
	for name, v := range map[string]string{"productDescription": l.ProductDescription,
		"discountDescription": l.DiscountDescription, "feeOrChargeDescription": l.FeeOrChargeDescription} {
		if len(v) > maxDescriptionLen && utf8.RuneCountInString(v) > maxDescriptionLen {
			f.Add(path+"."+name, "must be at most %d characters", maxDescriptionLen)
		}
	}
	if l.Quantity == nil {
		f.Add(path+".quantity", "is required")
	}
	if l.UnitPrice == nil {
		f.Add(path+".unitPrice", "is required")
	}
	if len(l.Taxes) == 0 {
		f.Add(path+".invoiceLineTaxes", "a receipt line carries at least one tax (06 when none applies, E when exempt)")
	}
	for j := range l.Taxes {
		t := &l.Taxes[j]
		tp := fmt.Sprintf("%s.invoiceLineTaxes.%d", path, j)
		switch {
		case t.TaxType == "":
			f.Add(tp+".taxType", "is required")
		case t.TaxType == "E" || t.TaxType == "06":
			if t.TaxRate != nil && !t.TaxRate.Decimal().IsZero() {
				f.Add(tp+".taxRate", "tax types 06 and E have rate 0")
			}
		case t.TaxRate == nil:
			f.Add(tp+".taxRate", "is required")
		}
		if t.TaxType == "E" {
			switch {
			case blank(t.ExemptionReason):
				f.Add(tp+".exemptionReason", "is required for an exempt tax (E)")
			case utf8.RuneCountInString(t.ExemptionReason) > maxReasonLen:
				f.Add(tp+".exemptionReason", "must be at most %d characters", maxReasonLen)
			case !exemptionReasonOK(t.ExemptionReason):
				f.Add(tp+".exemptionReason", "may hold only letters, digits, spaces and . - , ( )")
			}
		}
	}
}

// PayableMYR is the receipt's total payable in MYR: as it is for an MYR
// receipt, times the exchange rate (rounded) otherwise.
func (r *Receipt) PayableMYR() money.Amount {
	total := amountOr0(r.TotalPayableAmount)
	if isMYR(r.CurrencyCode) || r.ExchangeRate == nil {
		return total
	}
	return money.Round2(total.Decimal().Mul(r.ExchangeRate.Decimal()))
}

// WithinRelaxation reports whether a receipt issued at at falls within the
// tenant's interim relaxation (Profile.ConsolidationRelaxedUntil, a date:
// a receipt issued on or before it, in Malaysian time, is within).
func WithinRelaxation(p *Profile, at time.Time) bool {
	if p.ConsolidationRelaxedUntil == "" {
		return false
	}
	until, err := time.ParseInLocation(DateLayout, p.ConsolidationRelaxedUntil, MYT)
	if err != nil {
		return false
	}
	return at.Before(until.AddDate(0, 0, 1))
}

// ReceiptExclusion says why the authority does not allow r in a
// consolidated invoice of tenant t, or "" when it does: a total payable
// over RM10,000 (in MYR) while RuleConsolidationLimit is in force for the
// tenant's environment at r.IssuedAt, unless the tenant declares itself
// within the interim relaxation on that day. Creation and consolidation
// both judge by it.
func ReceiptExclusion(r *Receipt, t *Tenant) string {
	payable := r.PayableMYR()
	if payable.Cmp(consolidationLimit) <= 0 {
		return ""
	}
	rule, ok := DatedRuleByID(RuleConsolidationLimit)
	env := t.Authority.Environment
	if !ok || !rule.InForce(env, r.IssuedAt) || WithinRelaxation(&t.Profile, r.IssuedAt) {
		return ""
	}
	return fmt.Sprintf("%s: the total payable, RM%s, is over RM10,000: such a sale needs an e-invoice of its own (%s)",
		RuleConsolidationLimit, payable, rule.Since(env))
}
