package pdf

import (
	"strconv"
)

// Page geometry of A4 portrait, in mm.
const (
	pageW    = 210.0
	pageH    = 297.0
	marginL  = 12.0
	marginR  = 12.0
	marginT  = 12.0
	contentW = pageW - marginL - marginR
	right    = pageW - marginR
	// bottom is where content stops; the footer sits below it.
	bottom  = pageH - 16.0
	footerY = pageH - 11.0
)

// Colours.
var (
	ink      = rgb{0x22, 0x22, 0x22}
	muted    = rgb{0x66, 0x6B, 0x73}
	accent   = rgb{0x1F, 0x3A, 0x5F}
	white    = rgb{0xFF, 0xFF, 0xFF}
	rule     = rgb{0xC8, 0xCD, 0xD4}
	zebra    = rgb{0xF3, 0xF5, 0xF8}
	alarm    = rgb{0xB0, 0x00, 0x20}
	alarmBg  = rgb{0xFD, 0xEC, 0xEE}
	okBg     = rgb{0xEE, 0xF6, 0xF0}
	okBorder = rgb{0x2E, 0x7D, 0x32}
)

// Text styles.
var (
	body      = style{size: 8, color: ink}
	bodyBold  = style{size: 8, bold: true, color: ink}
	small     = style{size: 7, color: muted}
	smallBold = style{size: 7, bold: true, color: muted}
	heading   = style{size: 8, bold: true, color: accent}
)

// row is a horizontal slice of content of height h, drawn at a given top.
// keep asks that it stays on the same page as the next row.
type row struct {
	h    float64
	keep bool
	draw func(top float64)
}

// page is the layout state: the canvas and the position on the current page.
type page struct {
	c *canvas
	y float64
	// onBreak draws what continues on a new page after its running header
	// (the line table's header row); nil outside the table.
	onBreak func()
	// runningHeader is drawn at the top of every page after the first.
	runningHeader func()
}

// newPage starts a page and draws its running header.
func (p *page) newPage() {
	p.c.addPage()
	p.y = marginT
	if len(p.c.pages) > 1 && p.runningHeader != nil {
		p.runningHeader()
	}
	if p.onBreak != nil {
		p.onBreak()
	}
}

// capacity is the height available on a fresh page for flowed rows.
func (p *page) capacity() float64 {
	// A fresh page loses the running header and the repeated table header.
	return bottom - marginT - 20
}

// flow draws rows one below the other, starting new pages as needed. A
// chain of rows marked keep goes to a new page together when it does not
// fit on this one but fits on a fresh one.
func (p *page) flow(rows []row) {
	for i := 0; i < len(rows); i++ {
		chain := rows[i].h
		for j := i; j < len(rows)-1 && rows[j].keep; j++ {
			chain += rows[j+1].h
		}
		if p.y+chain > bottom && chain <= p.capacity() || p.y+rows[i].h > bottom {
			p.newPage()
		}
		rows[i].draw(p.y)
		p.y += rows[i].h
	}
}

// gap adds vertical space.
func gap(h float64) row { return row{h: h, draw: func(float64) {}} }

// textRows wraps s into width w at x and returns one row per line.
func (p *page) textRows(x, w float64, s string, st style) []row {
	lines := p.c.wrap(s, w, st)
	rows := make([]row, len(lines))
	for i, l := range lines {
		rows[i] = row{h: st.lineHeight(), draw: func(top float64) { p.c.text(x, top, l, st) }}
	}
	return rows
}

// field is a label and its value.
type field struct{ label, value string }

// fieldRows lays fields out as a label column of width labelW and a value
// column beside it, at x, in width w. Empty values are skipped. Values longer
// than maxLines lines are cut with an ellipsis (no real value comes close).
func (p *page) fieldRows(x, w, labelW float64, fields []field, st style) []row {
	const maxLines = 8
	var rows []row
	lst := st
	lst.color = muted
	for _, f := range fields {
		if f.value == "" {
			continue
		}
		lines := p.c.wrap(f.value, w-labelW, st)
		if len(lines) > maxLines {
			lines = append(lines[:maxLines-1:maxLines-1], lines[maxLines-1]+" …")
		}
		for i, l := range lines {
			label := ""
			if i == 0 {
				label = f.label
			}
			rows = append(rows, row{h: st.lineHeight(), keep: i < len(lines)-1, draw: func(top float64) {
				if label != "" {
					p.c.text(x, top, label, lst)
				}
				p.c.text(x+labelW, top, l, st)
			}})
		}
	}
	return rows
}

// beside puts two columns of rows side by side, each stacked on its own,
// as one row that stays on one page. Columns taller than a page are stacked
// one after the other instead, so that they can break across pages.
func (p *page) beside(left, right []row) []row {
	hl, hr := height(left), height(right)
	h := max(hl, hr)
	if h > p.capacity() {
		return append(left, right...)
	}
	if h == 0 {
		return nil
	}
	return []row{{h: h, draw: func(top float64) {
		for _, col := range [][]row{left, right} {
			y := top
			for _, r := range col {
				r.draw(y)
				y += r.h
			}
		}
	}}}
}

// height is the total height of rows.
func height(rows []row) float64 {
	h := 0.0
	for _, r := range rows {
		h += r.h
	}
	return h
}

// blockHeading is the heading row of a block at x.
func (r *renderer) blockHeading(x float64, title string) []row {
	return []row{{h: heading.lineHeight() + 0.5, keep: true, draw: func(top float64) { r.c.text(x, top, title, heading) }}}
}

// keepAll marks every row but the last to stay with the next.
func keepAll(rows []row) []row {
	for i := range rows {
		rows[i].keep = i < len(rows)-1
	}
	return rows
}

// footers draws "Page X of Y" and the footer text on every page, once the
// number of pages is known.
func (p *page) footers(left, middle string, middleStyle style) {
	n := len(p.c.pages)
	for i := range n {
		p.c.onPage(i, func() {
			p.c.line(marginL, footerY-1.5, right, footerY-1.5, 0.2, rule)
			p.c.text(marginL, footerY, left, small)
			if middle != "" {
				p.c.text(pageW/2-p.c.width(middle, middleStyle)/2, footerY, middle, middleStyle)
			}
			p.c.textRight(right, footerY, "Page "+strconv.Itoa(i+1)+" of "+strconv.Itoa(n), small)
		})
	}
}
