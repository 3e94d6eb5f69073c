package ubl_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/einvoice/einvoice/internal/einvoice"
	"github.com/einvoice/einvoice/internal/money"
	"github.com/einvoice/einvoice/internal/ubl"
)

// TestNumbersPlain: a quantity sent as 1e2 and a price of 0.000001 come out
// as 100 and 0.000001, never with an exponent, and exact.
func TestNumbersPlain(t *testing.T) {
	f := fixtureNamed(t, "credit_note")
	l := &f.doc.Lines[0]
	l.Quantity, l.UnitPrice = num("1e2"), num("0.000001")
	l.Taxes = []einvoice.LineTax{tax("01", "1e1")}
	f.doc.Lines = append(f.doc.Lines, einvoice.Line{Classifications: []string{"001"}, ProductDescription: "Bolts",
		Quantity: num("123456.123456"), UnitCode: "KGM", UnitPrice: num("999999.999999"), Taxes: []einvoice.LineTax{tax("01", "10")}})
	einvoice.Calculate(f.doc)
	out := marshal(t, f)
	for _, want := range []string{
		`"InvoicedQuantity":[{"_":100,"unitCode":"H87"}]`,
		`"PriceAmount":[{"_":0.000001,"currencyID":"MYR"}]`,
		`"ItemPriceExtension":[{"Amount":[{"_":0.00,"currencyID":"MYR"}]}]`,
		`"Percent":[{"_":10}]`,
		`"InvoicedQuantity":[{"_":123456.123456,"unitCode":"KGM"}]`,
		`"PriceAmount":[{"_":999999.999999,"currencyID":"MYR"}]`,
		// 123456.123456 x 999999.999999, rounded half away from zero.
		`"ItemPriceExtension":[{"Amount":[{"_":123456123455.88,"currencyID":"MYR"}]}]`,
	} {
		if !bytes.Contains(out, []byte(want)) {
			t.Errorf("output lacks %s", want)
		}
	}
	checkNoExponent(t, f.name, out)
	for _, f := range fixtures() {
		checkNoExponent(t, f.name, marshal(t, f))
	}
}

// checkNoExponent fails when a number of doc has an exponent.
func checkNoExponent(t *testing.T, name string, doc []byte) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	numbers := 0
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if n, ok := tok.(json.Number); ok {
			numbers++
			if strings.ContainsAny(string(n), "eE") {
				t.Errorf("%s: number %s has an exponent", name, n)
			}
		}
	}
	if numbers == 0 {
		t.Errorf("%s: no numbers", name)
	}
}

func TestDecimalJSON(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"0", "0"}, {"100", "100"}, {"1e2", "100"}, {"1E+2", "100"}, {"1.5e1", "15"}, {"12.30", "12.30"},
		{"-0.05", "-0.05"}, {"1436.5", "1436.5"}, {"0.0", "0.0"}, {"1e-7", "0.0000001"}, {"0.000001", "0.000001"},
		{"123456789012345678901234567890.12", "123456789012345678901234567890.12"},
	} {
		var d ubl.Decimal
		if err := json.Unmarshal([]byte(c.in), &d); err != nil {
			t.Errorf("read %s: %v", c.in, err)
			continue
		}
		b, err := json.Marshal(d)
		if err != nil || string(b) != c.want || d.String() != c.want {
			t.Errorf("%s: written %s (%v), String %s; want %s", c.in, b, err, d.String(), c.want)
		}
	}
	for _, bad := range []string{`"12.30"`, `true`, `null`, `{}`, `[]`, `1e400`, `1e-200`} {
		var d ubl.Decimal
		if err := json.Unmarshal([]byte(bad), &d); !errors.Is(err, ubl.ErrNumber) {
			t.Errorf("read %s: %v, want ErrNumber", bad, err)
		}
	}
	if _, err := json.Marshal(ubl.DecimalOf(decimal.New(1, 500))); err == nil {
		t.Errorf("a 500-digit number was written")
	}
	// Money keeps two decimals, also beyond an int64 of sen.
	big := money.MustAmount("1000000000000").Add(money.MustAmount("1000000000000"))
	for i := 0; i < 20; i++ {
		big = big.Add(big)
	}
	if got := ubl.DecimalOf(big.Decimal()).String(); got != "2097152000000000000.00" {
		t.Errorf("big amount %s", got)
	}
}

// TestNoFloat: the package's code names no float type or conversion
// (float64, Float64, InexactFloat64, NewFromFloat, ...), so no amount, rate
// or quantity can pass through one.
func TestNoFloat(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(file, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok && strings.Contains(strings.ToLower(id.Name), "float") {
				t.Errorf("%s: %s", fset.Position(id.Pos()), id.Name)
			}
			return true
		})
	}
}
