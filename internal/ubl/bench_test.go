package ubl_test

import (
	"testing"

	"github.com/einvoice/einvoice/internal/einvoice"
	"github.com/einvoice/einvoice/internal/ubl"
)

// BenchmarkMarshal10Lines marshals an invoice of ten lines (with discounts,
// fees, taxes and every optional part of a document).
func BenchmarkMarshal10Lines(b *testing.B) {
	f := fixtureNamed(b, "invoice")
	base := f.doc.Lines
	f.doc.Lines = nil
	for i := 0; i < 10; i++ {
		l := base[i%len(base)]
		l.Taxes = append([]einvoice.LineTax{}, l.Taxes...)
		f.doc.Lines = append(f.doc.Lines, l)
	}
	einvoice.Calculate(f.doc)
	in := f.input()
	out, err := ubl.Marshal(in)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(out)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ubl.Marshal(in); err != nil {
			b.Fatal(err)
		}
	}
}
