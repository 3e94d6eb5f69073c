package sqlstore_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/einvoice/einvoice/internal/einvoice"
)

// testConcurrentDocuments writes documents from many goroutines at once, so
// that on SQLite they share group commits: serials that collide must let
// exactly one writer win, a cancelled caller must write nothing, and the
// counts and histories must match what was kept.
func testConcurrentDocuments(t *testing.T, dsn string) {
	ctx := context.Background()
	s := open(t, dsn)
	tn := mustCreateTenant(t, s, "Busy")
	buyer := party(tn.ID, einvoice.KindBuyer, "Buyer", t0)
	if err := s.CreateParty(ctx, buyer); err != nil {
		t.Fatal(err)
	}
	const workers, each, dups = 16, 20, 5
	var created, conflicts, cancelled atomic.Int64
	var mu sync.Mutex
	var kept []*einvoice.Document
	var wg sync.WaitGroup
	for g := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				serial := fmt.Sprintf("W%d-%d", g, i)
				if i < dups {
					serial = fmt.Sprintf("DUP-%d", i) // every worker tries these
				}
				d := document(tn.ID, buyer.ID, serial, t0)
				c := ctx
				if g == 0 && i >= dups {
					cc, cancel := context.WithCancel(ctx)
					cancel()
					c = cc
				}
				err := s.CreateDocument(c, d, event(einvoice.StatusDraft, t0))
				switch {
				case err == nil:
					created.Add(1)
					mu.Lock()
					kept = append(kept, d)
					mu.Unlock()
				case errors.Is(err, einvoice.ErrConflict):
					conflicts.Add(1)
				case errors.Is(err, context.Canceled):
					cancelled.Add(1)
				default:
					t.Errorf("CreateDocument %s: %v", serial, err)
				}
			}
		}()
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	if got, want := conflicts.Load(), int64(dups*(workers-1)); got != want {
		t.Errorf("conflicts = %d, want %d", got, want)
	}
	if got, want := cancelled.Load(), int64(each-dups); got != want {
		t.Errorf("cancelled = %d, want %d", got, want)
	}
	wantKept := int64(dups + (workers-1)*(each-dups))
	if created.Load() != wantKept {
		t.Errorf("created = %d, want %d", created.Load(), wantKept)
	}
	for i := range dups {
		docs, err := s.DocumentsBySerial(ctx, tn.ID, fmt.Sprintf("DUP-%d", i))
		if err != nil || len(docs) != 1 {
			t.Errorf("DUP-%d: %d documents, %v; want 1", i, len(docs), err)
		}
	}
	if docs, err := s.DocumentsBySerial(ctx, tn.ID, fmt.Sprintf("W0-%d", dups)); err != nil || len(docs) != 0 {
		t.Errorf("a cancelled create was kept: %d documents, %v", len(docs), err)
	}
	page, err := s.ListDocuments(ctx, tn.ID, einvoice.DocumentFilter{PageRequest: einvoice.PageRequest{Page: 1, PerPage: 1}})
	if err != nil || int64(page.Total) != wantKept {
		t.Errorf("total = %d, %v; want %d", page.Total, err, wantKept)
	}
	for _, d := range kept[:10] {
		h, err := s.DocumentHistory(ctx, tn.ID, d.ID)
		if err != nil || len(h) != 1 || h[0].Status != einvoice.StatusDraft {
			t.Errorf("history of %s = %v, %v; want one draft event", d.InvoiceSerialNumber, h, err)
		}
	}
}
