package pdf

import (
	"bytes"
	"slices"
	"testing"

	"codeberg.org/go-pdf/fpdf"
)

func mustFace(t testing.TB, id fontID) *face {
	t.Helper()
	f, err := loadFace(id)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// subsetRunes are the distinct runes of s in order, as subset wants them.
func subsetRunes(s string) []rune {
	runes := []rune(s)
	slices.Sort(runes)
	return slices.Compact(runes)
}

func TestFacesParse(t *testing.T) {
	for id, want := range map[fontID][]rune{
		fontRegular: []rune("AZaz09éŁ—€\uFFFD"),
		fontBold:    []rune("AZaz09éŁ—"),
		fontHan:     []rune("腾讯科技有限公司（），。"),
	} {
		f := mustFace(t, id)
		for _, r := range want {
			if !f.has(r) || f.advanceOrMissing(r) == 0 {
				t.Errorf("%s: no glyph or width for %q", f.name, r)
			}
		}
	}
	if mustFace(t, fontRegular).has('腾') {
		t.Error("DejaVu Sans claims a Han glyph")
	}
	if mustFace(t, fontRegular).has('ஆ') || mustFace(t, fontHan).has('ஆ') {
		t.Error("a font claims Tamil; update doc.go's limitations")
	}
}

func TestParseFaceRejectsJunk(t *testing.T) {
	for name, data := range map[string][]byte{
		"empty":     nil,
		"short":     {0, 1, 0, 0},
		"not ttf":   []byte("%PDF-1.4 this is not a font at all, clearly"),
		"truncated": dejaVuSans[:5000],
	} {
		if _, err := parseFace(name, data); err == nil {
			t.Errorf("%s: parsed", name)
		}
	}
}

// TestSubset checks that a subset keeps exactly the glyphs asked for (and
// the components of composite glyphs) with their widths, and that fpdf can
// use it.
func TestSubset(t *testing.T) {
	f := mustFace(t, fontRegular)
	text := "Héllo Łódź"
	runes := subsetRunes(text)
	sub, err := parseFace("subset", f.subset(runes))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range runes {
		if !sub.has(r) {
			t.Errorf("subset lacks %q", r)
		} else if sub.advanceOrMissing(r) != f.advanceOrMissing(r) {
			t.Errorf("width of %q: %d, want %d", r, sub.advanceOrMissing(r), f.advanceOrMissing(r))
		}
	}
	for _, r := range "AXzé0" {
		if sub.has(r) && !bytes.ContainsRune([]byte(string(runes)), r) {
			t.Errorf("subset has %q, which was not asked for", r)
		}
	}
	// DejaVu builds é from e and an accent: the components come along and
	// their ids are renumbered into the subset.
	composite := 0
	for g := range sub.numGlyphs {
		components(sub.glyph(g), func(off int) {
			composite++
			if c := int(be16(sub.glyph(g), off)); c >= sub.numGlyphs {
				t.Errorf("glyph %d refers to component %d of %d glyphs", g, c, sub.numGlyphs)
			}
		})
	}
	if composite == 0 {
		t.Error("no composite glyph in the subset: the test no longer covers components")
	}
	if len(f.subset(runes)) > 40_000 {
		t.Errorf("a 10-character subset takes %d bytes", len(f.subset(runes)))
	}

	p := fpdf.New("P", "mm", "A4", "")
	p.AddUTF8FontFromBytes("sub", "", f.subset(runes))
	p.AddPage()
	p.SetFont("sub", "", 12)
	p.Text(10, 10, text)
	var buf bytes.Buffer
	if err := p.Output(&buf); err != nil {
		t.Fatalf("fpdf cannot use the subset: %v", err)
	}
}

func TestSubsetHanAndMissing(t *testing.T) {
	f := mustFace(t, fontHan)
	data := f.subset(subsetRunes("腾讯ஆ\uFFFF"))
	sub, err := parseFace("subset", data)
	if err != nil {
		t.Fatal(err)
	}
	if !sub.has('腾') || !sub.has('讯') || sub.has('ஆ') {
		t.Error("wrong glyphs in the subset")
	}
	// .notdef, two Han characters and their components (Droid builds many
	// Han glyphs from composites).
	if sub.numGlyphs < 3 || sub.numGlyphs > 12 {
		t.Errorf("%d glyphs for two Han characters", sub.numGlyphs)
	}
	if len(data) > 10_000 {
		t.Errorf("a two-character CJK subset takes %d bytes", len(data))
	}
}

func BenchmarkSubsetHan(b *testing.B) {
	f := mustFace(b, fontHan)
	runes := subsetRunes("腾讯科技有限公司马来西亚分公司")
	for b.Loop() {
		f.subset(runes)
	}
}
