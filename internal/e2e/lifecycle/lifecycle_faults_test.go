package lifecycle

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/einvoice/einvoice/internal/e2e/e2etest"

	"github.com/einvoice/einvoice/client"
	"github.com/einvoice/einvoice/internal/einvoice"
	"github.com/einvoice/einvoice/internal/invoicing"
	"github.com/einvoice/einvoice/internal/myinvois"
	"github.com/einvoice/einvoice/internal/servetest"
	"github.com/einvoice/einvoice/internal/testclock"
)

// TestSubmitThroughFaults: the authority fails a share of calls with 500s,
// slow answers (past the service's wait), dropped connections and 429s.
// Every document still ends Valid, and the sandbox received each once.
func TestSubmitThroughFaults(t *testing.T) {
	t.Parallel()
	e2etest.EachEngine(t, func(t *testing.T, dsn string) {
		svc, c := e2etest.StartLifecycleAPI(t, dsn, "--submit-wait", "1s", "--workers", "4")
		b, err := c.Buyers.Create(t.Context(), e2etest.PartyOf(t, e2etest.SampleBuyer()))
		buyer := e2etest.Must(t, b, err).ID
		var ids, serials []string
		for i := range 24 {
			serial := fmt.Sprintf("INV-FAULT-%02d", i)
			ids, serials = append(ids, e2etest.ReadyInvoiceDoc(t, c, serial, buyer)), append(serials, serial)
		}
		for _, f := range []map[string]any{
			{"endpoint": "submit", "kind": "fail", "share": 0.2},
			{"endpoint": "submit", "kind": "delay", "share": 0.15, "delay": "1500ms"},
			{"endpoint": "submit", "kind": "drop", "share": 0.1},
			{"endpoint": "submit", "kind": "throttle", "share": 0.15, "retryAfter": 1},
			{"endpoint": "search", "kind": "fail", "share": 0.2},
			{"endpoint": "submission", "kind": "fail", "share": 0.2},
			{"endpoint": "submission", "kind": "throttle", "share": 0.1, "retryAfter": 1},
		} {
			svc.Fault(t, f)
		}
		codes := map[int]int{}
		var mu sync.Mutex
		var wg sync.WaitGroup
		for _, id := range ids {
			wg.Go(func() {
				sub, err := c.Documents.Submit(t.Context(), id)
				status := 200
				var e *client.Error
				switch {
				case err == nil && sub.Pending:
					status = 202
				case errors.As(err, &e):
					status = e.StatusCode
				case err != nil:
					status = 0 // not answered
				}
				mu.Lock()
				codes[status]++
				mu.Unlock()
				if err != nil { // anything but 200 or 202
					t.Errorf("submit through faults: %v", err)
				}
			})
		}
		wg.Wait()
		t.Logf("submit answers: %v", codes)
		svc.ClearFaults(t) // the tail: let the retries through
		for _, id := range ids {
			e2etest.WaitStatusTyped(t, c, id, client.StatusValid, 90*time.Second)
		}
		svc.SandboxStats(t).SentOnce(t, serials...)
	})
}

// recordOnly opens the database as a process that records the intent to
// submit and stops before sending would (its lease then expires).
func recordOnly(t *testing.T, dsn, tenantID, id string) {
	t.Helper()
	ctx := context.Background()
	store, err := servetest.OpenStore(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	m := invoicing.New(invoicing.Options{Store: store, Authority: myinvois.New(myinvois.Options{}), Lease: 2 * time.Second,
		Wait: time.Second, NewID: e2etest.NewID})
	d, err := m.Record(ctx, tenantID, "", id)
	if err != nil {
		t.Fatalf("record: %v", err)
	}
	if d.Status != einvoice.StatusSubmitting {
		t.Fatalf("recorded document is %s", d.Status)
	}
}

// TestSubmitAfterCrash: a process stops after recording the intent and
// before sending; another stops after sending, before hearing the answer.
// After a restart each document is sent exactly once.
func TestSubmitAfterCrash(t *testing.T) {
	t.Parallel()
	e2etest.EachEngine(t, func(t *testing.T, dsn string) {
		ctx := t.Context()
		svc, c := e2etest.StartLifecycleAPI(t, dsn, "--workers", "0", "--submit-wait", "1s")
		b, err := c.Buyers.Create(ctx, e2etest.PartyOf(t, e2etest.SampleBuyer()))
		buyer := e2etest.Must(t, b, err).ID
		recorded := e2etest.ReadyInvoiceDoc(t, c, "INV-CRASH-1", buyer)
		sent := e2etest.ReadyInvoiceDoc(t, c, "INV-CRASH-2", buyer)
		prof, err := c.Profile.Get(ctx)
		tenantID := e2etest.Must(t, prof, err).ID

		// Sent, but the answer never comes (the connection drops after the
		// sandbox has taken the document in): 202, outcome unknown.
		svc.Fault(t, map[string]any{"endpoint": "submit", "kind": "drop", "count": 1})
		sub, err := c.Documents.Submit(ctx, sent)
		if !e2etest.Must(t, sub, err).Pending || sub.Status != client.StatusSubmitting {
			t.Errorf("unanswered submit: %+v, want 202 pending and submitting", sub)
		}
		sub, err = c.Documents.Submit(ctx, sent) // a repeat answers the same
		if !e2etest.Must(t, sub, err).Pending {
			t.Errorf("repeated submit: %+v, want 202 pending", sub)
		}
		svc.Stop(t)

		recordOnly(t, dsn, tenantID, recorded)

		// The restarted service's workers settle both.
		svc2 := e2etest.StartService(t, dsn, "--rate-limit", "100000", "--sandbox-delay", "0", "--sandbox-faults", "--submit-wait", "1s")
		c2 := svc2.API(t, svc.DemoKey)
		for _, id := range []string{recorded, sent} {
			e2etest.WaitStatusTyped(t, c2, id, client.StatusValid, 60*time.Second)
		}
		svc2.SandboxStats(t).SentOnce(t, "INV-CRASH-1", "INV-CRASH-2")
		doc, err := c2.Documents.Get(ctx, sent)
		if !strings.Contains(fmt.Sprint(e2etest.Must(t, doc, err).History), "accepted by the authority") {
			t.Errorf("history of the settled document: %+v", doc.History)
		}
	})
}

// TestCancel: a Valid document can be cancelled within 72 hours of its
// validation, not after; the reason is required.
func TestCancel(t *testing.T) {
	t.Parallel()
	e2etest.EachEngine(t, func(t *testing.T, dsn string) {
		ctx := t.Context()
		clk := &testclock.Clock{}
		svc := e2etest.StartServiceAt(t, dsn, clk.Now, "--rate-limit", "100000", "--sandbox-delay", "0")
		c := svc.API(t, svc.DemoKey)
		p, err := c.Profile.Update(ctx, e2etest.ProfileOf(t, e2etest.SampleProfile()), nil)
		e2etest.Must(t, p, err)
		b, err := c.Buyers.Create(ctx, e2etest.PartyOf(t, e2etest.SampleBuyer()))
		buyer := e2etest.Must(t, b, err).ID

		inside := e2etest.ReadyInvoiceDoc(t, c, "INV-CANCEL-1", buyer)
		_, err = c.Documents.Cancel(ctx, inside, "wrong buyer")
		e2etest.WantErr(t, err, 409, client.CodeDocumentNotValid)
		sub, err := c.Documents.Submit(ctx, inside)
		e2etest.Want200(t, e2etest.Must(t, sub, err))
		e2etest.WaitStatusTyped(t, c, inside, client.StatusValid, 20*time.Second)
		_, err = c.Documents.Cancel(ctx, inside, "")
		e2etest.WantErr(t, err, 422, client.CodeValidationFailed)
		clk.Advance(71 * time.Hour)
		d, err := c.Documents.Cancel(ctx, inside, "wrong buyer")
		if e2etest.Must(t, d, err).Status != client.StatusCancelled {
			t.Errorf("cancel: %+v", d)
		}
		_, err = c.Documents.Cancel(ctx, inside, "again")
		e2etest.WantErr(t, err, 409, client.CodeDocumentNotValid)
		st, err := c.Documents.Status(ctx, inside)
		if e2etest.Must(t, st, err).Status != client.StatusCancelled {
			t.Errorf("status after cancel: %+v", st)
		}
		_, err = c.Documents.QR(ctx, inside, 0)
		e2etest.WantErr(t, err, 409, client.CodeDocumentNotValid)
		if _, err := exec.LookPath("pdftotext"); err == nil {
			pdf, err := c.Documents.PDF(ctx, inside)
			text := e2etest.PDFText(t, e2etest.Must(t, pdf, err).Data)
			if !strings.Contains(text, "CANCELLED") || !strings.Contains(text, "wrong buyer") || strings.Contains(text, "NOT YET VALIDATED") {
				t.Errorf("the cancelled document's PDF:\n%s", text)
			}
		}

		outside := e2etest.ReadyInvoiceDoc(t, c, "INV-CANCEL-2", buyer)
		sub, err = c.Documents.Submit(ctx, outside)
		e2etest.Want200(t, e2etest.Must(t, sub, err))
		e2etest.WaitStatusTyped(t, c, outside, client.StatusValid, 20*time.Second)
		clk.Advance(72*time.Hour + time.Minute)
		_, err = c.Documents.Cancel(ctx, outside, "too late")
		e2etest.WantErr(t, err, 409, client.CodeCancelWindowClosed)
		st, err = c.Documents.Status(ctx, outside)
		if e2etest.Must(t, st, err).Status != client.StatusValid {
			t.Errorf("status after a refused cancel: %+v", st)
		}
	})
}
