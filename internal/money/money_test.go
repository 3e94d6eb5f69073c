package money

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/shopspring/decimal"
)

func TestRound2(t *testing.T) {
	tests := []struct{ in, want string }{
		{"2.675", "2.68"},
		{"-2.675", "-2.68"},
		{"2.665", "2.67"}, // half-even would give 2.66
		{"0.005", "0.01"},
		{"-0.005", "-0.01"},
		{"0.0049999", "0.00"},
		{"-0.0049999", "0.00"},
		{"0.004", "0.00"},
		{"1.994", "1.99"},
		{"1.995", "2.00"},
		{"12.3", "12.30"},
		{"0", "0.00"},
		{"565.2", "565.20"},
		{"999999999999.995", "1000000000000.00"},
	}
	for _, tt := range tests {
		got := Round2(decimal.RequireFromString(tt.in))
		if got.String() != tt.want {
			t.Errorf("Round2(%s) = %s, want %s", tt.in, got, tt.want)
		}
		if got := NewAmount(decimal.RequireFromString(tt.in)); got.String() != tt.want {
			t.Errorf("NewAmount(%s) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

func TestParseAmount(t *testing.T) {
	tests := []struct {
		in   string
		want string // String(), when err is nil
		err  error
	}{
		{"12.30", "12.30", nil},
		{"12.3", "12.30", nil},
		{"12.300", "12.30", nil},
		{"12.3000000000000000000000", "12.30", nil},
		{"12", "12.00", nil},
		{"-0.05", "-0.05", nil},
		{"-0", "0.00", nil},
		{"0", "0.00", nil},
		{"0.00", "0.00", nil},
		{"1.5e1", "15.00", nil},
		{"1.5E+1", "15.00", nil},
		{"125e-2", "1.25", nil},
		{"0e999999999999999999", "0.00", nil},
		{"1000000000000", "1000000000000.00", nil},
		{"-1000000000000.00", "-1000000000000.00", nil},
		{"1e12", "1000000000000.00", nil},
		{"999999999999.99", "999999999999.99", nil},
		{"12.345", "", ErrTooManyDecimals},
		{"0.001", "", ErrTooManyDecimals},
		{"1e-3", "", ErrTooManyDecimals},
		{"1000000000000.01", "", ErrTooLarge},
		{"1000000000001", "", ErrTooLarge},
		{"-1000000000000.01", "", ErrTooLarge},
		{"1e13", "", ErrTooLarge},
		{"1e400", "", ErrTooLarge},
		{"1e99999999999999999999", "", ErrTooLarge},
		{"1e-99999999999999999999", "", ErrTooManyDecimals},
		{"", "", ErrSyntax},
		{"-", "", ErrSyntax},
		{"abc", "", ErrSyntax},
		{"+1", "", ErrSyntax},
		{".5", "", ErrSyntax},
		{"5.", "", ErrSyntax},
		{"01", "", ErrSyntax},
		{"1e", "", ErrSyntax},
		{"1e+", "", ErrSyntax},
		{" 1", "", ErrSyntax},
		{"1 ", "", ErrSyntax},
		{"1,5", "", ErrSyntax},
		{"−1", "", ErrSyntax}, // Unicode minus: not JSON
		{"NaN", "", ErrSyntax},
		{"0x10", "", ErrSyntax},
	}
	for _, tt := range tests {
		got, err := ParseAmount(tt.in)
		if !errors.Is(err, tt.err) || (err == nil) != (tt.err == nil) {
			t.Errorf("ParseAmount(%q) error = %v, want %v", tt.in, err, tt.err)
			continue
		}
		if err == nil && got.String() != tt.want {
			t.Errorf("ParseAmount(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

func TestParseNumber(t *testing.T) {
	tests := []struct {
		in   string
		want string // Decimal().String(), when err is nil
		err  error
	}{
		{"1.50", "1.5", nil},
		{"1e2", "100", nil},
		{"0.000001", "0.000001", nil},
		{"1e-6", "0.000001", nil},
		{"1.0000000", "1", nil},
		{"4.7231", "4.7231", nil},
		{"-3", "-3", nil},
		{"1000000000000", "1000000000000", nil},
		{"999999999999.999999", "999999999999.999999", nil},
		{"-999999999999.999999", "-999999999999.999999", nil},
		{"0.0000000e5", "0", nil},
		{"1e-7", "", ErrTooManyDecimals},
		{"0.0000001", "", ErrTooManyDecimals},
		{"1000000000000.000001", "", ErrTooLarge},
		{"1e400", "", ErrTooLarge},
		{"1E13", "", ErrTooLarge},
		{"12.", "", ErrSyntax},
		{"\"1\"", "", ErrSyntax},
		{"true", "", ErrSyntax},
	}
	for _, tt := range tests {
		got, err := ParseNumber(tt.in)
		if !errors.Is(err, tt.err) || (err == nil) != (tt.err == nil) {
			t.Errorf("ParseNumber(%q) error = %v, want %v", tt.in, err, tt.err)
			continue
		}
		if err != nil {
			continue
		}
		if got.Decimal().String() != tt.want {
			t.Errorf("ParseNumber(%q).Decimal() = %s, want %s", tt.in, got.Decimal(), tt.want)
		}
		if got.String() != tt.in {
			t.Errorf("ParseNumber(%q).String() = %s, want the text as given", tt.in, got)
		}
	}
}

func TestErrorText(t *testing.T) {
	_, err := ParseAmount("12.345")
	if got, want := err.Error(), `money: "12.345" has more than 2 decimals`; got != want {
		t.Errorf("error = %q, want %q", got, want)
	}
	_, err = ParseNumber("1e400")
	if got, want := err.Error(), `money: "1e400" must be at most 10^12 in magnitude`; got != want {
		t.Errorf("error = %q, want %q", got, want)
	}
}

func TestMust(t *testing.T) {
	if got := MustAmount("1.5").String(); got != "1.50" {
		t.Errorf("MustAmount(1.5) = %s", got)
	}
	if got := MustNumber("1.50").String(); got != "1.50" {
		t.Errorf("MustNumber(1.50) = %s", got)
	}
	for name, f := range map[string]func(){
		"MustAmount": func() { MustAmount("1.234") },
		"MustNumber": func() { MustNumber("x") },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s did not panic", name)
				}
			}()
			f()
		}()
	}
}

func TestAmountArithmetic(t *testing.T) {
	a, b := MustAmount("12.30"), MustAmount("0.75")
	for _, tt := range []struct {
		name string
		got  Amount
		want string
	}{
		{"Add", a.Add(b), "13.05"},
		{"Sub", b.Sub(a), "-11.55"},
		{"Neg", a.Neg(), "-12.30"},
		{"Zero", Zero(), "0.00"},
		{"zero value", Amount{}, "0.00"},
		{"zero value Add", Amount{}.Add(b), "0.75"},
	} {
		if tt.got.String() != tt.want {
			t.Errorf("%s = %s, want %s", tt.name, tt.got, tt.want)
		}
	}
	if !Zero().IsZero() || !(Amount{}).IsZero() || a.IsZero() {
		t.Error("IsZero wrong")
	}
	if a.Cmp(b) != 1 || b.Cmp(a) != -1 || a.Cmp(MustAmount("12.3")) != 0 {
		t.Error("Cmp wrong")
	}
	if !a.Equal(MustAmount("12.300")) || a.Equal(b) || !Zero().Equal(Amount{}) {
		t.Error("Equal wrong")
	}
	if !a.Decimal().Equal(decimal.RequireFromString("12.3")) {
		t.Errorf("Decimal() = %s", a.Decimal())
	}
}

// InLimits: 10^12 in magnitude, the limit of ParseAmount, whether the
// amount is held in sen or, beyond an int64 of sen, as a decimal.
func TestInLimits(t *testing.T) {
	tera := MustAmount("1000000000000")
	sen := MustAmount("0.01")
	for _, tt := range []struct {
		name string
		a    Amount
		want bool
	}{
		{"zero", Zero(), true},
		{"10^12", tera, true},
		{"-10^12", tera.Neg(), true},
		{"10^12 + 0.01", tera.Add(sen), false},
		{"-10^12 - 0.01", tera.Neg().Sub(sen), false},
		{"10^12 x 10^12", Round2(tera.Decimal().Mul(tera.Decimal())), false},
		{"-(10^12 x 10^12)", Round2(tera.Decimal().Mul(tera.Decimal())).Neg(), false},
	} {
		if got := tt.a.InLimits(); got != tt.want {
			t.Errorf("%s: (%s).InLimits() = %v, want %v", tt.name, tt.a, got, tt.want)
		}
	}
}

func TestNumberOf(t *testing.T) {
	tests := []struct {
		in   decimal.Decimal
		want string
	}{
		{decimal.New(150, -2), "1.5"},
		{decimal.New(1, 2), "100"},
		{decimal.New(-47231, -4), "-4.7231"},
		{decimal.Decimal{}, "0"},
		{decimal.New(0, -3), "0"},
	}
	for _, tt := range tests {
		n := NumberOf(tt.in)
		if n.String() != tt.want {
			t.Errorf("NumberOf(%s).String() = %s, want %s", tt.in, n, tt.want)
		}
		b, _ := n.MarshalJSON()
		if string(b) != tt.want {
			t.Errorf("NumberOf(%s) JSON = %s, want %s", tt.in, b, tt.want)
		}
		if !n.Decimal().Equal(tt.in) {
			t.Errorf("NumberOf(%s).Decimal() = %s", tt.in, n.Decimal())
		}
	}
	if got := (Number{}).String(); got != "0" {
		t.Errorf("zero Number = %q, want 0", got)
	}
}

type doc struct {
	A  Amount  `json:"a"`
	PA *Amount `json:"pa"`
	N  Number  `json:"n"`
	PN *Number `json:"pn"`
}

func TestJSONRoundTrip(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"a":"12.3","pa":12.3,"n":1.50,"pn":1e2}`, `{"a":"12.30","pa":"12.30","n":1.50,"pn":1e2}`},
		{`{"a":-0.05,"pa":"0","n":-0.000001,"pn":4.7231}`, `{"a":"-0.05","pa":"0.00","n":-0.000001,"pn":4.7231}`},
		{`{"a":"1.5e1","pa":null,"n":0,"pn":null}`, `{"a":"15.00","pa":null,"n":0,"pn":null}`},
		{`{"a":"\u0031\u0032.30"}`, `{"a":"12.30","pa":null,"n":0,"pn":null}`},
		{`{}`, `{"a":"0.00","pa":null,"n":0,"pn":null}`},
	}
	for _, tt := range tests {
		var d doc
		if err := json.Unmarshal([]byte(tt.in), &d); err != nil {
			t.Errorf("Unmarshal(%s): %v", tt.in, err)
			continue
		}
		got, err := json.Marshal(d)
		if err != nil {
			t.Errorf("Marshal(%s): %v", tt.in, err)
			continue
		}
		if string(got) != tt.want {
			t.Errorf("round trip of %s = %s, want %s", tt.in, got, tt.want)
		}
		// A second trip is stable.
		var d2 doc
		if err := json.Unmarshal(got, &d2); err != nil {
			t.Errorf("Unmarshal(%s): %v", got, err)
			continue
		}
		if got2, _ := json.Marshal(d2); string(got2) != tt.want {
			t.Errorf("second round trip of %s = %s, want %s", tt.in, got2, tt.want)
		}
	}
}

func TestUnmarshalJSONErrors(t *testing.T) {
	tests := []struct {
		in  string
		err error
	}{
		{`{"a":"12.345"}`, ErrTooManyDecimals},
		{`{"a":12.345}`, ErrTooManyDecimals},
		{`{"a":"abc"}`, ErrSyntax},
		{`{"a":""}`, ErrSyntax},
		{`{"a":"1e13"}`, ErrTooLarge},
		{`{"a":true}`, ErrType},
		{`{"a":{}}`, ErrType},
		{`{"a":[1]}`, ErrType},
		{`{"n":"1.5"}`, ErrType},
		{`{"pn":"1.5"}`, ErrType},
		{`{"n":false}`, ErrType},
		{`{"n":1e-7}`, ErrTooManyDecimals},
		{`{"pn":1e400}`, ErrTooLarge},
	}
	for _, tt := range tests {
		var d doc
		err := json.Unmarshal([]byte(tt.in), &d)
		if !errors.Is(err, tt.err) {
			t.Errorf("Unmarshal(%s) error = %v, want %v", tt.in, err, tt.err)
		}
	}
}

func TestCheckJSON(t *testing.T) {
	tests := []struct {
		v                      any
		amountType, amountProb string
		numberType, numberProb string
	}{
		{json.Number("12.30"), "", "", "", ""},
		{json.Number("1e2"), "", "", "", ""},
		{json.Number("12.345"), "", "has more than 2 decimals", "", ""},
		{json.Number("1.1234567"), "", "has more than 2 decimals", "", "has more than 6 decimals"},
		{json.Number("1e-7"), "", "has more than 2 decimals", "", "has more than 6 decimals"},
		{json.Number("1e400"), "", "must be at most 10^12 in magnitude", "", "must be at most 10^12 in magnitude"},
		{json.Number("-1000000000000.5"), "", "must be at most 10^12 in magnitude", "", "must be at most 10^12 in magnitude"},
		{json.Number("bad"), "", "is not a decimal number", "", "is not a decimal number"},
		{"12.30", "", "", "must be a number", ""},
		{"12.345", "", "has more than 2 decimals", "must be a number", ""},
		{"twelve", "", "is not a decimal number", "must be a number", ""},
		{"", "", "is not a decimal number", "must be a number", ""},
		{true, "must be a number or a decimal string", "", "must be a number", ""},
		{map[string]any{}, "must be a number or a decimal string", "", "must be a number", ""},
		{[]any{json.Number("1")}, "must be a number or a decimal string", "", "must be a number", ""},
	}
	for _, tt := range tests {
		typ, prob := Amount{}.CheckJSON(tt.v)
		if typ != tt.amountType || prob != tt.amountProb {
			t.Errorf("Amount.CheckJSON(%#v) = %q, %q; want %q, %q", tt.v, typ, prob, tt.amountType, tt.amountProb)
		}
		typ, prob = Number{}.CheckJSON(tt.v)
		if typ != tt.numberType || prob != tt.numberProb {
			t.Errorf("Number.CheckJSON(%#v) = %q, %q; want %q, %q", tt.v, typ, prob, tt.numberType, tt.numberProb)
		}
	}
}

// Amounts beyond an int64 of sen take the decimal representation; the
// results do not depend on it.
func TestAmountLarge(t *testing.T) {
	big := func(s string) Amount { return Round2(decimal.RequireFromString(s)) }
	tests := []struct {
		name string
		got  Amount
		want string
	}{
		{"Round2 huge", big("123456789012345678901.235"), "123456789012345678901.24"},
		{"Round2 huge negative", big("-123456789012345678901.235"), "-123456789012345678901.24"},
		{"Round2 huge integer", big("1e24"), "1000000000000000000000000.00"},
		{"Round2 at the edge", big("9999999999999999.994"), "9999999999999999.99"},
		{"Round2 over the edge", big("99999999999999999.995"), "100000000000000000.00"},
		{"Round2 tiny", big("1e-30"), "0.00"},
		{"Round2 tiny half", big("0.00500000000000000000000001"), "0.01"},
		{"Add into big", big("90000000000000000.00").Add(big("90000000000000000.00")), "180000000000000000.00"},
		{"Add overflowing int64 of sen", big("92233720368547758.07").Add(big("0.01")), "92233720368547758.08"},
		{"Sub back from big", big("123456789012345678901.24").Sub(big("123456789012345678900.00")), "1.24"},
		{"Neg big", big("-123456789012345678901.24").Neg(), "123456789012345678901.24"},
		{"Sub of a negative", big("1.00").Sub(big("-92233720368547758.08")), "92233720368547759.08"},
	}
	for _, tt := range tests {
		if got := tt.got.String(); got != tt.want {
			t.Errorf("%s = %s, want %s", tt.name, got, tt.want)
		}
		if !tt.got.Decimal().Equal(decimal.RequireFromString(tt.want)) {
			t.Errorf("%s: Decimal() = %s, want %s", tt.name, tt.got.Decimal(), tt.want)
		}
		b, _ := tt.got.MarshalJSON()
		if string(b) != `"`+tt.want+`"` {
			t.Errorf("%s: JSON %s, want %q", tt.name, b, tt.want)
		}
	}
	a, b := big("123456789012345678901.24"), big("1.00")
	if a.Cmp(b) != 1 || b.Cmp(a) != -1 || !a.Equal(big("123456789012345678901.240")) || a.IsZero() {
		t.Error("Cmp, Equal or IsZero wrong on a large amount")
	}
	if !a.Sub(a).IsZero() || !a.Sub(a).Equal(Zero()) {
		t.Error("a - a is not zero")
	}
}
