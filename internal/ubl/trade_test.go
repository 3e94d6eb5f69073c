package ubl_test

import (
	"encoding/json"
	"os"
	"slices"
	"testing"
)

// step is one hop of a path in a UBL JSON tree: into key, keeping only the
// elements where attr (a child leaf, or an attribute of the leaf when key
// is a leaf) equals want; want "" with attr set keeps those without attr.
type step struct {
	key, attr, want string
	filter          bool
}

func at(key string) step                { return step{key: key} }
func where(key, attr, want string) step { return step{key: key, attr: attr, want: want, filter: true} }
func whereNone(key, attr string) step   { return step{key: key, attr: attr, filter: true} }
func leafValue(e map[string]any) string { s, _ := e["_"].(string); return s }
func childLeaf(e map[string]any, k string) (string, bool) {
	if arr, ok := e[k].([]any); ok && len(arr) > 0 {
		if m, ok := arr[0].(map[string]any); ok {
			return leafValue(m), true
		}
	}
	if s, ok := e[k].(string); ok { // an attribute
		return s, true
	}
	return "", false
}

// values returns the "_" values at the end of path from the Invoice
// element.
func values(t *testing.T, doc []byte, path ...step) []string {
	t.Helper()
	var root map[string]any
	if err := json.Unmarshal(doc, &root); err != nil {
		t.Fatal(err)
	}
	nodes := []map[string]any{root}
	for _, s := range append([]step{at("Invoice")}, path...) {
		var next []map[string]any
		for _, n := range nodes {
			arr, _ := n[s.key].([]any)
			for _, e := range arr {
				m, ok := e.(map[string]any)
				if !ok {
					continue
				}
				if s.filter {
					v, has := childLeaf(m, s.attr)
					if (s.want == "" && has) || (s.want != "" && v != s.want) {
						continue
					}
				}
				next = append(next, m)
			}
		}
		nodes = next
	}
	var out []string
	for _, n := range nodes {
		out = append(out, leafValue(n))
	}
	return out
}

// TestTradeFieldsWhereTheSamplesCarryThem writes each of the authority's
// trade fields and codes (DECISIONS 13) and finds it in our UBL at the path
// where the authority's sample carries it: the path must give a value in
// the sample and ours in our document.
func TestTradeFieldsWhereTheSamplesCarryThem(t *testing.T) {
	f := fixtureNamed(t, "trade_invoice")
	sample, err := os.ReadFile(shared(t, "myinvois-samples", "1.1-Invoice-MultiLineItem-Sample.json"))
	if err != nil {
		t.Fatal(err)
	}
	ours := marshal(t, f)
	d := f.doc
	for _, c := range []struct {
		field string
		path  []step
		want  []string
	}{
		{"customsFormReference", []step{where("AdditionalDocumentReference", "DocumentType", "CustomsImportForm"), at("ID")}, []string{d.CustomsFormReference}},
		{"customsForm2Reference", []step{where("AdditionalDocumentReference", "DocumentType", "K2"), at("ID")}, []string{d.CustomsForm2Reference}},
		{"freeTradeAgreement", []step{where("AdditionalDocumentReference", "DocumentType", "FreeTradeAgreement"), at("DocumentDescription")}, []string{d.FreeTradeAgreement}},
		{"freeTradeAgreement's ID", []step{where("AdditionalDocumentReference", "DocumentType", "FreeTradeAgreement"), at("ID")}, []string{"FTA"}},
		{"incoterms", []step{whereNone("AdditionalDocumentReference", "DocumentType"), at("ID")}, []string{d.Incoterms}},
		{"billReferenceNumber", []step{at("BillingReference"), at("AdditionalDocumentReference"), at("ID")}, []string{d.BillReferenceNumber}},
		{"invoiceLines.N.tariffCode", []step{at("InvoiceLine"), at("Item"), at("CommodityClassification"), where("ItemClassificationCode", "listID", "PTC")},
			[]string{d.Lines[0].TariffCode, d.Lines[1].TariffCode}},
		{"invoiceLines.N.countryOfOrigin", []step{at("InvoiceLine"), at("Item"), at("OriginCountry"), at("IdentificationCode")},
			[]string{d.Lines[0].CountryOfOrigin, d.Lines[1].CountryOfOrigin}},
		// The first line's authority classification replaces the mapping
		// of its classifications (019 -> 022); the second line keeps it.
		{"invoiceLines.N.authorityClassification", []step{at("InvoiceLine"), at("Item"), at("CommodityClassification"), where("ItemClassificationCode", "listID", "CLASS")},
			[]string{"003", "022"}},
	} {
		if got := values(t, sample, c.path...); len(got) == 0 || slices.Contains(got, "") {
			t.Errorf("%s: the sample has %q at the path", c.field, got)
		}
		if got := values(t, ours, c.path...); !slices.Equal(got, c.want) {
			t.Errorf("%s: our UBL has %q at the sample's path, want %q", c.field, got, c.want)
		}
	}
}

// TestTradeFieldsAbsent: a document without them writes none of the
// elements.
func TestTradeFieldsAbsent(t *testing.T) {
	b := body(t, fixtureNamed(t, "invoice"))
	if len(b.AdditionalDocumentReference) != 0 || len(b.BillingReference) != 0 {
		t.Errorf("references written: %s %s", jsonOf(t, b.AdditionalDocumentReference), jsonOf(t, b.BillingReference))
	}
	for _, l := range b.InvoiceLine {
		if len(l.Item[0].OriginCountry) != 0 {
			t.Errorf("origin written: %s", jsonOf(t, l.Item))
		}
	}
}

// TestBillReferenceAfterOriginals: on a note, the bill reference number
// follows the originals, as in the notes' samples.
func TestBillReferenceAfterOriginals(t *testing.T) {
	f := fixtureNamed(t, "debit_note")
	f.doc.BillReferenceNumber = "BL-7"
	got := values(t, marshal(t, f), at("BillingReference"), at("AdditionalDocumentReference"), at("ID"))
	b := body(t, f)
	if !slices.Equal(got, []string{"BL-7"}) || len(b.BillingReference) != 3 || len(b.BillingReference[2].AdditionalDocumentReference) != 1 {
		t.Errorf("billing references %s", jsonOf(t, b.BillingReference))
	}
}

// TestAuthorityClassificationOnConsolidated: a consolidated invoice's lines
// stay 004 (validate refuses any other authority classification there).
func TestAuthorityClassificationOnConsolidated(t *testing.T) {
	f := fixtureNamed(t, "consolidated_invoice")
	f.doc.Lines[0].AuthorityClassification = "004"
	f.doc.Lines[0].TariffCode = "9800.00.0010"
	got := values(t, marshal(t, f), at("InvoiceLine"), at("Item"), at("CommodityClassification"), at("ItemClassificationCode"))
	if !slices.Equal(got, []string{"9800.00.0010", "004", "004"}) {
		t.Errorf("classifications %q", got)
	}
}
