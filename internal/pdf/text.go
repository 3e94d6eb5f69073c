package pdf

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// ptToMM converts a font size in points to millimetres.
const ptToMM = 25.4 / 72

// style is how a piece of text is drawn.
type style struct {
	size  float64 // points
	bold  bool
	color rgb
}

// lineHeight is the height of one line of text in st, in mm.
func (st style) lineHeight() float64 { return st.size * ptToMM * 1.25 }

// clean makes s printable: invalid UTF-8 and characters outside the Basic
// Multilingual Plane (which fpdf cannot encode) become U+FFFD, control
// characters become spaces. Newlines are kept when keepNewlines is set.
func clean(s string, keepNewlines bool) string {
	ok := true
	for _, r := range s {
		if r < 0x20 || (r >= 0x7F && r < 0xA0) || r > 0xFFFD || r == utf8.RuneError || (r >= 0xD800 && r <= 0xDFFF) {
			ok = false
			break
		}
	}
	if ok {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range strings.ReplaceAll(s, "\r\n", "\n") {
		switch {
		case r == '\n' && keepNewlines:
			b.WriteRune('\n')
		case r < 0x20 || (r >= 0x7F && r < 0xA0):
			b.WriteByte(' ')
		case r > 0xFFFD || (r >= 0xD800 && r <= 0xDFFF):
			b.WriteRune(utf8.RuneError)
		default:
			b.WriteRune(r) // an invalid byte already reads as utf8.RuneError
		}
	}
	return b.String()
}

// run is a piece of text drawn in one font.
type run struct {
	font fontID
	fake bool // bold drawn by stroking a regular font
	text string
}

// runs splits s, already cleaned, into pieces of one font each.
func runs(s string, bold bool) ([]run, error) {
	var out []run
	start := 0
	var cur run
	for i, r := range s {
		id, fake, err := fontFor(r, bold)
		if err != nil {
			return nil, err
		}
		if i > 0 && (id != cur.font || fake != cur.fake) {
			cur.text = s[start:i]
			out = append(out, cur)
			start = i
		}
		cur.font, cur.fake = id, fake
	}
	if start < len(s) {
		cur.text = s[start:]
		out = append(out, cur)
	}
	return out, nil
}

// runeWidth is the advance of r in 1/1000 em in its font (the missing
// glyph box's when no font has r).
func runeWidth(r rune, bold bool) (int, error) {
	id, _, err := fontFor(r, bold)
	if err != nil {
		return 0, err
	}
	f, err := loadFace(id)
	if err != nil {
		return 0, err
	}
	return f.advanceOrMissing(r), nil
}

// isCJK reports whether a line may break before or after r (CJK text has
// no spaces between words).
func isCJK(r rune) bool {
	return unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) || unicode.Is(unicode.Katakana, r) ||
		unicode.Is(unicode.Hangul, r) || (r >= 0x3000 && r <= 0x303F) || (r >= 0xFF00 && r <= 0xFFEF)
}

// wrap breaks s into lines no wider than maxW mm in st: at spaces, after a
// slash or a hyphen, around CJK characters, and inside a word only when the
// word alone is too wide. Newlines in s start new lines.
func wrap(s string, maxW float64, st style) ([]string, error) {
	s = clean(s, true)
	scale := st.size * ptToMM / 1000
	var out []string
	for para := range strings.SplitSeq(s, "\n") {
		para = strings.TrimRight(para, " ")
		rs := []rune(para)
		widths := make([]float64, len(rs))
		for i, r := range rs {
			w, err := runeWidth(r, st.bold)
			if err != nil {
				return nil, err
			}
			widths[i] = float64(w) * scale
		}
		if len(rs) == 0 {
			out = append(out, "")
			continue
		}
		for start := 0; start < len(rs); {
			w, brk, i := 0.0, -1, start
			for ; i < len(rs); i++ {
				if i > start && w+widths[i] > maxW+1e-9 {
					break
				}
				w += widths[i]
				switch {
				case rs[i] == ' ':
					brk = i + 1
				case i > start && (rs[i] == '/' || rs[i] == '-') && i+1 < len(rs) && rs[i+1] != ' ':
					brk = i + 1
				case isCJK(rs[i]):
					brk = i + 1
				}
				if i+1 < len(rs) && isCJK(rs[i+1]) {
					brk = i + 1
				}
			}
			end := i
			if i < len(rs) && brk > start {
				end = brk
			}
			out = append(out, strings.TrimRight(string(rs[start:end]), " "))
			for start = end; start < len(rs) && rs[start] == ' '; start++ {
			}
		}
	}
	return out, nil
}

// width is the width of s in st, in mm.
func width(s string, st style) (float64, error) {
	total := 0
	for _, r := range clean(s, false) {
		w, err := runeWidth(r, st.bold)
		if err != nil {
			return 0, err
		}
		total += w
	}
	return float64(total) * st.size * ptToMM / 1000, nil
}
