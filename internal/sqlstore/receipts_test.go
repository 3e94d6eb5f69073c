package sqlstore_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/einvoice/einvoice/internal/einvoice"
	"github.com/einvoice/einvoice/internal/money"
)

// receipt is a prepared receipt of the tenant (amounts computed).
func receipt(t *testing.T, tenantID, number string, issued time.Time) *einvoice.Receipt {
	t.Helper()
	q, p := money.MustNumber("2"), money.MustNumber("10.50")
	rate := money.MustNumber("8")
	in := &einvoice.ReceiptInput{ReceiptNumber: number, IssuedAt: &issued, Lines: []einvoice.Line{{ProductDescription: "Tea",
		Quantity: &q, UnitPrice: &p, Taxes: []einvoice.LineTax{{TaxType: "02", TaxRate: &rate}}}},
		Payment: &einvoice.Payment{PaymentMode: "01"}}
	r, f := einvoice.PrepareReceipt(in, issued)
	if len(f) > 0 {
		t.Fatalf("PrepareReceipt: %v", f)
	}
	r.ID, r.TenantID, r.Token, r.Status, r.CreatedAt, r.UpdatedAt = newID(), tenantID, "tok-"+newID(), einvoice.ReceiptOpen, t0, t0
	return r
}

func testReceipts(t *testing.T, dsn string) {
	ctx := context.Background()
	s := open(t, dsn)
	a, b := mustCreateTenant(t, s, "Shop A"), mustCreateTenant(t, s, "Shop B")

	// The profile's relaxation date round-trips.
	a.Profile.ConsolidationRelaxedUntil = "2026-06-30"
	if err := s.UpdateTenant(ctx, a); err != nil {
		t.Fatal(err)
	}
	if got, err := s.GetTenant(ctx, a.ID); err != nil || got.Profile.ConsolidationRelaxedUntil != "2026-06-30" {
		t.Errorf("relaxed until = %+v, %v", got, err)
	}

	sep := time.Date(2026, time.September, 10, 4, 0, 0, 0, time.UTC)
	r1 := receipt(t, a.ID, "R-1", sep)
	if err := s.CreateReceipt(ctx, r1); err != nil {
		t.Fatalf("CreateReceipt: %v", err)
	}
	got, err := s.GetReceipt(ctx, a.ID, r1.ID)
	if err != nil {
		t.Fatalf("GetReceipt: %v", err)
	}
	if diff := cmp.Diff(r1, got, cmp.Comparer(func(x, y money.Amount) bool { return x.Equal(y) }),
		cmp.Comparer(func(x, y money.Number) bool { return x.String() == y.String() })); diff != "" {
		t.Errorf("read back (-stored +read):\n%s", diff)
	}
	if _, err := s.GetReceipt(ctx, b.ID, r1.ID); !errors.Is(err, einvoice.ErrNotFound) {
		t.Errorf("another tenant's receipt: %v", err)
	}
	if err := s.CreateReceipt(ctx, receipt(t, a.ID, "R-1", sep)); !errors.Is(err, einvoice.ErrConflict) {
		t.Errorf("duplicate number: %v, want ErrConflict", err)
	}
	if err := s.CreateReceipt(ctx, receipt(t, b.ID, "R-1", sep)); err != nil {
		t.Errorf("another tenant's R-1: %v", err)
	}

	// Many at once: those taken (stored, or earlier in the batch) skipped.
	var batch []*einvoice.Receipt
	for i := range 30 {
		batch = append(batch, receipt(t, a.ID, fmt.Sprintf("S-%02d", i), sep.Add(time.Duration(i)*time.Hour)))
	}
	batch = append(batch, receipt(t, a.ID, "R-1", sep), receipt(t, a.ID, "S-05", sep))
	oct := receipt(t, a.ID, "O-1", time.Date(2026, time.September, 30, 16, 0, 0, 0, time.UTC)) // 1 Oct in Malaysia
	batch = append(batch, oct)
	taken, err := s.CreateReceipts(ctx, batch)
	if err != nil {
		t.Fatalf("CreateReceipts: %v", err)
	}
	for i, tk := range taken {
		if want := i == 30 || i == 31; tk != want {
			t.Errorf("taken[%d] = %v, want %v", i, tk, want)
		}
	}

	list := func(f einvoice.ReceiptFilter) einvoice.Page[*einvoice.Receipt] {
		t.Helper()
		if f.PerPage == 0 {
			f.Page, f.PerPage = 1, 100
		}
		p, err := s.ListReceipts(ctx, a.ID, f)
		if err != nil {
			t.Fatalf("ListReceipts %+v: %v", f, err)
		}
		return p
	}
	if p := list(einvoice.ReceiptFilter{Month: "2026-09"}); p.Total != 31 {
		t.Errorf("September: %d, want 31", p.Total)
	}
	if p := list(einvoice.ReceiptFilter{Month: "2026-10"}); p.Total != 1 || p.Items[0].ID != oct.ID {
		t.Errorf("October: %+v", p)
	}
	p := list(einvoice.ReceiptFilter{Month: "2026-09", PageRequest: einvoice.PageRequest{Page: 2, PerPage: 10}})
	if p.Total != 31 || len(p.Items) != 10 || p.Items[0].ReceiptNumber != "S-19" {
		t.Errorf("page 2 of 10: total %d, %d items, first %s (want S-19: newest issued first)", p.Total, len(p.Items), p.Items[0].ReceiptNumber)
	}
	if p := list(einvoice.ReceiptFilter{Search: "s-1"}); p.Total != 10 {
		t.Errorf("search s-1: %d, want 10", p.Total)
	}

	// Transitions: one, and many (only those in From move).
	at := t0.Add(time.Hour)
	conv := einvoice.ReceiptTransition{From: []einvoice.ReceiptStatus{einvoice.ReceiptOpen}, To: einvoice.ReceiptConverted, InvoiceID: newID(), At: at}
	if err := s.TransitionReceipt(ctx, a.ID, batch[0].ID, conv); err != nil {
		t.Fatalf("TransitionReceipt: %v", err)
	}
	if err := s.TransitionReceipt(ctx, a.ID, batch[0].ID, conv); !errors.Is(err, einvoice.ErrWrongState) {
		t.Errorf("second conversion: %v, want ErrWrongState", err)
	}
	if err := s.TransitionReceipt(ctx, b.ID, batch[1].ID, conv); !errors.Is(err, einvoice.ErrNotFound) {
		t.Errorf("another tenant's transition: %v, want ErrNotFound", err)
	}
	cons := einvoice.ReceiptTransition{From: []einvoice.ReceiptStatus{einvoice.ReceiptOpen}, To: einvoice.ReceiptConsolidated,
		ConsolidationID: newID(), ConsolidatedDocumentID: newID(), At: at}
	var ids []string
	for _, r := range batch[:30] {
		ids = append(ids, r.ID)
	}
	if n, err := s.TransitionReceipts(ctx, a.ID, ids, cons); err != nil || n != 29 {
		t.Errorf("TransitionReceipts = %d, %v; want 29 (one is converted)", n, err)
	}
	if n, err := s.TransitionReceipts(ctx, b.ID, ids, cons); err != nil || n != 0 {
		t.Errorf("another tenant's TransitionReceipts = %d, %v", n, err)
	}
	g, _ := s.GetReceipt(ctx, a.ID, batch[3].ID)
	if g.Status != einvoice.ReceiptConsolidated || g.ConsolidationID != cons.ConsolidationID || g.ConsolidatedDocumentID != cons.ConsolidatedDocumentID || !g.UpdatedAt.Equal(at) {
		t.Errorf("consolidated receipt: %+v", g)
	}
	if g, _ := s.GetReceipt(ctx, a.ID, batch[0].ID); g.Status != einvoice.ReceiptConverted || g.InvoiceID != conv.InvoiceID {
		t.Errorf("converted receipt: %+v", g)
	}
	if p := list(einvoice.ReceiptFilter{Status: einvoice.ReceiptConsolidated}); p.Total != 29 {
		t.Errorf("consolidated: %d", p.Total)
	}

	// Delete: only from the statuses given; a tombstone stays for its token.
	deletable := []einvoice.ReceiptStatus{einvoice.ReceiptOpen, einvoice.ReceiptExcluded}
	if err := s.DeleteReceipt(ctx, a.ID, batch[3].ID, deletable, at); !errors.Is(err, einvoice.ErrWrongState) {
		t.Errorf("delete consolidated: %v, want ErrWrongState", err)
	}
	if err := s.DeleteReceipt(ctx, b.ID, r1.ID, deletable, at); !errors.Is(err, einvoice.ErrNotFound) {
		t.Errorf("delete another tenant's: %v, want ErrNotFound", err)
	}
	if err := s.DeleteReceipt(ctx, a.ID, r1.ID, deletable, at); err != nil {
		t.Fatalf("DeleteReceipt: %v", err)
	}
	if _, err := s.GetReceipt(ctx, a.ID, r1.ID); !errors.Is(err, einvoice.ErrNotFound) {
		t.Errorf("deleted receipt: %v", err)
	}
	if err := s.DeleteReceipt(ctx, a.ID, r1.ID, deletable, at); !errors.Is(err, einvoice.ErrNotFound) {
		t.Errorf("deleted twice: %v", err)
	}
	if err := s.TransitionReceipt(ctx, a.ID, r1.ID, conv); !errors.Is(err, einvoice.ErrNotFound) {
		t.Errorf("transition of a deleted receipt: %v", err)
	}
	tomb, err := s.ReceiptByToken(ctx, r1.Token)
	if err != nil || tomb.ID != r1.ID || tomb.DeletedAt == nil || !tomb.DeletedAt.Equal(at) {
		t.Errorf("tombstone by token: %+v, %v", tomb, err)
	}
	if _, err := s.ReceiptByToken(ctx, "no-such-token"); !errors.Is(err, einvoice.ErrNotFound) {
		t.Errorf("unknown token: %v", err)
	}
	if p := list(einvoice.ReceiptFilter{Search: "R-1"}); p.Total != 0 {
		t.Errorf("a deleted receipt is listed")
	}
	// Its number is free again.
	if err := s.CreateReceipt(ctx, receipt(t, a.ID, "R-1", sep)); err != nil {
		t.Errorf("R-1 again after its deletion: %v", err)
	}
}
