package e2e

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

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
	eachEngine(t, func(t *testing.T, dsn string) {
		svc, c := startLifecycleService(t, dsn, "--submit-wait", "1s", "--workers", "4")
		buyer := str(c.do("POST", "/api/v1/buyers", sampleBuyer()).want(t, 201, "").data()["id"])
		var ids, serials []string
		for i := range 24 {
			serial := fmt.Sprintf("INV-FAULT-%02d", i)
			ids, serials = append(ids, c.readyInvoice(serial, buyer)), append(serials, serial)
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
			svc.fault(t, f)
		}
		codes := map[int]int{}
		var mu sync.Mutex
		var wg sync.WaitGroup
		for _, id := range ids {
			wg.Go(func() {
				r := c.do("POST", "/api/v1/documents/"+id+"/submit", nil)
				mu.Lock()
				codes[r.Status]++
				mu.Unlock()
				if r.Status != 200 && r.Status != 202 {
					t.Errorf("submit through faults: %d %s", r.Status, r.Raw)
				}
			})
		}
		wg.Wait()
		t.Logf("submit answers: %v", codes)
		svc.clearFaults(t) // the tail: let the retries through
		for _, id := range ids {
			c.waitStatus(id, "Valid", 90*time.Second)
		}
		svc.sandboxStats(t).sentOnce(t, serials...)
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
		Wait: time.Second, NewID: newID})
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
	eachEngine(t, func(t *testing.T, dsn string) {
		svc, c := startLifecycleService(t, dsn, "--workers", "0", "--submit-wait", "1s")
		buyer := str(c.do("POST", "/api/v1/buyers", sampleBuyer()).want(t, 201, "").data()["id"])
		recorded := c.readyInvoice("INV-CRASH-1", buyer)
		sent := c.readyInvoice("INV-CRASH-2", buyer)
		tenantID := str(c.do("GET", "/api/v1/profile", nil).want(t, 200, "").data()["id"])

		// Sent, but the answer never comes (the connection drops after the
		// sandbox has taken the document in): 202, outcome unknown.
		svc.fault(t, map[string]any{"endpoint": "submit", "kind": "drop", "count": 1})
		r := c.do("POST", "/api/v1/documents/"+sent+"/submit", nil).want(t, 202, "")
		if r.data()["status"] != "submitting" {
			t.Errorf("unanswered submit: %v", r.data())
		}
		c.do("POST", "/api/v1/documents/"+sent+"/submit", nil).want(t, 202, "") // a repeat answers the same
		svc.Stop(t)

		recordOnly(t, dsn, tenantID, recorded)

		// The restarted service's workers settle both.
		svc2 := startService(t, dsn, "--rate-limit", "100000", "--sandbox-delay", "0", "--sandbox-faults", "--submit-wait", "1s")
		c2 := svc2.client(t, c.key)
		for _, id := range []string{recorded, sent} {
			c2.waitStatus(id, "Valid", 60*time.Second)
		}
		svc2.sandboxStats(t).sentOnce(t, "INV-CRASH-1", "INV-CRASH-2")
		doc := c2.do("GET", "/api/v1/invoices/"+sent, nil).want(t, 200, "").data()
		if !strings.Contains(fmt.Sprint(doc["history"]), "accepted by the authority") {
			t.Errorf("history of the settled document: %v", doc["history"])
		}
	})
}

// TestCancel: a Valid document can be cancelled within 72 hours of its
// validation, not after; the reason is required.
func TestCancel(t *testing.T) {
	eachEngine(t, func(t *testing.T, dsn string) {
		clk := &testclock.Clock{}
		svc := startServiceAt(t, dsn, clk.Now, "--rate-limit", "100000", "--sandbox-delay", "0")
		c := svc.client(t, svc.DemoKey)
		c.do("PUT", "/api/v1/profile", sampleProfile()).want(t, 200, "")
		buyer := str(c.do("POST", "/api/v1/buyers", sampleBuyer()).want(t, 201, "").data()["id"])

		inside := c.readyInvoice("INV-CANCEL-1", buyer)
		c.do("POST", "/api/v1/documents/"+inside+"/cancel", map[string]any{"reason": "wrong buyer"}).want(t, 409, "DOCUMENT_NOT_VALID")
		c.do("POST", "/api/v1/documents/"+inside+"/submit", nil).want(t, 200, "")
		c.waitStatus(inside, "Valid", 20*time.Second)
		c.do("POST", "/api/v1/documents/"+inside+"/cancel", map[string]any{"reason": ""}).want(t, 422, "VALIDATION_FAILED")
		clk.Advance(71 * time.Hour)
		d := c.do("POST", "/api/v1/documents/"+inside+"/cancel", map[string]any{"reason": "wrong buyer"}).want(t, 200, "").data()
		if d["status"] != "Cancelled" {
			t.Errorf("cancel: %v", d)
		}
		c.do("POST", "/api/v1/documents/"+inside+"/cancel", map[string]any{"reason": "again"}).want(t, 409, "DOCUMENT_NOT_VALID")
		if st := c.do("GET", "/api/v1/documents/"+inside+"/status", nil).want(t, 200, "").data(); st["status"] != "Cancelled" {
			t.Errorf("status after cancel: %v", st)
		}
		c.do("GET", "/api/v1/documents/"+inside+"/qr", nil).want(t, 409, "DOCUMENT_NOT_VALID")
		if _, err := exec.LookPath("pdftotext"); err == nil {
			text := pdfText(t, c.do("GET", "/api/v1/documents/"+inside+"/pdf", nil).want(t, 200, "").Raw)
			if !strings.Contains(text, "CANCELLED") || !strings.Contains(text, "wrong buyer") || strings.Contains(text, "NOT YET VALIDATED") {
				t.Errorf("the cancelled document's PDF:\n%s", text)
			}
		}

		outside := c.readyInvoice("INV-CANCEL-2", buyer)
		c.do("POST", "/api/v1/documents/"+outside+"/submit", nil).want(t, 200, "")
		c.waitStatus(outside, "Valid", 20*time.Second)
		clk.Advance(72*time.Hour + time.Minute)
		c.do("POST", "/api/v1/documents/"+outside+"/cancel", map[string]any{"reason": "too late"}).want(t, 409, "CANCEL_WINDOW_CLOSED")
		if st := c.do("GET", "/api/v1/documents/"+outside+"/status", nil).want(t, 200, "").data(); st["status"] != "Valid" {
			t.Errorf("status after a refused cancel: %v", st)
		}
	})
}
