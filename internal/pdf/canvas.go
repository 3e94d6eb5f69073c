package pdf

import (
	"bytes"
	"fmt"
	"io"
	"maps"
	"slices"
	"time"

	"codeberg.org/go-pdf/fpdf"
)

// rgb is a colour.
type rgb struct{ r, g, b int }

// opKind is the kind of a drawing operation.
type opKind uint8

const (
	opText opKind = iota
	opLine
	opRect // filled
	opBox  // stroked
	opImage
)

// op is one drawing operation on a page, in mm from the top left corner.
// Text ops hold one run of one font; y is the baseline.
type op struct {
	kind       opKind
	font       fontID
	fake       bool
	size       float64
	x, y, w, h float64
	text       string
	color      rgb
	lineWidth  float64
}

// canvas records the pages of a document as drawing operations. Layout
// draws on it first; write then makes the PDF, with fonts cut to exactly the
// characters the operations use (embed.go). Errors are sticky: after the
// first, drawing does nothing and write returns it.
type canvas struct {
	pages  [][]op
	cur    int // index of the page drawn on
	used   [numFonts]map[rune]struct{}
	images map[string][]byte // PNG by name
	err    error
}

// meta is the PDF's document information.
type meta struct {
	title, author, subject string
	created                time.Time
}

// addPage starts a new page.
func (c *canvas) addPage() {
	c.pages = append(c.pages, nil)
	c.cur = len(c.pages) - 1
}

// onPage runs draw on page i (from 0), then returns to the current page.
func (c *canvas) onPage(i int, draw func()) {
	saved := c.cur
	c.cur = i
	draw()
	c.cur = saved
}

func (c *canvas) add(o op) {
	if c.err == nil && c.cur < len(c.pages) {
		c.pages[c.cur] = append(c.pages[c.cur], o)
	}
}

// fail records the first error.
func (c *canvas) fail(err error) {
	if c.err == nil && err != nil {
		c.err = err
	}
}

// baseline is the baseline of a line of text whose box starts at top.
func baseline(top float64, st style) float64 { return top + st.size*ptToMM*1.0 }

// text draws s (on one line) with its box's top left corner at (x, top) and
// returns its width.
func (c *canvas) text(x, top float64, s string, st style) float64 {
	s = clean(s, false)
	if s == "" || c.err != nil {
		return 0
	}
	rs, err := runs(s, st.bold)
	if err != nil {
		c.fail(err)
		return 0
	}
	x0 := x
	for _, r := range rs {
		if c.used[r.font] == nil {
			c.used[r.font] = map[rune]struct{}{}
		}
		for _, ch := range r.text {
			c.used[r.font][ch] = struct{}{}
		}
		c.add(op{kind: opText, font: r.font, fake: r.fake, size: st.size, x: x, y: baseline(top, st), text: r.text, color: st.color})
		x += c.width(r.text, st)
	}
	return x - x0
}

// textRight draws s ending at right.
func (c *canvas) textRight(right, top float64, s string, st style) {
	c.text(right-c.width(s, st), top, s, st)
}

// width is the width of s in st, in mm.
func (c *canvas) width(s string, st style) float64 {
	w, err := width(s, st)
	c.fail(err)
	return w
}

// wrap breaks s into lines no wider than w.
func (c *canvas) wrap(s string, w float64, st style) []string {
	lines, err := wrap(s, w, st)
	c.fail(err)
	return lines
}

// line draws a straight line.
func (c *canvas) line(x1, y1, x2, y2, lineWidth float64, col rgb) {
	c.add(op{kind: opLine, x: x1, y: y1, w: x2, h: y2, lineWidth: lineWidth, color: col})
}

// rect fills a rectangle.
func (c *canvas) rect(x, y, w, h float64, col rgb) {
	c.add(op{kind: opRect, x: x, y: y, w: w, h: h, color: col})
}

// box strokes a rectangle.
func (c *canvas) box(x, y, w, h, lineWidth float64, col rgb) {
	c.add(op{kind: opBox, x: x, y: y, w: w, h: h, lineWidth: lineWidth, color: col})
}

// image draws the PNG data, registered under name.
func (c *canvas) image(name string, png []byte, x, y, w, h float64) {
	if c.images == nil {
		c.images = map[string][]byte{}
	}
	c.images[name] = png
	c.add(op{kind: opImage, text: name, x: x, y: y, w: w, h: h})
}

// write makes the PDF and writes it to w, all at once: nothing is written
// when making it fails.
func (c *canvas) write(w io.Writer, m meta) error {
	if c.err != nil {
		return c.err
	}
	p := fpdf.New("P", "mm", "A4", "")
	p.SetAutoPageBreak(false, 0)
	p.SetMargins(0, 0, 0)
	p.SetCatalogSort(true)
	// fpdf's UTF-16 conversion panics on invalid UTF-8: clean first.
	p.SetTitle(clean(m.title, false), true)
	p.SetAuthor(clean(m.author, false), true)
	p.SetSubject(clean(m.subject, false), true)
	p.SetCreator("einvoice", true)
	if !m.created.IsZero() {
		p.SetCreationDate(m.created)
		p.SetModificationDate(m.created)
	}
	var fonts [numFonts]*fontSlots
	for id := range numFonts {
		if len(c.used[id]) == 0 {
			continue
		}
		f, err := loadFace(id)
		if err != nil {
			return err
		}
		fonts[id], err = embedFont(id, f, slices.Collect(maps.Keys(c.used[id])), func(family string, def, z []byte) {
			p.AddFontFromBytes(family, "", def, z)
		})
		if err != nil {
			return err
		}
	}
	for _, name := range slices.Sorted(maps.Keys(c.images)) {
		p.RegisterImageOptionsReader(name, fpdf.ImageOptions{ImageType: "PNG"}, bytes.NewReader(c.images[name]))
	}
	if err := p.Error(); err != nil {
		return fmt.Errorf("preparing fonts and images: %w", err)
	}
	for _, ops := range c.pages {
		p.AddPage()
		d := drawer{p: p, fonts: &fonts}
		for _, o := range ops {
			d.draw(o)
		}
	}
	var buf bytes.Buffer
	if err := p.Output(&buf); err != nil {
		return fmt.Errorf("making the PDF: %w", err)
	}
	if _, err := w.Write(buf.Bytes()); err != nil {
		return fmt.Errorf("writing the PDF: %w", err)
	}
	return nil
}

// drawer performs operations on a page of p, selecting a font only when
// it changes.
type drawer struct {
	p      *fpdf.Fpdf
	fonts  *[numFonts]*fontSlots
	family string
	size   float64
}

// draw performs one operation.
func (d *drawer) draw(o op) {
	p := d.p
	switch o.kind {
	case opText:
		p.SetTextColor(o.color.r, o.color.g, o.color.b)
		if o.fake {
			p.SetDrawColor(o.color.r, o.color.g, o.color.b)
			p.SetLineWidth(o.size * ptToMM * 0.025)
			p.SetTextRenderingMode(2) // fill, then stroke: a bold look
		}
		x := o.x
		for _, seg := range d.fonts[o.font].encode(o.text, o.size) {
			if seg.family != d.family || o.size != d.size {
				p.SetFont(seg.family, "", o.size)
				d.family, d.size = seg.family, o.size
			}
			p.Text(x, o.y, seg.text)
			x += seg.width
		}
		if o.fake {
			p.SetTextRenderingMode(0)
		}
	case opLine:
		p.SetDrawColor(o.color.r, o.color.g, o.color.b)
		p.SetLineWidth(o.lineWidth)
		p.Line(o.x, o.y, o.w, o.h)
	case opRect:
		p.SetFillColor(o.color.r, o.color.g, o.color.b)
		p.Rect(o.x, o.y, o.w, o.h, "F")
	case opBox:
		p.SetDrawColor(o.color.r, o.color.g, o.color.b)
		p.SetLineWidth(o.lineWidth)
		p.Rect(o.x, o.y, o.w, o.h, "D")
	case opImage:
		p.ImageOptions(o.text, o.x, o.y, o.w, o.h, false, fpdf.ImageOptions{ImageType: "PNG"}, 0, "")
	}
}
