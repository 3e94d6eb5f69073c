package sandbox_test

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/einvoice/einvoice/internal/sandbox"
)

// The tests of this file call the endpoints of reference 1.4 the way a
// client written from the reference would: raw requests, paths and
// parameters as the reference spells them.

// TestDocumentTypes: the three document-type calls.
func TestDocumentTypes(t *testing.T) {
	t.Parallel()
	eachEngine(t, func(t *testing.T, e *env) {
		_, hs := e.server()
		c := login(t, hs.URL, "erp-1", "")
		r := c.do(http.MethodGet, "/api/v1.0/documenttypes", nil)
		list, _ := r.JSON(t)["result"].([]any)
		if r.Status != http.StatusOK || len(list) != 8 {
			t.Fatalf("document types: %d %s", r.Status, r.Body)
		}
		first := list[0].(map[string]any)
		versions, _ := first["documentTypeVersions"].([]any)
		if first["id"] != float64(1) || first["invoiceTypeCode"] != float64(1) || first["description"] != "Invoice" || len(versions) != 4 {
			t.Errorf("first type: %v", first)
		}
		last := list[7].(map[string]any)
		if last["id"] != float64(14) || last["description"] != "Self-billed Refund Note" {
			t.Errorf("last type: %v", last)
		}
		v1 := versions[1].(map[string]any)
		if v1["id"] != float64(101) || v1["name"] != "1.1" || v1["versionNumber"] != 1.1 || v1["status"] != "published" || v1["activeFrom"] == nil {
			t.Errorf("version 1.1: %v", v1)
		}

		r = c.do(http.MethodGet, "/api/v1.0/documenttypes/11", nil)
		one := r.JSON(t)
		params, _ := one["workflowParameters"].([]any)
		if r.Status != http.StatusOK || one["invoiceTypeCode"] != float64(11) || one["description"] != "Self-billed Invoice" || len(params) != 3 {
			t.Fatalf("type 11: %d %s", r.Status, r.Body)
		}
		var names []string
		for _, p := range params {
			pm := p.(map[string]any)
			names = append(names, pm["parameter"].(string))
			if pm["value"] != float64(72) {
				t.Errorf("parameter %v", pm)
			}
		}
		if !slices.Equal(names, []string{"submissionDuration", "cancellationDuration", "rejectionDuration"}) {
			t.Errorf("workflow parameters %v", names)
		}

		r = c.do(http.MethodGet, "/api/v1.0/documenttypes/2/versions/203", nil)
		if v := r.JSON(t); r.Status != http.StatusOK || v["invoiceTypeCode"] != float64(2) || v["name"] != "1.3" || v["description"] != "Credit Note version 1.3" {
			t.Errorf("type 2 version 1.3: %d %s", r.Status, r.Body)
		}
		for _, path := range []string{"/api/v1.0/documenttypes/5", "/api/v1.0/documenttypes/abc", "/api/v1.0/documenttypes/01",
			"/api/v1.0/documenttypes/1/versions/201", "/api/v1.0/documenttypes/1/versions/x"} {
			if r := c.do(http.MethodGet, path, nil); r.Status != http.StatusNotFound || r.errorCode(t) != "NotFound" {
				t.Errorf("%s: %d %s, want 404", path, r.Status, r.Body)
			}
		}
		if r := newClient(t, hs.URL).do(http.MethodGet, "/api/v1.0/documenttypes", nil); r.Status != http.StatusUnauthorized {
			t.Errorf("without a token: %d", r.Status)
		}
	})
}

// recentUUIDs calls Get Recent Documents with q and returns the uuids and
// the decoded body.
func recentUUIDs(t *testing.T, c *client, q url.Values) (int, []string, map[string]any) {
	t.Helper()
	r := c.do(http.MethodGet, "/api/v1.0/documents/recent?"+q.Encode(), nil)
	if r.Status != http.StatusOK {
		return r.Status, nil, nil
	}
	body := r.JSON(t)
	var ids []string
	for _, d := range body["result"].([]any) {
		ids = append(ids, d.(map[string]any)["uuid"].(string))
	}
	return r.Status, ids, body
}

// notificationsOf calls Get Notifications with q and returns "typeId/uuid"
// of each (the uuid read from the message) and hasNext.
func notificationsOf(t *testing.T, c *client, q url.Values, uuids ...string) (int, []string, bool) {
	t.Helper()
	r := c.do(http.MethodGet, "/api/v1.0/notifications/taxpayer?"+q.Encode(), nil)
	if r.Status != http.StatusOK {
		return r.Status, nil, false
	}
	body := r.JSON(t)
	var out []string
	for _, n := range body["result"].([]any) {
		nm := n.(map[string]any)
		if nm["status"] != "delivered" || nm["language"] != "en" || nm["notificationId"] == "" || nm["typeName"] == "" {
			t.Errorf("notification %v", nm)
		}
		for _, id := range uuids {
			if strings.Contains(nm["finalMessage"].(string), id) {
				out = append(out, nm["typeId"].(string)+"/"+id)
			}
		}
	}
	hasNext, _ := body["metadata"].(map[string]any)["hasNext"].(bool)
	return r.Status, out, hasNext
}

// TestReceivedDocuments: a document issued to the TIN another client is
// bound to is that client's received document: in its recent documents,
// search and notifications, readable, and only it may reject it; only the
// issuer cancels. A third client sees nothing of it.
func TestReceivedDocuments(t *testing.T) {
	t.Parallel()
	eachEngine(t, func(t *testing.T, e *env) {
		_, hs := e.server()
		a := loginAs(t, hs.URL, "erp-a", supplierTIN)
		b := loginAs(t, hs.URL, "erp-b", buyerTIN)
		stranger := loginAs(t, hs.URL, "erp-c", "C30000000010")
		start := e.clock.Now()
		id := a.submitOne(invoice(invoiceOpts{code: "RCV-1", issued: start}))
		e.clock.Advance(time.Second)
		invalid := a.submitOne(invoice(invoiceOpts{code: "RCV-2", issued: start.Add(time.Hour)})) // in the future: Invalid
		e.clock.Advance(time.Minute)

		received := url.Values{"InvoiceDirection": {"Received"}}
		if _, got, body := recentUUIDs(t, b, received); !slices.Equal(got, []string{id}) {
			t.Errorf("B's received recent documents = %v, want [%s]", got, id)
		} else {
			d := body["result"].([]any)[0].(map[string]any)
			if d["supplierTin"] != supplierTIN || d["buyerTin"] != buyerTIN || d["status"] != "Valid" || d["internalId"] != "RCV-1" ||
				d["total"] != float64(106) || d["submissionChannel"] != "ERP" || body["metadata"].(map[string]any)["totalCount"] != float64(1) {
				t.Errorf("received document: %v", d)
			}
		}
		if _, got, _ := recentUUIDs(t, a, url.Values{}); !slices.Equal(got, []string{invalid, id}) {
			t.Errorf("A's sent recent documents = %v", got)
		}
		if _, got, _ := recentUUIDs(t, a, received); len(got) != 0 {
			t.Errorf("A received %v", got)
		}
		window := url.Values{"submissionDateFrom": {start.Add(-time.Hour).Format(time.RFC3339)}, "submissionDateTo": {e.clock.Now().Format(time.RFC3339)},
			"invoiceDirection": {"Received"}}
		r := b.do(http.MethodGet, "/api/v1.0/documents/search?"+window.Encode(), nil)
		if res, _ := r.JSON(t)["result"].([]any); r.Status != http.StatusOK || len(res) != 1 || res[0].(map[string]any)["uuid"] != id {
			t.Errorf("B's received search: %d %s", r.Status, r.Body)
		}
		for _, path := range []string{"/raw", "/details"} {
			if r := b.do(http.MethodGet, "/api/v1.0/documents/"+id+path, nil); r.Status != http.StatusOK {
				t.Errorf("B reads %s: %d %s", path, r.Status, r.Body)
			}
			if r := b.do(http.MethodGet, "/api/v1.0/documents/"+invalid+path, nil); r.Status != http.StatusNotFound {
				t.Errorf("B reads the Invalid one's %s: %d", path, r.Status)
			}
			if r := stranger.do(http.MethodGet, "/api/v1.0/documents/"+id+path, nil); r.Status != http.StatusNotFound {
				t.Errorf("a stranger reads %s: %d", path, r.Status)
			}
		}
		if _, got, _ := recentUUIDs(t, stranger, received); len(got) != 0 {
			t.Errorf("a stranger received %v", got)
		}
		if _, got, _ := notificationsOf(t, b, url.Values{}, id, invalid); !slices.Equal(got, []string{"6/" + id}) {
			t.Errorf("B's notifications = %v", got)
		}
		if _, got, _ := notificationsOf(t, a, url.Values{}, id, invalid); !slices.Equal(got, []string{"7/" + id}) {
			t.Errorf("A's notifications = %v", got)
		}

		// A cannot reject its own document, B cannot cancel it; B rejects.
		if r := a.state(id, "rejected", "mine"); r.Status != http.StatusForbidden || r.errorCode(t) != "Forbidden" {
			t.Errorf("A rejects: %d %s", r.Status, r.Body)
		}
		if r := stranger.state(id, "rejected", "not mine"); r.Status != http.StatusForbidden {
			t.Errorf("a stranger rejects: %d %s", r.Status, r.Body)
		}
		if r := b.state(id, "cancelled", "not mine"); r.Status != http.StatusForbidden || r.errorCode(t) != "Forbidden" {
			t.Errorf("B cancels: %d %s", r.Status, r.Body)
		}
		e.clock.Advance(time.Minute)
		if r := b.state(id, "rejected", "wrong price"); r.Status != http.StatusOK || r.JSON(t)["status"] != "Requested for Rejection" {
			t.Fatalf("B rejects: %d %s", r.Status, r.Body)
		}
		e.clock.Advance(time.Minute)
		if _, got, _ := notificationsOf(t, a, url.Values{}, id); !slices.Equal(got, []string{"15/" + id, "7/" + id}) {
			t.Errorf("A's notifications after the rejection = %v", got)
		}
		if r := a.state(id, "cancelled", "rejected by the buyer"); r.Status != http.StatusOK {
			t.Fatalf("A cancels: %d %s", r.Status, r.Body)
		}
		e.clock.Advance(time.Minute)
		if _, got, _ := notificationsOf(t, b, url.Values{}, id); !slices.Equal(got, []string{"8/" + id, "15/" + id, "6/" + id}) {
			t.Errorf("B's notifications after the cancellation = %v", got)
		}
		if _, got, body := recentUUIDs(t, b, received); len(got) != 1 || body["result"].([]any)[0].(map[string]any)["status"] != "Cancelled" {
			t.Errorf("B's received after the cancellation: %v", body)
		}
	})
}

// TestNotificationsFilters: the reference's filters and paging.
func TestNotificationsFilters(t *testing.T) {
	t.Parallel()
	eachEngine(t, func(t *testing.T, e *env) {
		_, hs := e.server()
		a := loginAs(t, hs.URL, "erp-a", supplierTIN)
		var ids []string
		for _, code := range []string{"N-1", "N-2", "N-3"} {
			ids = append(ids, a.submitOne(invoice(invoiceOpts{code: code, issued: e.clock.Now()})))
			e.clock.Advance(time.Minute)
		}
		mid := t0.Add(time.Minute)
		for _, tc := range []struct {
			name    string
			q       url.Values
			want    []string
			hasNext bool
		}{
			{"all, newest first", url.Values{}, []string{"7/" + ids[2], "7/" + ids[1], "7/" + ids[0]}, false},
			{"page 1 of 2", url.Values{"pageSize": {"2"}}, []string{"7/" + ids[2], "7/" + ids[1]}, true},
			{"page 2 of 2", url.Values{"pageSize": {"2"}, "pageNo": {"2"}}, []string{"7/" + ids[0]}, false},
			{"dateFrom", url.Values{"dateFrom": {mid.Format(time.RFC3339)}}, []string{"7/" + ids[2], "7/" + ids[1]}, false},
			{"dateTo", url.Values{"dateTo": {mid.Format(time.RFC3339)}}, []string{"7/" + ids[1], "7/" + ids[0]}, false},
			{"type 7", url.Values{"type": {"7"}}, []string{"7/" + ids[2], "7/" + ids[1], "7/" + ids[0]}, false},
			{"type 6", url.Values{"type": {"6"}}, nil, false},
			{"type 34", url.Values{"type": {"34"}}, nil, false},
			{"language en", url.Values{"language": {"en"}}, []string{"7/" + ids[2], "7/" + ids[1], "7/" + ids[0]}, false},
			{"language ms", url.Values{"language": {"ms"}}, nil, false},
			{"status delivered", url.Values{"status": {"4"}}, []string{"7/" + ids[2], "7/" + ids[1], "7/" + ids[0]}, false},
			{"status pending", url.Values{"status": {"2"}}, nil, false},
		} {
			status, got, hasNext := notificationsOf(t, a, tc.q, ids...)
			if status != http.StatusOK || !slices.Equal(got, tc.want) || hasNext != tc.hasNext {
				t.Errorf("%s: %d %v hasNext %v, want %v %v", tc.name, status, got, hasNext, tc.want, tc.hasNext)
			}
		}
		for _, q := range []url.Values{{"type": {"99"}}, {"language": {"fr"}}, {"status": {"9"}}, {"pageSize": {"101"}},
			{"pageNo": {"0"}}, {"dateFrom": {"yesterday"}}} {
			if status, _, _ := notificationsOf(t, a, q); status != http.StatusBadRequest {
				t.Errorf("%v: %d, want 400", q, status)
			}
		}
	})
}

// TestRecentDocumentsFilters: the last 31 days only, with the filters.
func TestRecentDocumentsFilters(t *testing.T) {
	t.Parallel()
	eachEngine(t, func(t *testing.T, e *env) {
		_, hs := e.server()
		a := loginAs(t, hs.URL, "erp-a", supplierTIN)
		old := a.submitOne(invoice(invoiceOpts{code: "OLD-1", issued: e.clock.Now()}))
		e.clock.Advance(32 * 24 * time.Hour)
		inv := a.submitOne(invoice(invoiceOpts{code: "NEW-1", issued: e.clock.Now()}))
		e.clock.Advance(time.Second)
		note := a.submitOne(invoice(invoiceOpts{code: "NEW-2", typeCode: "02", issued: e.clock.Now(), refs: []string{inv}}))
		for _, tc := range []struct {
			name string
			q    url.Values
			want []string
		}{
			{"31 days", url.Values{}, []string{note, inv}},
			{"documentType", url.Values{"documentType": {"02"}}, []string{note}},
			{"status", url.Values{"status": {"Valid"}, "pageSize": {"1"}}, []string{note}},
			{"issuerTin", url.Values{"issuerTin": {supplierTIN}}, []string{note, inv}},
			{"receiverTin", url.Values{"receiverTin": {"C1"}}, nil},
		} {
			if status, got, _ := recentUUIDs(t, a, tc.q); status != http.StatusOK || !slices.Equal(got, tc.want) {
				t.Errorf("%s: %d %v, want %v", tc.name, status, got, tc.want)
			}
		}
		_ = old
		for _, q := range []url.Values{{"pageSize": {"101"}}, {"InvoiceDirection": {"Both"}}, {"documentType": {"05"}}, {"status": {"Lost"}}} {
			if status, _, _ := recentUUIDs(t, a, q); status != http.StatusBadRequest {
				t.Errorf("%v: %d, want 400", q, status)
			}
		}
	})
}

// TestSearchTINAndQR: search TIN and taxpayer QR info answer from the
// taxpayers bound to clients.
func TestSearchTINAndQR(t *testing.T) {
	t.Parallel()
	eachEngine(t, func(t *testing.T, e *env) {
		sb, hs := e.server()
		ctx := context.Background()
		for _, c := range []sandbox.Client{
			{ID: "erp-a", Secret: "secret-erp-a", TIN: "C40000000010", IDType: "BRN", IDValue: "202401000001", Name: "Alpha Sdn. Bhd."},
			{ID: "erp-b", Secret: "secret-erp-b", TIN: "IG40000000001", IDType: "NRIC", IDValue: "900101015555", Name: "Beta"},
			{ID: "erp-c", Secret: "secret-erp-c", TIN: "C50000000010", IDType: "BRN", IDValue: "202401000002", Name: "Beta"},
		} {
			if err := sb.AddClient(ctx, c); err != nil {
				t.Fatal(err)
			}
		}
		c := login1(t, hs.URL, "erp-a", "")
		for _, tc := range []struct {
			name   string
			q      url.Values
			status int
			tin    string
		}{
			{"name", url.Values{"taxpayerName": {"alpha sdn. bhd."}}, 200, "C40000000010"},
			{"id", url.Values{"idType": {"NRIC"}, "idValue": {"900101015555"}}, 200, "IG40000000001"},
			{"id and name", url.Values{"idType": {"BRN"}, "idValue": {"202401000002"}, "taxpayerName": {"Beta"}}, 200, "C50000000010"},
			{"two match", url.Values{"taxpayerName": {"Beta"}}, 400, ""},
			{"fileType 1", url.Values{"taxpayerName": {"Beta"}, "fileType": {"1"}}, 200, "IG40000000001"},
			{"fileType 2", url.Values{"taxpayerName": {"Beta"}, "fileType": {"2"}}, 200, "C50000000010"},
			{"none", url.Values{"taxpayerName": {"Gamma"}}, 404, ""},
			{"no criteria", url.Values{}, 400, ""},
			{"idType alone", url.Values{"idType": {"BRN"}}, 400, ""},
			{"bad idType", url.Values{"idType": {"SSN"}, "idValue": {"1"}}, 400, ""},
			{"bad fileType", url.Values{"taxpayerName": {"Beta"}, "fileType": {"3"}}, 400, ""},
		} {
			r := c.do(http.MethodGet, "/api/v1.0/taxpayer/search/tin?"+tc.q.Encode(), nil)
			if r.Status != tc.status || (tc.tin != "" && r.JSON(t)["tin"] != tc.tin) {
				t.Errorf("%s: %d %s, want %d %s", tc.name, r.Status, r.Body, tc.status, tc.tin)
			}
		}

		r := c.do(http.MethodGet, "/api/v1.0/taxpayers/qrcodeinfo/C40000000010", nil)
		info := r.JSON(t)
		if r.Status != http.StatusOK || info["tin"] != "C40000000010" || info["name"] != "Alpha Sdn. Bhd." || info["idType"] != "BRN" ||
			info["idNumber"] != "202401000001" || info["generatedTimestamp"] == "" {
			t.Errorf("QR info: %d %s", r.Status, r.Body)
		}
		for _, text := range []string{"C60000000010", "not-a-tin"} {
			if r := c.do(http.MethodGet, "/api/v1.0/taxpayers/qrcodeinfo/"+text, nil); r.Status != http.StatusNotFound || r.errorCode(t) != "NotFound" {
				t.Errorf("QR info of %s: %d %s", text, r.Status, r.Body)
			}
		}
	})
}
