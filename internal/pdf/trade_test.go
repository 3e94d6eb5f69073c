package pdf

import (
	"strings"
	"testing"
)

// TestRenderTradeFields: the customs forms, free trade agreement, Incoterms
// and bill reference show in the header's details; a line's authority
// classification, tariff code and country of origin under its description.
func TestRenderTradeFields(t *testing.T) {
	in := sampleInput(2, false)
	d := in.Doc
	d.CustomsFormReference, d.CustomsForm2Reference = "B12345678912", "E98765432123"
	d.FreeTradeAgreement, d.Incoterms, d.BillReferenceNumber = "ASEAN-China FTA (ACFTA)", "CIF", "BL-2026-0099"
	d.Lines[0].AuthorityClassification, d.Lines[0].TariffCode, d.Lines[0].CountryOfOrigin = "003", "8471.30.1000", "CHN"
	got := text(t, render(t, in))
	mustContain(t, got,
		"Customs Form 1/9", "B12345678912", "Customs Form 2 (K2)", "E98765432123",
		"Free trade agreement", "ASEAN-China FTA (ACFTA)", "Incoterms", "CIF", "Bill reference", "BL-2026-0099",
		"Authority classification: 003 Computer, smartphone or tablet", "Tariff code (PTC): 8471.30.1000",
		"Country of origin: China (CHN)",
	)
	// Without them, none of the labels shows.
	plain := text(t, render(t, sampleInput(2, false)))
	for _, absent := range []string{"Customs Form", "Free trade agreement", "Incoterms", "Bill reference", "Tariff code", "Country of origin", "Authority classification"} {
		if strings.Contains(plain, absent) {
			t.Errorf("a document without trade fields shows %q", absent)
		}
	}
}
