package e2etest

import (
	"bytes"
	"image"
	_ "image/jpeg"
	_ "image/png"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/makiuchi-d/gozxing"
	gozxingqr "github.com/makiuchi-d/gozxing/qrcode"
)

// DecodeQR reads the QR code of an image with a pure-Go decoder.
func DecodeQR(t *testing.T, raw []byte) (string, image.Point) {
	t.Helper()
	img, _, err := image.Decode(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("decode image: %v", err)
	}
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
		t.Fatalf("decode QR: %v", err)
	}
	return res.GetText(), img.Bounds().Size()
}

// PDFText extracts the text of a PDF with pdftotext (Debian poppler-utils).
func PDFText(t *testing.T, pdf []byte) string {
	t.Helper()
	bin, err := exec.LookPath("pdftotext")
	if err != nil {
		t.Skip("pdftotext (poppler-utils) is not installed: the PDF's text cannot be checked")
	}
	path := filepath.Join(t.TempDir(), "doc.pdf")
	if err := os.WriteFile(path, pdf, 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(bin, "-layout", path, "-").Output()
	if err != nil {
		t.Fatalf("pdftotext: %v", err)
	}
	return string(out)
}
