package pdf

import (
	"strings"
	"time"

	"github.com/einvoice/einvoice/internal/einvoice"
	"github.com/einvoice/einvoice/internal/money"
	"github.com/einvoice/einvoice/internal/refdata"
)

// dash stands for a value that is absent.
const dash = "-"

// formatTime writes t as every page a person reads does (DECISIONS 19):
// "2026-03-01 10:15 MYT".
func formatTime(t time.Time) string {
	if t.IsZero() {
		return dash
	}
	return einvoice.FormatMYT(t)
}

// formatAmount writes a with two decimals and thousands separators:
// "1,234,567.80", "-5.00"; a dash when a is nil.
func formatAmount(a *money.Amount) string {
	if a == nil {
		return dash
	}
	return group(a.String())
}

// group inserts thousands separators into a plain decimal "-1234567.80".
func group(s string) string {
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	intPart, frac, hasFrac := strings.Cut(s, ".")
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, c := range intPart {
		if i > 0 && (len(intPart)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if hasFrac {
		b.WriteByte('.')
		b.WriteString(frac)
	}
	return b.String()
}

// formatNumber writes n as a plain decimal without exponent or trailing
// zeros ("1e2" is "100", "1.50" is "1.5"), with thousands separators; a dash
// when n is nil. Its decimal value is used, never a float.
func formatNumber(n *money.Number) string {
	if n == nil {
		return dash
	}
	return group(money.NumberOf(n.Decimal()).String())
}

// formatPrice writes a unit price with at least two decimals ("12.5" is
// "12.50", "0.123456" stays).
func formatPrice(n *money.Number) string {
	if n == nil {
		return dash
	}
	d := n.Decimal()
	places := max(int32(2), -d.Normalize().Exponent())
	return group(d.StringFixed(places))
}

// formatPercent writes a rate as "8%".
func formatPercent(n *money.Number) string {
	if n == nil {
		return dash
	}
	return formatNumber(n) + "%"
}

// isZero reports whether a is absent or 0.00.
func isZero(a *money.Amount) bool { return a == nil || a.IsZero() }

// codeName is the name of code in list, or code itself when the list does
// not have it.
func codeName(list *refdata.List, code string) string {
	if name, ok := list.Name(code); ok {
		return name
	}
	return code
}

// taxName is the name of a tax type: "Service Tax"; "Tax type X" when unknown.
func taxName(code string) string {
	if code == "" {
		return dash
	}
	if name, ok := refdata.TaxTypes.Name(code); ok {
		return name
	}
	return "Tax type " + code
}

// taxRate writes the rate of a tax: "8%", or for tourism tax (03), an amount
// per unit: "10.00 per unit".
func taxRate(taxType string, rate *money.Number) string {
	if rate == nil {
		return dash
	}
	if taxType == "03" {
		return formatPrice(rate) + " per unit"
	}
	return formatPercent(rate)
}

// orDash returns s, or a dash when s is blank.
func orDash(s string) string {
	if strings.TrimSpace(s) == "" {
		return dash
	}
	return s
}

// joinNonEmpty joins the non-blank parts with sep.
func joinNonEmpty(sep string, parts ...string) string {
	var keep []string
	for _, p := range parts {
		if strings.TrimSpace(p) != "" {
			keep = append(keep, strings.TrimSpace(p))
		}
	}
	return strings.Join(keep, sep)
}
