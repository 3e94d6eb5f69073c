package e2e

import (
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

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
	eachEngine(t, func(t *testing.T, dsn string) {
		clk := &testclock.Clock{}
		svc := startServiceAt(t, dsn, clk.Now, "--rate-limit", "100000", "--sandbox-delay", "0")
		c := svc.client(t, svc.DemoKey)
		c.do("PUT", "/api/v1/profile", sampleProfile()).want(t, 200, "")
		buyer := str(c.do("POST", "/api/v1/buyers", sampleBuyer()).want(t, 201, "").data()["id"])

		utcDate := func(v any) time.Time {
			t.Helper()
			at, err := time.Parse(time.RFC3339Nano, str(v))
			if err != nil {
				t.Fatalf("not a time: %v", v)
			}
			y, m, d := at.UTC().Date()
			return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
		}
		ymd := func(d time.Time) string { return d.Format(time.DateOnly) }
		create := func(serial string, erpIssuedAt string) map[string]any {
			t.Helper()
			body := singleLineBody(serial)
			body["buyerId"] = buyer
			if erpIssuedAt != "" {
				body["erpIssuedAt"] = erpIssuedAt
			}
			return c.do("POST", "/api/v1/invoices", body).want(t, 201, "").data()
		}

		// A draft: its creation date.
		draft := create("PER-DRAFT-1", "")
		today := utcDate(draft["createdAt"])
		// erpIssuedAt ten days ago, and one at 07:00 in Malaysia on the day
		// after five days ago, 23:00 UTC five days ago.
		erpOld := create("PER-ERP-1", ymd(today.AddDate(0, 0, -10))+"T12:00:00Z")
		erpMYT := create("PER-ERP-2", ymd(today.AddDate(0, 0, -4))+"T07:00:00+08:00")
		// A document sent two days after its creation: the moment of
		// submission (no erpIssuedAt).
		sentID := c.readyInvoice("PER-SENT-1", buyer)
		clk.Advance(48 * time.Hour)
		c.do("POST", "/api/v1/documents/"+sentID+"/submit", nil).want(t, 200, "")
		sent := c.do("GET", "/api/v1/invoices/"+sentID, nil).want(t, 200, "").data()
		auth, _ := sent["authority"].(map[string]any)
		sentDay := utcDate(auth["issuedAt"])
		if created := utcDate(sent["createdAt"]); !sentDay.After(created) {
			t.Fatalf("issued %s, created %s: the test wants the submission on a later day", sentDay, created)
		}

		list := func(query url.Values) (int, []string) {
			t.Helper()
			r := c.do("GET", "/api/v1/invoices?"+query.Encode(), nil).want(t, 200, "")
			items, _ := r.Body["data"].([]any)
			serials := []string{}
			for _, it := range items {
				serials = append(serials, str(it.(map[string]any)["invoiceSerialNumber"]))
			}
			m, _ := r.Body["meta"].(map[string]any)
			total, _ := m["total"].(float64)
			return int(total), serials
		}
		q := func(kv ...string) url.Values {
			v := url.Values{}
			for i := 0; i+1 < len(kv); i += 2 {
				v.Set(kv[i], kv[i+1])
			}
			return v
		}
		check := func(name string, query url.Values, total int, serials ...string) {
			t.Helper()
			n, got := list(query)
			if diff := cmp.Diff(append([]string{}, serials...), got); diff != "" || n != total {
				t.Errorf("%s (?%s): total %d, want %d; serials (-want +got):\n%s", name, query.Encode(), n, total, diff)
			}
		}
		day := func(offset int) string { return ymd(today.AddDate(0, 0, offset)) }
		sentOn := ymd(sentDay)

		check("today: the draft, not the document created today but sent later", q("from", day(0), "to", day(0)), 1, "PER-DRAFT-1")
		check("the day of submission", q("from", sentOn, "to", sentOn), 1, "PER-SENT-1")
		check("from alone", q("from", day(-5)), 3, "PER-SENT-1", "PER-ERP-2", "PER-DRAFT-1")
		check("to alone", q("to", day(-5)), 2, "PER-ERP-2", "PER-ERP-1")
		check("erpIssuedAt as a UTC date, both ends included", q("from", day(-10), "to", day(-5)), 2, "PER-ERP-2", "PER-ERP-1")
		check("the UTC date, not Malaysia's", q("from", day(-4), "to", day(-4)), 0)
		check("every document", q("from", day(-10), "to", sentOn), 4, "PER-SENT-1", "PER-ERP-2", "PER-ERP-1", "PER-DRAFT-1")
		check("and status", q("from", day(-10), "to", sentOn, "status", "draft"), 3, "PER-ERP-2", "PER-ERP-1", "PER-DRAFT-1")
		check("and type", q("from", day(-10), "to", sentOn, "type", "credit_note"), 0)
		check("and search", q("from", day(-10), "to", sentOn, "search", "per-erp"), 2, "PER-ERP-2", "PER-ERP-1")
		check("and search and type", q("to", day(0), "search", "PER-", "type", "invoice"), 3, "PER-ERP-2", "PER-ERP-1", "PER-DRAFT-1")
		check("page 2 of 1", q("from", day(-10), "to", sentOn, "status", "draft", "per_page", "1", "page", "2"), 3, "PER-ERP-1")
		check("past the last page", q("from", day(-10), "to", sentOn, "per_page", "2", "page", "3"), 4)
		check("no bounds", q(), 4, "PER-SENT-1", "PER-ERP-2", "PER-ERP-1", "PER-DRAFT-1")

		// A PUT moves the document with its erpIssuedAt, and back to its
		// creation without one.
		put := func(d map[string]any, erpIssuedAt any) {
			t.Helper()
			body := singleLineBody(str(d["invoiceSerialNumber"]))
			body["buyerId"], body["erpIssuedAt"] = buyer, erpIssuedAt
			c.do("PUT", "/api/v1/invoices/"+str(d["id"]), body).want(t, 200, "")
		}
		put(erpOld, day(-7)+"T00:00:00Z")
		check("erpIssuedAt changed", q("from", day(-7), "to", day(-7)), 1, "PER-ERP-1")
		check("not at the old date", q("to", day(-8)), 0)
		put(erpMYT, nil)
		check("erpIssuedAt removed: the creation", q("from", day(0), "to", day(0)), 2, "PER-ERP-2", "PER-DRAFT-1")

		// Bad values: 422 naming the parameter, with the other problems.
		for _, bad := range []struct {
			query  string
			fields []string
		}{
			{"from=2026-02-30", []string{"from"}},
			{"to=20260131", []string{"to"}},
			{"from=2026-01-01T00:00:00Z", []string{"from"}},
			{"from=yesterday&to=today", []string{"from", "to"}},
			{"from=" + day(0) + "&to=" + day(-1), []string{"to"}},
			{"from=" + day(0) + "&to=" + day(-1) + "&status=paid&type=bill", []string{"status", "to", "type"}},
			{"from=1-1-1&per_page=0", []string{"from", "per_page"}},
		} {
			r := c.do("GET", "/api/v1/invoices?"+bad.query, nil).want(t, 422, "VALIDATION_FAILED")
			var got []string
			for f, msgs := range r.fieldErrors() {
				got = append(got, f)
				if ms, _ := msgs.([]any); len(ms) == 0 || str(ms[0]) == "" {
					t.Errorf("?%s: %s has no message", bad.query, f)
				}
			}
			slices.Sort(got)
			if !slices.Equal(got, bad.fields) {
				t.Errorf("?%s: fields %v, want %v: %s", bad.query, got, bad.fields, r.Raw)
			}
		}
	})
}
