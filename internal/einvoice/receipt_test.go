package einvoice

import (
	"strings"
	"testing"
	"time"

	"github.com/einvoice/einvoice/internal/money"
)

func receiptOf(t *testing.T, amount, currency, rate string, at time.Time) *Receipt {
	t.Helper()
	q, p, zero := money.MustNumber("1"), money.MustNumber(amount), money.MustNumber("0")
	in := &ReceiptInput{ReceiptNumber: "R-1", IssuedAt: &at, CurrencyCode: currency,
		Lines:   []Line{{ProductDescription: "Watch", Quantity: &q, UnitPrice: &p, Taxes: []LineTax{{TaxType: "06", TaxRate: &zero}}}},
		Payment: &Payment{PaymentMode: "03"}}
	if rate != "" {
		r := money.MustNumber(rate)
		in.ExchangeRate = &r
	}
	r, f := PrepareReceipt(in, at)
	if len(f) > 0 {
		t.Fatalf("PrepareReceipt: %v", f)
	}
	return r
}

func TestReceiptMonth(t *testing.T) {
	for at, want := range map[time.Time]string{
		time.Date(2026, 10, 31, 15, 59, 59, 0, time.UTC): "2026-10",
		time.Date(2026, 10, 31, 16, 0, 0, 0, time.UTC):   "2026-11",
		time.Date(2026, 12, 31, 16, 0, 0, 0, time.UTC):   "2027-01",
	} {
		if got := ReceiptMonth(at); got != want {
			t.Errorf("ReceiptMonth(%s) = %s, want %s", at, got, want)
		}
	}
	for s, ok := range map[string]bool{"2026-01": true, "2026-12": true, "2026-13": false, "2026-1": false, "202601": false, "": false, "2026-01-01": false} {
		if _, got := ParseReceiptMonth(s); got != ok {
			t.Errorf("ParseReceiptMonth(%q) = %v, want %v", s, got, ok)
		}
	}
}

// TestReceiptExclusion: over RM10,000 of total payable in MYR, from the
// rule's first day in the tenant's environment, outside the relaxation.
func TestReceiptExclusion(t *testing.T) {
	rule, _ := DatedRuleByID(RuleConsolidationLimit)
	from := rule.From(EnvProduction)
	ten := &Tenant{Authority: Authority{Environment: EnvProduction}}
	cases := []struct {
		name, amount, currency, rate string
		at                           time.Time
		relaxed                      string
		excluded                     bool
	}{
		{"at the limit", "10000.00", "", "", from, "", false},
		{"a sen over", "10000.01", "", "", from, "", true},
		{"the day before the rule", "50000", "", "", from.Add(-time.Second), "", false},
		{"within the relaxation", "50000", "", "", from.AddDate(0, 1, 0), from.AddDate(0, 1, 0).In(MYT).Format(DateLayout), false},
		{"the day after the relaxation", "50000", "", "", from.AddDate(0, 1, 1), from.AddDate(0, 1, 0).In(MYT).Format(DateLayout), true},
		{"USD over in MYR", "2500", "USD", "4.5", from, "", true},
		{"USD under in MYR", "2222.22", "USD", "4.5", from, "", false},
	}
	for _, c := range cases {
		r := receiptOf(t, c.amount, c.currency, c.rate, c.at)
		ten.Profile.ConsolidationRelaxedUntil = c.relaxed
		reason := ReceiptExclusion(r, ten)
		if (reason != "") != c.excluded {
			t.Errorf("%s: reason %q, want excluded %v", c.name, reason, c.excluded)
		}
		if c.excluded && !strings.HasPrefix(reason, RuleConsolidationLimit+":") {
			t.Errorf("%s: reason %q does not start with the rule", c.name, reason)
		}
	}
}

func TestPrepareReceiptRefusals(t *testing.T) {
	now := time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC)
	future := now.Add(time.Hour)
	q := money.MustNumber("1")
	for name, c := range map[string]struct {
		in    ReceiptInput
		field string
	}{
		"no number":      {ReceiptInput{IssuedAt: &now}, "receiptNumber"},
		"no time":        {ReceiptInput{ReceiptNumber: "R"}, "issuedAt"},
		"future":         {ReceiptInput{ReceiptNumber: "R", IssuedAt: &future}, "issuedAt"},
		"no lines":       {ReceiptInput{ReceiptNumber: "R", IssuedAt: &now}, "invoiceLines"},
		"no unit price":  {ReceiptInput{ReceiptNumber: "R", IssuedAt: &now, Lines: []Line{{Quantity: &q}}}, "invoiceLines.0.unitPrice"},
		"foreign, no fx": {ReceiptInput{ReceiptNumber: "R", IssuedAt: &now, CurrencyCode: "EUR"}, "exchangeRate"},
	} {
		if _, f := PrepareReceipt(&c.in, now); f[c.field] == nil {
			t.Errorf("%s: %v, want %s named", name, f, c.field)
		}
	}
}
