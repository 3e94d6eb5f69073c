package ubl_test

import (
	"bytes"
	"testing"

	"github.com/einvoice/einvoice/internal/ubl"
)

// FuzzParse: Parse never panics, and what it reads Encode writes, and that
// reads back to the same bytes.
func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		``, `{}`, `null`, `[]`, `{"Invoice":[]}`, `{"Invoice":[{}]}`,
		`{"_D":"urn:oasis:names:specification:ubl:schema:xsd:Invoice-2","Invoice":[{"ID":[{"_":"INV-1"}],"InvoicedQuantity":[{"_":1e2}]}]}`,
		`{"Invoice":[{"InvoiceLine":[{"ID":[{"_":"1"}],"InvoicedQuantity":[{"_":-0.000001,"unitCode":"H87"}],"Price":[{"PriceAmount":[{"_":1E+2,"currencyID":"MYR"}]}]}]}]}`,
		`{"Invoice":[{"LegalMonetaryTotal":[{"PayableAmount":[{"_":1e999999999,"currencyID":"MYR"}]}]}]}`,
		`{"Invoice":[{"AllowanceCharge":[{"ChargeIndicator":[{"_":true}],"Amount":[{"_":0.10,"currencyID":"USD"}]}],"UBLExtensions":[{"x":[1,2,{"y":null}]}],"Signature":{"a":"\u003c"}}]}`,
		`{"Invoice":[{"ID":[{"_":"A","schemeID":"TIN"}]}],"Invoice":[{"ID":[{"_":"B"}]}]}`,
	} {
		f.Add([]byte(seed))
	}
	in := fixtures()[0].input()
	if out, err := ubl.Marshal(in); err == nil {
		f.Add(out)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		inv, err := ubl.Parse(data)
		if err != nil {
			return
		}
		out, err := ubl.Encode(inv)
		if err != nil {
			t.Fatalf("Encode of a parsed document: %v", err)
		}
		again, err := ubl.Parse(out)
		if err != nil {
			t.Fatalf("Parse of an encoded document: %v\n%s", err, out)
		}
		out2, err := ubl.Encode(again)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(out, out2) {
			t.Fatalf("not stable:\n%s\n%s", out, out2)
		}
	})
}
