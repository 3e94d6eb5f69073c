package einvoice_test

import (
	"fmt"
	"testing"

	"github.com/einvoice/einvoice/internal/einvoice"
)

// calcBenchDoc is a 100-line document, one tax per line: line k is k x 12.3456
// with a 5 % discount on every other line, at 6 % sales tax.
func calcBenchDoc(currency, exchangeRate string) *einvoice.Document {
	d := &einvoice.Document{CurrencyCode: currency, ExchangeRate: calcN(exchangeRate), Payment: calcCash("")}
	for k := 1; k <= 100; k++ {
		discount := ""
		if k%2 == 0 {
			discount = "5"
		}
		d.Lines = append(d.Lines, calcLineDF(fmt.Sprint(k), "12.3456", discount, "", calcTax("01", "6")))
	}
	return d
}

// go test -bench Calculate -run '^$' ./internal/einvoice/
func BenchmarkCalculate100Lines(b *testing.B) {
	d := calcBenchDoc("MYR", "")
	b.ReportAllocs()
	for b.Loop() {
		einvoice.Calculate(d)
	}
}

// The same document in USD with an exchange rate: MYR amounts too.
func BenchmarkCalculate100LinesForeign(b *testing.B) {
	d := calcBenchDoc("USD", "4.7231")
	b.ReportAllocs()
	for b.Loop() {
		einvoice.Calculate(d)
	}
}
