package client

import (
	"encoding/json"
	"fmt"
)

// Decimal is an exact decimal number as text ("1500.00", "6", "0.5"): every
// amount, quantity and rate of the API. The zero value is no value (sent as
// nothing, or null). It is sent as a JSON number and read from a JSON
// number or string, so no digit is ever lost to float64.
type Decimal string

// String returns the decimal's text.
func (d Decimal) String() string { return string(d) }

// IsZero reports whether d holds no value.
func (d Decimal) IsZero() bool { return d == "" }

// MarshalJSON writes the decimal as a JSON number, or null when empty.
func (d Decimal) MarshalJSON() ([]byte, error) {
	if d == "" {
		return []byte("null"), nil
	}
	if !isNumber(string(d)) {
		return nil, fmt.Errorf("client: %q is not a decimal number", string(d))
	}
	return []byte(d), nil
}

// UnmarshalJSON reads a JSON number, a JSON string holding one, or null.
func (d *Decimal) UnmarshalJSON(b []byte) error {
	s := string(b)
	switch {
	case s == "null":
		*d = ""
		return nil
	case len(b) > 0 && b[0] == '"':
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
	}
	if !isNumber(s) {
		return fmt.Errorf("client: %q is not a decimal number", s)
	}
	*d = Decimal(s)
	return nil
}

// isNumber reports whether s is a JSON number (RFC 8259, section 6:
// -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?), nothing around it.
func isNumber(s string) bool {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case i < len(s) && s[i] >= '1' && s[i] <= '9':
		i = digits(s, i)
	default:
		return false
	}
	if i < len(s) && s[i] == '.' {
		if j := digits(s, i+1); j > i+1 {
			i = j
		} else {
			return false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if j := digits(s, i); j > i {
			i = j
		} else {
			return false
		}
	}
	return i == len(s)
}

// digits returns the index after the run of digits from i.
func digits(s string, i int) int {
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i
}
