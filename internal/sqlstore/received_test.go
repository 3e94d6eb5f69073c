package sqlstore_test

import (
	"context"
	"testing"
	"time"

	"github.com/einvoice/einvoice/internal/einvoice"
)

// testReceived: a received document is stored once per tenant and uuid
// (with its event only the first time), listed and found by its filters,
// its status updated; the poller's lease is held by one owner at a time,
// and the cursor it leaves is the next claim's.
func testReceived(t *testing.T, dsn string) {
	ctx := context.Background()
	s := open(t, dsn)
	tn := mustCreateTenant(t, s, "Received")
	now := time.Now().UTC().Truncate(time.Microsecond)
	doc := func(uuid, issuer string, at time.Time) *einvoice.ReceivedDocument {
		return &einvoice.ReceivedDocument{ID: newID(), TenantID: tn.ID, UUID: uuid, TypeCode: "01", TypeName: "Invoice", Number: "N-" + uuid,
			IssuerTIN: "C1234567890", IssuerName: issuer, ReceiverTIN: "C2584563200", IssuedAt: at, SubmittedAt: at, ValidatedAt: &at,
			Status: einvoice.ReceivedValid, TotalPayableAmount: "10.00", Lines: []einvoice.ReceivedLine{{ID: "1", Description: "x"}},
			Parsed: true, CreatedAt: now, UpdatedAt: now}
	}
	save := func(d *einvoice.ReceivedDocument) bool {
		t.Helper()
		e, err := einvoice.NewAPIEvent(newID(), tn.ID, einvoice.EventReceivedCreated, d.ID, now, map[string]string{"id": d.ID})
		if err != nil {
			t.Fatal(err)
		}
		created, err := s.SaveReceived(ctx, einvoice.ReceivedWrite{Doc: d, Raw: []byte(`{"a":1}`), Notify: []*einvoice.APIEvent{e}})
		if err != nil {
			t.Fatal(err)
		}
		return created
	}
	a := doc("UUIDA", "Alpha Trading", now.Add(-time.Hour))
	if !save(a) || save(doc("UUIDA", "Alpha again", now)) || !save(doc("UUIDB", "Beta_Goods", now)) {
		t.Fatal("a uuid is stored once")
	}
	if ev, err := s.ListEvents(ctx, tn.ID, einvoice.EventFilter{PageRequest: einvoice.PageRequest{Page: 1, PerPage: 10}}); err != nil || ev.Total != 2 {
		t.Fatalf("events = %+v, %v", ev, err)
	}
	page := func(f einvoice.ReceivedFilter) int {
		t.Helper()
		f.PageRequest = einvoice.PageRequest{Page: 1, PerPage: 10}
		p, err := s.ListReceived(ctx, tn.ID, f)
		if err != nil {
			t.Fatal(err)
		}
		return p.Total
	}
	from := now.Add(-30 * time.Minute)
	if page(einvoice.ReceivedFilter{}) != 2 || page(einvoice.ReceivedFilter{Search: "alpha"}) != 1 || page(einvoice.ReceivedFilter{Search: "_"}) != 1 ||
		page(einvoice.ReceivedFilter{Search: "N-UUIDB"}) != 1 || page(einvoice.ReceivedFilter{From: &from}) != 1 ||
		page(einvoice.ReceivedFilter{Status: einvoice.ReceivedCancelled}) != 0 {
		t.Fatal("filters")
	}
	got, err := s.GetReceived(ctx, tn.ID, "UUIDA")
	if err != nil || got.ID != a.ID || got.IssuerName != "Alpha Trading" || len(got.Lines) != 1 {
		t.Fatalf("GetReceived = %+v, %v", got, err)
	}
	if raw, err := s.GetReceivedRaw(ctx, tn.ID, a.ID); err != nil || string(raw) != `{"a":1}` {
		t.Fatalf("raw = %s, %v", raw, err)
	}
	got.Status, got.CancelledAt = einvoice.ReceivedCancelled, &now
	if err := s.UpdateReceived(ctx, einvoice.ReceivedWrite{Doc: got}); err != nil || page(einvoice.ReceivedFilter{Status: einvoice.ReceivedCancelled}) != 1 {
		t.Fatalf("update: %v", err)
	}
	known, err := s.ReceivedUUIDs(ctx, tn.ID, []string{"UUIDA", "UUIDB", "UUIDC"})
	if err != nil || len(known) != 2 || known["UUIDA"] != einvoice.ReceivedCancelled {
		t.Fatalf("ReceivedUUIDs = %v, %v", known, err)
	}

	start := now.Add(-31 * 24 * time.Hour)
	p, ok, err := s.ClaimReceivedPoll(ctx, tn.ID, "one", start, now, now.Add(time.Minute))
	if err != nil || !ok || !p.Cursor.Equal(start) {
		t.Fatalf("first claim = %+v %v %v", p, ok, err)
	}
	if _, ok, err := s.ClaimReceivedPoll(ctx, tn.ID, "two", now, now, now.Add(time.Minute)); err != nil || ok {
		t.Fatalf("a held lease was claimed again: %v %v", ok, err)
	}
	p.Cursor = now.Add(-time.Hour)
	if err := s.FinishReceivedPoll(ctx, p, "one", now.Add(time.Second)); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := s.ClaimReceivedPoll(ctx, tn.ID, "two", now, now, now.Add(time.Minute)); ok {
		t.Fatal("claimed before the next pass is due")
	}
	p2, ok, err := s.ClaimReceivedPoll(ctx, tn.ID, "two", now, now.Add(2*time.Second), now.Add(time.Minute))
	if err != nil || !ok || !p2.Cursor.Equal(now.Add(-time.Hour)) {
		t.Fatalf("next claim = %+v %v %v", p2, ok, err)
	}
	// An expired lease is taken over.
	if _, ok, err := s.ClaimReceivedPoll(ctx, tn.ID, "three", now, now.Add(2*time.Minute), now.Add(3*time.Minute)); err != nil || !ok {
		t.Fatalf("takeover: %v %v", ok, err)
	}
}
