package pdf

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
)

// face is a TrueType font parsed once per process: its character map,
// advance widths, glyph locations and PDF font descriptor. It is read-only
// after parseFace and safe for concurrent use.
//
// fpdf would parse a whole TTF every time a font is added to a document, and
// again when it writes the document; for a multi-megabyte CJK font that costs
// tens of milliseconds per PDF. A face instead cuts, per document, small
// TrueType fonts holding only the glyphs that document prints (subset), in
// microseconds; embed.go hands them to fpdf.
type face struct {
	name       string
	data       []byte
	tables     map[string][]byte
	unitsPerEm int
	numGlyphs  int
	numHMetric int
	gid        [0x10000]uint16 // BMP rune -> glyph id (0: not in the font)
	width      [0x10000]uint16 // BMP rune -> advance in 1/1000 em, as fpdf computes it
	loca       []uint32        // numGlyphs+1 offsets into glyf

	// What a PDF font dictionary says of it (embed.go).
	desc                         fontDesc
	underlinePos, underlineThick int
	psName                       string
}

// errFont wraps every problem with a font file.
var errFont = errors.New("bad TrueType font")

// parseFace reads the tables of a TrueType (glyf-outline) font.
func parseFace(name string, data []byte) (*face, error) {
	f := &face{name: name, data: data, tables: map[string][]byte{}}
	if err := f.parse(); err != nil {
		return nil, fmt.Errorf("%w %s: %w", errFont, name, err)
	}
	return f, nil
}

func (f *face) parse() (err error) {
	// Every read below is bounds-checked by Go; a truncated or corrupt font
	// panics with an index error, which is turned into an error here.
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("corrupt: %v", r)
		}
	}()
	d := f.data
	if v := be32(d, 0); v != 0x00010000 && v != 0x74727565 { // 1.0 or 'true'
		return fmt.Errorf("not a TrueType font (version %#x)", v)
	}
	n := int(be16(d, 4))
	for i := range n {
		rec := 12 + 16*i
		tag := string(d[rec : rec+4])
		off, length := int(be32(d, rec+8)), int(be32(d, rec+12))
		if off < 0 || length < 0 || off+length > len(d) {
			return fmt.Errorf("table %q is outside the file", tag)
		}
		f.tables[tag] = d[off : off+length : off+length]
	}
	for t, size := range map[string]int{"head": 54, "hhea": 36, "maxp": 6, "hmtx": 4, "loca": 2, "glyf": 0, "cmap": 4, "name": 6, "post": 32} {
		if f.tables[t] == nil || len(f.tables[t]) < size {
			return fmt.Errorf("no or short %q table", t)
		}
	}
	head := f.tables["head"]
	f.unitsPerEm = int(be16(head, 18))
	if f.unitsPerEm == 0 {
		return errors.New("unitsPerEm is 0")
	}
	f.numGlyphs = int(be16(f.tables["maxp"], 4))
	f.numHMetric = int(be16(f.tables["hhea"], 34))
	if f.numHMetric == 0 || f.numHMetric > f.numGlyphs || 4*f.numHMetric > len(f.tables["hmtx"]) {
		return fmt.Errorf("bad numberOfHMetrics %d", f.numHMetric)
	}
	if err := f.parseLoca(int16(be16(head, 50))); err != nil {
		return err
	}
	if err := f.parseCmap(); err != nil {
		return err
	}
	// Widths exactly as fpdf rounds them, so that layout and the PDF agree.
	scale := 1000 / float64(f.unitsPerEm)
	for r, g := range f.gid {
		if g != 0 {
			f.width[r] = uint16(math.Round(scale * float64(f.advance(int(g)))))
		}
	}
	f.describe()
	return nil
}

func (f *face) parseLoca(format int16) error {
	loca, n := f.tables["loca"], f.numGlyphs+1
	f.loca = make([]uint32, n)
	for i := range n {
		switch format {
		case 0:
			f.loca[i] = uint32(be16(loca, 2*i)) * 2
		case 1:
			f.loca[i] = be32(loca, 4*i)
		default:
			return fmt.Errorf("unknown loca format %d", format)
		}
		if f.loca[i] > uint32(len(f.tables["glyf"])) || i > 0 && f.loca[i] < f.loca[i-1] {
			return fmt.Errorf("bad loca entry %d", i)
		}
	}
	return nil
}

// parseCmap reads the Windows Unicode BMP (3,1) or Unicode (0,x) format 4
// subtable.
func (f *face) parseCmap() error {
	cmap := f.tables["cmap"]
	var sub []byte
	for i := range int(be16(cmap, 2)) {
		rec := 4 + 8*i
		platform, encoding, off := be16(cmap, rec), be16(cmap, rec+2), int(be32(cmap, rec+4))
		if (platform == 3 && encoding == 1 || platform == 0) && be16(cmap, off) == 4 {
			sub = cmap[off:]
			break
		}
	}
	if sub == nil {
		return errors.New("no format 4 Unicode cmap")
	}
	segs := int(be16(sub, 6)) / 2
	ends, starts, deltas, ranges := 14, 16+2*segs, 16+4*segs, 16+6*segs
	for s := range segs {
		end, start := int(be16(sub, ends+2*s)), int(be16(sub, starts+2*s))
		delta, ro := int(be16(sub, deltas+2*s)), int(be16(sub, ranges+2*s))
		for c := start; c <= end && c < 0xFFFF; c++ {
			g := 0
			if ro == 0 {
				g = (c + delta) & 0xFFFF
			} else if p := ranges + 2*s + ro + 2*(c-start); p+2 <= len(sub) {
				if g = int(be16(sub, p)); g != 0 {
					g = (g + delta) & 0xFFFF
				}
			}
			if g < f.numGlyphs {
				f.gid[c] = uint16(g)
			}
		}
	}
	return nil
}

// advance is the advance width of glyph g in font units.
func (f *face) advance(g int) int {
	h := f.tables["hmtx"]
	if g >= f.numHMetric {
		g = f.numHMetric - 1
	}
	return int(be16(h, 4*g))
}

// lsb is the left side bearing of glyph g in font units.
func (f *face) lsb(g int) uint16 {
	h := f.tables["hmtx"]
	if g < f.numHMetric {
		return be16(h, 4*g+2)
	}
	if p := 4*f.numHMetric + 2*(g-f.numHMetric); p+2 <= len(h) {
		return be16(h, p)
	}
	return 0
}

// has reports whether the font has a glyph for r.
func (f *face) has(r rune) bool { return r >= 0 && r < 0x10000 && f.gid[r] != 0 }

// advanceOrMissing is the advance of r in 1/1000 em, or the missing-glyph
// box's when the font lacks r.
func (f *face) advanceOrMissing(r rune) int {
	if f.has(r) {
		return int(f.width[r])
	}
	return f.missingWidth()
}

// missingWidth is the advance, in 1/1000 em, of the missing-glyph box.
func (f *face) missingWidth() int {
	return int(math.Round(1000 / float64(f.unitsPerEm) * float64(f.advance(0))))
}

// glyph returns the outline data of glyph g.
func (f *face) glyph(g int) []byte { return f.tables["glyf"][f.loca[g]:f.loca[g+1]] }

// Composite glyph flags (TrueType glyf table).
const (
	argsAreWords   = 0x0001
	haveScale      = 0x0008
	moreComponents = 0x0020
	haveXYScale    = 0x0040
	have2x2        = 0x0080
)

// components calls fn with the byte offset of every component glyph index
// of composite glyph data g (none for a simple glyph).
func components(g []byte, fn func(off int)) {
	if len(g) < 10 || int16(be16(g, 0)) >= 0 {
		return
	}
	for p := 10; p+4 <= len(g); {
		flags := be16(g, p)
		fn(p + 2)
		p += 4
		if flags&argsAreWords != 0 {
			p += 4
		} else {
			p += 2
		}
		switch {
		case flags&haveScale != 0:
			p += 2
		case flags&haveXYScale != 0:
			p += 4
		case flags&have2x2 != 0:
			p += 8
		}
		if flags&moreComponents == 0 {
			return
		}
	}
}

// subset returns a TrueType font with glyph 0 and the glyphs of runes (and
// their components), mapped by a fresh format 4 cmap. Runes the font lacks
// are left out.
//
// runes must be sorted and without duplicates, and few: embedFont passes one
// slot's worth (at most slotSize), so the cmap, one segment per rune at
// most, stays far under a format 4 subtable's 64 KiB limit.
func (f *face) subset(runes []rune) []byte {
	// New glyph ids: 0, then one per rune in rune order, then components.
	newID := map[int]int{0: 0}
	order := []int{0}
	add := func(g int) int {
		if id, ok := newID[g]; ok {
			return id
		}
		newID[g] = len(order)
		order = append(order, g)
		return newID[g]
	}
	type pair struct {
		r  rune
		id int
	}
	var cmap []pair
	for _, r := range runes {
		if f.has(r) {
			cmap = append(cmap, pair{r, add(int(f.gid[r]))})
		}
	}
	for i := 0; i < len(order); i++ { // order grows as components are found
		components(f.glyph(order[i]), func(off int) { add(int(be16(f.glyph(order[i]), off))) })
	}

	// glyf and loca (long offsets), with component ids renumbered.
	var glyf []byte
	loca := make([]byte, 0, 4*(len(order)+1))
	for _, g := range order {
		loca = binary.BigEndian.AppendUint32(loca, uint32(len(glyf)))
		start := len(glyf)
		glyf = append(glyf, f.glyph(g)...)
		components(glyf[start:], func(off int) {
			p := start + off
			binary.BigEndian.PutUint16(glyf[p:], uint16(newID[int(be16(glyf, p))]))
		})
		for len(glyf)%4 != 0 {
			glyf = append(glyf, 0)
		}
	}
	loca = binary.BigEndian.AppendUint32(loca, uint32(len(glyf)))

	hmtx := make([]byte, 0, 4*len(order))
	for _, g := range order {
		hmtx = binary.BigEndian.AppendUint16(hmtx, uint16(f.advance(g)))
		hmtx = binary.BigEndian.AppendUint16(hmtx, f.lsb(g))
	}

	// cmap: one segment per run of consecutive runes with consecutive ids.
	type seg struct{ start, end, delta int }
	var segs []seg
	for _, p := range cmap {
		if n := len(segs); n > 0 && segs[n-1].end+1 == int(p.r) && segs[n-1].delta == p.id-int(p.r) {
			segs[n-1].end++
			continue
		}
		segs = append(segs, seg{int(p.r), int(p.r), p.id - int(p.r)})
	}
	segs = append(segs, seg{0xFFFF, 0xFFFF, 1})
	sub := cmapFormat4(len(segs), func(i int) (int, int, int) { s := segs[i]; return s.start, s.end, s.delta })
	cmapTable := append([]byte{0, 0, 0, 1, 0, 3, 0, 1, 0, 0, 0, 12}, sub...)

	out := map[string][]byte{
		"cmap": cmapTable,
		"glyf": glyf,
		"loca": loca,
		"hmtx": hmtx,
		"head": patch16(f.tables["head"], 50, 1), // long loca
		"hhea": patch16(f.tables["hhea"], 34, uint16(len(order))),
		"maxp": patch16(f.tables["maxp"], 4, uint16(len(order))),
		"name": f.tables["name"],
		// post version 3: no glyph names.
		"post": append([]byte{0, 3, 0, 0}, f.tables["post"][4:32]...),
	}
	out["head"] = patch32(out["head"], 8, 0) // checkSumAdjustment, set below
	for _, t := range []string{"OS/2", "cvt ", "fpgm", "prep", "gasp"} {
		if f.tables[t] != nil {
			out[t] = f.tables[t]
		}
	}
	return assemble(out)
}

// cmapFormat4 builds a format 4 subtable from n segments given by seg, all
// mapped with idDelta (no glyph id array).
func cmapFormat4(n int, seg func(i int) (start, end, delta int)) []byte {
	length := 16 + 8*n
	b := make([]byte, 0, length)
	search, selector := 1, 0
	for search*2 <= n {
		search *= 2
		selector++
	}
	for _, v := range []int{4, length, 0, 2 * n, 2 * search, selector, 2*n - 2*search} {
		b = binary.BigEndian.AppendUint16(b, uint16(v))
	}
	for i := range n {
		_, end, _ := seg(i)
		b = binary.BigEndian.AppendUint16(b, uint16(end))
	}
	b = append(b, 0, 0) // reservedPad
	for i := range n {
		start, _, _ := seg(i)
		b = binary.BigEndian.AppendUint16(b, uint16(start))
	}
	for i := range n {
		_, _, delta := seg(i)
		b = binary.BigEndian.AppendUint16(b, uint16(delta))
	}
	for range n {
		b = append(b, 0, 0) // idRangeOffset
	}
	return b
}

// assemble writes the tables as a TrueType file with correct checksums.
func assemble(tables map[string][]byte) []byte {
	tags := make([]string, 0, len(tables))
	size := 12 + 16*len(tables)
	for t, data := range tables {
		tags = append(tags, t)
		size += (len(data) + 3) &^ 3
	}
	slices.Sort(tags)
	n := len(tags)
	search, selector := 1, 0
	for search*2 <= n {
		search *= 2
		selector++
	}
	out := make([]byte, 0, size)
	out = binary.BigEndian.AppendUint32(out, 0x00010000)
	for _, v := range []int{n, 16 * search, selector, 16*n - 16*search} {
		out = binary.BigEndian.AppendUint16(out, uint16(v))
	}
	off, headAt := 12+16*n, 0
	for _, t := range tags {
		data := tables[t]
		if t == "head" {
			headAt = off
		}
		out = append(out, t...)
		out = binary.BigEndian.AppendUint32(out, checksum(data))
		out = binary.BigEndian.AppendUint32(out, uint32(off))
		out = binary.BigEndian.AppendUint32(out, uint32(len(data)))
		off += (len(data) + 3) &^ 3
	}
	for _, t := range tags {
		out = append(out, tables[t]...)
		for len(out)%4 != 0 {
			out = append(out, 0)
		}
	}
	binary.BigEndian.PutUint32(out[headAt+8:], 0xB1B0AFBA-checksum(out))
	return out
}

// checksum is the TrueType table checksum: the sum of big-endian uint32s.
func checksum(b []byte) uint32 {
	var sum uint32
	for i := 0; i < len(b); i += 4 {
		var w [4]byte
		copy(w[:], b[i:])
		sum += binary.BigEndian.Uint32(w[:])
	}
	return sum
}

func be16(b []byte, off int) uint16 { return binary.BigEndian.Uint16(b[off:]) }
func be32(b []byte, off int) uint32 { return binary.BigEndian.Uint32(b[off:]) }

// patch16 returns a copy of b with the uint16 at off set to v.
func patch16(b []byte, off int, v uint16) []byte {
	c := slices.Clone(b)
	binary.BigEndian.PutUint16(c[off:], v)
	return c
}

// patch32 returns a copy of b with the uint32 at off set to v.
func patch32(b []byte, off int, v uint32) []byte {
	c := slices.Clone(b)
	binary.BigEndian.PutUint32(c[off:], v)
	return c
}
