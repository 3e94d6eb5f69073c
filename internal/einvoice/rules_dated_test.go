package einvoice

import (
	"strings"
	"testing"
	"time"
)

// datedCase breaks the rule of a row of DatedRules in a valid document, and
// names the field its problem is on.
type datedCase struct {
	kind   DocumentKind
	break_ func(in *ValidationInput)
	field  string
}

// datedCases holds a case for every row that validate applies
// (TestDatedRulesCovered fails for a row without one).
var datedCases = map[string]datedCase{
	RuleExchangeRateRequired: {KindInvoice, func(in *ValidationInput) { in.Doc.CurrencyCode = "USD" }, "exchangeRate"},
	RuleFieldRulesDec2025: {KindInvoice, func(in *ValidationInput) {
		in.Doc.InvoiceSerialNumber = strings.Repeat("S", 51)
	}, "invoiceSerialNumber"},
	RuleState17Restricted: {KindInvoice, func(in *ValidationInput) { in.Party.Address.State = StateNotApplicable }, "buyer.address.state"},
}

var environments = []string{EnvSandbox, EnvPreprod, EnvProduction}

// TestDatedRulesCovered: every row has its dates, a source, and either a
// case of datedCases (validate applies it) or the reason validate cannot.
func TestDatedRulesCovered(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range DatedRules {
		if seen[r.ID] {
			t.Errorf("row %s twice", r.ID)
		}
		seen[r.ID] = true
		if r.Description == "" || r.Source == "" || r.Sandbox.IsZero() || r.Preprod.IsZero() || r.Production.IsZero() {
			t.Errorf("row %s lacks a description, a source or a date: %+v", r.ID, r)
		}
		if r.Sandbox.After(r.Production) || r.Preprod.After(r.Production) {
			t.Errorf("row %s applies in production before the sandbox or preprod", r.ID)
		}
		_, tested := datedCases[r.ID]
		switch {
		case r.Validate && !tested:
			t.Errorf("row %s: validate applies it but datedCases has no case for it", r.ID)
		case !r.Validate && tested:
			t.Errorf("row %s: validate does not apply it, yet datedCases has a case", r.ID)
		case !r.Validate && r.Why == "":
			t.Errorf("row %s: validate does not apply it and Why does not say why", r.ID)
		}
	}
	for id := range datedCases {
		if !seen[id] {
			t.Errorf("datedCases has %s, which is not a row of DatedRules", id)
		}
	}
}

// TestDatedRulesByDate: in every environment, a document issued in the
// last minute of the day before a row's date is judged by the old rules,
// one issued at the first minute of the day itself (Malaysian time) by the
// new; the problem names the row and its date.
func TestDatedRulesByDate(t *testing.T) {
	for _, r := range DatedRules {
		for _, env := range environments {
			from := r.From(env)
			for _, side := range []struct {
				name  string
				at    time.Time
				apply bool
			}{
				{"day before", from.Add(-time.Minute), false},
				{"day itself", from, true},
			} {
				t.Run(r.ID+"/"+env+"/"+side.name, func(t *testing.T) {
					if got := r.InForce(env, side.at); got != side.apply {
						t.Fatalf("InForce(%s, %s) = %v", env, side.at, got)
					}
					c, ok := datedCases[r.ID]
					if !ok {
						return // not validate's (TestDatedRulesCovered)
					}
					in := vtInput(c.kind)
					in.Tenant.Authority.Environment = env
					in.Now = side.at.Add(time.Hour)
					at := side.at
					in.Doc.ErpIssuedAt = &at
					c.break_(&in)
					var got []Problem
					for _, p := range ValidateDocument(in) {
						if p.Rule == r.ID {
							got = append(got, p)
						} else {
							t.Errorf("another problem: %+v", p)
						}
					}
					if !side.apply {
						if len(got) > 0 {
							t.Errorf("applied before its date: %+v", got)
						}
						return
					}
					if len(got) != 1 || got[0].Field != c.field {
						t.Fatalf("want one %s problem on %s, got %+v", r.ID, c.field, got)
					}
					if want := "since " + from.Format("2 Jan 2006") + " in " + env; !strings.Contains(got[0].Message, want) {
						t.Errorf("message %q does not say %q", got[0].Message, want)
					}
				})
			}
		}
	}
}

// TestDatedRulesEnvironments: the dates that differ by environment, as the
// reference gives them.
func TestDatedRulesEnvironments(t *testing.T) {
	for _, c := range []struct {
		id, env string
		from    time.Time
	}{
		{RuleExchangeRateRequired, EnvSandbox, day(2025, time.August, 9)},
		{RuleExchangeRateRequired, EnvPreprod, day(2025, time.August, 9)},
		{RuleExchangeRateRequired, EnvProduction, day(2025, time.September, 1)},
		{RuleFieldRulesDec2025, EnvSandbox, day(2025, time.December, 15)},
		{RuleFieldRulesDec2025, EnvPreprod, day(2025, time.December, 15)},
		{RuleFieldRulesDec2025, EnvProduction, day(2026, time.August, 15)},
		{RuleState17Restricted, EnvProduction, day(2026, time.April, 30)},
		{RuleConsolidationLimit, EnvProduction, day(2026, time.January, 1)},
		{RuleExchangeRateRequired, "", day(2025, time.August, 9)}, // unknown: the earliest
	} {
		r, ok := DatedRuleByID(c.id)
		if !ok {
			t.Fatalf("no row %s", c.id)
		}
		if got := r.From(c.env); !got.Equal(c.from) {
			t.Errorf("%s in %q from %s, want %s", c.id, c.env, got, c.from)
		}
	}
	// 00:00 in Malaysia is 16:00 UTC the day before.
	r, _ := DatedRuleByID(RuleExchangeRateRequired)
	if !r.InForce(EnvProduction, time.Date(2025, 8, 31, 16, 0, 0, 0, time.UTC)) || r.InForce(EnvProduction, time.Date(2025, 8, 31, 15, 59, 59, 0, time.UTC)) {
		t.Error("the production date does not start at 00:00 Malaysian time")
	}
}

// TestDatedRulesIssueTime: the issue time is erpIssuedAt when given,
// otherwise the moment of validation (the submission's).
func TestDatedRulesIssueTime(t *testing.T) {
	r, _ := DatedRuleByID(RuleExchangeRateRequired)
	from := r.From(EnvProduction)
	judge := func(now time.Time, erp *time.Time) bool {
		in := vtInput(KindInvoice)
		in.Tenant.Authority.Environment = EnvProduction
		in.Doc.CurrencyCode, in.Now, in.Doc.ErpIssuedAt = "USD", now, erp
		for _, p := range ValidateDocument(in) {
			if p.Rule == RuleExchangeRateRequired {
				return true
			}
		}
		return false
	}
	before := from.Add(-time.Hour)
	if judge(before, nil) || !judge(from, nil) {
		t.Error("without erpIssuedAt, the rule is not judged at the moment of validation")
	}
	if judge(from.Add(time.Hour), &before) {
		t.Error("erpIssuedAt before the date, validated after it: the rule applied")
	}
}

// TestState17Restricted: from its date, state 17 on a Malaysian address
// passes on a consolidated invoice and a document with a foreign party,
// and is refused on the tenant's own address elsewhere; readiness judges by
// the newest rules whatever the date.
func TestState17Restricted(t *testing.T) {
	r, _ := DatedRuleByID(RuleState17Restricted)
	after := r.From(EnvProduction).Add(time.Hour)
	for _, c := range []struct {
		name  string
		kind  DocumentKind
		edit  func(in *ValidationInput)
		field string // "" when it passes
	}{
		{"tenant on an invoice", KindInvoice, func(in *ValidationInput) { in.Tenant.Profile.Address.State = StateNotApplicable }, "supplier.address.state"},
		{"tenant on a self-billed invoice", KindSelfBilledInvoice, func(in *ValidationInput) { in.Tenant.Profile.Address.State = StateNotApplicable }, "buyer.address.state"},
		{"tenant on a consolidated invoice", KindConsolidatedInvoice, func(in *ValidationInput) { in.Tenant.Profile.Address.State = StateNotApplicable }, ""},
		{"tenant with a foreign buyer", KindInvoice, func(in *ValidationInput) {
			in.Tenant.Profile.Address.State = StateNotApplicable
			vtForeign(in.Party, TINForeignBuyer)
		}, ""},
		{"foreign buyer's TIN with a Malaysian address", KindInvoice, func(in *ValidationInput) {
			vtForeign(in.Party, TINForeignBuyer)
			in.Party.Address = vtBuyer().Address
			in.Party.Address.State = StateNotApplicable
		}, ""},
		{"buyer abroad", KindInvoice, func(in *ValidationInput) { vtForeign(in.Party, TINForeignBuyer) }, ""},
		{"General Public buyer of a note on a consolidated invoice", KindCreditNote, func(in *ValidationInput) {
			in.Referenced[vtRefNumber][0].Kind = KindConsolidatedInvoice
			gp := GeneralPublic()
			in.Party.TIN, in.Party.IDValue, in.Party.Address = gp.TIN, gp.IDValue, gp.Address
			in.Party.Address.PostCode = "50450"
		}, ""},
		{"tenant on a note on a consolidated invoice", KindCreditNote, func(in *ValidationInput) {
			in.Referenced[vtRefNumber][0].Kind = KindConsolidatedInvoice
			in.Tenant.Profile.Address.State = StateNotApplicable
		}, ""},
		{"tenant on a note on an invoice", KindCreditNote, func(in *ValidationInput) { in.Tenant.Profile.Address.State = StateNotApplicable }, "supplier.address.state"},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := vtInput(c.kind)
			in.Tenant.Authority.Environment = EnvProduction
			in.Now = after
			in.Doc.ErpIssuedAt = &after
			c.edit(&in)
			var got []string
			for _, p := range ValidateDocument(in) {
				if p.Rule != RuleState17Restricted {
					t.Errorf("another problem: %+v", p)
					continue
				}
				got = append(got, p.Field)
			}
			switch {
			case c.field == "" && len(got) > 0:
				t.Errorf("refused on %v", got)
			case c.field != "" && (len(got) != 1 || got[0] != c.field):
				t.Errorf("problems on %v, want one on %s", got, c.field)
			}
		})
	}
	p := vtBuyer()
	p.Address.State = StateNotApplicable
	if f := PartyReadiness(p); len(f["address.state"]) != 1 {
		t.Errorf("a Malaysian buyer with state 17 is ready: %v", f)
	}
	p.TIN, p.IDType, p.IDValue = TINForeignBuyer, "PASSPORT", "A12345678"
	if f := PartyReadiness(p); len(f) != 0 {
		t.Errorf("a foreign buyer with a Malaysian address and state 17 is not ready: %v", f)
	}
	prof := DemoProfile()
	prof.Address.State = StateNotApplicable
	if f := ProfileReadiness(&prof); len(f["address.state"]) != 1 {
		t.Errorf("a Malaysian profile with state 17 is ready: %v", f)
	}
}
