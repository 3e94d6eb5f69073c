package receipts

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/einvoice/einvoice/internal/e2e/e2etest"

	"github.com/einvoice/einvoice/client"
	"github.com/einvoice/einvoice/internal/einvoice"
	"github.com/einvoice/einvoice/internal/testclock"
)

// TestConsolidationScheduler: with --auto-consolidate, the previous
// month's receipts are consolidated from the 3rd of the month (Malaysian
// time), once, whichever replica claims it; a replica started later does
// not run it again.
func TestConsolidationScheduler(t *testing.T) {
	t.Parallel()
	e2etest.EachEngine(t, func(t *testing.T, dsn string) {
		clk := &testclock.Clock{}
		month, day := einvoice.PreviousMonth(clk.Now())
		if day < 3 {
			clk.Advance(72 * time.Hour) // the scheduler waits for the 3rd
			month, _ = einvoice.PreviousMonth(clk.Now())
		}
		start, _ := einvoice.ParseReceiptMonth(month)
		flags := []string{"--rate-limit", "100000", "--sandbox-delay", "0"}
		setup := e2etest.StartServiceAt(t, dsn, clk.Now, flags...)
		api := setup.API(t, setup.DemoKey)
		e2etest.Got(api.Profile.Update(t.Context(), e2etest.ProfileOf(t, e2etest.SampleProfile()), nil))(t)
		ins := e2etest.MonthReceipts("A", 30)
		for i := range ins {
			ins[i].IssuedAt = start.Add(time.Duration(10+i) * time.Hour)
		}
		e2etest.RecordAll(t, api, ins)
		setup.Stop(t)

		// Two replicas with the scheduler: at once on PostgreSQL, one after
		// the other on SQLite (one process at a time).
		auto := append(flags, "--auto-consolidate")
		var replicas []*e2etest.Service
		if isPostgres(dsn) {
			var mu sync.Mutex
			var wg sync.WaitGroup
			for range 2 {
				wg.Go(func() {
					s := e2etest.StartServiceAt(t, dsn, clk.Now, auto...)
					mu.Lock()
					replicas = append(replicas, s)
					mu.Unlock()
				})
			}
			wg.Wait()
		} else {
			replicas = append(replicas, e2etest.StartServiceAt(t, dsn, clk.Now, auto...))
		}
		c := replicas[0].API(t, setup.DemoKey)
		var done *client.Consolidation
		for deadline := time.Now().Add(60 * time.Second); done == nil; time.Sleep(100 * time.Millisecond) {
			page := e2etest.Got(c.Consolidations.List(t.Context(), &client.ConsolidationListOptions{Month: month}))(t)
			if len(page.Items) > 0 && page.Items[len(page.Items)-1].Status == client.ConsolidationCompleted {
				done = &page.Items[len(page.Items)-1]
			}
			if time.Now().After(deadline) {
				t.Fatalf("the scheduler did not consolidate %s", month)
			}
		}
		if done.ReceiptCount != 30 || done.Month != month {
			t.Errorf("scheduled consolidation %+v", done)
		}
		if !isPostgres(dsn) {
			replicas[0].Stop(t)
			replicas = append(replicas, e2etest.StartServiceAt(t, dsn, clk.Now, auto...))
			c = replicas[1].API(t, setup.DemoKey)
		}
		// A receipt recorded late is left to the API: the month was claimed.
		late := ins[0]
		late.ReceiptNumber = "A-LATE"
		e2etest.Got(c.Receipts.Create(t.Context(), &late))(t)
		all := e2etest.Got(c.Consolidations.List(t.Context(), &client.ConsolidationListOptions{Month: month}))(t)
		if all.Meta.Total != 1 {
			t.Errorf("%d consolidations of %s, want 1: %+v", all.Meta.Total, month, all.Items)
		}
	})
}

// isPostgres reports whether dsn is a PostgreSQL URL.
func isPostgres(dsn string) bool {
	return strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://")
}
