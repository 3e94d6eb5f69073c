package myinvois

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/einvoice/einvoice/internal/einvoice"
)

func TestGetSubmissionPaging(t *testing.T) {
	const total = 250
	f := newFake(t)
	var (
		mu    sync.Mutex
		pages []string
	)
	f.handle("GET /api/v1.0/documentsubmissions/{uid}", func(w http.ResponseWriter, r *http.Request) {
		if r.PathValue("uid") != "SUB1" {
			t.Errorf("uid = %q", r.PathValue("uid"))
		}
		q := r.URL.Query()
		mu.Lock()
		pages = append(pages, q.Get("pageNo")+"/"+q.Get("pageSize"))
		mu.Unlock()
		no, _ := strconv.Atoi(q.Get("pageNo"))
		size, _ := strconv.Atoi(q.Get("pageSize"))
		var summary []any
		for i := (no - 1) * size; i < min(no*size, total); i++ {
			summary = append(summary, map[string]any{
				"uuid": fmt.Sprintf("DOC%03d", i), "submissionUid": "SUB1", "internalId": fmt.Sprintf("INV-%d", i),
				"status": "Valid", "longId": "LONG" + strconv.Itoa(i),
				"dateTimeReceived":  "2026-03-01T10:00:00Z",
				"dateTimeValidated": "2026-03-01T10:00:03.1234567Z",
			})
		}
		writeJSON(w, 200, map[string]any{
			"submissionUid": "SUB1", "documentCount": total, "dateTimeReceived": "2026-03-01T10:00:00Z",
			"overallStatus": "Valid", "documentSummary": summary,
		})
	})
	c := New(Options{Logger: testLogger(t)})
	s, err := c.GetSubmission(context.Background(), f.creds(), "SUB1")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"1/100", "2/100", "3/100"}; !cmp.Equal(pages, want) {
		t.Errorf("pages read %v, want %v", pages, want)
	}
	if s.SubmissionUID != "SUB1" || s.OverallStatus != "Valid" || len(s.Documents) != total {
		t.Fatalf("state: %s %s with %d documents", s.SubmissionUID, s.OverallStatus, len(s.Documents))
	}
	d := s.Documents[249]
	validated := time.Date(2026, 3, 1, 10, 0, 3, 123456700, time.UTC)
	if d.UUID != "DOC249" || d.CodeNumber != "INV-249" || d.LongID != "LONG249" || d.Status != "Valid" ||
		!d.SubmittedAt.Equal(time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)) || d.ValidatedAt == nil || !d.ValidatedAt.Equal(validated) {
		t.Errorf("document = %+v", d)
	}
}

func TestGetSubmissionStates(t *testing.T) {
	f := newFake(t)
	f.handle("GET /api/v1.0/documentsubmissions/{uid}", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 200, map[string]any{
			"submissionUid": "SUB2", "documentCount": 3, "overallStatus": "in progress",
			"documentSummary": []any{
				map[string]any{"uuid": "A", "internalId": "INV-A", "status": "Submitted", "dateTimeReceived": "2026-03-01T10:00:00",
					"dateTimeValidated": nil, "longId": nil},
				map[string]any{"uuid": "B", "internalId": "INV-B", "status": "Cancelled", "dateTimeReceived": "2026-03-01T10:00:00.5",
					"dateTimeValidated": "2026-03-01T10:00:02", "cancelDateTime": "2026-03-02T08:00:00Z", "documentStatusReason": "wrong buyer"},
				map[string]any{"uuid": "C", "internalId": "INV-C", "status": "Valid", "dateTimeReceived": "2026-03-01T10:00:00Z",
					"dateTimeValidated": "2026-03-01T10:00:02Z", "rejectRequestDateTime": "2026-03-01T12:00:00Z",
					"documentStatusReason": "not ordered", "cancelDateTime": "0001-01-01T00:00:00"},
			},
		})
	})
	c := New(Options{Logger: testLogger(t)})
	s, err := c.GetSubmission(context.Background(), f.creds(), "SUB2")
	if err != nil {
		t.Fatal(err)
	}
	at := func(s string) *time.Time {
		tm, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			t.Fatal(err)
		}
		return &tm
	}
	want := einvoice.SubmissionState{SubmissionUID: "SUB2", OverallStatus: "in progress", Documents: []einvoice.DocumentState{
		{UUID: "A", SubmissionUID: "SUB2", CodeNumber: "INV-A", Status: "Submitted", SubmittedAt: *at("2026-03-01T10:00:00Z")},
		{UUID: "B", SubmissionUID: "SUB2", CodeNumber: "INV-B", Status: "Cancelled", SubmittedAt: *at("2026-03-01T10:00:00.5Z"),
			ValidatedAt: at("2026-03-01T10:00:02Z"), CancelledAt: at("2026-03-02T08:00:00Z"), StatusReason: "wrong buyer"},
		{UUID: "C", SubmissionUID: "SUB2", CodeNumber: "INV-C", Status: "Valid", SubmittedAt: *at("2026-03-01T10:00:00Z"),
			ValidatedAt: at("2026-03-01T10:00:02Z"), RejectRequestedAt: at("2026-03-01T12:00:00Z"), StatusReason: "not ordered"},
	}}
	if diff := cmp.Diff(want, s); diff != "" {
		t.Errorf("SubmissionState (-want +got):\n%s", diff)
	}
}

func TestParseTime(t *testing.T) {
	want := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	for _, s := range []string{"2026-03-01T10:00:00Z", "2026-03-01T10:00:00", "2026-03-01T18:00:00+08:00",
		"2026-03-01 10:00:00", "2026-03-01T10:00:00.000Z", "2026-03-01T10:00:00.0000000"} {
		got, err := parseTime(s)
		if err != nil || got == nil || !got.Equal(want) || got.Location() != time.UTC {
			t.Errorf("%q: %v, %v", s, got, err)
		}
	}
	for _, s := range []string{"", "  ", "0001-01-01T00:00:00", "0001-01-01T00:00:00Z"} {
		if got, err := parseTime(s); got != nil || err != nil {
			t.Errorf("%q: %v, %v, want none", s, got, err)
		}
	}
	if _, err := parseTime("yesterday"); err == nil {
		t.Error("yesterday: no error")
	}
}
