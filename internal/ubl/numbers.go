package ubl

import (
	"errors"

	"github.com/shopspring/decimal"

	"github.com/einvoice/einvoice/internal/money"
)

// Decimal is an exact number written as a plain JSON number: digits, at
// most one point, never an exponent (the authority refuses scientific
// notation) and never through float64. It writes as many decimals as its
// exponent holds: an amount of money.Amount keeps its two ("12.30"), a
// money.Number parsed from "1e2" is 100, one parsed from "0.000001" stays
// 0.000001, and a number read by Parse is written back as it was read
// ("1436.5", "0.0"). The zero value is 0.
type Decimal struct {
	d decimal.Decimal
}

// maxPlainLength bounds the text of a Decimal, so that a number such as
// 1e999999 read by Parse cannot make Marshal write a million digits.
// Real amounts need fewer than 30 characters.
const maxPlainLength = 100

// ErrNumber is the error of reading a Decimal that is not a JSON number
// (a string, say) or whose plain form would exceed 100 characters.
var ErrNumber = errors.New("ubl: not a plain JSON number of at most 100 characters")

// DecimalOf returns d as a Decimal.
func DecimalOf(d decimal.Decimal) Decimal { return Decimal{d: d} }

// amountDecimal returns an Amount's value, with its two decimals.
func amountDecimal(a money.Amount) Decimal { return Decimal{d: a.Decimal()} }

// numberDecimal returns a Number's exact value (1e2 is 100).
func numberDecimal(n money.Number) Decimal { return Decimal{d: n.Decimal()} }

// Decimal returns the value of x.
func (x Decimal) Decimal() decimal.Decimal { return x.d }

// String returns the plain decimal text of x: "12.30", "100", "0.000001".
func (x Decimal) String() string {
	places := max(-x.d.Exponent(), 0)
	return x.d.StringFixed(places)
}

// MarshalJSON writes x as a plain JSON number.
func (x Decimal) MarshalJSON() ([]byte, error) {
	if plainLength(x.d) > maxPlainLength {
		return nil, ErrNumber
	}
	return []byte(x.String()), nil
}

// UnmarshalJSON reads a JSON number (an exponent is fine: 1e2 is 100)
// exactly. A string, a boolean, null or a number whose plain form exceeds
// 100 characters is refused with ErrNumber.
func (x *Decimal) UnmarshalJSON(b []byte) error {
	if len(b) == 0 || len(b) > 4*maxPlainLength || (b[0] != '-' && (b[0] < '0' || b[0] > '9')) {
		return ErrNumber
	}
	d, err := decimal.NewFromString(string(b))
	if err != nil || plainLength(d) > maxPlainLength {
		return ErrNumber
	}
	x.d = d
	return nil
}

// plainLength is about the length of d's plain text, without building it.
func plainLength(d decimal.Decimal) int64 {
	digits, exp := int64(d.NumDigits()), int64(d.Exponent())
	if exp >= 0 {
		return digits + exp + 1
	}
	return max(digits, -exp) + 2
}
