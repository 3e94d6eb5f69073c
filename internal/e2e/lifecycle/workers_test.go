package lifecycle

import (
	"testing"
	"time"

	"github.com/einvoice/einvoice/internal/e2e/e2etest"
	"github.com/einvoice/einvoice/internal/testdb/migrated"

	"github.com/einvoice/einvoice/client"
)

// TestWorkersZero: `serve --workers 0` stops sending only. A process with
// no submission workers still polls received documents (tenant B finds the
// invoice A had taken to Valid) and still delivers webhooks (A's webhook
// gets the cancellation A makes in it).
func TestWorkersZero(t *testing.T) {
	t.Parallel()
	dsn := migrated.SQLite(t)
	ctx := t.Context()
	fast := []string{"--rate-limit", "100000", "--sandbox-delay", "0"}

	// A's invoice to B's TIN, taken to Valid by a process with workers,
	// before B exists (no poller looks for it there).
	first := e2etest.StartService(t, dsn, fast...)
	keyA := first.DemoKey
	a := first.API(t, keyA)
	prof, err := a.Profile.Update(ctx, e2etest.ProfileOf(t, e2etest.SampleProfile()), nil)
	e2etest.Must(t, prof, err)
	buyer, err := a.Buyers.Create(ctx, e2etest.PartyOf(t, e2etest.SampleBuyer()))
	id := e2etest.ReadyInvoiceDoc(t, a, "INV-W0-1", e2etest.Must(t, buyer, err).ID)
	sub, err := a.Documents.Submit(ctx, id)
	e2etest.Want200(t, e2etest.Must(t, sub, err))
	st := e2etest.WaitStatusTyped(t, a, id, client.StatusValid, 20*time.Second)
	first.Stop(t)

	// B, and a process without submission workers.
	_, keyB := e2etest.SecTenant(t, dsn, "Buyer's Name", e2etest.ReceivedTIN)
	svc := e2etest.StartService(t, dsn, append(append(append([]string{"--workers", "0"}, fast...), e2etest.ReceivedArgs...), e2etest.WebhookFlags...)...)
	b := svc.API(t, keyB)
	got := e2etest.WaitReceived(t, b, 60*time.Second, "B receives A's invoice with --workers 0", func(ds []client.ReceivedDocument) bool { return len(ds) > 0 })
	if len(got) != 1 || got[0].UUID != st.DocumentUUID {
		t.Errorf("B received %+v, want A's invoice %s", got, st.DocumentUUID)
	}

	a = svc.API(t, keyA)
	rc := e2etest.NewHookReceiver(t, nil)
	hook, err := a.Webhooks.Create(ctx, &client.Webhook{URL: rc.URL + "/a", Events: []string{client.EventDocumentCancelled}})
	e2etest.Must(t, hook, err)
	cancelled, err := a.Documents.Cancel(ctx, id, "Wrong buyer")
	e2etest.Must(t, cancelled, err)
	deadline := time.Now().Add(30 * time.Second)
	for len(rc.Accepted()) == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("the cancellation's webhook was not delivered within 30 s with --workers 0 (%d requests)", len(rc.Deliveries()))
		}
		time.Sleep(20 * time.Millisecond)
	}
	if d := rc.Accepted()[0]; d.Event.Type != client.EventDocumentCancelled {
		t.Errorf("delivered %s, want %s", d.Event.Type, client.EventDocumentCancelled)
	}
}
