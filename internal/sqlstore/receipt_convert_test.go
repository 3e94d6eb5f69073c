package sqlstore_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/einvoice/einvoice/internal/einvoice"
)

// testReceiptConversion: ConvertReceipt writes the receipt's transition,
// the new buyer and the invoice together or not at all; of many
// concurrent conversions of one receipt exactly one succeeds, the others
// ErrWrongState with nothing written.
func testReceiptConversion(t *testing.T, dsn string) {
	ctx := context.Background()
	s := open(t, dsn)
	a := mustCreateTenant(t, s, "Shop A")
	r := receipt(t, a.ID, "C-1", time.Date(2026, time.September, 10, 4, 0, 0, 0, time.UTC))
	if err := s.CreateReceipt(ctx, r); err != nil {
		t.Fatal(err)
	}
	from := []einvoice.ReceiptStatus{einvoice.ReceiptOpen, einvoice.ReceiptExcluded}
	conversion := func(serial string) einvoice.ReceiptConversion {
		b := party(a.ID, einvoice.KindBuyer, "Buyer "+serial, t0)
		d := document(a.ID, b.ID, serial, t0)
		return einvoice.ReceiptConversion{TenantID: a.ID, ReceiptID: r.ID, From: from, Buyer: b, Invoice: d,
			Event: event(einvoice.StatusDraft, t0), At: t0}
	}
	// A failing write (the invoice's serial taken) leaves the receipt open
	// and no buyer.
	taken := conversion("TAKEN-1")
	if err := s.CreateParty(ctx, taken.Buyer); err != nil {
		t.Fatal(err)
	}
	if err := s.CreateDocument(ctx, taken.Invoice, taken.Event); err != nil {
		t.Fatal(err)
	}
	again := conversion("TAKEN-1")
	if err := s.ConvertReceipt(ctx, again); !errors.Is(err, einvoice.ErrConflict) {
		t.Errorf("a taken serial: %v, want ErrConflict", err)
	}
	if got, err := s.GetReceipt(ctx, a.ID, r.ID); err != nil || got.Status != einvoice.ReceiptOpen || got.InvoiceID != "" {
		t.Errorf("receipt after a failed conversion: %+v, %v", got, err)
	}
	if _, err := s.GetParty(ctx, a.ID, einvoice.KindBuyer, again.Buyer.ID); !errors.Is(err, einvoice.ErrNotFound) {
		t.Errorf("the failed conversion's buyer: %v, want none", err)
	}

	const n = 8
	var wg sync.WaitGroup
	errs := make([]error, n)
	convs := make([]einvoice.ReceiptConversion, n)
	for i := range n {
		convs[i] = conversion("INV-" + string(rune('A'+i)))
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = s.ConvertReceipt(ctx, convs[i])
		}()
	}
	wg.Wait()
	won := -1
	for i, err := range errs {
		switch {
		case err == nil && won < 0:
			won = i
		case err == nil:
			t.Errorf("conversions %d and %d both succeeded", won, i)
		case !errors.Is(err, einvoice.ErrWrongState):
			t.Errorf("conversion %d: %v, want ErrWrongState", i, err)
		}
	}
	if won < 0 {
		t.Fatal("no conversion succeeded")
	}
	got, err := s.GetReceipt(ctx, a.ID, r.ID)
	if err != nil || got.Status != einvoice.ReceiptConverted || got.InvoiceID != convs[won].Invoice.ID {
		t.Errorf("receipt: %+v, %v; want converted to %s", got, err, convs[won].Invoice.ID)
	}
	for i, c := range convs {
		_, derr := s.GetDocument(ctx, a.ID, c.Invoice.ID)
		_, perr := s.GetParty(ctx, a.ID, einvoice.KindBuyer, c.Buyer.ID)
		if stored := derr == nil && perr == nil; stored != (i == won) || (derr == nil) != (perr == nil) {
			t.Errorf("conversion %d: document %v, buyer %v", i, derr, perr)
		}
	}
	// Deleted or unknown receipts.
	c := conversion("INV-Z")
	c.ReceiptID = newID()
	if err := s.ConvertReceipt(ctx, c); !errors.Is(err, einvoice.ErrNotFound) {
		t.Errorf("unknown receipt: %v", err)
	}
}
