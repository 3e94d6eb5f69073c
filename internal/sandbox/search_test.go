package sandbox_test

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"testing"
	"time"
)

func TestSearch(t *testing.T) {
	t.Parallel()
	eachEngine(t, func(t *testing.T, e *env) {
		_, hs := e.server()
		c := login(t, hs.URL, "erp-1", "")
		other := loginAs(t, hs.URL, "erp-2", "C30000000010")
		start := e.clock.Now()
		var ids []string // oldest first
		for i, code := range []string{"Q-1", "Q-2", "Q-3", "Q-4"} {
			buyer := buyerTIN
			if i == 3 {
				buyer = "IG999999999" // Invalid
			}
			ids = append(ids, c.submitOne(invoice(invoiceOpts{code: code, issued: e.clock.Now(), buyer: buyer})))
			e.clock.Advance(time.Minute)
		}
		othersID := other.submitOne(invoice(invoiceOpts{code: "Q-1", issued: e.clock.Now(), supplier: "C30000000010"}))
		c.state(ids[1], "cancelled", "mistake")

		search := func(c *client, q url.Values) (int, []string, map[string]any) {
			t.Helper()
			r := c.do(http.MethodGet, "/api/v1.0/documents/search?"+q.Encode(), nil)
			if r.Status != http.StatusOK {
				return r.Status, nil, nil
			}
			body := r.JSON(t)
			var got []string
			for _, d := range body["result"].([]any) {
				got = append(got, d.(map[string]any)["uuid"].(string))
			}
			return r.Status, got, body["metadata"].(map[string]any)
		}
		window := func(extra ...string) url.Values {
			q := url.Values{"submissionDateFrom": {start.Format(time.RFC3339)}, "submissionDateTo": {e.clock.Now().Format(time.RFC3339)}}
			for i := 0; i+1 < len(extra); i += 2 {
				q.Set(extra[i], extra[i+1])
			}
			return q
		}
		for _, tc := range []struct {
			name string
			c    *client
			q    url.Values
			want []string
		}{
			{"all, newest first", c, window(), []string{ids[3], ids[2], ids[1], ids[0]}},
			{"by internalId", c, window("searchQuery", "Q-2"), []string{ids[1]}},
			{"by uuid", c, window("searchQuery", ids[2]), []string{ids[2]}},
			{"by name", c, window("searchQuery", "buyer NAME"), []string{ids[3], ids[2], ids[1], ids[0]}},
			{"wildcards are text", c, window("searchQuery", "%"), nil},
			{"Valid", c, window("status", "Valid"), []string{ids[2], ids[0]}},
			{"Cancelled", c, window("status", "Cancelled"), []string{ids[1]}},
			{"Invalid", c, window("status", "Invalid"), []string{ids[3]}},
			{"page 2 of 3", c, window("pageSize", "3", "pageNo", "2"), []string{ids[0]}},
			{"narrow window", c, url.Values{"submissionDateFrom": {start.Add(time.Minute).Format(time.RFC3339)}, "submissionDateTo": {start.Add(2 * time.Minute).Format(time.RFC3339)}}, []string{ids[2], ids[1]}},
			{"issue dates", c, url.Values{"issueDateFrom": {start.Format(time.RFC3339)}, "issueDateTo": {start.Format(time.RFC3339)}}, []string{ids[0]}},
			{"document type", c, window("documentType", "02"), nil},
			{"another client sees its own only", other, window("searchQuery", "Q-1"), []string{othersID}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				status, got, _ := search(tc.c, tc.q)
				if status != http.StatusOK || !slices.Equal(got, tc.want) {
					t.Errorf("search %v: %d %v, want %v", tc.q, status, got, tc.want)
				}
			})
		}
		if _, _, meta := search(c, window("pageSize", "3")); meta["totalCount"] != float64(4) || meta["totalPages"] != float64(2) {
			t.Errorf("metadata = %v, want 4 documents on 2 pages", meta)
		}
		// Received: Valid and Cancelled documents, of any issuer, whose buyer
		// is the TIN the caller is bound to; an intermediary acting for that
		// TIN receives nothing.
		buyer := loginAs(t, hs.URL, "buyer-erp", buyerTIN)
		agent := login(t, hs.URL, "agent-erp", buyerTIN)
		if _, got, _ := search(agent, window("invoiceDirection", "Received")); len(got) != 0 {
			t.Errorf("an intermediary acting for the buyer received %v", got)
		}
		buyer.submitOne(invoice(invoiceOpts{code: "BUYERS-OWN-1", supplier: buyerTIN, buyer: "C1234567890", issued: time.Now()}))
		if _, got, _ := search(buyer, window("invoiceDirection", "Received")); !slices.Equal(got, []string{othersID, ids[2], ids[1], ids[0]}) {
			t.Errorf("received = %v, want all but the Invalid one", got)
		}
		for _, tc := range []struct {
			name string
			q    url.Values
		}{
			{"no window", url.Values{}},
			{"from only", url.Values{"submissionDateFrom": {start.Format(time.RFC3339)}}},
			{"over 31 days", url.Values{"submissionDateFrom": {start.Add(-32 * 24 * time.Hour).Format(time.RFC3339)}, "submissionDateTo": {start.Format(time.RFC3339)}}},
			{"reversed", url.Values{"submissionDateFrom": {start.Format(time.RFC3339)}, "submissionDateTo": {start.Add(-time.Hour).Format(time.RFC3339)}}},
			{"bad date", url.Values{"submissionDateFrom": {"yesterday"}, "submissionDateTo": {start.Format(time.RFC3339)}}},
			{"bad status", window("status", "Lost")},
			{"bad direction", window("invoiceDirection", "Both")},
			{"bad type", window("documentType", "99")},
			{"pageSize over 100", window("pageSize", "101")},
			{"NUL query", window("searchQuery", "a\x00")},
		} {
			if status, _, _ := search(c, tc.q); status != http.StatusBadRequest {
				t.Errorf("%s: %d, want 400", tc.name, status)
			}
		}
		// Exactly 31 days is allowed.
		q := url.Values{"submissionDateFrom": {start.Add(-31 * 24 * time.Hour).Format(time.RFC3339)}, "submissionDateTo": {start.Format(time.RFC3339)}}
		if status, _, _ := search(c, q); status != http.StatusOK {
			t.Errorf("31 days: %d", status)
		}
	})
}

// TestSearchListsAtMost10000: a window holding more documents than the
// search lists counts 10,000 (100 pages of 100), lists the newest 10,000,
// and nothing past its last page.
func TestSearchListsAtMost10000(t *testing.T) {
	t.Parallel()
	eachEngine(t, func(t *testing.T, e *env) {
		sb, hs := e.server()
		c := login(t, hs.URL, "erp-1", "")
		first := e.clock.Now().Add(-time.Hour)
		if err := sb.Seed(context.Background(), "erp-1", "SEED-", 10050, first, 100*time.Millisecond); err != nil {
			t.Fatal(err)
		}
		page := func(n int) ([]string, map[string]any) {
			t.Helper()
			q := url.Values{"submissionDateFrom": {first.Format(time.RFC3339)}, "submissionDateTo": {e.clock.Now().Format(time.RFC3339)},
				"pageSize": {"100"}, "pageNo": {strconv.Itoa(n)}}
			r := c.do(http.MethodGet, "/api/v1.0/documents/search?"+q.Encode(), nil)
			if r.Status != http.StatusOK {
				t.Fatalf("page %d: %d %s", n, r.Status, r.Body)
			}
			body := r.JSON(t)
			var codes []string
			for _, d := range body["result"].([]any) {
				codes = append(codes, d.(map[string]any)["internalId"].(string))
			}
			return codes, body["metadata"].(map[string]any)
		}
		codes, meta := page(1)
		if meta["totalCount"] != float64(10000) || meta["totalPages"] != float64(100) || len(codes) != 100 || codes[0] != "SEED-10049" {
			t.Errorf("page 1: %v, first %v; want 10,000 on 100 pages, newest first", meta, codes[:1])
		}
		if codes, _ := page(100); len(codes) != 100 || codes[99] != "SEED-00050" {
			t.Errorf("page 100 ends with %v, want SEED-00050 (the 10,000th newest)", codes[len(codes)-1:])
		}
		if codes, _ := page(101); len(codes) != 0 {
			t.Errorf("page 101 lists %d documents, want none", len(codes))
		}
	})
}
