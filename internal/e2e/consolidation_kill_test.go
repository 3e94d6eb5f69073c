package e2e

import (
	"fmt"
	"testing"
	"time"

	"github.com/einvoice/einvoice/client"
	"github.com/einvoice/einvoice/internal/servetest"
)

// scatteredReceipts are n receipts of October 2026 whose numbers are never
// consecutive (K-00001, K-00003, ...): each is a run of its own, so that
// the consolidation makes many lines and several documents.
func scatteredReceipts(n int) []client.ReceiptInput {
	ins := monthReceipts("K", n)
	for i := range ins {
		ins[i].ReceiptNumber = fmt.Sprintf("K-%05d", 2*i+1)
	}
	return ins
}

// TestConsolidationKilled: the real binary killed (SIGKILL) in the middle
// of a consolidation, between two of its documents; another replica
// completes it once the lease of the first has expired, and no document
// nor receipt is duplicated: every receipt in exactly one document, as
// many consolidated invoices as the consolidation names, all Valid.
func TestConsolidationKilled(t *testing.T) {
	bin := servetest.Build(t)
	eachEngine(t, func(t *testing.T, dsn string) {
		ctx := t.Context()
		flags := []string{"--rate-limit", "100000", "--sandbox-delay", "0", "--auto-consolidate=false", "--log-format", "json"}
		first := servetest.StartReplica(t, bin, "first", servetest.ChildEnv(), dsn, flags...)
		first.WaitListening(t)
		key, _ := servetest.ReplicasDemoKey(t, []*servetest.Replica{first})
		c1 := client.New(first.URL, key, client.WithRetries(0))
		must(t, got(c1.Profile.Update(ctx, profileOf(t, sampleProfile()), nil))(t), nil)
		const n = 4000
		created := recordAll(t, c1, scatteredReceipts(n))
		want := map[string]client.Receipt{}
		for _, r := range created {
			want[r.ID] = r
		}

		go func() { _, _ = c1.Consolidations.Create(ctx, consolidationMonth) }()
		var running *client.Consolidation
		for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(5 * time.Millisecond) {
			page := got(c1.Consolidations.List(ctx, nil))(t)
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
		// once the lease of the first has expired (a minute: 6 times the
		// default --submit-wait of 10 s, which also bounds each call to the
		// authority; 1 s is too short for a 300 KB submission on a loaded
		// machine, which then times out on every attempt).
		second := servetest.StartReplica(t, bin, "second", servetest.ChildEnv(), dsn, flags...)
		second.WaitListening(t)
		c2 := client.New(second.URL, key, client.WithRetries(0))
		var c *client.Consolidation
		for deadline := time.Now().Add(4 * time.Minute); ; time.Sleep(100 * time.Millisecond) {
			c = got(c2.Consolidations.Get(ctx, running.ID))(t)
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
		cons := got(c2.Documents.List(ctx, &client.DocumentListOptions{Type: client.TypeConsolidatedInvoice}))(t)
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
		open := got(c2.Receipts.List(ctx, &client.ReceiptListOptions{Month: consolidationMonth, Status: client.ReceiptOpen}))(t)
		if open.Meta.Total != 0 {
			t.Errorf("%d receipts left open", open.Meta.Total)
		}
		docs := waitConsolidationValid(t, c2, c)
		checkConsolidated(t, c2, c, want, docs)
	})
}
