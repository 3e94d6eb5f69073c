package money

import (
	"encoding/json"
	"errors"
	"math"
	"strconv"
	"testing"

	"github.com/shopspring/decimal"
)

// FuzzParse checks that parsing never panics, that a parsed Amount survives
// its own rendering, and that a Number's value re-parses equal.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"12.30", "-0.05", "1.5e1", "1e400", "1e-7", "0.000001", "1000000000000", "12.345", "-0", "01", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if a, err := ParseAmount(s); err == nil {
			checkLimits(t, "ParseAmount("+strconv.Quote(s)+")", a)
			b, err := ParseAmount(a.String())
			if err != nil {
				t.Fatalf("ParseAmount(%q) = %s, which does not re-parse: %v", s, a, err)
			}
			if !b.Equal(a) {
				t.Fatalf("ParseAmount(%q) = %s, re-parsed as %s", s, a, b)
			}
			if len(a.String()) < 4 {
				t.Fatalf("ParseAmount(%q).String() = %q, want two decimals", s, a)
			}
		}
		if n, err := ParseNumber(s); err == nil {
			if n.String() != s {
				t.Fatalf("ParseNumber(%q).String() = %q", s, n)
			}
			m, err := ParseNumber(n.Decimal().String())
			if err != nil {
				t.Fatalf("ParseNumber(%q) = %s, which does not re-parse: %v", s, n.Decimal(), err)
			}
			if !m.Decimal().Equal(n.Decimal()) {
				t.Fatalf("ParseNumber(%q) = %s, re-parsed as %s", s, n.Decimal(), m.Decimal())
			}
			// Every Number is a valid Amount once rounded, and Amounts are Numbers.
			if _, err := ParseAmount(s); err == nil && !n.Decimal().Equal(MustAmount(s).Decimal()) {
				t.Fatalf("%q: Number %s and Amount %s differ", s, n.Decimal(), MustAmount(s))
			}
		}
		var a Amount
		_ = a.UnmarshalJSON([]byte(s))
		var n Number
		_ = n.UnmarshalJSON([]byte(s))
	})
}

// FuzzArithmetic checks Amount's arithmetic and Round2's fast path against
// shopspring's decimals, across the int64 edge.
func FuzzArithmetic(f *testing.F) {
	f.Add(int64(2675), int8(-3), int64(-5), int8(-3))
	f.Add(int64(math.MaxInt64), int8(-2), int64(1), int8(-2))
	f.Add(int64(math.MinInt64), int8(-2), int64(-1), int8(0))
	f.Add(int64(-5), int8(-3), int64(999999999999999999), int8(-20))
	f.Add(int64(123456789), int8(10), int64(1), int8(-40))
	// At the limit: 10^12 + 0.01 passes it by a sen, 10^12 - 0.01 does not.
	f.Add(int64(1), int8(12), int64(1), int8(-2))
	f.Add(int64(-1), int8(12), int64(-1), int8(-2))
	// 10^12 x 10^12, issue 12's subtotal.
	f.Add(int64(1), int8(12), int64(1), int8(12))
	f.Fuzz(func(t *testing.T, c1 int64, e1 int8, c2 int64, e2 int8) {
		x, y := decimal.New(c1, int32(e1)), decimal.New(c2, int32(e2))
		a, b := Round2(x), Round2(y)
		for _, c := range []struct {
			what string
			got  Amount
			want decimal.Decimal
		}{
			{"Round2(x)", a, x.Round(2)},
			{"Round2(y)", b, y.Round(2)},
			{"a+b", a.Add(b), x.Round(2).Add(y.Round(2))},
			{"a-b", a.Sub(b), x.Round(2).Sub(y.Round(2))},
			{"-a", a.Neg(), x.Round(2).Neg()},
			{"Round2(x*y)", Round2(x.Mul(y)), x.Mul(y).Round(2)},
		} {
			if !c.got.Decimal().Equal(c.want) || c.got.String() != c.want.StringFixed(2) {
				t.Fatalf("x=%s y=%s: %s = %s (%s), want %s", x, y, c.what, c.got, c.got.Decimal(), c.want.StringFixed(2))
			}
		}
		if got, want := a.Cmp(b), x.Round(2).Cmp(y.Round(2)); got != want {
			t.Fatalf("x=%s y=%s: Cmp = %d, want %d", x, y, got, want)
		}
		if a.IsZero() != x.Round(2).IsZero() {
			t.Fatalf("x=%s: IsZero = %v", x, a.IsZero())
		}
		for _, c := range []struct {
			what string
			got  Amount
		}{{"a", a}, {"b", b}, {"a+b", a.Add(b)}, {"a-b", a.Sub(b)}, {"-a", a.Neg()}, {"Round2(x*y)", Round2(x.Mul(y))}} {
			checkLimits(t, c.what, c.got)
		}
	})
}

// checkLimits checks that a computed amount is InLimits exactly when the
// strict parser of requests takes it back, from its String and from its
// JSON (as a stored document is read): a result beyond 10^12 is never
// silently a valid amount, and one within it always round-trips.
func checkLimits(t *testing.T, what string, a Amount) {
	t.Helper()
	within := a.Decimal().Abs().Cmp(decimal.New(1, 12)) <= 0
	if a.InLimits() != within {
		t.Fatalf("%s = %s: InLimits() = %v, want %v", what, a, a.InLimits(), within)
	}
	p, err := ParseAmount(a.String())
	switch {
	case within && err != nil:
		t.Fatalf("%s = %s is within the limits but does not re-parse: %v", what, a, err)
	case within && !p.Equal(a):
		t.Fatalf("%s = %s re-parses as %s", what, a, p)
	case !within && !errors.Is(err, ErrTooLarge):
		t.Fatalf("%s = %s is beyond 10^12, yet ParseAmount says %v", what, a, err)
	}
	raw, err := json.Marshal(a)
	if err != nil {
		t.Fatalf("%s = %s: MarshalJSON: %v", what, a, err)
	}
	var back Amount
	if err := json.Unmarshal(raw, &back); (err == nil) != within || within && !back.Equal(a) {
		t.Fatalf("%s = %s: its JSON %s reads back as %s, %v (within the limits: %v)", what, a, raw, back, err, within)
	}
}
