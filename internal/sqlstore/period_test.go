package sqlstore_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/einvoice/einvoice/internal/einvoice"
)

// day is midnight UTC of a date given as YYYY-MM-DD.
func day(t *testing.T, s string) time.Time {
	t.Helper()
	d, err := time.Parse(time.DateOnly, s)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// testDocumentPeriod: from and to bound the issue date, both ends included:
// erpIssuedAt in UTC when given, else the issue time recorded at submission,
// else the creation. The bounds combine with the other filters and paging,
// totals count the range, and every write keeps the issue date true.
func testDocumentPeriod(t *testing.T, dsn string) {
	ctx := context.Background()
	s := open(t, dsn)
	a := mustCreateTenant(t, s, "A")
	b := mustCreateTenant(t, s, "B")
	myt := time.FixedZone("MYT", 8*3600)
	ptr := func(t time.Time) *time.Time { return &t }
	create := func(tenantID, serial string, created time.Time, edit func(d *einvoice.Document)) *einvoice.Document {
		t.Helper()
		d := document(tenantID, "", serial, created)
		if edit != nil {
			edit(d)
		}
		if err := s.CreateDocument(ctx, d, event(d.Status, created)); err != nil {
			t.Fatalf("CreateDocument %s: %v", serial, err)
		}
		return d
	}
	// Issue dates (UTC) in the comments.
	beforeMidnight := create(a.ID, "INV-1", time.Date(2026, 3, 9, 23, 59, 59, 999999000, time.UTC), nil)   // 03-09
	midnight := create(a.ID, "INV-2", time.Date(2026, 3, 10, 0, 0, 0, 0, time.UTC), nil)                   // 03-10
	erp := create(a.ID, "INV-3", time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC), func(d *einvoice.Document) { // 03-10: 03-11 07:00 in Malaysia
		d.ErpIssuedAt = ptr(time.Date(2026, 3, 11, 7, 0, 0, 0, myt))
	})
	sent := create(a.ID, "INV-4", time.Date(2026, 3, 20, 8, 0, 0, 0, time.UTC), nil)                         // 03-20, then 03-12 once sent
	lastDay := create(a.ID, "INV-5", time.Date(2026, 3, 15, 23, 59, 59, 0, time.UTC), nil)                   // 03-15
	after := create(a.ID, "INV-6", time.Date(2026, 3, 16, 0, 0, 0, 0, time.UTC), nil)                        // 03-16
	note := create(a.ID, "CN-1", time.Date(2026, 3, 12, 12, 0, 0, 0, time.UTC), func(d *einvoice.Document) { // 03-12
		d.Kind, d.TypeCode = einvoice.KindCreditNote, "02"
	})
	create(b.ID, "INV-1", time.Date(2026, 3, 12, 12, 0, 0, 0, time.UTC), nil) // another tenant's

	type result struct {
		Total int
		IDs   []string
	}
	ids := func(ds ...*einvoice.Document) []string {
		out := []string{}
		for _, d := range ds {
			out = append(out, d.ID)
		}
		return out
	}
	check := func(name string, f einvoice.DocumentFilter, want result) {
		t.Helper()
		if f.PerPage == 0 {
			f.PageRequest = einvoice.PageRequest{Page: 1, PerPage: 50}
		}
		p, err := s.ListDocuments(ctx, a.ID, f)
		if err != nil {
			t.Fatalf("%s: ListDocuments: %v", name, err)
		}
		got := result{Total: p.Total, IDs: ids(p.Items...)}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", name, diff)
		}
	}

	// Recording the submission sets the issue time written into the UBL:
	// the document moves from its creation date to that one.
	check("sent document before submission", einvoice.DocumentFilter{From: day(t, "2026-03-20"), To: day(t, "2026-03-20")}, result{1, ids(sent)})
	version := sent.UpdatedAt
	sent.Authority = &einvoice.AuthorityRecord{IssuedAt: ptr(time.Date(2026, 3, 12, 10, 0, 0, 0, time.UTC))}
	sent.Status, sent.UpdatedAt = einvoice.StatusSubmitting, sent.UpdatedAt.Add(time.Second)
	ev := event(einvoice.StatusSubmitting, sent.UpdatedAt)
	if err := s.WriteSubmission(ctx, einvoice.SubmissionWrite{Doc: sent, From: []einvoice.Status{einvoice.StatusDraft}, Version: version,
		UBL: []byte(`{}`), Event: &ev}); err != nil {
		t.Fatalf("WriteSubmission: %v", err)
	}
	sent.Status, sent.UpdatedAt = einvoice.StatusSubmitted, sent.UpdatedAt.Add(time.Second)
	sent.Authority.DocumentUUID = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	if err := s.WriteSubmission(ctx, einvoice.SubmissionWrite{Doc: sent, From: []einvoice.Status{einvoice.StatusSubmitting}}); err != nil {
		t.Fatalf("WriteSubmission (accepted): %v", err)
	}
	check("sent document after submission", einvoice.DocumentFilter{From: day(t, "2026-03-20"), To: day(t, "2026-03-20")}, result{0, ids()})

	// Newest first (by creation) within the range, as the list always is.
	inRange := result{5, ids(sent, lastDay, note, midnight, erp)}
	check("from and to, inclusive", einvoice.DocumentFilter{From: day(t, "2026-03-10"), To: day(t, "2026-03-15")}, inRange)
	check("bounds given with a time of day", einvoice.DocumentFilter{From: day(t, "2026-03-10").Add(23 * time.Hour), To: day(t, "2026-03-15").Add(time.Minute)}, inRange)
	check("from alone", einvoice.DocumentFilter{From: day(t, "2026-03-12")}, result{4, ids(sent, after, lastDay, note)})
	check("to alone", einvoice.DocumentFilter{To: day(t, "2026-03-09")}, result{1, ids(beforeMidnight)})
	check("one day", einvoice.DocumentFilter{From: day(t, "2026-03-10"), To: day(t, "2026-03-10")}, result{2, ids(midnight, erp)})
	check("from after to", einvoice.DocumentFilter{From: day(t, "2026-03-11"), To: day(t, "2026-03-10")}, result{0, ids()})
	check("a range with nothing", einvoice.DocumentFilter{From: day(t, "2025-01-01"), To: day(t, "2025-12-31")}, result{0, ids()})
	check("no bounds: the kept counts", einvoice.DocumentFilter{}, result{7, ids(sent, after, lastDay, note, midnight, beforeMidnight, erp)})

	// Combined with the other filters.
	check("and status", einvoice.DocumentFilter{From: day(t, "2026-03-10"), To: day(t, "2026-03-15"), Status: einvoice.StatusSubmitted}, result{1, ids(sent)})
	check("and another status", einvoice.DocumentFilter{To: day(t, "2026-03-15"), Status: einvoice.StatusDraft}, result{5, ids(lastDay, note, midnight, beforeMidnight, erp)})
	check("and type", einvoice.DocumentFilter{From: day(t, "2026-03-10"), To: day(t, "2026-03-15"), Kind: einvoice.KindCreditNote}, result{1, ids(note)})
	check("and search", einvoice.DocumentFilter{From: day(t, "2026-03-10"), To: day(t, "2026-03-15"), Search: "inv-"}, result{4, ids(sent, lastDay, midnight, erp)})
	check("and search, type and status", einvoice.DocumentFilter{From: day(t, "2026-03-10"), Search: "INV", Kind: einvoice.KindInvoice,
		Status: einvoice.StatusDraft}, result{4, ids(after, lastDay, midnight, erp)})

	// Paging: the total is the range's on every page.
	page := func(n int) einvoice.DocumentFilter {
		return einvoice.DocumentFilter{From: day(t, "2026-03-10"), To: day(t, "2026-03-15"), PageRequest: einvoice.PageRequest{Page: n, PerPage: 2}}
	}
	check("page 1", page(1), result{5, ids(sent, lastDay)})
	check("page 2", page(2), result{5, ids(note, midnight)})
	check("page 3", page(3), result{5, ids(erp)})
	check("page 4", page(4), result{5, ids()})

	// An update moves the issue date with erpIssuedAt: given, changed, removed.
	update := func(d *einvoice.Document, erpIssuedAt *time.Time) {
		t.Helper()
		d.ErpIssuedAt, d.UpdatedAt = erpIssuedAt, d.UpdatedAt.Add(time.Minute)
		if err := s.UpdateDocument(ctx, d, []einvoice.Status{einvoice.StatusDraft, einvoice.StatusReady}, nil); err != nil {
			t.Fatalf("UpdateDocument: %v", err)
		}
	}
	update(lastDay, ptr(time.Date(2026, 4, 1, 0, 30, 0, 0, myt))) // 03-31 in UTC
	check("erpIssuedAt given by an update", einvoice.DocumentFilter{From: day(t, "2026-03-10"), To: day(t, "2026-03-15")}, result{4, ids(sent, note, midnight, erp)})
	check("at its new date", einvoice.DocumentFilter{From: day(t, "2026-03-31"), To: day(t, "2026-03-31")}, result{1, ids(lastDay)})
	update(erp, ptr(time.Date(2026, 3, 31, 12, 0, 0, 0, time.UTC)))
	check("erpIssuedAt changed by an update", einvoice.DocumentFilter{From: day(t, "2026-03-31")}, result{2, ids(lastDay, erp)})
	update(lastDay, nil)
	update(erp, nil)
	check("erpIssuedAt removed: the creation again", einvoice.DocumentFilter{To: day(t, "2026-03-01")}, result{1, ids(erp)})
	check("and the other back in range", einvoice.DocumentFilter{From: day(t, "2026-03-15"), To: day(t, "2026-03-15")}, result{1, ids(lastDay)})

	// A status change alone keeps it; a delete takes it out of the count.
	if err := s.TransitionDocument(ctx, a.ID, midnight.ID, einvoice.StatusDraft, midnight.UpdatedAt, event(einvoice.StatusReady, midnight.UpdatedAt.Add(time.Hour))); err != nil {
		t.Fatalf("TransitionDocument: %v", err)
	}
	check("after a transition", einvoice.DocumentFilter{From: day(t, "2026-03-10"), To: day(t, "2026-03-10"), Status: einvoice.StatusReady}, result{1, ids(midnight)})
	if err := s.DeleteDocument(ctx, a.ID, note.ID, []einvoice.Status{einvoice.StatusDraft}); err != nil {
		t.Fatalf("DeleteDocument: %v", err)
	}
	check("after a delete", einvoice.DocumentFilter{From: day(t, "2026-03-12"), To: day(t, "2026-03-12")}, result{1, ids(sent)})
}
