package myinvois

import (
	"context"
	"errors"
	"fmt"
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

func TestFindDocuments(t *testing.T) {
	f := newFake(t)
	var (
		mu      sync.Mutex
		queries []url.Values
	)
	f.handle("GET /api/v1.0/documents/search", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		queries = append(queries, r.URL.Query())
		mu.Unlock()
		writeJSON(w, 200, map[string]any{
			"result": []any{
				map[string]any{"uuid": "U2", "submissionUID": "S2", "internalId": "INV-10", "status": "Valid",
					"dateTimeReceived": "2026-03-01T09:59:00Z", "dateTimeValidated": "2026-03-01T09:59:02Z", "longId": "L2"},
				map[string]any{"uuid": "U3", "submissionUID": "S3", "internalId": "INV-100", "status": "Valid"},
				map[string]any{"uuid": "U4", "submissionUID": "S4", "internalId": "inv-10", "status": "Valid"},
				map[string]any{"uuid": "U1", "submissionUID": "S1", "internalId": "INV-10", "status": "Invalid",
					"dateTimeReceived": "2026-03-01T09:50:00Z"},
			},
			"metadata": map[string]any{"totalPages": 1, "totalCount": 4},
		})
	})
	clk := newClock()
	c := New(Options{Now: clk.Now, Logger: testLogger(t)})
	since := clk.Now().Add(-time.Hour)
	got, err := c.FindDocuments(context.Background(), f.creds(), []string{"INV-10"}, since)
	if err != nil {
		t.Fatal(err)
	}
	validated := time.Date(2026, 3, 1, 9, 59, 2, 0, time.UTC)
	want := []einvoice.DocumentState{
		{UUID: "U2", SubmissionUID: "S2", CodeNumber: "INV-10", Status: "Valid", LongID: "L2",
			SubmittedAt: time.Date(2026, 3, 1, 9, 59, 0, 0, time.UTC), ValidatedAt: &validated},
		{UUID: "U1", SubmissionUID: "S1", CodeNumber: "INV-10", Status: "Invalid", SubmittedAt: time.Date(2026, 3, 1, 9, 50, 0, 0, time.UTC)},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("found (-want +got):\n%s", diff)
	}
	q := queries[0]
	wantQ := map[string]string{
		"submissionDateFrom": "2026-03-01T08:55:00Z", // since, less the clock slack
		"submissionDateTo":   "2026-03-01T10:00:00Z",
		"invoiceDirection":   "Sent",
		"searchQuery":        "INV-10",
		"pageSize":           "100",
		"pageNo":             "1",
	}
	for k, v := range wantQ {
		if q.Get(k) != v {
			t.Errorf("%s = %q, want %q", k, q.Get(k), v)
		}
	}

	// A window wider than 31 days is clamped.
	if _, err := c.FindDocuments(context.Background(), f.creds(), []string{"INV-10"}, clk.Now().AddDate(0, -3, 0)); err != nil {
		t.Fatal(err)
	}
	if from := queries[1].Get("submissionDateFrom"); from != "2026-01-29T10:00:00Z" {
		t.Errorf("clamped from = %q, want 31 days back", from)
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

// TestFindDocumentsSeveral: several code numbers read the window's
// submissions page by page, without a search text, and keep those asked for.
func TestFindDocumentsSeveral(t *testing.T) {
	f := newFake(t)
	var (
		mu      sync.Mutex
		queries []url.Values
	)
	f.handle("GET /api/v1.0/documents/search", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		queries = append(queries, r.URL.Query())
		mu.Unlock()
		page := r.URL.Query().Get("pageNo")
		var result []any
		n := 100
		if page == "2" {
			n = 3
		}
		for i := range n {
			result = append(result, map[string]any{"uuid": fmt.Sprintf("U%s-%d", page, i), "internalId": fmt.Sprintf("INV-%s-%d", page, i), "status": "Valid"})
		}
		writeJSON(w, 200, map[string]any{"result": result, "metadata": map[string]any{"totalPages": 2, "totalCount": 103}})
	})
	clk := newClock()
	c := New(Options{Now: clk.Now, Logger: testLogger(t)})
	got, err := c.FindDocuments(context.Background(), f.creds(), []string{"INV-1-7", "INV-2-2", "INV-9-9"}, clk.Now().Add(-time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	var uuids []string
	for _, s := range got {
		uuids = append(uuids, s.UUID)
	}
	if fmt.Sprint(uuids) != "[U1-7 U2-2]" {
		t.Errorf("found %v, want [U1-7 U2-2]", uuids)
	}
	if len(queries) != 2 || queries[0].Has("searchQuery") || queries[1].Get("pageNo") != "2" {
		t.Errorf("queries = %v, want pages 1 and 2 without a search text", queries)
	}
}
