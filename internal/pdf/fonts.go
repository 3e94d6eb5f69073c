package pdf

import (
	_ "embed" // the TrueType fonts below
	"sync"
	"unicode"
)

// The fonts, from Debian's packages (see fonts/README.md; licences beside
// them): DejaVu Sans for Latin and everything else it covers, Droid Sans
// Fallback for Han and the other CJK characters DejaVu lacks.
var (
	//go:embed fonts/DejaVuSans.ttf
	dejaVuSans []byte
	//go:embed fonts/DejaVuSans-Bold.ttf
	dejaVuSansBold []byte
	//go:embed fonts/DroidSansFallbackFull.ttf
	droidSansFallback []byte
)

// fontID names one of the embedded fonts.
type fontID uint8

// The fonts. Droid Sans Fallback has no bold: bold Han text is drawn with a
// thin outline stroke instead.
const (
	fontRegular fontID = iota
	fontBold
	fontHan
	numFonts
)

// fontFiles are the fonts' fpdf family names and data.
var fontFiles = [numFonts]struct {
	family string
	data   []byte
}{
	fontRegular: {"dejavu", dejaVuSans},
	fontBold:    {"dejavu-bold", dejaVuSansBold},
	fontHan:     {"droid-fallback", droidSansFallback},
}

// faceLoaders parse each font the first time it is needed, once per
// process: a document in Latin script never pays for the CJK font.
var faceLoaders = func() (l [numFonts]func() (*face, error)) {
	for id := range numFonts {
		l[id] = sync.OnceValues(func() (*face, error) {
			return parseFace(fontFiles[id].family, fontFiles[id].data)
		})
	}
	return l
}()

// loadFace returns the parsed font id.
func loadFace(id fontID) (*face, error) { return faceLoaders[id]() }

// fontFor picks the font of rune r in text of the given weight: DejaVu
// (regular or bold) when it has the glyph, else Droid Sans Fallback when it
// has it (Han, kana, Hangul, full-width forms), else DejaVu, whose missing
// glyph box at least shows that something is there. fake is set for a bold
// rune drawn in the regular CJK font.
func fontFor(r rune, bold bool) (id fontID, fake bool, err error) {
	latin := fontRegular
	if bold {
		latin = fontBold
	}
	if r < 0x80 { // fast path: ASCII is always DejaVu
		return latin, false, nil
	}
	f, err := loadFace(latin)
	if err != nil {
		return latin, false, err
	}
	if f.has(r) && !unicode.Is(unicode.Han, r) {
		return latin, false, nil
	}
	han, err := loadFace(fontHan)
	if err != nil {
		return latin, false, err
	}
	if han.has(r) {
		return fontHan, bold, nil
	}
	return latin, false, nil
}
