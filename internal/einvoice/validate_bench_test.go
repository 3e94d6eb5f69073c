package einvoice

import (
	"fmt"
	"testing"
)

// vtBenchInput is a valid invoice of 100 lines (line k: k x 12.3456, a 5 %
// discount on every other line, 8 % service tax, every tenth line exempt
// instead), its amounts calculated.
func vtBenchInput(auto bool) ValidationInput {
	in := vtInput(KindInvoice)
	base := in.Doc.Lines[0]
	in.Doc.Lines = make([]Line, 0, 100)
	for k := 1; k <= 100; k++ {
		l := base
		l.ProductDescription = fmt.Sprintf("Item %d", k)
		l.Quantity, l.UnitPrice, l.DiscountRate = vtN(fmt.Sprint(k)), vtN("12.3456"), nil
		if k%2 == 0 {
			l.DiscountRate = vtN("5")
		}
		l.Taxes = []LineTax{{TaxType: "02", TaxRate: vtN("8")}}
		if k%10 == 0 {
			l.Taxes = []LineTax{{TaxType: "E", ExemptionReason: "Exempt New Means of Transport"}}
		}
		in.Doc.Lines = append(in.Doc.Lines, l)
	}
	Calculate(in.Doc)
	in.Doc.AutoCalculate = auto
	return in
}

// go test -run '^$' -bench Validate ./internal/einvoice/
func BenchmarkValidate100Lines(b *testing.B) {
	for _, auto := range []bool{false, true} {
		b.Run(fmt.Sprintf("autoCalculate=%v", auto), func(b *testing.B) {
			in := vtBenchInput(auto)
			if p := ValidateDocument(in); len(p) != 0 {
				b.Fatalf("the document is not valid: %v", p)
			}
			b.ReportAllocs()
			for b.Loop() {
				ValidateDocument(in)
			}
		})
	}
}
