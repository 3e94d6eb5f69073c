package sqlstore_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/einvoice/einvoice/internal/einvoice"
)

// testConsolidations: one running consolidation per tenant; a consolidated
// invoice and its receipts' transition are one transaction that writes
// nothing when one receipt is no longer open (what keeps a resumed
// consolidation from duplicating a document); a lease is taken over only
// once expired; the scheduler's claim is once per tenant and month.
func testConsolidations(t *testing.T, dsn string) {
	ctx := context.Background()
	s := open(t, dsn)
	a := mustCreateTenant(t, s, "Shop A")
	oct := time.Date(2026, time.October, 10, 4, 0, 0, 0, time.UTC)
	r1, r2 := receipt(t, a.ID, "R-1", oct), receipt(t, a.ID, "R-2", oct)
	for _, r := range []*einvoice.Receipt{r1, r2} {
		if err := s.CreateReceipt(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	c := &einvoice.Consolidation{ID: newID(), TenantID: a.ID, Month: "2026-10", Status: einvoice.ConsolidationRunning,
		LeaseOwner: "p1", LeaseUntil: t0.Add(time.Minute), CreatedAt: t0}
	if err := s.CreateConsolidation(ctx, c); err != nil || c.Seq != 1 || c.Deadline != "2026-11-07" {
		t.Fatalf("CreateConsolidation: %v %+v", err, c)
	}
	second := *c
	second.ID = newID()
	if err := s.CreateConsolidation(ctx, &second); !errors.Is(err, einvoice.ErrConflict) {
		t.Errorf("a second running consolidation: %v, want ErrConflict", err)
	}

	// R-2 leaves meanwhile (a buyer's request): the document is not made.
	if err := s.TransitionReceipt(ctx, a.ID, r2.ID, einvoice.ReceiptTransition{From: []einvoice.ReceiptStatus{einvoice.ReceiptOpen},
		To: einvoice.ReceiptConverted, InvoiceID: newID(), At: t0}); err != nil {
		t.Fatal(err)
	}
	doc := func() *einvoice.Document {
		d := einvoice.ConsolidatedDocument([]*einvoice.Receipt{r1, r2})
		d.ID, d.TenantID, d.Status, d.InvoiceSerialNumber, d.CreatedAt, d.UpdatedAt = newID(), a.ID, einvoice.StatusDraft, "CONS-1-"+newID()[28:], t0, t0
		return d
	}
	d := doc()
	ev := func() einvoice.Event {
		return einvoice.Event{ID: newID(), Status: einvoice.StatusDraft, Note: "created", At: t0}
	}
	err := s.CreateConsolidatedDocument(ctx, einvoice.ConsolidatedDocumentWrite{Doc: d, Event: ev(), ReceiptIDs: []string{r1.ID, r2.ID}, At: t0}, c.ID)
	if !errors.Is(err, einvoice.ErrWrongState) {
		t.Fatalf("with a receipt converted: %v, want ErrWrongState", err)
	}
	if _, err := s.GetDocument(ctx, a.ID, d.ID); !errors.Is(err, einvoice.ErrNotFound) {
		t.Errorf("the refused document was stored: %v", err)
	}
	if got, _ := s.GetReceipt(ctx, a.ID, r1.ID); got.Status != einvoice.ReceiptOpen {
		t.Errorf("R-1 moved with the refused document: %s", got.Status)
	}
	// With R-1 alone: stored, R-1 consolidated, counted, found by document.
	d = doc()
	if err := s.CreateConsolidatedDocument(ctx, einvoice.ConsolidatedDocumentWrite{Doc: d, Event: ev(), ReceiptIDs: []string{r1.ID}, At: t0}, c.ID); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.GetReceipt(ctx, a.ID, r1.ID); got.Status != einvoice.ReceiptConsolidated || got.ConsolidationID != c.ID || got.ConsolidatedDocumentID != d.ID {
		t.Errorf("R-1 after: %+v", got)
	}
	if n, err := s.ConsolidationCounts(ctx, a.ID, c.ID); err != nil || n[d.ID] != 1 || len(n) != 1 {
		t.Errorf("counts %v %v", n, err)
	}
	if rs, err := s.DocumentReceipts(ctx, a.ID, d.ID); err != nil || len(rs) != 1 || rs[0].ID != r1.ID {
		t.Errorf("document receipts %v %v", rs, err)
	}
	// Again (a resumed worker): nothing duplicated.
	again := doc()
	if err := s.CreateConsolidatedDocument(ctx, einvoice.ConsolidatedDocumentWrite{Doc: again, Event: ev(), ReceiptIDs: []string{r1.ID}, At: t0}, c.ID); !errors.Is(err, einvoice.ErrWrongState) {
		t.Errorf("the same receipts again: %v, want ErrWrongState", err)
	}

	// The lease: not taken before it expires, then taken once.
	if got, err := s.ClaimConsolidation(ctx, "p2", t0, t0.Add(time.Minute)); err != nil || got != nil {
		t.Errorf("claimed under a live lease: %+v %v", got, err)
	}
	later := t0.Add(2 * time.Minute)
	got, err := s.ClaimConsolidation(ctx, "p2", later, later.Add(time.Minute))
	if err != nil || got == nil || got.ID != c.ID || got.LeaseOwner != "p2" {
		t.Fatalf("claim after expiry: %+v %v", got, err)
	}
	if err := s.SaveConsolidation(ctx, c); !errors.Is(err, einvoice.ErrWrongState) {
		t.Errorf("the first owner saved after losing the lease: %v", err)
	}
	now := later
	got.CompletedAt = &now
	e, _ := einvoice.NewAPIEvent(newID(), a.ID, einvoice.EventConsolidationCompleted, got.ID, now, got)
	if err := s.CompleteConsolidation(ctx, got, e); err != nil {
		t.Fatal(err)
	}
	back, err := s.GetConsolidation(ctx, a.ID, c.ID)
	if err != nil || back.Status != einvoice.ConsolidationCompleted || back.CompletedAt == nil {
		t.Errorf("completed: %+v %v", back, err)
	}
	next := &einvoice.Consolidation{ID: newID(), TenantID: a.ID, Month: "2026-10", Status: einvoice.ConsolidationRunning, CreatedAt: later}
	if err := s.CreateConsolidation(ctx, next); err != nil || next.Seq != 2 || !next.Supplementary {
		t.Errorf("the month's next consolidation: %v %+v", err, next)
	}

	// The scheduler's claim: once per tenant and month.
	for i, want := range []bool{true, false} {
		if ok, err := s.ClaimSchedule(ctx, a.ID, "2026-10", t0); err != nil || ok != want {
			t.Errorf("claim %d: %v %v, want %v", i, ok, err, want)
		}
	}
}
