package sqlstore_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/einvoice/einvoice/internal/einvoice"
	"github.com/einvoice/einvoice/internal/sqlstore"
)

// checkRendering asserts that the JSON reads of the tenant's documents are
// byte for byte what json.Marshal makes of the documents the decoding
// reads return, one by one and as a list, and returns the renderings by id.
func checkRendering(t *testing.T, s *sqlstore.Store, tenantID string) map[string]string {
	t.Helper()
	ctx := context.Background()
	f := einvoice.DocumentFilter{PageRequest: einvoice.PageRequest{Page: 1, PerPage: 100}}
	docs, err := s.ListDocuments(ctx, tenantID, f)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := s.ListDocumentsJSON(ctx, tenantID, f)
	if err != nil {
		t.Fatal(err)
	}
	if len(docs.Items) != len(raw.Items) || docs.Total != raw.Total || len(docs.Items) == 0 {
		t.Fatalf("ListDocumentsJSON: %d items of %d, ListDocuments %d of %d", len(raw.Items), raw.Total, len(docs.Items), docs.Total)
	}
	out := map[string]string{}
	for i, d := range docs.Items {
		want, err := json.Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		if string(raw.Items[i]) != string(want) {
			t.Errorf("list item %d (%s):\n got %s\nwant %s", i, d.ID, raw.Items[i], want)
		}
		one, err := s.GetDocumentJSON(ctx, tenantID, d.ID)
		if err != nil || string(one) != string(want) {
			t.Errorf("GetDocumentJSON %s: %v\n got %s\nwant %s", d.ID, err, one, want)
		}
		out[d.ID] = string(want)
	}
	return out
}

// testStoredRendering follows documents through every kind of write and
// checks after each that the stored rendering is what the document
// renders as, and that rows written before migration 00018 (body_current
// 0, a body behind its columns) are rendered from their columns.
func testStoredRendering(t *testing.T, dsn string) {
	ctx := context.Background()
	s := open(t, dsn)
	a := mustCreateTenant(t, s, "A")
	buyer := party(a.ID, einvoice.KindBuyer, "Buyer <b> & \"co\"", t0)
	if err := s.CreateParty(ctx, buyer); err != nil {
		t.Fatal(err)
	}
	// Times that are not UTC and finer than a microsecond are rendered as
	// the columns keep them.
	kl := time.FixedZone("MYT", 8*3600)
	created := time.Date(2026, 11, 24, 9, 30, 0, 123456789, kl)
	var docs []*einvoice.Document
	for i := range 3 {
		d := document(a.ID, buyer.ID, fmt.Sprintf("R-%d <&>", i), created.Add(time.Duration(i)*time.Second))
		d.Lines[0].ProductDescription = "Laptop \u2028 <script>"
		if err := s.CreateDocument(ctx, d, event(einvoice.StatusDraft, t0)); err != nil {
			t.Fatal(err)
		}
		docs = append(docs, d)
	}
	if r := checkRendering(t, s, a.ID); len(r) != 3 {
		t.Fatalf("%d renderings, want 3", len(r))
	}

	// A transition renders the body again with its status and time.
	got, err := s.GetDocument(ctx, a.ID, docs[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	at := t0.Add(time.Hour)
	if err := s.TransitionDocument(ctx, a.ID, got.ID, einvoice.StatusDraft, got.UpdatedAt, event(einvoice.StatusReady, at)); err != nil {
		t.Fatal(err)
	}
	r := checkRendering(t, s, a.ID)
	var back einvoice.Document
	if err := json.Unmarshal([]byte(r[got.ID]), &back); err != nil || back.Status != einvoice.StatusReady || !back.UpdatedAt.Equal(at) {
		t.Errorf("after the transition: status %s, updated %s (%v); want ready at %s", back.Status, back.UpdatedAt, err, at)
	}

	// An update, and a submission's write.
	got.Status, got.UpdatedAt = einvoice.StatusDraft, at.Add(time.Minute)
	got.InvoiceSerialNumber = "R-0-edited"
	if err := s.UpdateDocument(ctx, got, []einvoice.Status{einvoice.StatusReady}, nil); err != nil {
		t.Fatal(err)
	}
	checkRendering(t, s, a.ID)
	sub, err := s.GetDocument(ctx, a.ID, docs[1].ID)
	if err != nil {
		t.Fatal(err)
	}
	sub.Status, sub.UpdatedAt = einvoice.StatusSubmitting, at.Add(2*time.Minute)
	issued := at.Add(2 * time.Minute)
	sub.Authority = &einvoice.AuthorityRecord{IssuedAt: &issued, Errors: []einvoice.AuthorityError{{Code: "DS302"}}}
	if err := s.WriteSubmission(ctx, einvoice.SubmissionWrite{Doc: sub, From: []einvoice.Status{einvoice.StatusDraft}, Version: sub.CreatedAt,
		UBL: []byte(`{"Invoice":[{}]}`)}); err != nil {
		t.Fatal(err)
	}
	checkRendering(t, s, a.ID)

	// A row as migration 00018 finds it: a body behind its columns.
	if _, err := s.DB().ExecContext(ctx, `UPDATE documents SET body_current = 0, status = 'Cancelled', serial = 'R-2-old', serial_lower = 'r-2-old' WHERE id = $1`, docs[2].ID); err != nil {
		t.Fatal(err)
	}
	r = checkRendering(t, s, a.ID)
	if err := json.Unmarshal([]byte(r[docs[2].ID]), &back); err != nil || back.Status != einvoice.StatusCancelled || back.InvoiceSerialNumber != "R-2-old" {
		t.Errorf("a row before 00018: status %s, serial %s (%v); want the columns' Cancelled, R-2-old", back.Status, back.InvoiceSerialNumber, err)
	}
	// A body cut short is never sent as it is, even marked current.
	if _, err := s.DB().ExecContext(ctx, `UPDATE documents SET body_current = 1, body = substr(body, 1, 40) WHERE id = $1`, docs[2].ID); err != nil {
		t.Fatal(err)
	}
	raw, err := s.ListDocumentsJSON(ctx, a.ID, einvoice.DocumentFilter{PageRequest: einvoice.PageRequest{Page: 1, PerPage: 10}})
	if err != nil || len(raw.Items) != 2 || len(raw.Unreadable) != 1 || raw.Unreadable[0].ID != docs[2].ID {
		t.Errorf("a cut body: %d items, unreadable %v, %v; want 2 and the cut one", len(raw.Items), raw.Unreadable, err)
	}
	for _, it := range raw.Items {
		if !json.Valid(it) {
			t.Errorf("invalid JSON sent: %s", it)
		}
	}
}
