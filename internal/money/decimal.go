package money

import "github.com/shopspring/decimal"

// Decimal is the exact decimal type amounts and numbers are computed in.
// Packages that calculate with money use it through this name, so that the
// decimal library is a detail of this package.
type Decimal = decimal.Decimal

// Int returns the decimal of a whole number.
func Int(n int64) Decimal { return decimal.NewFromInt(n) }
