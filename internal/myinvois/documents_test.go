package myinvois

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/einvoice/einvoice/internal/einvoice"
)

func TestGetDocumentDetailsErrors(t *testing.T) {
	f := newFake(t)
	f.handle("GET /api/v1.0/documents/{uuid}/details", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 200, map[string]any{
			"uuid": r.PathValue("uuid"), "submissionUid": "SUB", "internalId": "INV-9", "status": "Invalid",
			"dateTimeReceived": "2026-03-01T10:00:00Z",
			"validationResults": map[string]any{"status": "Invalid", "validationSteps": []any{
				map[string]any{"name": "Step01-Structure Validator", "status": "Valid"},
				map[string]any{"name": "Step08-Document Signature Validator", "status": "Invalid", "error": map[string]any{
					"propertyName": nil, "propertyPath": nil, "errorCode": "Error21", "error": "Document Signature Validator",
					"errorMs": "Pengesah Tandatangan",
					"innerError": []any{map[string]any{"propertyName": "DigestValue", "propertyPath": "Invoice.UBLExtensions.DigestValue",
						"errorCode": "DS320", "error": "Signed properties digest value doesn't match", "errorMs": "Nilai", "innerError": nil}},
				}},
				map[string]any{"name": "Step03-Duplicated Submission Validator", "status": "Invalid", "error": map[string]any{
					"errorCode": "Error03", "error": "Duplicated Submission Validator", "propertyPath": "Invoice.ID",
				}},
				map[string]any{"name": "Step05-Code Validator", "status": "Invalid"},
			}},
		})
	})
	c := New(Options{Logger: testLogger(t)})
	s, err := c.GetDocumentDetails(context.Background(), f.creds(), "DOC 1/2")
	if err != nil {
		t.Fatal(err)
	}
	if s.UUID != "DOC 1/2" || s.Status != "Invalid" || s.CodeNumber != "INV-9" || s.SubmissionUID != "SUB" {
		t.Errorf("state = %+v", s)
	}
	want := []einvoice.AuthorityError{
		{Code: "Error21", Message: "Document Signature Validator", Target: "Step08-Document Signature Validator",
			Details: []einvoice.AuthorityError{{Code: "DS320", Message: "Signed properties digest value doesn't match",
				Target: "DigestValue", PropertyPath: "Invoice.UBLExtensions.DigestValue"}}},
		{Code: "Error03", Message: "Duplicated Submission Validator", Target: "Step03-Duplicated Submission Validator", PropertyPath: "Invoice.ID"},
		{Message: "validation step failed", Target: "Step05-Code Validator"},
	}
	if diff := cmp.Diff(want, s.Errors); diff != "" {
		t.Errorf("Errors (-want +got):\n%s", diff)
	}
}

// TestFindDocumentsMatch: the query's parameters, and which listed
// documents match a sought one: its code number exactly, issued at its
// issue time, submitted no earlier than its Since less the clock slack.
func TestFindDocumentsMatch(t *testing.T) {
	f := newFake(t)
	queries := f.searches(map[string]any{
		"result": []any{
			map[string]any{"uuid": "U2", "submissionUID": "S2", "internalId": "INV-10", "status": "Valid",
				"dateTimeIssued": "2026-03-01T09:58:00Z", "dateTimeReceived": "2026-03-01T09:59:00Z",
				"dateTimeValidated": "2026-03-01T09:59:02Z", "longId": "L2"},
			map[string]any{"uuid": "U3", "submissionUID": "S3", "internalId": "INV-100", "status": "Valid"},
			map[string]any{"uuid": "U4", "submissionUID": "S4", "internalId": "inv-10", "status": "Valid"},
			// Issued at another time: an earlier document with this number.
			map[string]any{"uuid": "U5", "submissionUID": "S5", "internalId": "INV-10", "status": "Invalid",
				"dateTimeIssued": "2026-03-01T09:00:00Z", "dateTimeReceived": "2026-03-01T09:56:00Z"},
			map[string]any{"uuid": "U1", "submissionUID": "S1", "internalId": "INV-10", "status": "Invalid",
				"dateTimeIssued": "2026-03-01T09:58:00+00:00", "dateTimeReceived": "2026-03-01T09:50:00Z"},
			// Before Since less the slack.
			map[string]any{"uuid": "U0", "submissionUID": "S0", "internalId": "INV-10", "status": "Invalid",
				"dateTimeIssued": "2026-03-01T09:58:00Z", "dateTimeReceived": "2026-03-01T08:54:59Z"},
		},
		"metadata": map[string]any{"totalPages": 1, "totalCount": 6},
	})
	clk := newClock()
	c := New(Options{Now: clk.Now, Logger: testLogger(t)})
	issued := time.Date(2026, 3, 1, 9, 58, 0, 0, time.UTC)
	got, err := c.FindDocuments(context.Background(), f.creds(),
		[]einvoice.SoughtDocument{{CodeNumber: "INV-10", IssuedAt: &issued, Since: clk.Now().Add(-time.Hour)}})
	if err != nil {
		t.Fatal(err)
	}
	validated := time.Date(2026, 3, 1, 9, 59, 2, 0, time.UTC)
	issuedU1 := time.Date(2026, 3, 1, 9, 58, 0, 0, time.FixedZone("", 0)).UTC()
	want := einvoice.FindResult{Matches: [][]einvoice.DocumentState{{
		{UUID: "U2", SubmissionUID: "S2", CodeNumber: "INV-10", Status: "Valid", LongID: "L2", IssuedAt: &issued,
			SubmittedAt: time.Date(2026, 3, 1, 9, 59, 0, 0, time.UTC), ValidatedAt: &validated},
		{UUID: "U1", SubmissionUID: "S1", CodeNumber: "INV-10", Status: "Invalid", IssuedAt: &issuedU1,
			SubmittedAt: time.Date(2026, 3, 1, 9, 50, 0, 0, time.UTC)},
	}}, Absent: []bool{false}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("found (-want +got):\n%s", diff)
	}
	if len(*queries) != 1 {
		t.Fatalf("%d queries, want 1", len(*queries))
	}
	wantQ := map[string]string{
		"submissionDateFrom": "2026-03-01T08:55:00Z", // Since, less the clock slack
		"submissionDateTo":   "2026-03-01T10:05:00Z", // now, plus the clock slack
		"invoiceDirection":   "Sent",
		"searchQuery":        "INV-10", // one code number: searched for
		"pageSize":           "100",
		"pageNo":             "1",
	}
	for k, v := range wantQ {
		if q := (*queries)[0].Get(k); q != v {
			t.Errorf("%s = %q, want %q", k, q, v)
		}
	}
}

// TestFindDocumentsWindows: a search further back than 31 days reads
// windows of at most 31 days, newest first, that leave no gap, and a
// document in none of them is absent. Windows older than all but one sought
// document search for that one's code number.
func TestFindDocumentsWindows(t *testing.T) {
	f := newFake(t)
	queries := f.searches(map[string]any{"result": []any{}, "metadata": map[string]any{"totalPages": 0, "totalCount": 0}})
	clk := newClock()
	c := New(Options{Now: clk.Now, Logger: testLogger(t)})
	since := clk.Now().AddDate(0, 0, -70)
	got, err := c.FindDocuments(context.Background(), f.creds(), []einvoice.SoughtDocument{
		{CodeNumber: "INV-1", Since: since}, {CodeNumber: "INV-2", Since: clk.Now().Add(-time.Hour)}})
	if err != nil {
		t.Fatal(err)
	}
	if !got.Absent[0] || !got.Absent[1] {
		t.Errorf("Absent = %v, want both", got.Absent)
	}
	parse := func(s string) time.Time {
		v, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatalf("time %q: %v", s, err)
		}
		return v
	}
	next := clk.Now().Add(5 * time.Minute) // the newest window ends at now plus the slack
	for i, q := range *queries {
		from, to := parse(q.Get("submissionDateFrom")), parse(q.Get("submissionDateTo"))
		text := "INV-1"
		if i == 0 {
			text = ""
		}
		if !to.Equal(next) || to.Sub(from) > 31*24*time.Hour || q.Get("searchQuery") != text {
			t.Errorf("window %d: %s to %s (searchQuery %q), want up to %s, at most 31 days, searchQuery %q", i, from, to, q.Get("searchQuery"), next, text)
		}
		next = from
	}
	if want := since.Add(-5 * time.Minute); !next.Equal(want) || len(*queries) != 3 {
		t.Errorf("%d windows back to %s, want 3 back to %s", len(*queries), next, want)
	}
}

func TestCancelDocument(t *testing.T) {
	f := newFake(t)
	f.handle("PUT /api/v1.0/documents/state/{uuid}/state", func(w http.ResponseWriter, r *http.Request) {
		if ct := r.Header.Get("Content-Type"); ct != "application/json" {
			t.Errorf("Content-Type = %q", ct)
		}
		var body map[string]string
		readJSON(t, r.Body, &body)
		if body["status"] != "cancelled" || body["reason"] != "wrong amount" {
			t.Errorf("body = %v", body)
		}
		switch r.PathValue("uuid") {
		case "OK":
			writeJSON(w, 200, map[string]any{"uuid": "OK", "status": "Cancelled"})
		case "LATE":
			writeJSON(w, 200, map[string]any{"uuid": "LATE", "status": nil, "error": map[string]any{
				"code": "OperationPeriodOver", "message": "The time limit for cancellation has expired"}})
		case "REFERENCED":
			writeJSON(w, 400, map[string]any{"error": map[string]any{"errorCode": "ActiveReferencingDocuments", "error": "Referenced by a note"}})
		}
	})
	c := New(Options{Logger: testLogger(t)})
	ctx := context.Background()
	if err := c.CancelDocument(ctx, f.creds(), "OK", "wrong amount"); err != nil {
		t.Errorf("OK: %v", err)
	}
	err := c.CancelDocument(ctx, f.creds(), "LATE", "wrong amount")
	ce := callErr(t, err)
	if ce.Status != 200 || ce.Body.Code != "OperationPeriodOver" || ce.Temporary() || ce.Unanswered() {
		t.Errorf("200 with an error block: %+v", ce)
	}
	err = c.CancelDocument(ctx, f.creds(), "REFERENCED", "wrong amount")
	ce = callErr(t, err)
	if ce.Status != 400 || ce.Body.Code != "ActiveReferencingDocuments" || ce.Body.Message != "Referenced by a note" || ce.Temporary() {
		t.Errorf("400: %+v", ce)
	}
	if errors.Is(err, ErrTooLarge) {
		t.Error("unrelated sentinel")
	}
}

// searches answers every search with answer and returns the queries asked
// (read them once the calls have returned).
func (f *fakeAuthority) searches(answer map[string]any) *[]url.Values {
	var (
		mu      sync.Mutex
		queries []url.Values
	)
	f.handle("GET /api/v1.0/documents/search", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		queries = append(queries, r.URL.Query())
		mu.Unlock()
		writeJSON(w, 200, answer)
	})
	return &queries
}
