package einvoice

import (
	"fmt"
	"time"
)

// The ids of the dated rules: each is also the Rule of the problems its
// check reports.
const (
	RuleExchangeRateRequired = "EXCHANGE_RATE_REQUIRED"
	RuleFieldRulesDec2025    = "FIELD_RULES_DEC_2025"
	RuleState17Restricted    = "STATE_17_RESTRICTED"
	RuleConsolidationLimit   = "CONSOLIDATION_OVER_RM10000"
)

// DatedRule is one change of the authority's rules, with the day from which
// it applies in each environment (DECISIONS 13; reference myinvois.md
// section 7). The sandbox environment is the built-in sandbox, which
// follows the authority's own sandbox: the preprod dates.
type DatedRule struct {
	ID          string
	Description string
	// Sandbox, Preprod and Production are the first day the rule applies,
	// from 00:00 Malaysian time (UTC+8) of that day.
	Sandbox, Preprod, Production time.Time
	// Source is where the dates come from.
	Source string
	// Validate tells whether ValidateDocument applies the rule. A rule it
	// cannot judge from the document alone is kept here for the date, for
	// the code that can (Why says which).
	Validate bool
	Why      string
}

// day is 00:00 Malaysian time of a date.
func day(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, MYT) }

// DatedRules is the one table of the authority's rules that change by date
// and environment: every date lives here and nowhere else. A row whose
// Validate is true has its check in validate.go and its tests in
// rules_dated_test.go (which fails for a row without one).
var DatedRules = []DatedRule{
	{
		ID:          RuleExchangeRateRequired,
		Description: "the exchange rate (TaxExchangeRate) is required for a document in a currency other than MYR",
		Sandbox:     day(2025, time.August, 9), Preprod: day(2025, time.August, 9), Production: day(2025, time.September, 1),
		Source:   "reference myinvois.md 2.3, 2.9 and 7 (SDK release notes: sandbox 9 Aug 2025, production 1 Sep 2025)",
		Validate: true,
	},
	{
		ID: RuleFieldRulesDec2025,
		Description: "the stricter field rules of 10 Dec 2025 on the document's own fields: e-invoice number at most 50 characters, " +
			"billing frequency at most 50, payment terms at most 300, prepayment reference at most 150, supplier bank account at most 150",
		Sandbox: day(2025, time.December, 15), Preprod: day(2025, time.December, 15), Production: day(2026, time.August, 15),
		Source:   "reference myinvois.md 2.3 and 7 (SDK release notes of 10 Dec 2025 and 3 Jul 2026: sandbox 15 Dec 2025, production postponed to 15 Aug 2026)",
		Validate: true,
	},
	{
		ID:          RuleState17Restricted,
		Description: "state code 17 (Not Applicable) on a Malaysian address only on consolidated invoices and documents with a foreign party",
		Sandbox:     day(2026, time.April, 30), Preprod: day(2026, time.April, 30), Production: day(2026, time.April, 30),
		Source:   "reference myinvois.md 3.1 and 7 (SDK release note of 30 Apr 2026; one date given, taken for every environment)",
		Validate: true,
	},
	{
		ID:          RuleConsolidationLimit,
		Description: "no sale over RM10,000 in a consolidated invoice: it needs an e-invoice of its own",
		Sandbox:     day(2026, time.January, 1), Preprod: day(2026, time.January, 1), Production: day(2026, time.January, 1),
		Source: "reference myinvois.md 2.6 and 7 (Specific Guideline v4.8 table 3.6 and appendix 2: from 1 Jan 2026, a rule of law, the same in every environment)",
		Why: "a consolidated line sums a run of receipts (DECISIONS 17), so a line over RM10,000 may be many sales under it: " +
			"only the consolidation, which sees the receipts, can apply it",
	},
}

// DatedRuleByID returns the row of id, false when there is none.
func DatedRuleByID(id string) (DatedRule, bool) {
	for _, r := range DatedRules {
		if r.ID == id {
			return r, true
		}
	}
	return DatedRule{}, false
}

// From is the first moment the rule applies in the environment env. An
// unknown environment takes the earliest date (the sandbox's), the
// strictest judgement.
func (r DatedRule) From(env string) time.Time {
	switch env {
	case EnvProduction:
		return r.Production
	case EnvPreprod:
		return r.Preprod
	}
	return r.Sandbox
}

// InForce reports whether the rule applies in env to a document issued at.
func (r DatedRule) InForce(env string, at time.Time) bool { return !at.Before(r.From(env)) }

// Since says from when the rule applies in env, for messages: "the
// authority's rule since 1 Sep 2025 in production".
func (r DatedRule) Since(env string) string {
	if env != EnvPreprod && env != EnvProduction {
		env = EnvSandbox
	}
	return fmt.Sprintf("the authority's rule since %s in %s", r.From(env).Format("2 Jan 2006"), env)
}

// ruleInForce reports whether the rule id applies in env at at; a rule
// not in the table never does.
func ruleInForce(id, env string, at time.Time) bool {
	r, ok := DatedRuleByID(id)
	return ok && r.InForce(env, at)
}
