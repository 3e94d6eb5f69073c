package pdf

import (
	"bytes"
	"compress/zlib"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math"
	"slices"
	"strings"
	"sync"
)

// How fonts go into a PDF.
//
// fpdf's own Unicode path (AddUTF8FontFromBytes) costs milliseconds per font
// and per document whatever the font's size: it parses the font, encodes a
// 65,536-entry width table as JSON to name it, and writes a 128 KiB
// CID-to-glyph map through a fresh zlib writer. Instead, each font a
// document uses is embedded as simple TrueType fonts ("slots") of up to 224
// characters each, through fpdf's AddFontFromBytes: a subset cut by face,
// compressed here, with a custom encoding whose /Differences name every
// character uniXXXX, so that text extractors and copy-paste read the
// original Unicode text. A document in Latin script needs one slot per
// weight; each slot costs tens of microseconds.

// slotSize is the number of character codes of one slot: 32 to 255.
const slotSize = 224

// slot is one embedded font: the runes it holds, in code order from 32.
type slot struct {
	family string
	codes  map[rune]byte
}

// fontSlots are the embedded fonts of one face in one document.
type fontSlots struct {
	face  *face
	slots []slot
	which map[rune]int // rune -> index in slots
}

// embedFont cuts face into slots holding runes and adds them to the PDF
// through add (fpdf's AddFontFromBytes). runes must be distinct; they are
// sorted in place, so each slot gets the sorted, distinct runes that
// face.subset needs.
func embedFont(id fontID, f *face, runes []rune, add func(family string, def, z []byte)) (*fontSlots, error) {
	slices.Sort(runes)
	fs := &fontSlots{face: f, which: make(map[rune]int, len(runes))}
	for start := 0; start < len(runes); start += slotSize {
		chunk := runes[start:min(start+slotSize, len(runes))]
		s := slot{family: fmt.Sprintf("%s-%d", fontFiles[id].family, len(fs.slots)), codes: make(map[rune]byte, len(chunk))}
		for i, r := range chunk {
			s.codes[r] = byte(32 + i)
			fs.which[r] = len(fs.slots)
		}
		def, z, err := cachedSimpleFont(f, s.family, chunk)
		if err != nil {
			return nil, err
		}
		add(s.family, def, z)
		fs.slots = append(fs.slots, s)
	}
	return fs, nil
}

// segment is a piece of text in one slot, already encoded.
type segment struct {
	family string
	text   string  // bytes in the slot's encoding
	width  float64 // mm
}

// encode splits s into segments of one slot each, with their widths at
// size points.
func (fs *fontSlots) encode(s string, size float64) []segment {
	var out []segment
	var b strings.Builder
	cur, w := -1, 0
	flush := func() {
		if b.Len() > 0 {
			out = append(out, segment{fs.slots[cur].family, b.String(), float64(w) * size * ptToMM / 1000})
			b.Reset()
			w = 0
		}
	}
	for _, r := range s {
		i, ok := fs.which[r]
		if !ok { // every rune drawn was recorded; this cannot happen
			continue
		}
		if i != cur {
			flush()
			cur = i
		}
		b.WriteByte(fs.slots[i].codes[r])
		w += fs.face.advanceOrMissing(r)
	}
	flush()
	return out
}

// fontDef is fpdf's JSON font definition (its fontDefType).
type fontDef struct {
	Tp           string
	Name         string
	Desc         fontDesc
	Up, Ut       int
	Cw           []int
	Enc          string
	Diff         string
	File         string
	OriginalSize int
}

// fontDesc is fpdf's FontDescType.
type fontDesc struct {
	Ascent, Descent, CapHeight, Flags int
	FontBBox                          struct{ Xmin, Ymin, Xmax, Ymax int }
	ItalicAngle, StemV, MissingWidth  int
}

// flagNonsymbolic marks a font whose glyphs are found by their names (PDF
// font descriptor flag 6).
const flagNonsymbolic = 32

// simpleFont returns fpdf's definition and the compressed font program of a
// simple TrueType font holding runes at codes 32, 33, ...
func simpleFont(f *face, family string, runes []rune) (def, z []byte, err error) {
	program := f.subset(runes)
	z, err = deflate(program)
	if err != nil {
		return nil, nil, err
	}
	d := fontDef{
		Tp:   "TrueType",
		Name: subsetTag(runes) + "+" + f.psName,
		Desc: f.desc,
		Up:   f.underlinePos, Ut: f.underlineThick,
		Cw:           make([]int, 256),
		Enc:          "cp1252",
		File:         family + ".z",
		OriginalSize: len(program),
	}
	var diff strings.Builder
	diff.WriteString("32")
	for i, r := range runes {
		d.Cw[32+i] = f.advanceOrMissing(r)
		fmt.Fprintf(&diff, " /uni%04X", r)
	}
	d.Diff = diff.String()
	def, err = json.Marshal(d)
	return def, z, err
}

// fontCache keeps the slots made lately: the documents of a tenant use
// much the same characters, so most slots of a new PDF were made for an
// earlier one (BenchmarkMail's profile: the slots were a quarter of a PDF's
// CPU). Entries are immutable; the cache is emptied when it grows past
// fontCacheMax.
var fontCache struct {
	sync.Mutex
	m map[string]cachedFont
}

const fontCacheMax = 512

type cachedFont struct{ def, z []byte }

// cachedSimpleFont is simpleFont, from the cache when the same face,
// family and runes were embedded before.
func cachedSimpleFont(f *face, family string, runes []rune) (def, z []byte, err error) {
	key := f.psName + "\x00" + family + "\x00" + string(runes)
	fontCache.Lock()
	c, ok := fontCache.m[key]
	fontCache.Unlock()
	if ok {
		return c.def, c.z, nil
	}
	if def, z, err = simpleFont(f, family, runes); err != nil {
		return nil, nil, err
	}
	fontCache.Lock()
	if fontCache.m == nil || len(fontCache.m) >= fontCacheMax {
		fontCache.m = make(map[string]cachedFont, fontCacheMax)
	}
	fontCache.m[key] = cachedFont{def, z}
	fontCache.Unlock()
	return def, z, nil
}

// subsetTag is the six capital letters that PDF puts before the name of a
// subset font, derived from its characters.
func subsetTag(runes []rune) string {
	h := fnv.New64a()
	for _, r := range runes {
		h.Write([]byte(string(r)))
	}
	v := h.Sum64()
	tag := make([]byte, 6)
	for i := range tag {
		tag[i] = byte('A' + v%26)
		v /= 26
	}
	return string(tag)
}

// zlibWriters are reused: a new zlib writer allocates about a megabyte.
var zlibWriters = sync.Pool{New: func() any {
	w, _ := zlib.NewWriterLevel(nil, zlib.BestSpeed)
	return w
}}

// deflate compresses b with zlib.
func deflate(b []byte) ([]byte, error) {
	var buf bytes.Buffer
	buf.Grow(len(b)/2 + 64)
	w := zlibWriters.Get().(*zlib.Writer)
	defer zlibWriters.Put(w)
	w.Reset(&buf)
	if _, err := w.Write(b); err != nil {
		return nil, fmt.Errorf("compressing a font: %w", err)
	}
	if err := w.Close(); err != nil {
		return nil, fmt.Errorf("compressing a font: %w", err)
	}
	return buf.Bytes(), nil
}

// describe fills the face's PDF font descriptor from its tables, as fpdf
// does for the fonts it parses itself.
func (f *face) describe() {
	scale := func(v int16) int { return int(math.Round(float64(v) * 1000 / float64(f.unitsPerEm))) }
	head, hhea, post := f.tables["head"], f.tables["hhea"], f.tables["post"]
	d := fontDesc{
		Ascent:       scale(int16(be16(hhea, 4))),
		Descent:      scale(int16(be16(hhea, 6))),
		Flags:        flagNonsymbolic,
		ItalicAngle:  int(int16(be16(post, 4))),
		MissingWidth: f.missingWidth(),
	}
	d.FontBBox.Xmin, d.FontBBox.Ymin = scale(int16(be16(head, 36))), scale(int16(be16(head, 38)))
	d.FontBBox.Xmax, d.FontBBox.Ymax = scale(int16(be16(head, 40))), scale(int16(be16(head, 42)))
	d.CapHeight = d.Ascent
	weight := 400
	if os2 := f.tables["OS/2"]; len(os2) >= 90 {
		weight = int(be16(os2, 4))
		if be16(os2, 0) >= 2 {
			d.CapHeight = scale(int16(be16(os2, 88)))
		}
	}
	d.StemV = 50 + int(math.Pow(float64(weight)/65, 2))
	f.desc = d
	f.underlinePos, f.underlineThick = scale(int16(be16(post, 8))), scale(int16(be16(post, 10)))
	f.psName = postScriptName(f.tables["name"], f.name)
}

// postScriptName reads name id 6 from a name table (Windows Unicode or Mac
// Roman record), or returns fallback.
func postScriptName(name []byte, fallback string) string {
	if len(name) < 6 {
		return fallback
	}
	count, strs := int(be16(name, 2)), int(be16(name, 4))
	for i := range count {
		rec := 6 + 12*i
		if rec+12 > len(name) {
			break
		}
		platform, encoding, id := be16(name, rec), be16(name, rec+2), be16(name, rec+6)
		length, off := int(be16(name, rec+8)), strs+int(be16(name, rec+10))
		if id != 6 || off+length > len(name) {
			continue
		}
		raw := name[off : off+length]
		var s []rune
		switch {
		case platform == 3 && encoding == 1:
			for j := 0; j+1 < len(raw); j += 2 {
				s = append(s, rune(be16(raw, j)))
			}
		case platform == 1 && encoding == 0:
			for _, c := range raw {
				s = append(s, rune(c))
			}
		default:
			continue
		}
		if ps := string(s); ps != "" && !strings.ContainsAny(ps, " ()<>[]{}/%") {
			return ps
		}
	}
	return fallback
}
