// Package qr draws QR codes of validation links: black on white, with the
// 4-module quiet zone the QR standard asks for, as a 1-bit paletted image
// encoded as PNG or JPEG. The code is computed by gozxing (a port of ZXing;
// error correction level M), about five times faster here than
// boombuler/barcode, whose mask evaluation dominated a request.
package qr

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"strings"
	"sync"

	"github.com/makiuchi-d/gozxing"
	"github.com/makiuchi-d/gozxing/qrcode"
	"github.com/makiuchi-d/gozxing/qrcode/decoder"
)

// Size limits of an image, in pixels.
const (
	MinSize     = 64
	MaxSize     = 1024
	DefaultSize = 256
	// quietZone is the white border in modules.
	quietZone = 4
)

// ErrSize is returned for a size outside MinSize..MaxSize.
var ErrSize = fmt.Errorf("size must be %d to %d pixels", MinSize, MaxSize)

var palette = color.Palette{color.White, color.Black}

// hints ask for error correction M and no margin (the quiet zone is drawn
// here, in whole modules).
var hints = map[gozxing.EncodeHintType]any{
	gozxing.EncodeHintType_ERROR_CORRECTION: decoder.ErrorCorrectionLevel_M,
	gozxing.EncodeHintType_MARGIN:           0,
}

// Image returns the QR code of text as a size x size image: whole pixels
// per module, the code centred, at least the quiet zone around it.
func Image(text string, size int) (*image.Paletted, error) {
	if size < MinSize || size > MaxSize {
		return nil, ErrSize
	}
	if text == "" {
		return nil, errors.New("qr: nothing to encode")
	}
	code, err := qrcode.NewQRCodeWriter().Encode(text, gozxing.BarcodeFormat_QR_CODE, 0, 0, hints)
	if err != nil {
		return nil, fmt.Errorf("qr: encode: %w", err)
	}
	n := code.GetWidth()
	scale := size / (n + 2*quietZone)
	if scale < 1 {
		return nil, fmt.Errorf("qr: %d modules do not fit in %d pixels: %w", n, size, ErrSize)
	}
	img := image.NewPaletted(image.Rect(0, 0, size, size), palette) // all white (index 0)
	off := (size - n*scale) / 2
	for y := range n {
		for x := range n {
			if !code.Get(x, y) {
				continue
			}
			for dy := range scale {
				row := img.Pix[(off+y*scale+dy)*img.Stride:]
				for dx := range scale {
					row[off+x*scale+dx] = 1
				}
			}
		}
	}
	return img, nil
}

// encoderBuffers reuses the PNG encoder's buffers (its deflate state is
// most of a PNG's allocations).
var encoderBuffers = &bufferPool{}

type bufferPool struct{ p sync.Pool }

func (b *bufferPool) Get() *png.EncoderBuffer {
	if eb, ok := b.p.Get().(*png.EncoderBuffer); ok {
		return eb
	}
	return nil
}

func (b *bufferPool) Put(eb *png.EncoderBuffer) { b.p.Put(eb) }

// PNG returns the QR code of text as a PNG of size x size pixels.
func PNG(text string, size int) ([]byte, error) {
	img, err := Image(text, size)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestSpeed, BufferPool: encoderBuffers}
	if err := enc.Encode(&buf, img); err != nil {
		return nil, fmt.Errorf("qr: png: %w", err)
	}
	return buf.Bytes(), nil
}

// JPEG returns the QR code of text as a JPEG of size x size pixels (quality
// 90: a bitonal image survives it, though PNG is smaller and exact).
func JPEG(text string, size int) ([]byte, error) {
	img, err := Image(text, size)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 90}); err != nil {
		return nil, fmt.Errorf("qr: jpeg: %w", err)
	}
	return buf.Bytes(), nil
}

// SVG returns the QR code of text as an SVG element (one path of whole
// modules, the quiet zone around it) that scales to its container: for
// pages whose images must be inline.
func SVG(text string) (string, error) {
	if text == "" {
		return "", errors.New("qr: nothing to encode")
	}
	code, err := qrcode.NewQRCodeWriter().Encode(text, gozxing.BarcodeFormat_QR_CODE, 0, 0, hints)
	if err != nil {
		return "", fmt.Errorf("qr: encode: %w", err)
	}
	n := code.GetWidth()
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" shape-rendering="crispEdges"><rect width="100%%" height="100%%" fill="#fff"/><path fill="#000" d="`,
		n+2*quietZone, n+2*quietZone)
	for y := range n {
		for x := range n {
			if code.Get(x, y) {
				fmt.Fprintf(&b, "M%d %dh1v1h-1z", x+quietZone, y+quietZone)
			}
		}
	}
	b.WriteString(`"/></svg>`)
	return b.String(), nil
}
