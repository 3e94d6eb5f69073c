package pdf

import (
	"strings"

	"github.com/einvoice/einvoice/internal/einvoice"
	"github.com/einvoice/einvoice/internal/money"
	"github.com/einvoice/einvoice/internal/refdata"
)

// The tax summary sits on the left, the totals on the right.
const (
	taxSummaryW = 104.0
	totalsX     = marginL + taxSummaryW + 8
	totalsW     = right - totalsX
)

// summaryRows close the document: on the left the tax summary and the
// payment details, on the right the totals.
func (r *renderer) summaryRows() []row {
	left := r.taxSummary()
	if p := r.payment(); p != nil {
		if left != nil {
			left = append(left, gap(4))
		}
		left = append(left, p...)
	}
	return append([]row{gap(4)}, r.beside(left, r.totals())...)
}

// taxSummary is the table of tax per type and rate.
func (r *renderer) taxSummary() []row {
	subs := r.doc.TaxSubtotals
	if len(subs) == 0 {
		return nil
	}
	type col struct {
		title string
		w     float64
		right bool
	}
	cols := []col{{"Tax type", 38, false}, {"Rate", 18, true}, {"Taxable amount", 24, true}, {"Tax amount", 24, true}}
	if r.foreign {
		cols = []col{{"Tax type", 30, false}, {"Rate", 16, true}, {"Taxable amount", 20, true}, {"Tax amount", 19, true}, {"Tax amount (MYR)", 19, true}}
	}
	line := func(top float64, cells []string, st style) {
		x := marginL
		for i, c := range cols {
			if c.right {
				r.c.textRight(x+c.w-1, top, cells[i], st)
			} else {
				r.c.text(x+1, top, cells[i], st)
			}
			x += c.w
		}
	}
	// The column titles, wrapped to their columns.
	hst := style{size: 6.8, bold: true, color: muted}
	titles := make([][]string, len(cols))
	titleLines := 1
	for i, c := range cols {
		titles[i] = r.c.wrap(c.title, c.w-2, hst)
		titleLines = max(titleLines, len(titles[i]))
	}
	titleH := float64(titleLines) * hst.lineHeight()
	rows := []row{
		{h: heading.lineHeight() + 1, keep: true, draw: func(top float64) { r.c.text(marginL, top, "TAX SUMMARY", heading) }},
		{h: titleH + 1, keep: true, draw: func(top float64) {
			for j := range titleLines {
				cells := make([]string, len(cols))
				for i := range cols {
					// Titles sit on the bottom line, like the figures under them.
					if k := j - (titleLines - len(titles[i])); k >= 0 {
						cells[i] = titles[i][k]
					}
				}
				line(top+float64(j)*hst.lineHeight(), cells, hst)
			}
			r.c.line(marginL, top+titleH+0.5, marginL+taxSummaryW, top+titleH+0.5, 0.2, rule)
		}},
	}
	for i, s := range subs {
		name := ""
		if l := r.c.wrap(taxName(s.TaxType), cols[0].w-2, cellSt); len(l) > 0 {
			name = l[0] // none when a font failed to load: the canvas keeps the error
		}
		cells := []string{
			name,
			taxRate(s.TaxType, s.TaxRate),
			formatAmount(s.TaxableAmount),
			formatAmount(s.TaxAmount),
		}
		if r.foreign {
			cells = append(cells, formatAmount(s.TaxAmountMyr))
		}
		rows = append(rows, row{h: cellLineH + 0.6, keep: i < len(subs)-1, draw: func(top float64) {
			line(top+0.3, cells, cellSt)
		}})
	}
	return rows
}

// totals are the document's amounts, ending with the amount payable. Absent
// amounts and zero adjustments are left out.
func (r *renderer) totals() []row {
	d := r.doc
	var rows []row
	add := func(label, note string, a *money.Amount, st style) {
		if a == nil {
			return
		}
		value := formatAmount(a)
		rows = append(rows, row{h: st.lineHeight() + 0.4, keep: true, draw: func(top float64) {
			r.c.text(totalsX, top, label, st)
			r.c.textRight(right, top, value, st)
		}})
		if note = strings.TrimSpace(note); note != "" {
			for _, l := range r.c.wrap(note, totalsW-20, cellNote) {
				rows = append(rows, row{h: cellNote.lineHeight(), keep: true, draw: func(top float64) {
					r.c.text(totalsX+2, top, l, cellNote)
				}})
			}
		}
	}
	adjust := func(label, note string, a *money.Amount) {
		if !isZero(a) {
			add(label, note, a, body)
		}
	}
	add("Subtotal", "", d.Subtotal, body)
	adjust("Invoice discount", d.InvoiceDiscountDesc, d.TotalDiscountAmount)
	adjust("Invoice fee / charge", d.InvoiceFeeDesc, d.TotalFeeAmount)
	add("Total excluding tax", "", d.TotalExcludingTax, body)
	add("Tax", "", d.TotalTaxAmount, body)
	if r.foreign {
		add("Tax in MYR", "", d.TotalTaxAmountMyr, body)
	}
	add("Total including tax", "", d.TotalIncludingTax, bodyBold)
	adjust("Prepayment", "", d.PrepaymentAmount)
	adjust("Rounding", "", d.RoundingAmount)

	payable := style{size: 10, bold: true, color: white}
	value := formatAmount(d.TotalPayableAmount)
	if d.TotalPayableAmount != nil {
		value = r.cur + " " + value
	}
	h := payable.lineHeight() + 2.4
	rows = append(rows, gap(1), row{h: h, draw: func(top float64) {
		r.c.rect(totalsX-2, top, totalsW+2, h, accent)
		r.c.text(totalsX, top+1.2, "Amount payable", payable)
		r.c.textRight(right-1, top+1.2, value, payable)
	}})
	if len(rows) > 0 {
		rows[0].keep = true
	}
	return append([]row{{h: heading.lineHeight() + 1, keep: true, draw: func(top float64) {
		r.c.text(totalsX, top, "TOTALS", heading)
	}}}, rows...)
}

// payment is the block of payment details, nil when there are none.
func (r *renderer) payment() []row {
	fields := paymentFields(r.doc.Payment)
	if fields == nil {
		return nil
	}
	return append(r.blockHeading(marginL, "PAYMENT"), r.fieldRows(marginL, taxSummaryW, partyLabelW, fields, body)...)
}

// paymentFields describe how the document is paid, nil when there is nothing.
func paymentFields(p *einvoice.Payment) []field {
	if p == nil {
		return nil
	}
	mode := ""
	if m := strings.TrimSpace(p.PaymentMode); m != "" {
		mode = codeName(refdata.PaymentModes, m)
		if mode != m {
			mode += " (" + m + ")"
		}
	}
	prepaid := ""
	if p.PrepaymentAmount != nil || p.PrepaymentDate != "" || p.PrepaymentReferenceNumber != "" {
		prepaid = joinNonEmpty(" · ", amountOrEmpty(p.PrepaymentAmount), onDate(p.PrepaymentDate), refText(p.PrepaymentReferenceNumber))
	}
	fields := []field{
		{"Mode", mode},
		{"Terms", strings.TrimSpace(p.PaymentTerms)},
		{"Bank account", strings.TrimSpace(p.SupplierBankAccountNumber)},
		{"Prepayment", prepaid},
	}
	for _, f := range fields {
		if f.value != "" {
			return fields
		}
	}
	return nil
}

func amountOrEmpty(a *money.Amount) string {
	if a == nil {
		return ""
	}
	return formatAmount(a)
}

func onDate(s string) string {
	if s = strings.TrimSpace(s); s == "" {
		return ""
	}
	return "on " + s
}

func refText(s string) string {
	if s = strings.TrimSpace(s); s == "" {
		return ""
	}
	return "ref. " + s
}
