package pdf

import (
	"testing"
	"time"

	"github.com/einvoice/einvoice/internal/einvoice"
	"github.com/einvoice/einvoice/internal/money"
	"github.com/einvoice/einvoice/internal/refdata"
	"github.com/shopspring/decimal"
)

func TestFormatAmount(t *testing.T) {
	for in, want := range map[string]string{
		"0":               "0.00",
		"12.3":            "12.30",
		"-5":              "-5.00",
		"999.99":          "999.99",
		"1000":            "1,000.00",
		"-1234567.8":      "-1,234,567.80",
		"1000000000000":   "1,000,000,000,000.00",
		"-0.05":           "-0.05",
		"123456789012.34": "123,456,789,012.34",
		"100000":          "100,000.00",
	} {
		a := money.MustAmount(in)
		if got := formatAmount(&a); got != want {
			t.Errorf("formatAmount(%s) = %q, want %q", in, got, want)
		}
	}
	if got := formatAmount(nil); got != dash {
		t.Errorf("formatAmount(nil) = %q", got)
	}
}

func TestFormatNumbers(t *testing.T) {
	for _, tc := range []struct {
		in                  string
		number, price, rate string
	}{
		{"1e2", "100", "100.00", "100%"},
		{"1.50", "1.5", "1.50", "1.5%"},
		{"0.123456", "0.123456", "0.123456", "0.123456%"},
		{"12345.5", "12,345.5", "12,345.50", "12,345.5%"},
		{"-2", "-2", "-2.00", "-2%"},
		{"0", "0", "0.00", "0%"},
	} {
		n := money.MustNumber(tc.in)
		if got := formatNumber(&n); got != tc.number {
			t.Errorf("formatNumber(%s) = %q, want %q", tc.in, got, tc.number)
		}
		if got := formatPrice(&n); got != tc.price {
			t.Errorf("formatPrice(%s) = %q, want %q", tc.in, got, tc.price)
		}
		if got := formatPercent(&n); got != tc.rate {
			t.Errorf("formatPercent(%s) = %q, want %q", tc.in, got, tc.rate)
		}
	}
	if formatNumber(nil) != dash || formatPrice(nil) != dash || formatPercent(nil) != dash {
		t.Error("nil numbers are not dashes")
	}
	if got := taxRate("03", num("10")); got != "10.00 per unit" {
		t.Errorf("tourism tax rate: %q", got)
	}
	if got := taxRate("02", num("8")); got != "8%" {
		t.Errorf("service tax rate: %q", got)
	}
}

// TestFormatNumberIgnoresDecimalSettings checks that formatNumber does not
// follow shopspring's package-level String settings, which any package of
// the program may change.
func TestFormatNumberIgnoresDecimalSettings(t *testing.T) {
	trim, sci := decimal.TrimTrailingZeros, decimal.UseScientificNotation
	t.Cleanup(func() { decimal.TrimTrailingZeros, decimal.UseScientificNotation = trim, sci })
	decimal.TrimTrailingZeros, decimal.UseScientificNotation = false, true
	for in, want := range map[string]string{"1e2": "100", "1.50": "1.5", "12345.5": "12,345.5", "0.000001": "0.000001"} {
		n := money.MustNumber(in)
		if got := formatNumber(&n); got != want {
			t.Errorf("formatNumber(%s) = %q, want %q", in, got, want)
		}
	}
}

func TestFormatTime(t *testing.T) {
	got := formatTime(time.Date(2026, 12, 31, 17, 30, 0, 0, time.UTC))
	if want := "2027-01-01 01:30 MYT"; got != want {
		t.Errorf("formatTime = %q, want %q", got, want)
	}
	if formatTime(time.Time{}) != dash {
		t.Error("zero time is not a dash")
	}
}

func TestFormatAddressAndNames(t *testing.T) {
	got := formatAddress(einvoice.Address{Line1: "Lot 1", City: "Kuching", PostCode: "93000", State: "13", CountryCode: "MYS"})
	if want := "Lot 1\n93000 Kuching\nSarawak\nMalaysia"; got != want {
		t.Errorf("formatAddress = %q, want %q", got, want)
	}
	got = formatAddress(einvoice.Address{Line1: "1 Raffles Place", State: "17", CountryCode: "SGP"})
	if want := "1 Raffles Place\nSingapore"; got != want {
		t.Errorf("foreign address = %q, want %q", got, want)
	}
	got = formatAddress(einvoice.Address{Line1: " Lot 1 ", Line2: "  ", Line3: "Jalan 2", City: " Kuching", CountryCode: " "})
	if want := "Lot 1\nJalan 2\nKuching"; got != want {
		t.Errorf("address with blanks = %q, want %q", got, want)
	}
	if got := formatAddress(einvoice.Address{State: "17"}); got != "" {
		t.Errorf("empty address = %q, want \"\"", got)
	}
	if got := codeName(refdata.PaymentModes, "99"); got != "99" {
		t.Errorf("unknown code: %q", got)
	}
	if got := taxName("E"); got != "Tax Exempt" {
		t.Errorf("taxName(E) = %q", got)
	}
}
