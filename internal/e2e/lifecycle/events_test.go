package lifecycle

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/einvoice/einvoice/internal/e2e/e2etest"

	"github.com/google/go-cmp/cmp"

	"github.com/einvoice/einvoice/client"
)

// TestEventsAndWebhooks: documents taken to Valid, Invalid and Cancelled
// produce their events, in order, in /events (newest first; after= oldest
// first; type=) and at a webhook, signed.
func TestEventsAndWebhooks(t *testing.T) {
	t.Parallel()
	e2etest.EachEngine(t, func(t *testing.T, dsn string) {
		ctx := t.Context()
		_, c := e2etest.StartLifecycleAPI(t, dsn, e2etest.WebhookFlags...)
		rc := e2etest.NewHookReceiver(t, nil)
		h, err := c.Webhooks.Create(ctx, &client.Webhook{URL: rc.URL + "/einvoice", Events: e2etest.AllEventTypes, Description: "ledger"})
		e2etest.Must(t, h, err)

		b, err := c.Buyers.Create(ctx, e2etest.PartyOf(t, e2etest.SampleBuyer()))
		buyer := e2etest.Must(t, b, err).ID
		// Valid, then cancelled.
		valid := e2etest.ReadyInvoiceDoc(t, c, "INV-EVT-1", buyer)
		sub, err := c.Documents.Submit(ctx, valid)
		e2etest.Want200(t, e2etest.Must(t, sub, err))
		e2etest.WaitStatusTyped(t, c, valid, client.StatusValid, 20*time.Second)
		cancelled, err := c.Documents.Cancel(ctx, valid, "Wrong buyer")
		e2etest.Must(t, cancelled, err)
		// Invalid: a credit note on an invoice the authority does not know.
		note := e2etest.NoteOf(e2etest.SingleLineBody("CN-EVT-1"), "OLD-INV-9", "ABCDEFGHJKLMNPQRSTUVWXYZ12")
		note["buyerId"] = buyer
		d, err := c.Documents.Create(ctx, e2etest.DocOf(t, client.TypeCreditNote, note))
		invalid := e2etest.Must(t, d, err).ID
		e2etest.WantValidationPassed(t, c, "CN-EVT-1", invalid)
		sub, err = c.Documents.Submit(ctx, invalid)
		e2etest.Want200(t, e2etest.Must(t, sub, err))
		e2etest.WaitStatusTyped(t, c, invalid, client.StatusInvalid, 20*time.Second)

		events, byDoc := e2etest.DocumentEvents(t, c)
		want := map[string][]string{
			valid:   {client.EventDocumentSubmitted, client.EventDocumentValid, client.EventDocumentCancelled},
			invalid: {client.EventDocumentSubmitted, client.EventDocumentInvalid},
		}
		if diff := cmp.Diff(want, byDoc); diff != "" {
			t.Errorf("events per document (-want +got):\n%s", diff)
		}
		// The data is the status result at the change.
		for _, e := range events {
			st, _ := e.Document()
			wantStatus := map[string]client.Status{client.EventDocumentSubmitted: client.StatusSubmitted, client.EventDocumentValid: client.StatusValid,
				client.EventDocumentInvalid: client.StatusInvalid, client.EventDocumentCancelled: client.StatusCancelled}[e.Type]
			if st.Status != wantStatus || st.DocumentUUID == "" {
				t.Errorf("event %s: data status %s uuid %q, want %s", e.Type, st.Status, st.DocumentUUID, wantStatus)
			}
			if e.Type == client.EventDocumentInvalid && len(st.AuthorityErrors) == 0 {
				t.Errorf("document.invalid without the authority's errors: %s", e.Data)
			}
			if e.Type == client.EventDocumentValid && st.ValidationURL == "" {
				t.Errorf("document.valid without its validation URL: %s", e.Data)
			}
		}
		// type= keeps one type.
		p, err := c.Events.List(ctx, &client.EventListOptions{Type: client.EventDocumentSubmitted})
		if e2etest.Must(t, p, err).Meta.Total != 2 || len(p.Items) != 2 || p.Items[0].Type != client.EventDocumentSubmitted {
			t.Errorf("type=document.submitted: %+v", p)
		}
		// after= the newest: nothing more.
		p, err = c.Events.List(ctx, &client.EventListOptions{After: events[len(events)-1].ID})
		if e2etest.Must(t, p, err).Meta.Total != 0 {
			t.Errorf("after the newest: %+v", p)
		}

		// The webhook got every event, signed, in order per document.
		ids := make([]string, len(events))
		for i, e := range events {
			ids[i] = e.ID
		}
		got := rc.WaitAccepted(t, ids, 20*time.Second)
		if diff := cmp.Diff(want, e2etest.DeliveredByDoc(t, got)); diff != "" {
			t.Errorf("deliveries per document (-want +got):\n%s", diff)
		}
		for _, g := range got {
			if err := client.VerifyWebhook(h.Secret, g.Header.Get("Einvoice-Signature"), g.Body); err != nil {
				t.Errorf("delivery of %s: %v", g.Event.Type, err)
			}
			if g.Header.Get("Einvoice-Event-Id") != g.Event.ID || g.Header.Get("Einvoice-Event-Type") != g.Event.Type {
				t.Errorf("headers %v do not name the event %s %s", g.Header, g.Event.ID, g.Event.Type)
			}
			if i := slices.IndexFunc(events, func(e client.APIEvent) bool { return e.ID == g.Event.ID }); i < 0 || string(events[i].Data) != string(g.Event.Data) {
				t.Errorf("delivered event %s is not the listed one", g.Event.ID)
			}
		}
		// The log: one delivered attempt each (recorded once the receiver
		// has answered, so perhaps a moment after it got the request).
		dl, err := waitDeliveriesRecorded(ctx, c, h.ID, 10*time.Second)
		for _, d := range e2etest.Must(t, dl, err).Items {
			if d.State != "delivered" || len(d.Attempts) != 1 || d.Attempts[0].StatusCode != 200 {
				t.Errorf("delivery %+v", d)
			}
		}
		if len(dl.Items) != len(events) {
			t.Errorf("%d deliveries, want %d", len(dl.Items), len(events))
		}
	})
}

// waitDeliveriesRecorded lists a webhook's deliveries until none is pending
// any more, or within has passed: a delivery's attempt is recorded after the
// receiver answers it.
func waitDeliveriesRecorded(ctx context.Context, c *client.Client, hookID string, within time.Duration) (*client.Page[client.WebhookDelivery], error) {
	deadline := time.Now().Add(within)
	for {
		dl, err := c.Webhooks.Deliveries(ctx, hookID, &client.ListOptions{PerPage: 100})
		if err != nil || time.Now().After(deadline) || !slices.ContainsFunc(dl.Items, func(d client.WebhookDelivery) bool { return d.State == "pending" }) {
			return dl, err
		}
		time.Sleep(20 * time.Millisecond)
	}
}
