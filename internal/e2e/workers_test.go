package e2e

import (
	"testing"
	"time"

	"github.com/einvoice/einvoice/client"
)

// TestWorkersZero: `serve --workers 0` stops sending only. A process with
// no submission workers still polls received documents (tenant B finds the
// invoice A had taken to Valid) and still delivers webhooks (A's webhook
// gets the cancellation A makes in it).
func TestWorkersZero(t *testing.T) {
	dsn := testdbSQLite(t)
	ctx := t.Context()
	fast := []string{"--rate-limit", "100000", "--sandbox-delay", "0"}

	// A's invoice to B's TIN, taken to Valid by a process with workers,
	// before B exists (no poller looks for it there).
	first := startService(t, dsn, fast...)
	keyA := first.DemoKey
	a := first.api(t, keyA)
	prof, err := a.Profile.Update(ctx, profileOf(t, sampleProfile()), nil)
	must(t, prof, err)
	buyer, err := a.Buyers.Create(ctx, partyOf(t, sampleBuyer()))
	id := readyInvoiceDoc(t, a, "INV-W0-1", must(t, buyer, err).ID)
	sub, err := a.Documents.Submit(ctx, id)
	want200(t, must(t, sub, err))
	st := waitStatusTyped(t, a, id, client.StatusValid, 20*time.Second)
	first.Stop(t)

	// B, and a process without submission workers.
	_, keyB := secTenant(t, dsn, "Buyer's Name", receivedTIN)
	svc := startService(t, dsn, append(append(append([]string{"--workers", "0"}, fast...), receivedArgs...), webhookFlags...)...)
	b := svc.api(t, keyB)
	got := waitReceived(t, b, 60*time.Second, "B receives A's invoice with --workers 0", func(ds []client.ReceivedDocument) bool { return len(ds) > 0 })
	if len(got) != 1 || got[0].UUID != st.DocumentUUID {
		t.Errorf("B received %+v, want A's invoice %s", got, st.DocumentUUID)
	}

	a = svc.api(t, keyA)
	rc := newHookReceiver(t, nil)
	hook, err := a.Webhooks.Create(ctx, &client.Webhook{URL: rc.URL + "/a", Events: []string{client.EventDocumentCancelled}})
	must(t, hook, err)
	cancelled, err := a.Documents.Cancel(ctx, id, "Wrong buyer")
	must(t, cancelled, err)
	deadline := time.Now().Add(30 * time.Second)
	for len(rc.accepted()) == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("the cancellation's webhook was not delivered within 30 s with --workers 0 (%d requests)", len(rc.deliveries()))
		}
		time.Sleep(20 * time.Millisecond)
	}
	if d := rc.accepted()[0]; d.Event.Type != client.EventDocumentCancelled {
		t.Errorf("delivered %s, want %s", d.Event.Type, client.EventDocumentCancelled)
	}
}
