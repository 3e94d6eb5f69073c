package submission_test

import (
	"context"
	"testing"
	"time"

	"github.com/einvoice/einvoice/internal/einvoice"
	"github.com/einvoice/einvoice/internal/myinvois"
	"github.com/einvoice/einvoice/internal/sandbox"
)

// TestSettleAmongNewer is issue 13's reproduction: 20 documents whose answer
// was lost, then 500 newer documents from the same client; settling the 20
// must find each of them (they lie beyond the first 500 search results),
// send none again, and record the sandbox's uuids and verdicts.
func TestSettleAmongNewer(t *testing.T) {
	eachEngine(t, func(t *testing.T, dsn string) {
		w := newWorld(t, dsn)
		lost := w.readyInvoices("LOST", 20)
		newer := w.readyInvoices("NEWER", 500)

		// The sandbox takes the 20 in and drops the connection.
		w.sandbox.AddFault(sandbox.Fault{Endpoint: "submit", Kind: sandbox.FaultDrop, Count: 1})
		w.submitBulk(lost)
		for _, id := range lost {
			if d := w.document(id); d.Status != einvoice.StatusSubmitting {
				t.Fatalf("a lost answer left %s %s, want submitting", d.InvoiceSerialNumber, d.Status)
			}
		}
		w.clk.advance(time.Second)
		w.submitBulk(newer)

		w.clk.advance(time.Minute)
		before := w.counter(myinvois.EndpointSearch).Load()
		w.work(20)
		searches := w.counter(myinvois.EndpointSearch).Load() - before
		t.Logf("search calls to settle 20 documents behind 500 newer: %d", searches)

		for _, id := range lost {
			d := w.document(id)
			got := w.received(d.InvoiceSerialNumber)
			if len(got) != 1 {
				t.Errorf("the sandbox received %s %d times, want once", d.InvoiceSerialNumber, len(got))
				continue
			}
			if d.Status != einvoice.StatusValid || d.Authority == nil || d.Authority.DocumentUUID != got[0] || d.Authority.LongID == "" {
				t.Errorf("%s: %s %+v, want Valid as %s", d.InvoiceSerialNumber, d.Status, d.Authority, got[0])
			}
		}
		_ = context.Background
	})
}
