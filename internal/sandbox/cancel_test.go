package sandbox_test

import (
	"strings"
	"testing"
	"time"

	"github.com/einvoice/einvoice/internal/sandbox"
)

func TestCancel(t *testing.T) {
	t.Parallel()
	eachEngine(t, func(t *testing.T, e *env) {
		_, hs := e.server(func(o *sandbox.Options) { o.Delay = 10 * time.Second })
		c := login(t, hs.URL, "erp-1", "")
		now := e.clock.Now()
		res := c.submit(invoice(invoiceOpts{code: "C-1", issued: now}), invoice(invoiceOpts{code: "C-2", issued: now}),
			invoice(invoiceOpts{code: "C-3", issued: now, buyer: "IG999999999"}))
		inside, outside, invalid := res.Accepted[0].UUID, res.Accepted[1].UUID, res.Accepted[2].UUID

		// Still Submitted: not yet cancellable.
		if r := c.state(inside, "cancelled", "wrong buyer"); r.Status != 400 || r.errorCode(t) != "IncorrectState" {
			t.Errorf("cancel while Submitted: %d %s", r.Status, r.Body)
		}
		e.clock.Advance(10 * time.Second)
		for _, tc := range []struct {
			name, uuid, status, reason string
			c                          *client
			want                       int
			code                       string
		}{
			{"empty reason", inside, "cancelled", " ", c, 400, "BadArgument"},
			{"long reason", inside, "cancelled", strings.Repeat("r", 301), c, 400, "BadArgument"},
			{"bad status", inside, "deleted", "why", c, 400, "BadArgument"},
			{"unknown", "AAAAAAAAAAAAAAAAAAAAAAAAAA", "cancelled", "why", c, 404, "NotFound"},
			{"another client", inside, "cancelled", "why", login(t, hs.URL, "erp-2", ""), 403, "Forbidden"},
			{"Invalid document", invalid, "cancelled", "why", c, 400, "IncorrectState"},
		} {
			if r := tc.c.state(tc.uuid, tc.status, tc.reason); r.Status != tc.want || r.errorCode(t) != tc.code {
				t.Errorf("%s: %d %s, want %d %s", tc.name, r.Status, r.Body, tc.want, tc.code)
			}
		}

		e.clock.Advance(72*time.Hour - time.Second)
		r := c.state(inside, "cancelled", strings.Repeat("r", 300))
		if body := r.JSON(t); r.Status != 200 || body["uuid"] != inside || body["status"] != "Cancelled" {
			t.Fatalf("cancel within 72 hours: %d %s", r.Status, r.Body)
		}
		d := c.details(inside)
		if d["status"] != "Cancelled" || d["cancelDateTime"] != e.clock.Now().Format(time.RFC3339) || d["documentStatusReason"] != strings.Repeat("r", 300) {
			t.Errorf("after cancel: %v", d)
		}
		if r := c.state(inside, "cancelled", "again"); r.Status != 400 || r.errorCode(t) != "IncorrectState" {
			t.Errorf("cancel twice: %d %s", r.Status, r.Body)
		}
		e.clock.Advance(2 * time.Second)
		if r := c.state(outside, "cancelled", "too late"); r.Status != 400 || r.errorCode(t) != "OperationPeriodOver" {
			t.Errorf("cancel after 72 hours: %d %s", r.Status, r.Body)
		}
		if got := c.status(outside); got != "Valid" {
			t.Errorf("after a refused cancel: %s", got)
		}
	})
}

func TestActiveReferencingDocuments(t *testing.T) {
	t.Parallel()
	eachEngine(t, func(t *testing.T, e *env) {
		_, hs := e.server()
		c := login(t, hs.URL, "erp-1", "")
		now := e.clock.Now()
		orig := c.submitOne(invoice(invoiceOpts{code: "AR-1", issued: now}))
		note := c.submitOne(invoice(invoiceOpts{code: "AR-CN-1", typeCode: "02", issued: now, refs: []string{orig}}))
		// An Invalid note does not hold the original.
		c.submitOne(invoice(invoiceOpts{code: "AR-CN-2", typeCode: "02", issued: now, refs: []string{orig}, buyer: "IG999999999"}))
		if r := c.state(orig, "cancelled", "mistake"); r.Status != 400 || r.errorCode(t) != "ActiveReferencingDocuments" {
			t.Fatalf("cancel a referenced original: %d %s", r.Status, r.Body)
		}
		if r := c.state(note, "cancelled", "mistake"); r.Status != 200 {
			t.Fatalf("cancel the note: %d %s", r.Status, r.Body)
		}
		if r := c.state(orig, "cancelled", "mistake"); r.Status != 200 {
			t.Errorf("cancel the original after its note: %d %s", r.Status, r.Body)
		}
		// A note of a Cancelled original is Invalid.
		late := c.submitOne(invoice(invoiceOpts{code: "AR-CN-3", typeCode: "02", issued: now, refs: []string{orig}}))
		if got := c.status(late); got != "Invalid" {
			t.Errorf("note of a cancelled original: %s", got)
		}
	})
}

func TestReject(t *testing.T) {
	t.Parallel()
	eachEngine(t, func(t *testing.T, e *env) {
		_, hs := e.server()
		c := login(t, hs.URL, "erp-1", "")
		buyer := loginAs(t, hs.URL, "buyer-erp", buyerTIN)
		id := c.submitOne(invoice(invoiceOpts{code: "RJ-1", issued: e.clock.Now()}))
		e.clock.Advance(time.Hour)
		// Only the buyer rejects: not the issuer, not an intermediary acting
		// for the buyer; and the buyer cannot cancel.
		if r := c.state(id, "rejected", "mine"); r.Status != 403 || r.errorCode(t) != "Forbidden" {
			t.Errorf("issuer rejects: %d %s", r.Status, r.Body)
		}
		if r := login(t, hs.URL, "agent", buyerTIN).state(id, "rejected", "theirs"); r.Status != 403 {
			t.Errorf("intermediary of the buyer rejects: %d %s", r.Status, r.Body)
		}
		if r := buyer.state(id, "cancelled", "not mine"); r.Status != 403 || r.errorCode(t) != "Forbidden" {
			t.Errorf("buyer cancels: %d %s", r.Status, r.Body)
		}
		r := buyer.state(id, "rejected", "wrong amount")
		if body := r.JSON(t); r.Status != 200 || body["uuid"] != id || body["status"] != "Requested for Rejection" {
			t.Fatalf("reject: %d %s", r.Status, r.Body)
		}
		d := c.details(id)
		if d["status"] != "Valid" || d["rejectRequestDateTime"] != e.clock.Now().Format(time.RFC3339) || d["documentStatusReason"] != "wrong amount" {
			t.Errorf("after reject: %v", d)
		}
		if r := buyer.state(id, "rejected", "again"); r.Status != 400 || r.errorCode(t) != "IncorrectState" {
			t.Errorf("reject twice: %d %s", r.Status, r.Body)
		}
		// The issuer may still cancel it.
		if r := c.state(id, "cancelled", "rejected by buyer"); r.Status != 200 {
			t.Errorf("cancel after rejection: %d %s", r.Status, r.Body)
		}
		late := c.submitOne(invoice(invoiceOpts{code: "RJ-2", issued: e.clock.Now()}))
		e.clock.Advance(73 * time.Hour)
		if r := buyer.state(late, "rejected", "late"); r.Status != 400 || r.errorCode(t) != "OperationPeriodOver" {
			t.Errorf("reject after 72 hours: %d %s", r.Status, r.Body)
		}
	})
}
