// Package money holds the service's decimal types: Amount, money with two
// decimals, and Number, an exact decimal input (quantity, unit price, rate,
// exchange rate) echoed as the client gave it. Neither ever goes through
// float64: JSON numbers are read from their text.
//
// Round2 is the one rounding function of the service.
package money

import (
	"cmp"
	"encoding/json"
	"errors"
	"math"
	"strconv"

	"github.com/shopspring/decimal"
)

// Limits of the values the service accepts (DECISIONS section 6).
const (
	// MaxMagnitude is the largest absolute value of an Amount or a Number: 10^12.
	MaxMagnitude = "1000000000000"
	// AmountDecimals is the most decimals of an Amount.
	AmountDecimals = 2
	// NumberDecimals is the most decimals of a Number.
	NumberDecimals = 6
)

// The errors of ParseAmount, ParseNumber and the UnmarshalJSON methods, for
// errors.Is. Their texts are the problem phrases CheckJSON returns.
var (
	// ErrSyntax: the text is not a decimal number.
	ErrSyntax = errors.New("is not a decimal number")
	// ErrTooLarge: the magnitude is above MaxMagnitude.
	ErrTooLarge = errors.New("must be at most 10^12 in magnitude")
	// ErrTooManyDecimals: more decimals than AmountDecimals or NumberDecimals.
	ErrTooManyDecimals = errors.New("has too many decimals")
	// ErrType: the JSON value has the wrong type (a string for a Number).
	ErrType = errors.New("has the wrong JSON type")
)

// Problem phrases and type errors of CheckJSON.
const (
	amountTypeErr = "must be a number or a decimal string"
	numberTypeErr = "must be a number"
)

// Round2 rounds d to 2 decimals, half away from zero: 2.675 -> 2.68,
// -2.675 -> -2.68, 0.005 -> 0.01. It is the one rounding function of the
// service; every amount is rounded by it at the step where it appears.
//
// Why half away from zero: it is the rule of DECISIONS section 6 and of
// everyday commercial arithmetic in Malaysia, and the one the spreadsheets
// and ERPs our clients check our totals with apply (Excel's ROUND, for one);
// MyInvois names no rule of its own and only takes 2-decimal amounts. It is
// symmetric around zero, so a credit note rounds to exactly the negation of
// its invoice. The trade-off: banker's rounding (half to even) has no upward
// bias on sums of many half-way values, but it surprises people (2.665 ->
// 2.66) and would disagree with the clients' own arithmetic. We round per
// line, so the bias is at most half a sen per half-way line, which we accept
// for totals anyone can recompute by hand.
func Round2(d decimal.Decimal) Amount {
	e := d.Exponent()
	if e >= -AmountDecimals { // nothing to cut
		return amountOf(d)
	}
	// Fast path, the same result without big.Int arithmetic: a coefficient
	// that fits an int64 and needs 1 to 18 digits cut.
	if e >= -AmountDecimals-18 && d.NumDigits() <= 18 {
		c, p := d.CoefficientInt64(), pow10[-AmountDecimals-e]
		q, r := c/p, c%p // both truncated towards zero: r has the sign of c
		if r >= (p+1)/2 {
			q++
		} else if r <= -(p+1)/2 {
			q--
		}
		return Amount{sen: q}
	}
	return amountOf(d.Round(AmountDecimals))
}

// pow10[i] is 10^i.
var pow10 = [...]int64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18}

// Amount is money with at most 2 decimals; rendered in JSON as a string with
// exactly two decimals ("12.30", "-0.05", "0.00"). The zero value is 0.00.
// Amounts are values: copy them freely, and compare them with Equal or Cmp,
// not ==.
type Amount struct {
	// The value is sen/100, or *big when big is not nil: a fixed-point
	// amount, with a decimal for the rare value beyond an int64 of sen
	// (about 9.2 x 10^16), which sums and products of inputs can reach.
	sen int64
	big *decimal.Decimal // at 2 decimals; nil when the value fits sen
}

// amountOf returns d, which has at most 2 decimals, as an Amount.
func amountOf(d decimal.Decimal) Amount {
	if d.IsZero() {
		return Amount{}
	}
	e := int(d.Exponent())
	if e < -AmountDecimals {
		d = d.Round(AmountDecimals) // exact: d has at most 2 decimals
		e = -AmountDecimals
	}
	if d.NumDigits()+e+AmountDecimals <= 18 { // |value in sen| < 10^18: fits an int64
		return Amount{sen: d.CoefficientInt64() * pow10[e+AmountDecimals]}
	}
	d = d.Round(AmountDecimals) // sets the exponent to -2
	return Amount{big: &d}
}

// NewAmount returns d rounded by Round2.
func NewAmount(d decimal.Decimal) Amount { return Round2(d) }

// Zero returns 0.00.
func Zero() Amount { return Amount{} }

// ParseAmount reads the exact decimal text s: a JSON number such as "12.30",
// "-5" or "1.5e1". The exact value must have at most 2 decimals ("12.300" is
// 12.30, fine; "12.345" is refused) and a magnitude of at most 10^12.
func ParseAmount(s string) (Amount, error) {
	d, err := parse(s, AmountDecimals)
	if err != nil {
		return Amount{}, err
	}
	return amountOf(d), nil
}

// MustAmount is ParseAmount that panics on error, for tests and tables.
func MustAmount(s string) Amount {
	a, err := ParseAmount(s)
	if err != nil {
		panic(err)
	}
	return a
}

// Add returns a + b.
func (a Amount) Add(b Amount) Amount {
	if a.big == nil && b.big == nil {
		if s, ok := addInt64(a.sen, b.sen); ok {
			return Amount{sen: s}
		}
	}
	return amountOf(a.Decimal().Add(b.Decimal()))
}

// Sub returns a - b.
func (a Amount) Sub(b Amount) Amount {
	if a.big == nil && b.big == nil && b.sen != math.MinInt64 {
		if s, ok := addInt64(a.sen, -b.sen); ok {
			return Amount{sen: s}
		}
	}
	return amountOf(a.Decimal().Sub(b.Decimal()))
}

// addInt64 returns x + y, and false when that overflows.
func addInt64(x, y int64) (int64, bool) {
	s := x + y
	return s, (s > x) == (y > 0)
}

// Neg returns -a.
func (a Amount) Neg() Amount {
	if a.big == nil && a.sen != math.MinInt64 {
		return Amount{sen: -a.sen}
	}
	return amountOf(a.Decimal().Neg())
}

// maxSen is MaxMagnitude in sen.
const maxSen = 100_000_000_000_000

// InLimits reports whether a is within the limits of every amount the
// service accepts or stores: at most 10^12 in magnitude, the value
// ParseAmount takes. Sums and products of amounts within the limits can pass
// them; an Amount computes them exactly all the same, and InLimits tells.
func (a Amount) InLimits() bool {
	if a.big != nil { // beyond an int64 of sen: never within, but ask the value
		return a.big.Abs().Cmp(decimal.New(maxSen, -AmountDecimals)) <= 0
	}
	return -maxSen <= a.sen && a.sen <= maxSen
}

// IsZero reports whether a is 0.00.
func (a Amount) IsZero() bool { return a.big == nil && a.sen == 0 }

// Cmp returns -1, 0 or +1 as a is less than, equal to or greater than b.
func (a Amount) Cmp(b Amount) int {
	if a.big == nil && b.big == nil {
		return cmp.Compare(a.sen, b.sen)
	}
	return a.Decimal().Cmp(b.Decimal())
}

// Equal reports whether a and b have the same value. go-cmp uses it.
func (a Amount) Equal(b Amount) bool { return a.Cmp(b) == 0 }

// Decimal returns the value of a, with exponent -2.
func (a Amount) Decimal() decimal.Decimal {
	if a.big != nil {
		return *a.big
	}
	return decimal.New(a.sen, -AmountDecimals)
}

// String returns a with exactly two decimals: "12.30", "-0.05", "0.00".
func (a Amount) String() string {
	if a.big != nil {
		return a.big.StringFixed(AmountDecimals)
	}
	return string(a.appendSen(make([]byte, 0, 24)))
}

// appendSen appends a.sen as a decimal with two decimals.
func (a Amount) appendSen(b []byte) []byte {
	u := uint64(a.sen)
	if a.sen < 0 {
		b = append(b, '-')
		u = -u
	}
	b = strconv.AppendUint(b, u/100, 10)
	return append(b, '.', byte('0'+u/10%10), byte('0'+u%10))
}

// MarshalJSON writes a as a JSON string with exactly two decimals: "12.30".
func (a Amount) MarshalJSON() ([]byte, error) {
	if a.big != nil {
		return []byte(`"` + a.String() + `"`), nil
	}
	b := append(make([]byte, 0, 26), '"')
	return append(a.appendSen(b), '"'), nil
}

// UnmarshalJSON reads a JSON number or a JSON string holding a decimal, with
// the limits of ParseAmount. JSON null leaves a unchanged.
func (a *Amount) UnmarshalJSON(b []byte) error {
	s := string(b)
	switch {
	case s == "null":
		return nil
	case len(b) > 0 && b[0] == '"':
		if err := json.Unmarshal(b, &s); err != nil {
			return &valueError{text: string(b), problem: ErrSyntax.Error(), err: ErrSyntax}
		}
	case len(b) > 0 && b[0] != '-' && (b[0] < '0' || b[0] > '9'):
		return &valueError{text: string(b), problem: amountTypeErr, err: ErrType}
	}
	v, err := ParseAmount(s)
	if err != nil {
		return err
	}
	*a = v
	return nil
}

// CheckJSON reports what is wrong with v, a field value as encoding/json
// decodes it with UseNumber (json.Number, string, bool, map[string]any or
// []any), for an Amount: typeErr when the JSON type is wrong (neither a number
// nor a string), else problem when the value breaks a limit or a string is not
// a decimal, else both "".
func (Amount) CheckJSON(v any) (typeErr, problem string) {
	var s string
	switch v := v.(type) {
	case json.Number:
		s = string(v)
	case string:
		s = v
	default:
		return amountTypeErr, ""
	}
	if _, err := parse(s, AmountDecimals); err != nil {
		return "", err.(*valueError).problem
	}
	return "", ""
}

// Number is an exact decimal input (quantity, unit price, rate, exchange
// rate), echoed in JSON exactly as the client gave it: 1.50 stays 1.50 and
// 1e2 stays 1e2. Renderers that need plain decimals use Decimal. The zero
// value is 0.
type Number struct {
	d    decimal.Decimal
	text string // a JSON number; "" in the zero value
}

// ParseNumber reads s, a JSON-number text. The exact value must have at most
// 6 decimals and a magnitude of at most 10^12; an exponent is fine when the
// exact value meets them (1e2 is 100; 1e400 is too large, 1e-7 has too many
// decimals).
func ParseNumber(s string) (Number, error) {
	d, err := parse(s, NumberDecimals)
	if err != nil {
		return Number{}, err
	}
	return Number{d: d, text: s}, nil
}

// MustNumber is ParseNumber that panics on error, for tests and tables.
func MustNumber(s string) Number {
	n, err := ParseNumber(s)
	if err != nil {
		panic(err)
	}
	return n
}

// NumberOf returns a computed value as a Number. Its text is d's plain
// decimal form without trailing zeros (d.String() with shopspring's default
// settings, whatever the package-level settings are).
func NumberOf(d decimal.Decimal) Number {
	d = d.Normalize()
	places := max(-d.Exponent(), 0)
	return Number{d: d, text: d.StringFixed(places)}
}

// Decimal returns the value of n.
func (n Number) Decimal() decimal.Decimal { return n.d }

// String returns the text n was parsed from ("0" for the zero value).
func (n Number) String() string {
	if n.text == "" {
		return "0"
	}
	return n.text
}

// MarshalJSON writes the text n was parsed from, as a JSON number.
func (n Number) MarshalJSON() ([]byte, error) { return []byte(n.String()), nil }

// UnmarshalJSON reads a JSON number (a JSON string is refused), with the
// limits of ParseNumber. JSON null leaves n unchanged.
func (n *Number) UnmarshalJSON(b []byte) error {
	s := string(b)
	if s == "null" {
		return nil
	}
	if len(b) > 0 && b[0] != '-' && (b[0] < '0' || b[0] > '9') {
		return &valueError{text: string(b), problem: numberTypeErr, err: ErrType}
	}
	v, err := ParseNumber(s)
	if err != nil {
		return err
	}
	*n = v
	return nil
}

// CheckJSON is Amount.CheckJSON for a Number: only a JSON number has the
// right type.
func (Number) CheckJSON(v any) (typeErr, problem string) {
	s, ok := v.(json.Number)
	if !ok {
		return numberTypeErr, ""
	}
	if _, err := parse(string(s), NumberDecimals); err != nil {
		return "", err.(*valueError).problem
	}
	return "", ""
}

// valueError is an error of parse: "money: "12.345" has more than 2 decimals".
type valueError struct {
	text    string
	problem string // CheckJSON's phrase
	err     error  // one of the Err values
}

func (e *valueError) Error() string { return "money: " + strconv.Quote(e.text) + " " + e.problem }
func (e *valueError) Unwrap() error { return e.err }

// problemOf turns a sentinel error into CheckJSON's problem phrase.
func problemOf(err error, maxDecimals int) string {
	switch {
	case errors.Is(err, ErrTooManyDecimals):
		return "has more than " + strconv.Itoa(maxDecimals) + " decimals"
	case errors.Is(err, ErrTooLarge):
		return ErrTooLarge.Error()
	default:
		return ErrSyntax.Error()
	}
}

// maxExponent bounds the exponent read from a text; anything beyond it
// breaks a limit anyway (unless the digits are all zeros).
const maxExponent = 1 << 30

// parse reads s, which must follow the JSON number grammar
// (-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?), and checks the limits on
// its exact value before building the decimal, so a huge exponent or a long
// run of digits costs no big arithmetic.
func parse(s string, maxDecimals int) (decimal.Decimal, error) {
	fail := func(err error) (decimal.Decimal, error) {
		return decimal.Decimal{}, &valueError{text: s, problem: problemOf(err, maxDecimals), err: err}
	}
	i, n := 0, len(s)
	neg := false
	if i < n && s[i] == '-' {
		neg = true
		i++
	}
	// Integer part.
	intStart := i
	if i < n && s[i] == '0' {
		i++
	} else {
		for i < n && isDigit(s[i]) {
			i++
		}
	}
	if i == intStart {
		return fail(ErrSyntax)
	}
	intPart := s[intStart:i]
	// Fraction.
	var fracPart string
	if i < n && s[i] == '.' {
		i++
		start := i
		for i < n && isDigit(s[i]) {
			i++
		}
		if i == start {
			return fail(ErrSyntax)
		}
		fracPart = s[start:i]
	}
	// Exponent.
	var exp int64
	if i < n && (s[i] == 'e' || s[i] == 'E') {
		i++
		expNeg := false
		if i < n && (s[i] == '+' || s[i] == '-') {
			expNeg = s[i] == '-'
			i++
		}
		start := i
		for i < n && isDigit(s[i]) {
			if exp < maxExponent {
				exp = exp*10 + int64(s[i]-'0')
			}
			i++
		}
		if i == start {
			return fail(ErrSyntax)
		}
		exp = min(exp, maxExponent)
		if expNeg {
			exp = -exp
		}
	}
	if i != n {
		return fail(ErrSyntax)
	}

	// The value is digits x 10^exp, digits with no leading or trailing zeros.
	digits := intPart + fracPart // allocates only when there is a fraction
	exp -= int64(len(fracPart))
	j := 0
	for j < len(digits) && digits[j] == '0' {
		j++
	}
	digits = digits[j:]
	k := len(digits)
	for k > 0 && digits[k-1] == '0' {
		k--
	}
	exp += int64(len(digits) - k)
	digits = digits[:k]
	if digits == "" {
		return decimal.New(0, 0), nil
	}

	// |value| <= 10^12: at most 12 integer digits, or exactly 10^12.
	if intDigits := int64(len(digits)) + exp; intDigits > 13 || intDigits == 13 && !(digits == "1" && exp == 12) {
		return fail(ErrTooLarge)
	}
	if exp < -int64(maxDecimals) {
		return fail(ErrTooManyDecimals)
	}
	// Now len(digits) <= 12 + maxDecimals <= 18: it fits an int64.
	v, err := strconv.ParseInt(digits, 10, 64)
	if err != nil {
		return fail(ErrSyntax) // unreachable with the limits above
	}
	if neg {
		v = -v
	}
	return decimal.New(v, int32(exp)), nil
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }
