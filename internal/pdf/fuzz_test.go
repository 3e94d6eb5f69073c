package pdf

import (
	"io"
	"testing"
)

// FuzzRenderText puts arbitrary text in every kind of field: rendering
// must never fail or panic.
func FuzzRenderText(f *testing.F) {
	for _, s := range []string{"", "Syarikat Jaya", "腾讯科技有限公司", "தமிழ்", "\x00\xff\n\t", "\U0001F600", "a/b-c d", "（）"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		in := sampleInput(2, len(s)%2 == 0)
		in.Doc.InvoiceSerialNumber = s
		in.Supplier.Name = s
		in.Customer.Address.Line2 = s
		in.Doc.Lines[0].ProductDescription = s
		in.Doc.Lines[1].UnitCode = s
		in.Doc.Lines[1].Classifications = []string{s}
		in.Doc.Payment.PaymentTerms = s
		if in.Validation != nil {
			in.Validation.URL = s
		}
		if err := Render(io.Discard, in); err != nil {
			t.Fatal(err)
		}
	})
}
