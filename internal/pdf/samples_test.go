package pdf

import (
	"os"
	"path/filepath"
	"testing"
)

// TestWriteSamples writes sample PDFs to the directory named by
// PDF_SAMPLES_DIR, for looking at them (pdftoppm -r 60 -png); it is
// skipped when the variable is not set.
func TestWriteSamples(t *testing.T) {
	dir := os.Getenv("PDF_SAMPLES_DIR")
	if dir == "" {
		t.Skip("set PDF_SAMPLES_DIR to write sample PDFs")
	}
	foreign := sampleInput(3, true)
	foreign.Doc.CurrencyCode, foreign.Doc.ExchangeRate = "USD", num("4.72")
	for i := range foreign.Doc.Lines {
		foreign.Doc.Lines[i].Taxes[0].TaxAmountMyr = amt("42.48")
	}
	foreign.Doc.TaxSubtotals[0].TaxAmountMyr, foreign.Doc.TotalTaxAmountMyr = amt("127.44"), amt("127.44")
	for name, in := range map[string]Input{
		"valid":   sampleInput(5, true),
		"draft":   sampleInput(5, false),
		"lines":   sampleInput(300, true),
		"foreign": foreign,
		"empty":   {},
	} {
		f, err := os.Create(filepath.Join(dir, name+".pdf"))
		if err != nil {
			t.Fatal(err)
		}
		if err := Render(f, in); err != nil {
			t.Error(err)
		}
		if err := f.Close(); err != nil {
			t.Error(err)
		}
	}
}
