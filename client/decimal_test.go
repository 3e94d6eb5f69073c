package client_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/einvoice/einvoice/client"
)

// TestDecimalJSON: sent as numbers, read from numbers or strings, never
// through float64.
func TestDecimalJSON(t *testing.T) {
	b, err := json.Marshal(struct {
		A client.Decimal `json:"a"`
		B client.Decimal `json:"b,omitempty"`
		C client.Decimal `json:"c"`
	}{A: "12345678901234567.891", C: ""})
	if err != nil || string(b) != `{"a":12345678901234567.891,"c":null}` {
		t.Errorf("marshal = %s, %v", b, err)
	}
	for _, bad := range []client.Decimal{"1,5", "abc", "1.", "0x10", " 1"} {
		if _, err := json.Marshal(bad); err == nil {
			t.Errorf("%q marshalled", bad)
		}
	}
	var v struct{ A, B, C client.Decimal }
	if err := json.Unmarshal([]byte(`{"A": "0.10", "B": 1e3, "C": null}`), &v); err != nil || v.A != "0.10" || v.B != "1e3" || v.C != "" {
		t.Errorf("unmarshal = %+v, %v", v, err)
	}
	if err := json.Unmarshal([]byte(`{"A": "ten"}`), &v); err == nil {
		t.Errorf("a string that is no number was read")
	}
}

// TestDecimalExact: amounts beyond float64's precision cross the API and
// back digit for digit.
func TestDecimalExact(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	b, err := c.Buyers.Create(ctx, hebat("Exact Sdn. Bhd."))
	if err != nil {
		t.Fatal(err)
	}
	d, err := c.Documents.Create(ctx, &client.Document{BuyerID: b.ID, InvoiceSerialNumber: "EXACT-1", CurrencyCode: "MYR",
		AutoCalculate: true, Lines: []client.Line{{Classifications: []string{"001"}, ProductDescription: "Bulk",
			Quantity: "3", UnitCode: "H87", UnitPrice: "3333333333.333333",
			Taxes: []client.LineTax{{TaxType: "01", TaxRate: "6"}}}}})
	if err != nil {
		t.Fatal(err)
	}
	// 3 x 3,333,333,333.333333 = 9,999,999,999.999999 -> 10,000,000,000.00;
	// float64 would carry it, but not the input price's 16 digits.
	if d.Lines[0].UnitPrice != "3333333333.333333" || d.Lines[0].Subtotal != "10000000000.00" || d.TotalTaxAmount != "600000000.00" {
		t.Errorf("line = %+v, tax %s", d.Lines[0], d.TotalTaxAmount)
	}
}

// FuzzDecimal: whatever Decimal reads, it writes back as a JSON number that
// reads back the same, digit for digit.
func FuzzDecimal(f *testing.F) {
	for _, s := range []string{`"1.50"`, `12`, `-0.001`, `1e-7`, `"1E+400"`, `null`, `"x"`, `01`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		var d client.Decimal
		var bare json.Number
		if json.Unmarshal([]byte(in), &bare) == nil && bare.String() == in && in != "" { // a bare JSON number
			if err := d.UnmarshalJSON([]byte(in)); err != nil || d.String() != in {
				t.Fatalf("the JSON number %s read as %q, %v", in, d, err)
			}
		}
		if d.UnmarshalJSON([]byte(in)) != nil || d.IsZero() {
			return
		}
		out, err := json.Marshal(d)
		if err != nil {
			t.Fatalf("%q read as %q but not written: %v", in, d, err)
		}
		var back client.Decimal
		if err := json.Unmarshal(out, &back); err != nil || back != d {
			t.Fatalf("%q -> %s -> %q, %v", in, out, back, err)
		}
		var n json.Number
		if err := json.Unmarshal(out, &n); err != nil || n.String() != d.String() {
			t.Fatalf("%s is not the JSON number %q", out, d)
		}
	})
}
