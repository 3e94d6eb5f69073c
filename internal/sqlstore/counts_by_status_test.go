package sqlstore_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/einvoice/einvoice/internal/einvoice"
)

// testCountsByStatus: CountDocumentsByStatus gives, in one query, each
// status's total of what ListDocuments would count with that status, with
// and without search and issue-date bounds.
func testCountsByStatus(t *testing.T, dsn string) {
	ctx := context.Background()
	s := open(t, dsn)
	a := mustCreateTenant(t, s, "A")
	other := mustCreateTenant(t, s, "B")
	statuses := []einvoice.Status{einvoice.StatusDraft, einvoice.StatusReady, einvoice.StatusDraft, einvoice.StatusValid, einvoice.StatusDraft}
	for i, st := range statuses {
		d := document(a.ID, "", fmt.Sprintf("CNT-%d", i), t0.Add(time.Duration(i)*24*time.Hour))
		d.Status = st
		if err := s.CreateDocument(ctx, d, event(st, t0)); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.CreateDocument(ctx, document(other.ID, "", "CNT-0", t0), event(einvoice.StatusDraft, t0)); err != nil {
		t.Fatal(err)
	}
	for _, f := range []einvoice.DocumentFilter{
		{}, {Search: "cnt-1"}, {Search: "CNT"}, {From: t0.Add(24 * time.Hour), To: t0.Add(3 * 24 * time.Hour)},
		{Kind: einvoice.KindCreditNote}, {Search: "nothing"},
	} {
		got, err := s.CountDocumentsByStatus(ctx, a.ID, f)
		if err != nil {
			t.Fatal(err)
		}
		for _, st := range einvoice.Statuses {
			lf := f
			lf.Status, lf.PageRequest = st, einvoice.PageRequest{Page: 1, PerPage: 1}
			p, err := s.ListDocuments(ctx, a.ID, lf)
			if err != nil {
				t.Fatal(err)
			}
			if got[st] != p.Total {
				t.Errorf("filter %+v: %s counted %d, the list's total is %d", f, st, got[st], p.Total)
			}
		}
	}
	// A total the caller counted is taken as it is: the page is read without counting again.
	p, err := s.ListDocuments(ctx, a.ID, einvoice.DocumentFilter{Status: einvoice.StatusDraft, Total: 3, PageRequest: einvoice.PageRequest{Page: 1, PerPage: 2}})
	if err != nil || p.Total != 3 || len(p.Items) != 2 || p.LastPage() != 2 {
		t.Errorf("with Total 3: total %d, %d items, last page %d (%v); want 3, 2, 2", p.Total, len(p.Items), p.LastPage(), err)
	}
	if got, _ := s.CountDocumentsByStatus(ctx, a.ID, einvoice.DocumentFilter{}); got[einvoice.StatusDraft] != 3 || got[einvoice.StatusValid] != 1 {
		t.Errorf("counts %v, want 3 drafts and 1 Valid", got)
	}
}
