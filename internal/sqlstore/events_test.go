package sqlstore_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/einvoice/einvoice/internal/einvoice"
)

// testEventsAndDeliveries: events fan out to the enabled webhooks of their
// type in the transaction that writes them; a delivery is claimed only when
// due, unleased and the earliest pending one of its resource for its
// webhook; an expired lease is taken over; attempts are logged; old events
// are purged with their deliveries.
func testEventsAndDeliveries(t *testing.T, dsn string) {
	ctx := context.Background()
	s := open(t, dsn)
	tn := mustCreateTenant(t, s, "Events")
	now := time.Now().UTC().Truncate(time.Microsecond)
	hook := func(enabled bool, types ...einvoice.EventType) *einvoice.Webhook {
		w := &einvoice.Webhook{ID: newID(), TenantID: tn.ID, URL: "https://hooks.example.com/" + newID(), Events: types,
			Enabled: enabled, Secret: "whsec_" + newID(), CreatedAt: now, UpdatedAt: now}
		if err := s.CreateWebhook(ctx, w); err != nil {
			t.Fatal(err)
		}
		return w
	}
	a := hook(true, einvoice.EventDocumentSubmitted, einvoice.EventDocumentValid)
	b := hook(true, einvoice.EventDocumentInvalid)
	hook(false, einvoice.EventTypes...)
	got, err := s.GetWebhook(ctx, tn.ID, a.ID)
	if err != nil || got.Secret != a.Secret || len(got.Events) != 2 {
		t.Fatalf("GetWebhook = %+v, %v", got, err)
	}

	x, y := newID(), newID()
	ev := func(typ einvoice.EventType, res string, at time.Time) *einvoice.APIEvent {
		e, err := einvoice.NewAPIEvent(newID(), tn.ID, typ, res, at, map[string]string{"id": res})
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	e1, e2 := ev(einvoice.EventDocumentSubmitted, x, now), ev(einvoice.EventDocumentValid, x, now.Add(time.Millisecond))
	e3, e4 := ev(einvoice.EventDocumentSubmitted, y, now), ev(einvoice.EventDocumentInvalid, y, now.Add(time.Millisecond))
	for _, w := range []einvoice.SubmissionWrite{{Notify: []*einvoice.APIEvent{e1, e2}}, {Notify: []*einvoice.APIEvent{e3}}, {Notify: []*einvoice.APIEvent{e4}}} {
		if err := s.WriteSubmission(ctx, w); err != nil {
			t.Fatal(err)
		}
	}
	p, err := s.ListEvents(ctx, tn.ID, einvoice.EventFilter{PageRequest: einvoice.PageRequest{Page: 1, PerPage: 10}})
	if err != nil || p.Total != 4 || p.Items[0].ID != e4.ID || p.Items[3].ID != e1.ID {
		t.Fatalf("ListEvents = %+v, %v", p, err)
	}
	p, err = s.ListEvents(ctx, tn.ID, einvoice.EventFilter{After: e2.ID, PageRequest: einvoice.PageRequest{Page: 1, PerPage: 10}})
	if err != nil || p.Total != 2 || p.Items[0].ID != e3.ID || p.Items[1].ID != e4.ID {
		t.Fatalf("ListEvents after e2 = %+v, %v", p, err)
	}
	if _, err := s.ListEvents(ctx, tn.ID, einvoice.EventFilter{After: newID()}); !errors.Is(err, einvoice.ErrNotFound) {
		t.Errorf("after an unknown event: %v", err)
	}

	ids := func(ds []*einvoice.WebhookDelivery) map[string]string { // event id -> webhook id
		m := map[string]string{}
		for _, d := range ds {
			m[d.EventID] = d.WebhookID
		}
		return m
	}
	lease := 5 * time.Second
	c0 := now.Add(10 * time.Millisecond) // every event due
	first, err := s.ClaimDeliveries(ctx, "w1", c0, c0.Add(lease), 10)
	if err != nil {
		t.Fatal(err)
	}
	// e2 waits for e1 (same resource, same webhook); the disabled webhook
	// gets nothing; e3 to a, e4 to b.
	if m := ids(first); len(m) != 3 || m[e1.ID] != a.ID || m[e3.ID] != a.ID || m[e4.ID] != b.ID {
		t.Fatalf("first claim: %v", m)
	}
	if more, err := s.ClaimDeliveries(ctx, "w2", c0, c0.Add(lease), 10); err != nil || len(more) != 0 {
		t.Fatalf("second claim while leased: %d, %v", len(more), err)
	}
	var d1 *einvoice.WebhookDelivery
	for _, d := range first {
		if d.EventID == e1.ID {
			d1 = d
		}
		if d.Webhook == nil || string(d.Body) == "" {
			t.Fatalf("claimed delivery without webhook or body: %+v", d)
		}
	}
	failed := einvoice.AttemptResult{DeliveryID: d1.ID, State: einvoice.DeliveryPending, NextAt: now.Add(time.Second),
		Attempt: einvoice.Attempt{At: now, StatusCode: 500, DurationMS: 3, Error: "answered HTTP 500"}}
	if err := s.RecordAttempt(ctx, "someone else", failed); !errors.Is(err, einvoice.ErrWrongState) {
		t.Errorf("RecordAttempt by another owner: %v", err)
	}
	if err := s.RecordAttempt(ctx, "w1", failed); err != nil {
		t.Fatal(err)
	}
	if w, _ := s.GetWebhook(ctx, tn.ID, a.ID); w.FailingSince == nil {
		t.Error("a failed attempt did not start the failure run")
	}
	// Not due yet, and e2 still waits.
	if more, err := s.ClaimDeliveries(ctx, "w3", c0, c0.Add(lease), 10); err != nil || len(more) != 0 {
		t.Fatalf("claim before the retry: %d, %v", len(more), err)
	}
	retry, err := s.ClaimDeliveries(ctx, "w3", now.Add(2*time.Second), now.Add(2*time.Second+lease), 10)
	if m := ids(retry); err != nil || len(m) != 1 || m[e1.ID] == "" {
		t.Fatalf("retry claim: %v, %v", m, err)
	}
	ok := einvoice.AttemptResult{DeliveryID: d1.ID, State: einvoice.DeliveryDelivered, Delivered: true,
		Attempt: einvoice.Attempt{At: now.Add(2 * time.Second), StatusCode: 200, DurationMS: 2}}
	if err := s.RecordAttempt(ctx, "w3", ok); err != nil {
		t.Fatal(err)
	}
	if w, _ := s.GetWebhook(ctx, tn.ID, a.ID); w.FailingSince != nil {
		t.Error("a delivered attempt did not end the failure run")
	}
	// Now e2 goes; its lease, expired, is taken over.
	next, err := s.ClaimDeliveries(ctx, "w4", now.Add(3*time.Second), now.Add(4*time.Second), 10)
	if m := ids(next); err != nil || len(m) != 1 || m[e2.ID] == "" {
		t.Fatalf("claim of e2: %v, %v", m, err)
	}
	taken, err := s.ClaimDeliveries(ctx, "w5", now.Add(10*time.Second), now.Add(20*time.Second), 10)
	if m := ids(taken); err != nil || m[e2.ID] == "" {
		t.Fatalf("takeover of e2: %v, %v", m, err)
	}

	log, err := s.ListDeliveries(ctx, tn.ID, a.ID, einvoice.PageRequest{Page: 1, PerPage: 10})
	if err != nil || log.Total != 3 {
		t.Fatalf("ListDeliveries = %+v, %v", log, err)
	}
	for _, d := range log.Items {
		if d.ID == d1.ID && (len(d.Attempts) != 2 || d.Attempts[0].StatusCode != 500 || d.Attempts[1].StatusCode != 200 ||
			d.State != einvoice.DeliveryDelivered || d.FinishedAt == nil) {
			t.Errorf("delivery of e1: %+v", d)
		}
	}
	re, err := s.Redeliver(ctx, tn.ID, a.ID, d1.ID, now.Add(time.Minute))
	if err != nil || re.EventID != e1.ID || re.State != einvoice.DeliveryPending {
		t.Fatalf("Redeliver = %+v, %v", re, err)
	}
	if _, err := s.Redeliver(ctx, tn.ID, b.ID, d1.ID, now); !errors.Is(err, einvoice.ErrNotFound) {
		t.Errorf("Redeliver through another webhook: %v", err)
	}
	if n, oldest, err := s.PendingDeliveries(ctx); err != nil || n < 1 || oldest.IsZero() {
		t.Errorf("PendingDeliveries = %d, %v, %v", n, oldest, err)
	}

	n, err := s.PurgeEvents(ctx, now.Add(time.Hour))
	if err != nil || n != 4 {
		t.Fatalf("PurgeEvents = %d, %v", n, err)
	}
	if log, err := s.ListDeliveries(ctx, tn.ID, a.ID, einvoice.PageRequest{Page: 1, PerPage: 10}); err != nil || log.Total != 0 {
		t.Errorf("deliveries after the purge: %+v, %v", log, err)
	}
	if err := s.DeleteWebhook(ctx, tn.ID, a.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.GetWebhook(ctx, tn.ID, a.ID); !errors.Is(err, einvoice.ErrNotFound) {
		t.Errorf("deleted webhook: %v", err)
	}
}
