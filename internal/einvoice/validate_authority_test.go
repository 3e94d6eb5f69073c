package einvoice

import (
	"strings"
	"testing"
)

// vtAuthorityCases are the rules of the authority's own codes and fields
// (DECISIONS 13): classification codes reserved for a kind, and the lengths
// of the trade fields.
func vtAuthorityCases() []vtCase {
	cls := func(code string) func(in *ValidationInput) {
		return func(in *ValidationInput) { in.Doc.Lines[1].AuthorityClassification = code }
	}
	const at = "invoiceLines.1.authorityClassification"
	wrong := vtOne("CLASSIFICATION_WRONG_KIND", at)
	cases := []vtCase{
		{"authority classification: 003 on an invoice passes", "", cls("003"), nil},
		{"authority classification: 022 on a self-billed invoice passes", KindSelfBilledInvoice, cls("022"), nil},
		{"authority classification: 004 on a consolidated invoice passes", KindConsolidatedInvoice, cls("004"), nil},
		{"authority classification: 022 on a consolidated invoice", KindConsolidatedInvoice, cls("022"), wrong},
		{"authority classification: 036 on a consolidated invoice", KindConsolidatedInvoice, cls("036"), wrong},
		{"authority classification: 004 on an invoice", "", cls("004"), wrong},
		{"authority classification: 004 on a self-billed invoice", KindSelfBilledInvoice, cls("004"), wrong},
		{"authority classification: 004 on a credit note of our invoice", KindCreditNote, cls("004"), wrong},
		{"authority classification: 004 on a credit note of our consolidated invoice passes", KindCreditNote, func(in *ValidationInput) {
			in.Referenced[vtRefNumber] = []*Document{vtOurs(KindConsolidatedInvoice, StatusValid)}
			cls("004")(in)
		}, nil},
		{"authority classification: without classifications passes", "", func(in *ValidationInput) {
			in.Doc.Lines[1].Classifications = nil
			cls("030")(in)
		}, nil},
		{"authority classification: unknown (stored before the rule)", "", cls("099"), vtOne("INPUT_RULE", at)},
		{"country of origin: unknown (stored before the rule)", "", func(in *ValidationInput) { in.Doc.Lines[0].CountryOfOrigin = "MY" },
			vtOne("INPUT_RULE", "invoiceLines.0.countryOfOrigin")},
		{"trade fields at their lengths pass", "", func(in *ValidationInput) {
			d := in.Doc
			d.CustomsFormReference, d.CustomsForm2Reference = strings.Repeat("E", 1000), strings.Repeat("K", 1000)
			d.FreeTradeAgreement, d.Incoterms, d.BillReferenceNumber = strings.Repeat("F", 300), "CIF", strings.Repeat("B", 150)
			d.Lines[0].TariffCode, d.Lines[0].CountryOfOrigin = "9800.00.0010", "MYS"
		}, nil},
		{"trade fields over their lengths", "", func(in *ValidationInput) {
			d := in.Doc
			d.CustomsFormReference, d.CustomsForm2Reference = strings.Repeat("E", 1001), strings.Repeat("K", 1001)
			d.FreeTradeAgreement, d.Incoterms, d.BillReferenceNumber = strings.Repeat("F", 301), "CIFF", strings.Repeat("B", 151)
			d.Lines[0].TariffCode = "9800.00.00101"
		}, []vtProblem{{"TOO_LONG", "customsFormReference"}, {"TOO_LONG", "customsForm2Reference"}, {"TOO_LONG", "freeTradeAgreement"},
			{"TOO_LONG", "incoterms"}, {"TOO_LONG", "billReferenceNumber"}, {"TOO_LONG", "invoiceLines.0.tariffCode"}}},
	}
	for _, c := range []string{"033", "034", "035", "036", "037", "045"} {
		cases = append(cases,
			vtCase{"authority classification: self-billed " + c + " on an invoice", "", cls(c), wrong},
			vtCase{"authority classification: self-billed " + c + " on a debit note", KindDebitNote, cls(c), wrong},
			vtCase{"authority classification: " + c + " on a self-billed invoice passes", KindSelfBilledInvoice, cls(c), nil},
			vtCase{"authority classification: " + c + " on a self-billed refund note passes", KindSelfBilledRefundNote, cls(c), nil},
		)
	}
	return cases
}

func TestValidateAuthorityCodes(t *testing.T) { vtRun(t, vtAuthorityCases()) }

// TestValidateAuthorityCodesSayWhatFits: each refusal names the code that
// fits the kind.
func TestValidateAuthorityCodesSayWhatFits(t *testing.T) {
	for _, c := range []struct {
		kind DocumentKind
		code string
		want []string
	}{
		{KindInvoice, "004", []string{"004 (Consolidated e-Invoice)", "use 022 (Others)"}},
		{KindSelfBilledCreditNote, "004", []string{"use 036 (Self-billed - Others)"}},
		{KindConsolidatedInvoice, "022", []string{"classified 004 (Consolidated e-Invoice)"}},
		{KindInvoice, "034", []string{"034 (Self-billed - Importation of goods)", "self-billed documents", "use 022 (Others)"}},
		{KindRefundNote, "045", []string{"on this refund note use 022 (Others)"}},
	} {
		in := vtInput(c.kind)
		in.Doc.Lines[0].AuthorityClassification = c.code
		ps := ValidateDocument(in)
		if len(ps) != 1 {
			t.Errorf("%s %s: %v, want one problem", c.kind, c.code, ps)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(ps[0].Message, w) {
				t.Errorf("%s %s: message %q lacks %q", c.kind, c.code, ps[0].Message, w)
			}
		}
	}
}

// TestDocumentInputAuthorityCodes: create refuses an unknown authority
// classification or country of origin, naming the line's field.
func TestDocumentInputAuthorityCodes(t *testing.T) {
	d := vtInput(KindInvoice).Doc
	info, _ := InfoOf(KindInvoice)
	d.Lines[0].AuthorityClassification, d.Lines[0].CountryOfOrigin = "022", "SGP"
	if f := ValidateDocumentInput(d, info); len(f) != 0 {
		t.Errorf("known codes refused: %v", f)
	}
	d.Lines[2].AuthorityClassification, d.Lines[1].CountryOfOrigin = "46", "Malaysia"
	f := ValidateDocumentInput(d, info)
	if len(f) != 2 || len(f["invoiceLines.2.authorityClassification"]) != 1 || len(f["invoiceLines.1.countryOfOrigin"]) != 1 {
		t.Errorf("errors = %v, want invoiceLines.2.authorityClassification and invoiceLines.1.countryOfOrigin", f)
	}
	if m := f["invoiceLines.2.authorityClassification"]; len(m) == 1 && !strings.Contains(m[0], "GET /api/v1/authority-classifications") {
		t.Errorf("message %q does not name the list", m[0])
	}
}
