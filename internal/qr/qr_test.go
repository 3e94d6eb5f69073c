package qr

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/makiuchi-d/gozxing"
	gozxingqr "github.com/makiuchi-d/gozxing/qrcode"
)

const link = "https://myinvois.hasil.gov.my/F9D425P6DS7D8IUMKB4TJ6MY10/share/UIMGYH0NUO8OEXVZX9N94WYTBLLD796E5Q33CWUJ"

// decode reads the QR code in img with a pure-Go decoder.
func decode(t *testing.T, img image.Image) string {
	t.Helper()
	bmp, err := gozxing.NewBinaryBitmapFromImage(img)
	if err != nil {
		t.Fatal(err)
	}
	// gozxing's finder-pattern detector misses about 1 in 150 perfect
	// codes (random 80-character URLs at 256 px: all of them decode as the
	// pure code they are), so a miss is tried again as a pure code.
	res, err := gozxingqr.NewQRCodeReader().Decode(bmp, nil)
	if err != nil {
		res, err = gozxingqr.NewQRCodeReader().Decode(bmp, map[gozxing.DecodeHintType]any{gozxing.DecodeHintType_PURE_BARCODE: true})
	}
	if err != nil {
		t.Fatalf("decode: %v", err)
	}
	return res.GetText()
}

func TestRoundTrip(t *testing.T) {
	for _, size := range []int{MinSize, 100, DefaultSize, 333, MaxSize} {
		p, err := PNG(link, size)
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(bytes.NewReader(p))
		if err != nil {
			t.Fatal(err)
		}
		if b := img.Bounds(); b.Dx() != size || b.Dy() != size {
			t.Errorf("PNG %d: %v", size, b)
		}
		if got := decode(t, img); got != link {
			t.Errorf("PNG %d decodes to %q", size, got)
		}
		j, err := JPEG(link, size)
		if err != nil {
			t.Fatal(err)
		}
		jimg, err := jpeg.Decode(bytes.NewReader(j))
		if err != nil {
			t.Fatal(err)
		}
		if got := decode(t, jimg); got != link {
			t.Errorf("JPEG %d decodes to %q", size, got)
		}
	}
}

// TestQuietZone: at least four white modules around the code.
func TestQuietZone(t *testing.T) {
	img, err := Image(link, DefaultSize)
	if err != nil {
		t.Fatal(err)
	}
	// Find the code's dark extent.
	minX, minY, maxX, maxY := DefaultSize, DefaultSize, -1, -1
	for y := range DefaultSize {
		for x := range DefaultSize {
			if img.ColorIndexAt(x, y) == 1 {
				minX, minY, maxX, maxY = min(minX, x), min(minY, y), max(maxX, x), max(maxY, y)
			}
		}
	}
	// The finder pattern is 7 modules wide: the module size follows.
	module := 0
	for x := minX; x < DefaultSize && img.ColorIndexAt(x, minY) == 1; x++ {
		module++
	}
	module /= 7
	if module < 1 {
		t.Fatalf("no finder pattern found")
	}
	for _, margin := range []int{minX, minY, DefaultSize - 1 - maxX, DefaultSize - 1 - maxY} {
		if margin < 4*module {
			t.Errorf("quiet zone %d px, want at least %d (4 modules of %d px)", margin, 4*module, module)
		}
	}
}

func TestBadInput(t *testing.T) {
	for _, size := range []int{MinSize - 1, MaxSize + 1, 0, -5} {
		if _, err := PNG(link, size); !errors.Is(err, ErrSize) {
			t.Errorf("size %d: %v, want ErrSize", size, err)
		}
	}
	if _, err := PNG("", DefaultSize); err == nil {
		t.Error("an empty text encodes")
	}
}

// BenchmarkPNG256 is one QR PNG of the default size (target: under 2 ms).
func BenchmarkPNG256(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := PNG(link, DefaultSize); err != nil {
			b.Fatal(err)
		}
	}
}

// TestSVG: the SVG's modules, drawn back into an image, decode to the
// text; nothing to encode is an error.
func TestSVG(t *testing.T) {
	t.Parallel()
	svg, err := SVG(link)
	if err != nil {
		t.Fatal(err)
	}
	var n int
	if _, err := fmt.Sscanf(svg[strings.Index(svg, "viewBox=")+len(`viewBox="0 0 `):], "%d", &n); err != nil || n < 21 {
		t.Fatalf("viewBox of %q: %d, %v", svg[:120], n, err)
	}
	const scale = 4
	img := image.NewGray(image.Rect(0, 0, n*scale, n*scale))
	for i := range img.Pix {
		img.Pix[i] = 0xff
	}
	for _, m := range regexp.MustCompile(`M(\d+) (\d+)h1v1h-1z`).FindAllStringSubmatch(svg, -1) {
		x, _ := strconv.Atoi(m[1])
		y, _ := strconv.Atoi(m[2])
		for dy := range scale {
			for dx := range scale {
				img.SetGray(x*scale+dx, y*scale+dy, color.Gray{})
			}
		}
	}
	if got := decode(t, img); got != link {
		t.Errorf("the SVG holds %q, want %q", got, link)
	}
	if _, err := SVG(""); err == nil {
		t.Error("SVG of nothing: no error")
	}
}
