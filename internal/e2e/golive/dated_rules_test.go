package golive

import (
	"strings"
	"testing"
	"time"

	"github.com/einvoice/einvoice/internal/e2e/e2etest"

	"github.com/einvoice/einvoice/client"
	"github.com/einvoice/einvoice/internal/einvoice"
)

// TestDatedRulesValidate: validate applies the authority's rules in force
// for the tenant's environment at the document's issue time. On 20 Aug
// 2025 (the service's clock) the exchange rate is required in the sandbox
// and preprod (from 9 Aug 2025) but not yet in production (from 1 Sep
// 2025): the same USD document without a rate fails, passes, then fails as
// the tenant's environment changes (PUT /profile's authority.environment,
// which needs no new credentials). A consolidated invoice has no buyer, so
// no TIN check goes to the real authority's hosts.
func TestDatedRulesValidate(t *testing.T) {
	t.Parallel()
	e2etest.EachEngine(t, func(t *testing.T, dsn string) {
		base, start := time.Date(2025, 8, 20, 4, 0, 0, 0, time.UTC), time.Now()
		svc := e2etest.StartServiceAt(t, dsn, func() time.Time { return base.Add(time.Since(start)) }, "--rate-limit", "100000")
		ctx := t.Context()
		api := svc.API(t, svc.DemoKey)
		cur, err := api.Profile.Get(ctx)
		e2etest.Must(t, cur, err)
		profile := e2etest.ProfileOf(t, e2etest.SampleProfile())
		setEnv := func(env string) {
			t.Helper()
			p, err := api.Profile.Update(ctx, profile, &client.AuthorityUpdate{Environment: env, Mode: "taxpayer", ClientID: cur.Authority.ClientID})
			if e2etest.Must(t, p, err).Authority.Environment != env {
				t.Fatalf("environment %q, want %q", p.Authority.Environment, env)
			}
		}

		doc := e2etest.SingleLineDoc("CON-DATED-1")
		doc.Type, doc.CurrencyCode = client.TypeConsolidatedInvoice, "USD"
		d, err := api.Documents.Create(ctx, doc)
		id := e2etest.Must(t, d, err).ID

		for _, c := range []struct {
			env   string
			since string // "" when the rule does not apply yet
		}{
			{"sandbox", "9 Aug 2025"},
			{"production", ""},
			{"preprod", "9 Aug 2025"},
		} {
			setEnv(c.env)
			r, err := api.Documents.Validate(ctx, id)
			e2etest.Must(t, r, err)
			if c.since == "" {
				if !r.ValidationPassed || r.Status != client.StatusReady {
					t.Errorf("%s: %s, want passed: %+v", c.env, r.Status, r.Problems)
				}
				continue
			}
			if r.ValidationPassed || len(r.Problems) != 1 {
				t.Fatalf("%s: want one problem, got passed=%v %+v", c.env, r.ValidationPassed, r.Problems)
			}
			p := r.Problems[0]
			want := "since " + c.since + " in " + c.env
			if p.Rule != einvoice.RuleExchangeRateRequired || p.Field != "exchangeRate" || !strings.Contains(p.Message, want) {
				t.Errorf("%s: problem %+v, want %s on exchangeRate saying %q", c.env, p, einvoice.RuleExchangeRateRequired, want)
			}
			if r.Status != client.StatusDraft {
				t.Errorf("%s: status %s after a failed validation", c.env, r.Status)
			}
		}
	})
}
