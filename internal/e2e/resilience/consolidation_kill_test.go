package resilience

import (
	"testing"
	"time"

	"github.com/einvoice/einvoice/internal/e2e/e2etest"

	"github.com/einvoice/einvoice/client"
	"github.com/einvoice/einvoice/internal/servetest"
)

// TestConsolidationKilled: the real binary killed (SIGKILL) in the middle
// of a consolidation, between two of its documents; another replica
// completes it once the lease of the first has expired, and no document
// nor receipt is duplicated: every receipt in exactly one document, as
// many consolidated invoices as the consolidation names, all Valid.
func TestConsolidationKilled(t *testing.T) {
	t.Parallel()
	bin := servetest.Build(t)
	e2etest.EachEngineParallel(t, func(t *testing.T, dsn string) {
		ctx := t.Context()
		// --submit-wait 5s: the lease of a consolidation is six times it.
		flags := []string{"--rate-limit", "100000", "--sandbox-delay", "0", "--auto-consolidate=false", "--log-format", "json", "--submit-wait", "5s"}
		first := servetest.StartReplica(t, bin, "first", servetest.ChildEnv(), dsn, flags...)
		first.WaitListening(t)
		key, _ := servetest.ReplicasDemoKey(t, []*servetest.Replica{first})
		c1 := client.New(first.URL, key, client.WithRetries(0))
		e2etest.Must(t, e2etest.Got(c1.Profile.Update(ctx, e2etest.ProfileOf(t, e2etest.SampleProfile()), nil))(t), nil)
		const n = 4000
		created := e2etest.RecordAll(t, c1, e2etest.ScatteredReceipts(n))
		want := map[string]client.Receipt{}
		for _, r := range created {
			want[r.ID] = r
		}

		go func() { _, _ = c1.Consolidations.Create(ctx, e2etest.ConsolidationMonth) }()
		var running *client.Consolidation
		for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(5 * time.Millisecond) {
			page := e2etest.Got(c1.Consolidations.List(ctx, nil))(t)
			if len(page.Items) == 1 && len(page.Items[0].Documents) >= 1 {
				running = &page.Items[0]
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("the consolidation made no document")
			}
		}
		first.Kill(t)
		if running.Status != client.ConsolidationRunning {
			t.Logf("the consolidation completed before the kill (%d documents)", len(running.Documents))
		}
		t.Logf("killed with %d documents made", len(running.Documents))

		// A replica started again (SQLite allows one process) takes it over
		// once the lease of the first has expired (30 s: 6 times the
		// --submit-wait of 5 s, which also bounds each call to the
		// authority; 1 s is too short for a 300 KB submission on a loaded
		// machine, which then times out on every attempt).
		second := servetest.StartReplica(t, bin, "second", servetest.ChildEnv(), dsn, flags...)
		second.WaitListening(t)
		c2 := client.New(second.URL, key, client.WithRetries(0))
		var c *client.Consolidation
		for deadline := time.Now().Add(4 * time.Minute); ; time.Sleep(100 * time.Millisecond) {
			c = e2etest.Got(c2.Consolidations.Get(ctx, running.ID))(t)
			if c.Status == client.ConsolidationCompleted {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("not completed after the crash: %+v", c)
			}
		}
		t.Logf("completed with %d documents", len(c.Documents))
		if len(c.Documents) < 2 {
			t.Errorf("%d documents: want several", len(c.Documents))
		}
		cons := e2etest.Got(c2.Documents.List(ctx, &client.DocumentListOptions{Type: client.TypeConsolidatedInvoice}))(t)
		if cons.Meta.Total != len(c.Documents) {
			t.Errorf("%d consolidated invoices stored, the consolidation names %d", cons.Meta.Total, len(c.Documents))
		}
		total := 0
		for _, d := range c.Documents {
			total += d.ReceiptCount
		}
		if total != n {
			t.Errorf("documents carry %d receipts, want %d", total, n)
		}
		open := e2etest.Got(c2.Receipts.List(ctx, &client.ReceiptListOptions{Month: e2etest.ConsolidationMonth, Status: client.ReceiptOpen}))(t)
		if open.Meta.Total != 0 {
			t.Errorf("%d receipts left open", open.Meta.Total)
		}
		docs := e2etest.WaitConsolidationValid(t, c2, c)
		e2etest.CheckConsolidated(t, c2, c, want, docs)
	})
}
