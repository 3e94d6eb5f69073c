package einvoice

import (
	"fmt"
	"sort"
	"strings"

	"github.com/einvoice/einvoice/internal/money"
)

// ClassificationConsolidated is the authority's classification of a
// consolidated invoice's lines (004, Consolidated e-Invoice).
const ClassificationConsolidated = classConsolidated

// receiptNumberParts splits a receipt number into its prefix and its
// numeric suffix (the trailing digits, "" when none).
func receiptNumberParts(n string) (prefix, digits string) {
	i := len(n)
	for i > 0 && n[i-1] >= '0' && n[i-1] <= '9' {
		i--
	}
	return n[:i], n[i:]
}

// trimZeros drops the leading zeros of a digit string ("" stays "").
func trimZeros(d string) string {
	t := strings.TrimLeft(d, "0")
	if t == "" && d != "" {
		return "0"
	}
	return t
}

// compareDigits compares two digit strings by value.
func compareDigits(a, b string) int {
	a, b = trimZeros(a), trimZeros(b)
	if len(a) != len(b) {
		if len(a) < len(b) {
			return -1
		}
		return 1
	}
	return strings.Compare(a, b)
}

// incDigits is the digit string one more than d (by value).
func incDigits(d string) string {
	b := []byte(trimZeros(d))
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] < '9' {
			b[i]++
			return string(b)
		}
		b[i] = '0'
	}
	return "1" + string(b)
}

// CompareReceiptNumbers orders receipt numbers: by prefix, then by the
// value of their numeric suffix (R-9 before R-10), then as text.
func CompareReceiptNumbers(a, b string) int {
	pa, da := receiptNumberParts(a)
	pb, db := receiptNumberParts(b)
	if c := strings.Compare(pa, pb); c != 0 {
		return c
	}
	if c := compareDigits(da, db); c != 0 {
		return c
	}
	return strings.Compare(a, b)
}

// ConsecutiveReceiptNumbers reports whether b follows a: the same prefix,
// and a numeric suffix one more.
func ConsecutiveReceiptNumbers(a, b string) bool {
	pa, da := receiptNumberParts(a)
	pb, db := receiptNumberParts(b)
	return pa == pb && da != "" && db != "" && trimZeros(db) == incDigits(da)
}

// SortReceipts orders receipts by receipt number (CompareReceiptNumbers).
func SortReceipts(rs []*Receipt) {
	sort.SliceStable(rs, func(i, j int) bool { return CompareReceiptNumbers(rs[i].ReceiptNumber, rs[j].ReceiptNumber) < 0 })
}

// currencyKey is what a consolidated document has one of: the currency and
// the exchange rate.
func currencyKey(r *Receipt) string {
	k := r.CurrencyCode
	if k == "" {
		k = "MYR"
	}
	if r.ExchangeRate != nil && !isMYR(k) {
		k += "@" + r.ExchangeRate.Decimal().String()
	}
	return k
}

// treatmentKey is a receipt line's tax treatment: its taxes, each by type,
// rate and exemption reason.
func treatmentKey(l *Line) string {
	var b strings.Builder
	for j := range l.Taxes {
		t := &l.Taxes[j]
		k := keyOf(t)
		fmt.Fprintf(&b, "%s|%d|%d|%s|%s;", k.taxType, k.coef, k.exp, k.text, t.ExemptionReason)
	}
	return b.String()
}

// consolidatedLine accumulates the receipt lines of one run and treatment.
type consolidatedLine struct {
	key         string
	first, last string
	line        Line
}

func sumInto(dst **money.Amount, a *money.Amount) {
	v := amountOr0(*dst).Add(amountOr0(a))
	*dst = &v
}

// newConsolidatedLine starts a line of the treatment of l.
func newConsolidatedLine(key string, l *Line, withMyr bool) *consolidatedLine {
	c := &consolidatedLine{key: key}
	z := func() *money.Amount { v := money.Zero(); return &v }
	c.line = Line{AuthorityClassification: classConsolidated, Classifications: []string{classConsolidated},
		Quantity: numberPtr(money.NumberOf(money.Int(1))), UnitCode: "C62",
		Subtotal: z(), DiscountAmount: z(), FeeOrChargeAmount: z(), TotalExcludingTax: z(), TaxAmount: z(), TotalIncludingTax: z()}
	if withMyr {
		c.line.TaxAmountMyr = z()
	}
	for j := range l.Taxes {
		t := l.Taxes[j]
		nt := LineTax{TaxType: t.TaxType, TaxRate: t.TaxRate, ExemptionReason: t.ExemptionReason, TaxAmount: z()}
		if withMyr {
			nt.TaxAmountMyr = z()
		}
		c.line.Taxes = append(c.line.Taxes, nt)
	}
	return c
}

func numberPtr(n money.Number) *money.Number { return &n }

// add sums a receipt line into c.
func (c *consolidatedLine) add(l *Line, withMyr bool) {
	sumInto(&c.line.Subtotal, l.Subtotal)
	sumInto(&c.line.DiscountAmount, l.DiscountAmount)
	sumInto(&c.line.FeeOrChargeAmount, l.FeeOrChargeAmount)
	sumInto(&c.line.TotalExcludingTax, l.TotalExcludingTax)
	sumInto(&c.line.TaxAmount, l.TaxAmount)
	sumInto(&c.line.TotalIncludingTax, l.TotalIncludingTax)
	if withMyr {
		sumInto(&c.line.TaxAmountMyr, l.TaxAmountMyr)
	}
	for j := range l.Taxes {
		sumInto(&c.line.Taxes[j].TaxAmount, l.Taxes[j].TaxAmount)
		if withMyr {
			sumInto(&c.line.Taxes[j].TaxAmountMyr, l.Taxes[j].TaxAmountMyr)
		}
	}
}

// finish writes the line's description and its unit price (quantity 1 at
// the summed subtotal).
func (c *consolidatedLine) finish() Line {
	if c.first == c.last {
		c.line.ProductDescription = "Receipt " + c.first
	} else {
		c.line.ProductDescription = "Receipts " + c.first + " to " + c.last
	}
	c.line.UnitPrice = numberPtr(money.NumberOf(c.line.Subtotal.Decimal()))
	if !c.line.DiscountAmount.IsZero() {
		c.line.DiscountDescription = "Discounts of the receipts"
	}
	if !c.line.FeeOrChargeAmount.IsZero() {
		c.line.FeeOrChargeDescription = "Charges of the receipts"
	}
	return c.line
}

// runGrouper builds consolidated lines receipt by receipt: one line per run
// of consecutive receipt numbers (of one currency) and tax treatment.
type runGrouper struct {
	withMyr bool
	prev    *Receipt
	run     []*consolidatedLine
	index   map[string]int
	lines   []Line
}

// newLines is how many lines r would add: its treatments not yet in the
// current run (all of them when r starts a new run).
func (g *runGrouper) newLines(r *Receipt) int {
	cont := g.continues(r)
	n := 0
	var seen map[string]bool
	for i := range r.Lines {
		k := treatmentKey(&r.Lines[i])
		if cont {
			if _, ok := g.index[k]; ok {
				continue
			}
		}
		if seen[k] {
			continue
		}
		if seen == nil {
			seen = map[string]bool{}
		}
		seen[k] = true
		n++
	}
	return n
}

func (g *runGrouper) continues(r *Receipt) bool {
	return g.prev != nil && currencyKey(g.prev) == currencyKey(r) && ConsecutiveReceiptNumbers(g.prev.ReceiptNumber, r.ReceiptNumber)
}

// closeRun appends the current run's lines.
func (g *runGrouper) closeRun() {
	for _, c := range g.run {
		g.lines = append(g.lines, c.finish())
	}
	g.run, g.index = nil, nil
}

// add sums r into the current run, or starts a new one.
func (g *runGrouper) add(r *Receipt) {
	if !g.continues(r) {
		g.closeRun()
	}
	g.prev = r
	if g.index == nil {
		g.index = map[string]int{}
	}
	for i := range r.Lines {
		l := &r.Lines[i]
		k := treatmentKey(l)
		at, ok := g.index[k]
		if !ok {
			at = len(g.run)
			g.index[k] = at
			c := newConsolidatedLine(k, l, g.withMyr)
			c.first = r.ReceiptNumber
			g.run = append(g.run, c)
		}
		c := g.run[at]
		c.last = r.ReceiptNumber
		c.add(l, g.withMyr)
	}
}

// withMyrOf reports whether receipts of r's currency carry MYR tax amounts.
func withMyrOf(r *Receipt) bool { return !isMYR(r.CurrencyCode) && r.ExchangeRate != nil }

// ConsolidatedDocument is the consolidated invoice of receipts (one
// currency and exchange rate; sorted by receipt number here): one line per
// run of consecutive receipt numbers and tax treatment, each line's amounts
// the sums of those receipt lines' own amounts, the totals the sums of the
// lines and the rounding the sum of the receipts' roundings, so that the
// document's totals equal the receipts' to the cent (DECISIONS 17). The
// caller sets the id, serial number, status and times.
func ConsolidatedDocument(receipts []*Receipt) *Document {
	rs := append([]*Receipt(nil), receipts...)
	SortReceipts(rs)
	d := &Document{Kind: KindConsolidatedInvoice, TypeCode: "01", CurrencyCode: "MYR", AutoCalculate: false, Lines: []Line{}}
	withMyr := false
	if len(rs) > 0 {
		d.CurrencyCode = rs[0].CurrencyCode
		if !isMYR(d.CurrencyCode) {
			d.ExchangeRate = rs[0].ExchangeRate
		}
		withMyr = withMyrOf(rs[0])
	}
	g := &runGrouper{withMyr: withMyr}
	for _, r := range rs {
		g.add(r)
	}
	g.closeRun()
	d.Lines = g.lines
	var prepay, rounding money.Amount
	for _, r := range rs {
		prepay = prepay.Add(amountOr0(r.PrepaymentAmount))
		rounding = rounding.Add(amountOr0(r.RoundingAmount))
	}
	d.Totals = consolidatedTotals(d.Lines, prepay, rounding, withMyr)
	if !prepay.IsZero() {
		p := prepay
		d.Payment = &Payment{PrepaymentAmount: &p}
	}
	return d
}

// consolidatedTotals sums the lines into the document's totals (steps 5 to
// 7 of the calculation, the rounding given).
func consolidatedTotals(lines []Line, prepay, rounding money.Amount, withMyr bool) Totals {
	var sub, tax, taxMyr money.Amount
	var groups taxGroups
	for i := range lines {
		l := &lines[i]
		sub = sub.Add(amountOr0(l.TotalExcludingTax))
		tax = tax.Add(amountOr0(l.TaxAmount))
		if withMyr {
			taxMyr = taxMyr.Add(amountOr0(l.TaxAmountMyr))
		}
		groups.addLine(l, withMyr)
	}
	zero1, zero2 := money.Zero(), money.Zero()
	excl := sub
	incl := excl.Add(tax)
	payable := incl.Sub(prepay).Add(rounding)
	t := Totals{Subtotal: &sub, TotalDiscountAmount: &zero1, TotalFeeAmount: &zero2, TotalExcludingTax: &excl,
		TotalTaxAmount: &tax, TotalIncludingTax: &incl, PrepaymentAmount: &prepay, RoundingAmount: &rounding,
		TotalPayableAmount: &payable, TaxSubtotals: groups.list}
	if t.TaxSubtotals == nil {
		t.TaxSubtotals = []TaxSubtotal{}
	}
	if withMyr {
		t.TotalTaxAmountMyr = &taxMyr
	}
	return t
}

// SplitReceipts cuts receipts (sorted here by currency, then receipt
// number) into groups whose consolidated invoices have at most maxLines
// lines each and one currency: greedily, a receipt at a time, so that each
// group's document is ConsolidatedDocument of the group.
func SplitReceipts(receipts []*Receipt, maxLines int) [][]*Receipt {
	rs := append([]*Receipt(nil), receipts...)
	sort.SliceStable(rs, func(i, j int) bool {
		ci, cj := currencyKey(rs[i]), currencyKey(rs[j])
		if ci != cj {
			return ci < cj
		}
		return CompareReceiptNumbers(rs[i].ReceiptNumber, rs[j].ReceiptNumber) < 0
	})
	if maxLines < 1 {
		maxLines = 1
	}
	var out [][]*Receipt
	var cur []*Receipt
	g := &runGrouper{}
	lines := 0
	for _, r := range rs {
		n := g.newLines(r)
		newCurrency := len(cur) > 0 && currencyKey(cur[0]) != currencyKey(r)
		if len(cur) > 0 && (newCurrency || lines+n > maxLines) {
			out = append(out, cur)
			cur, lines, g = nil, 0, &runGrouper{}
			n = g.newLines(r)
		}
		cur = append(cur, r)
		lines += n
		g.add(r)
		g.lines = g.lines[:0] // only the count matters here
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}
