package lifecycle

import (
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/einvoice/einvoice/internal/e2e/e2etest"

	"github.com/google/go-cmp/cmp"

	"github.com/einvoice/einvoice/client"
	"github.com/einvoice/einvoice/internal/testclock"
)

// TestPeriodList: GET /invoices?from=&to= bounds the issue date, both ends
// included: erpIssuedAt as a UTC date when given, else the moment of
// submission once sent, else (a draft) the creation. The bounds combine
// with status, type, search and paging, meta.total counts the range, and a
// PUT that changes erpIssuedAt moves the document. A bad date, or to
// before from, is a 422 naming the parameter, merged with the query's other
// problems.
func TestPeriodList(t *testing.T) {
	t.Parallel()
	e2etest.EachEngine(t, func(t *testing.T, dsn string) {
		clk := &testclock.Clock{}
		svc := e2etest.StartServiceAt(t, dsn, clk.Now, "--rate-limit", "100000", "--sandbox-delay", "0")
		ctx := t.Context()
		c := svc.Client(t, svc.DemoKey)
		api := svc.API(t, svc.DemoKey)
		prof, err := api.Profile.Update(ctx, e2etest.TypedBody[client.Profile](t, e2etest.SampleProfile()), nil)
		e2etest.Must(t, prof, err)
		buyer, err := api.Buyers.Create(ctx, e2etest.TypedBody[client.Party](t, e2etest.SampleBuyer()))
		buyerID := e2etest.Must(t, buyer, err).ID

		utcDate := func(at time.Time) time.Time {
			y, m, d := at.UTC().Date()
			return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
		}
		ymd := func(d time.Time) string { return d.Format(time.DateOnly) }
		body := func(serial string, erpIssuedAt string) *client.Document {
			t.Helper()
			d := e2etest.TypedBody[client.Document](t, e2etest.SingleLineBody(serial))
			d.BuyerID = buyerID
			if erpIssuedAt != "" {
				at, err := time.Parse(time.RFC3339, erpIssuedAt)
				if err != nil {
					t.Fatalf("not a time: %v", erpIssuedAt)
				}
				d.ErpIssuedAt = &at
			}
			return d
		}
		create := func(serial string, erpIssuedAt string) *client.Document {
			t.Helper()
			d, err := api.Documents.Create(ctx, body(serial, erpIssuedAt))
			return e2etest.Must(t, d, err)
		}

		// A draft: its creation date.
		draft := create("PER-DRAFT-1", "")
		today := utcDate(draft.CreatedAt)
		// erpIssuedAt ten days ago, and one at 07:00 in Malaysia on the day
		// after five days ago, 23:00 UTC five days ago.
		erpOld := create("PER-ERP-1", ymd(today.AddDate(0, 0, -10))+"T12:00:00Z")
		erpMYT := create("PER-ERP-2", ymd(today.AddDate(0, 0, -4))+"T07:00:00+08:00")
		// A document sent two days after its creation: the moment of
		// submission (no erpIssuedAt).
		sentID := e2etest.ReadyInvoiceDoc(t, api, "PER-SENT-1", buyerID)
		clk.Advance(48 * time.Hour)
		e2etest.TypedSubmit(t, api, sentID)
		sent, err := api.Documents.Get(ctx, sentID)
		if e2etest.Must(t, sent, err).Authority == nil || sent.Authority.IssuedAt == nil {
			t.Fatalf("not a time: the sent document's authority = %+v", sent.Authority)
		}
		sentDay := utcDate(*sent.Authority.IssuedAt)
		if created := utcDate(sent.CreatedAt); !sentDay.After(created) {
			t.Fatalf("issued %s, created %s: the test wants the submission on a later day", sentDay, created)
		}

		type q = client.DocumentListOptions
		list := func(o q) (int, []string) {
			t.Helper()
			p, err := api.Documents.List(ctx, &o)
			e2etest.Must(t, p, err)
			serials := []string{}
			for _, d := range p.Items {
				serials = append(serials, d.InvoiceSerialNumber)
			}
			return p.Meta.Total, serials
		}
		check := func(name string, o q, total int, serials ...string) {
			t.Helper()
			n, got := list(o)
			if diff := cmp.Diff(append([]string{}, serials...), got); diff != "" || n != total {
				t.Errorf("%s (%+v): total %d, want %d; serials (-want +got):\n%s", name, o, n, total, diff)
			}
		}
		day := func(offset int) time.Time { return today.AddDate(0, 0, offset) }
		page := func(page, perPage int) client.ListOptions { return client.ListOptions{Page: page, PerPage: perPage} }

		check("today: the draft, not the document created today but sent later", q{From: day(0), To: day(0)}, 1, "PER-DRAFT-1")
		check("the day of submission", q{From: sentDay, To: sentDay}, 1, "PER-SENT-1")
		check("from alone", q{From: day(-5)}, 3, "PER-SENT-1", "PER-ERP-2", "PER-DRAFT-1")
		check("to alone", q{To: day(-5)}, 2, "PER-ERP-2", "PER-ERP-1")
		check("erpIssuedAt as a UTC date, both ends included", q{From: day(-10), To: day(-5)}, 2, "PER-ERP-2", "PER-ERP-1")
		check("the UTC date, not Malaysia's", q{From: day(-4), To: day(-4)}, 0)
		check("every document", q{From: day(-10), To: sentDay}, 4, "PER-SENT-1", "PER-ERP-2", "PER-ERP-1", "PER-DRAFT-1")
		check("and status", q{From: day(-10), To: sentDay, Status: client.StatusDraft}, 3, "PER-ERP-2", "PER-ERP-1", "PER-DRAFT-1")
		check("and type", q{From: day(-10), To: sentDay, Type: client.TypeCreditNote}, 0)
		check("and search", q{From: day(-10), To: sentDay, Search: "per-erp"}, 2, "PER-ERP-2", "PER-ERP-1")
		check("and search and type", q{To: day(0), Search: "PER-", Type: client.TypeInvoice}, 3, "PER-ERP-2", "PER-ERP-1", "PER-DRAFT-1")
		check("page 2 of 1", q{From: day(-10), To: sentDay, Status: client.StatusDraft, ListOptions: page(2, 1)}, 3, "PER-ERP-1")
		check("past the last page", q{From: day(-10), To: sentDay, ListOptions: page(3, 2)}, 4)
		check("no bounds", q{}, 4, "PER-SENT-1", "PER-ERP-2", "PER-ERP-1", "PER-DRAFT-1")
		// Every page of the range, one document a page, newest first.
		var walked []string
		for d, err := range api.Documents.All(ctx, &q{From: day(-10), To: sentDay, ListOptions: page(0, 1)}) {
			walked = append(walked, e2etest.Must(t, d, err).InvoiceSerialNumber)
		}
		if diff := cmp.Diff([]string{"PER-SENT-1", "PER-ERP-2", "PER-ERP-1", "PER-DRAFT-1"}, walked); diff != "" {
			t.Errorf("All, a page of 1 at a time (-want +got):\n%s", diff)
		}

		// A PUT moves the document with its erpIssuedAt, and back to its
		// creation without one.
		put := func(d *client.Document, erpIssuedAt string) {
			t.Helper()
			got, err := api.Documents.Update(ctx, d.ID, body(d.InvoiceSerialNumber, erpIssuedAt))
			e2etest.Must(t, got, err)
		}
		put(erpOld, ymd(day(-7))+"T00:00:00Z")
		check("erpIssuedAt changed", q{From: day(-7), To: day(-7)}, 1, "PER-ERP-1")
		check("not at the old date", q{To: day(-8)}, 0)
		put(erpMYT, "")
		check("erpIssuedAt removed: the creation", q{From: day(0), To: day(0)}, 2, "PER-ERP-2", "PER-DRAFT-1")

		// Bad values: 422 naming the parameter, with the other problems. A
		// date the typed client cannot hold (not a date, not YYYY-MM-DD) and
		// per_page=0 are written out in the query.
		for _, bad := range []struct {
			query  string
			opts   *client.DocumentListOptions
			fields []string
		}{
			{"from=2026-02-30", nil, []string{"from"}},
			{"to=20260131", nil, []string{"to"}},
			{"from=2026-01-01T00:00:00Z", nil, []string{"from"}},
			{"from=yesterday&to=today", nil, []string{"from", "to"}},
			{"", &q{From: day(0), To: day(-1)}, []string{"to"}},
			{"", &q{From: day(0), To: day(-1), Status: "paid", Type: "bill"}, []string{"status", "to", "type"}},
			{"from=1-1-1&per_page=0", nil, []string{"from", "per_page"}},
		} {
			var problems map[string][]string
			var answer []byte
			what := bad.query
			if bad.opts != nil {
				_, err := api.Documents.List(ctx, bad.opts)
				e := e2etest.WantErr(t, err, 422, client.CodeValidationFailed)
				problems, answer, what = e.Fields, e.Body, ymd(bad.opts.From)+".."+ymd(bad.opts.To)
			} else {
				r := c.Do("GET", "/api/v1/invoices?"+bad.query, nil).Want(t, 422, "VALIDATION_FAILED")
				problems, answer = map[string][]string{}, r.Raw
				for f, msgs := range r.FieldErrors() {
					problems[f] = nil
					if ms, _ := msgs.([]any); len(ms) > 0 {
						problems[f] = []string{e2etest.Str(ms[0])}
					}
				}
			}
			for f, msgs := range problems {
				if len(msgs) == 0 || msgs[0] == "" {
					t.Errorf("?%s: %s has no message", what, f)
				}
			}
			if got := slices.Sorted(maps.Keys(problems)); !slices.Equal(got, bad.fields) {
				t.Errorf("?%s: fields %v, want %v: %s", what, got, bad.fields, answer)
			}
		}
	})
}
