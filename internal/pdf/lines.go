package pdf

import (
	"strconv"
	"strings"

	"github.com/einvoice/einvoice/internal/einvoice"
	"github.com/einvoice/einvoice/internal/money"
	"github.com/einvoice/einvoice/internal/refdata"
)

// column is a column of the line table.
type column struct {
	title string
	w     float64
	right bool // right-aligned
}

// columns of the line table; the description takes the width left over.
var columns = func() []column {
	cols := []column{
		{"No.", 7, false},
		{"Class.", 15, false},
		{"Description", 0, false},
		{"Quantity", 17, true},
		{"Unit price", 16, true},
		{"Discount", 14, true},
		{"Charge", 14, true},
		{"Tax", 21, true},
		{"Excl. tax", 17, true},
		{"Incl. tax", 17, true},
	}
	rest := contentW
	for _, c := range cols {
		rest -= c.w
	}
	cols[2].w = rest
	return cols
}()

// Styles and spacing of the table.
var (
	cellSt     = style{size: 7, color: ink}
	cellNote   = style{size: 6.3, color: muted}
	headerSt   = style{size: 6.8, bold: true, color: white}
	cellLineH  = cellSt.lineHeight()
	cellPadX   = 1.0
	cellPadY   = 0.8
	headerPadY = 1.2
)

// cellLine is one line of text in a cell.
type cellLine struct {
	text string
	st   style
}

// lineTable draws the heading, the header row and one row per line; the
// header row repeats at the top of every page the table continues on.
func (r *renderer) lineTable() {
	header := r.headerCells()
	headerH := 2*headerPadY + float64(maxLen(header))*headerSt.lineHeight()
	drawHeader := func() {
		r.c.rect(marginL, r.y, contentW, headerH, accent)
		r.drawCells(header, 0, maxLen(header), r.y+headerPadY, headerSt.lineHeight())
		r.y += headerH
	}
	rows := make([][]row, len(r.doc.Lines))
	for i := range r.doc.Lines {
		rows[i] = r.lineRows(i, r.lineCells(i, &r.doc.Lines[i]))
	}

	// The heading and header row stay with the first line.
	r.y += 4
	headingH := heading.lineHeight() + 1
	first := cellLineH + 2*cellPadY
	if len(rows) > 0 {
		first = min(height(rows[0]), r.capacity())
	}
	if r.y+headingH+headerH+first > bottom {
		r.newPage()
	}
	r.c.text(marginL, r.y, "ITEMS", heading)
	r.c.textRight(right, r.y, "Amounts in "+r.cur, style{size: 7, color: muted})
	r.y += headingH
	drawHeader()
	r.onBreak = drawHeader
	defer func() { r.onBreak = nil }()

	if len(rows) == 0 {
		r.flow(r.textRows(marginL+cellPadX, contentW, "No lines.", cellSt))
		return
	}
	for _, rs := range rows {
		r.flow(rs)
	}
}

// headerCells are the column titles, wrapped.
func (r *renderer) headerCells() [][]cellLine {
	cells := make([][]cellLine, len(columns))
	for i, col := range columns {
		for _, l := range r.c.wrap(col.title, col.w-2*cellPadX, headerSt) {
			cells[i] = append(cells[i], cellLine{l, headerSt})
		}
	}
	return cells
}

// lineRows slices one table line into rows of one text line each, so that
// a line taller than a page still breaks between its text lines; the slices
// keep together otherwise.
func (r *renderer) lineRows(i int, cells [][]cellLine) []row {
	n := max(maxLen(cells), 1)
	rows := make([]row, n)
	for j := range n {
		h, textTop := cellLineH, 0.0
		if j == 0 {
			h += cellPadY
			textTop = cellPadY
		}
		last := j == n-1
		if last {
			h += cellPadY
		}
		rows[j] = row{h: h, keep: !last, draw: func(top float64) {
			if i%2 == 1 {
				r.c.rect(marginL, top, contentW, h, zebra)
			}
			r.drawCells(cells, j, j+1, top+textTop, cellLineH)
			if last {
				r.c.line(marginL, top+h, right, top+h, 0.15, rule)
			}
		}}
	}
	return rows
}

// drawCells draws lines [from, to) of every cell, the first at top.
func (r *renderer) drawCells(cells [][]cellLine, from, to int, top, lineH float64) {
	x := marginL
	for c, col := range columns {
		for j := from; j < to && j < len(cells[c]); j++ {
			l := cells[c][j]
			y := top + float64(j-from)*lineH
			if col.right {
				r.c.textRight(x+col.w-cellPadX, y, l.text, l.st)
			} else {
				r.c.text(x+cellPadX, y, l.text, l.st)
			}
		}
		x += col.w
	}
}

// lineCells are the wrapped contents of each column for line number i.
func (r *renderer) lineCells(i int, l *einvoice.Line) [][]cellLine {
	cells := make([][]cellLine, len(columns))
	put := func(c int, s string, st style) {
		for _, t := range r.c.wrap(s, columns[c].w-2*cellPadX, st) {
			cells[c] = append(cells[c], cellLine{t, st})
		}
	}
	put(0, strconv.Itoa(i+1), cellSt)

	for _, code := range l.Classifications {
		put(1, code, cellSt)
		if name, ok := refdata.Classifications.Name(code); ok {
			put(1, name, cellNote)
		}
	}
	if c := l.AuthorityClassification; c != "" {
		put(1, c, cellSt)
		put(1, "(authority)", cellNote)
	}
	if len(l.Classifications) == 0 && l.AuthorityClassification == "" {
		put(1, dash, cellSt)
	}

	put(2, orDash(l.ProductDescription), cellSt)
	if c := l.AuthorityClassification; c != "" {
		put(2, "Authority classification: "+c+" "+codeName(refdata.AuthorityClassifications, c), cellNote)
	}
	if s := strings.TrimSpace(l.TariffCode); s != "" {
		put(2, "Tariff code (PTC): "+s, cellNote)
	}
	if c := strings.TrimSpace(l.CountryOfOrigin); c != "" {
		put(2, "Country of origin: "+codeName(refdata.Countries, c)+" ("+c+")", cellNote)
	}
	if s := strings.TrimSpace(l.DiscountDescription); s != "" {
		put(2, "Discount: "+s, cellNote)
	}
	if s := strings.TrimSpace(l.FeeOrChargeDescription); s != "" {
		put(2, "Charge: "+s, cellNote)
	}
	for _, t := range l.Taxes {
		if s := strings.TrimSpace(t.ExemptionReason); s != "" {
			put(2, "Tax exemption: "+s, cellNote)
		}
	}

	put(3, formatNumber(l.Quantity), cellSt)
	if u := strings.TrimSpace(l.UnitCode); u != "" {
		put(3, codeName(refdata.UnitTypes, u), cellNote)
	}
	put(4, formatPrice(l.UnitPrice), cellSt)
	r.adjustment(put, 5, l.DiscountAmount, l.DiscountRate)
	r.adjustment(put, 6, l.FeeOrChargeAmount, l.FeeOrChargeRate)

	for _, t := range l.Taxes {
		put(7, taxName(t.TaxType)+" "+taxRate(t.TaxType, t.TaxRate), cellNote)
		put(7, formatAmount(t.TaxAmount), cellSt)
		if r.foreign && t.TaxAmountMyr != nil {
			put(7, "MYR "+formatAmount(t.TaxAmountMyr), cellNote)
		}
	}
	if len(l.Taxes) == 0 {
		put(7, formatAmount(l.TaxAmount), cellSt)
	}
	put(8, formatAmount(l.TotalExcludingTax), cellSt)
	put(9, formatAmount(l.TotalIncludingTax), cellSt)
	return cells
}

// adjustment fills a discount or charge cell: the amount, and the rate
// under it; a dash when there is neither.
func (r *renderer) adjustment(put func(int, string, style), c int, amount *money.Amount, rate *money.Number) {
	hasRate := rate != nil && !rate.Decimal().IsZero()
	if isZero(amount) && !hasRate {
		put(c, dash, cellSt)
		return
	}
	put(c, formatAmount(amount), cellSt)
	if hasRate {
		put(c, formatPercent(rate), cellNote)
	}
}

// maxLen is the number of lines of the tallest cell.
func maxLen(cells [][]cellLine) int {
	n := 0
	for _, c := range cells {
		n = max(n, len(c))
	}
	return n
}
