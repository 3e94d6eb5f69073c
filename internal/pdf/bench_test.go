package pdf

import (
	"io"
	"testing"
)

// BenchmarkRenderOnePage renders a validated one-page invoice with its QR
// code. Target: under 10 ms.
func BenchmarkRenderOnePage(b *testing.B) {
	in := sampleInput(5, true)
	benchRender(b, in)
}

// BenchmarkRender300Lines renders a 300-line invoice. Target: under 100 ms.
func BenchmarkRender300Lines(b *testing.B) {
	benchRender(b, sampleInput(300, true))
}

func benchRender(b *testing.B, in Input) {
	b.Helper()
	b.ReportAllocs()
	var w countingWriter
	if err := Render(&w, in); err != nil { // warm up: the fonts are parsed once
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		w = 0
		if err := Render(&w, in); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(w), "bytes/pdf")
}

// countingWriter counts the bytes written to it.
type countingWriter int

func (w *countingWriter) Write(p []byte) (int, error) {
	*w += countingWriter(len(p))
	return len(p), nil
}

var _ io.Writer = (*countingWriter)(nil)

// BenchmarkRenderOnePageLatin is BenchmarkRenderOnePage without Chinese
// text: one font fewer.
func BenchmarkRenderOnePageLatin(b *testing.B) {
	in := sampleInput(5, true)
	in.Customer.Name = "Syarikat Maju Jaya Berhad"
	benchRender(b, in)
}
