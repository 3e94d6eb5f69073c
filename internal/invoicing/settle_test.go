package invoicing_test

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/einvoice/einvoice/internal/einvoice"
	"github.com/einvoice/einvoice/internal/invoicing"
	"github.com/einvoice/einvoice/internal/myinvois"
	"github.com/einvoice/einvoice/internal/sandbox"
	"github.com/einvoice/einvoice/internal/testscale"
)

// loseAnswers submits ids in bulks of 100 while the sandbox takes each
// submission in and drops its connection: every document stays submitting,
// its outcome unknown.
func (w *world) loseAnswers(ids []string) {
	w.t.Helper()
	w.sandbox.AddFault(sandbox.Fault{Endpoint: "submit", Kind: sandbox.FaultDrop, Count: (len(ids) + 99) / 100})
	w.submitBulk(ids)
	for _, id := range ids {
		if d := w.document(id); d.Status != einvoice.StatusSubmitting || !w.job(id).MaybeSent {
			w.t.Fatalf("a lost answer left %s %s, want submitting and maybe sent", d.InvoiceSerialNumber, d.Status)
		}
	}
}

// wantValidOnce checks that the sandbox received each document once, and
// that each is Valid as the sandbox's copy.
func (w *world) wantValidOnce(ids []string) {
	w.t.Helper()
	for _, id := range ids {
		d := w.document(id)
		got := w.received(d.InvoiceSerialNumber)
		if len(got) != 1 {
			w.t.Errorf("the sandbox received %s %d times, want once", d.InvoiceSerialNumber, len(got))
			continue
		}
		if d.Status != einvoice.StatusValid || d.Authority == nil || d.Authority.DocumentUUID != got[0] || d.Authority.LongID == "" {
			w.t.Errorf("%s: %s %+v, want Valid as %s", d.InvoiceSerialNumber, d.Status, d.Authority, got[0])
		}
	}
}

// TestScaleSettleAmongNewer is issue 13's reproduction: 20 documents whose answer
// was lost, then 500 newer documents from the same client; settling the 20
// must find each of them (they lie beyond the first 500 search results),
// send none again, and record the sandbox's uuids and verdicts.
func TestScaleSettleAmongNewer(t *testing.T) {
	testscale.Mark(t)
	eachEngine(t, func(t *testing.T, dsn string) {
		w := newWorld(t, dsn)
		lost := w.readyInvoices("LOST", 20)
		newer := w.readyInvoices("NEWER", 500)
		w.loseAnswers(lost)
		w.clk.Advance(time.Second)
		w.submitBulk(newer)

		w.clk.Advance(time.Minute)
		n, err := w.svc.SettleOnce(context.Background())
		if err != nil || n != 20 {
			t.Fatalf("SettleOnce took %d, %v; want the 20 in one sweep", n, err)
		}
		// 520 documents in the window: six pages, the 20 on the last.
		if searches := w.counter(myinvois.EndpointSearch).Load(); searches != 6 {
			t.Errorf("%d search calls, want 6 (every page once)", searches)
		}
		w.work(10)
		w.wantValidOnce(lost)
		if h := w.history(lost[0]); !slices.ContainsFunc(h, func(n string) bool { return strings.Contains(n, "found by a search") }) {
			t.Errorf("history %q does not tell the document was found by a search", h)
		}
	})
}

// TestScaleSettleIncompleteSearch: a page of the search fails midway. The
// documents it found are settled; the others are not sent again but wait,
// still maybe sent, for a later search, which finds them.
func TestScaleSettleIncompleteSearch(t *testing.T) {
	testscale.Mark(t)
	eachEngine(t, func(t *testing.T, dsn string) {
		w := newWorld(t, dsn)
		older := w.readyInvoices("OLDER", 100)
		newer := w.readyInvoices("NEWER", 100)
		w.loseAnswers(older)
		w.clk.Advance(time.Second)
		w.loseAnswers(newer)

		// The search's second page fails: the newer 100 (page 1) are
		// found, the older 100 stay unknown.
		failSecond := func(n int64) {
			if n == 1 {
				w.sandbox.AddFault(sandbox.Fault{Endpoint: "search", Kind: sandbox.FaultFail, Count: 1})
			}
		}
		w.onSearch.Store(&failSecond)
		w.clk.Advance(time.Minute)
		if n, err := w.svc.SettleOnce(context.Background()); err != nil || n != 200 {
			t.Fatalf("SettleOnce took %d, %v; want all 200", n, err)
		}
		w.onSearch.Store(nil)
		for _, id := range newer {
			if d := w.document(id); d.Status != einvoice.StatusSubmitted {
				t.Errorf("%s found on the first page is %s, want Submitted", d.InvoiceSerialNumber, d.Status)
			}
		}
		for _, id := range older {
			d, j := w.document(id), w.job(id)
			if d.Status != einvoice.StatusSubmitting || !j.MaybeSent || !strings.Contains(j.LastError, "HTTP 500") {
				t.Errorf("%s after a failed page: %s, job %+v; want still submitting and maybe sent, the failure its last error",
					d.InvoiceSerialNumber, d.Status, j)
			}
			if got := w.received(d.InvoiceSerialNumber); len(got) != 1 {
				t.Errorf("%s received %d times after a failed page, want once (not sent again)", d.InvoiceSerialNumber, len(got))
			}
		}

		w.clk.Advance(10 * time.Minute)
		w.work(10)
		w.wantValidOnce(append(older, newer...))
	})
}

// TestSettleThrottled: a search the authority answers 429 sends nothing
// and is asked again once its Retry-After has passed.
func TestSettleThrottled(t *testing.T) {
	w := newWorld(t, sqliteDSN(t))
	lost := w.readyInvoices("LOST", 3)
	w.loseAnswers(lost)
	w.sandbox.AddFault(sandbox.Fault{Endpoint: "search", Kind: sandbox.FaultThrottle, Count: 1, RetryAfter: 120})
	w.clk.Advance(time.Minute)
	throttled := w.clk.Now()
	if n, err := w.svc.SettleOnce(context.Background()); err != nil || n != 3 {
		t.Fatalf("SettleOnce took %d, %v", n, err)
	}
	for _, id := range lost {
		j := w.job(id)
		if !j.MaybeSent || !strings.Contains(j.LastError, "429") || j.NextAttemptAt.Before(throttled.Add(2*time.Minute)) {
			t.Errorf("after a 429: job %+v, want maybe sent, asked again no sooner than its Retry-After", j)
		}
	}
	if n, _ := w.svc.SettleOnce(context.Background()); n != 0 {
		t.Errorf("SettleOnce within the Retry-After took %d jobs, want none", n)
	}
	w.clk.Advance(10 * time.Minute)
	w.work(10)
	w.wantValidOnce(lost)
}

// holdSearches makes the sandbox hold every search until the returned
// release is called; entered is closed when the first one arrives.
func (w *world) holdSearches() (entered <-chan struct{}, release func()) {
	in, out := make(chan struct{}), make(chan struct{})
	var first sync.Once
	hold := func() {
		first.Do(func() { close(in) })
		<-out
	}
	w.searchGate.Store(&hold)
	return in, func() {
		close(out)
		w.searchGate.Store(nil)
	}
}

// TestSettleDoesNotHoldUpSending: while a settling search waits (here: the
// sandbox holds the search until the test lets it go), the other worker
// loop sends a new document and follows it to Valid.
func TestSettleDoesNotHoldUpSending(t *testing.T) {
	w := newWorld(t, sqliteDSN(t))
	ctx := context.Background()
	lost := w.readyInvoices("LOST", 1)
	w.loseAnswers(lost)
	fresh := w.readyInvoices("FRESH", 1)
	if _, err := w.svc.Record(ctx, w.tenant.ID, "", fresh[0]); err != nil {
		t.Fatal(err)
	}
	w.clk.Advance(5 * time.Minute) // every lease and backoff over

	entered, release := w.holdSearches()
	settled := make(chan error, 1)
	go func() {
		_, err := w.svc.SettleOnce(ctx)
		settled <- err
	}()
	<-entered // the settling search is under way, and waits
	for range 5 {
		if _, err := w.svc.RunOnce(ctx); err != nil {
			t.Fatal(err)
		}
		w.clk.Advance(10 * time.Second)
	}
	if d := w.document(fresh[0]); d.Status != einvoice.StatusValid {
		t.Errorf("the fresh document is %s while a search waits, want Valid", d.Status)
	}
	if d := w.document(lost[0]); d.Status != einvoice.StatusSubmitting {
		t.Errorf("the unknown outcome is %s before its search answered, want submitting", d.Status)
	}
	release()
	if err := <-settled; err != nil {
		t.Fatal(err)
	}
	w.work(10)
	w.wantValidOnce(append(lost, fresh...))
}

// TestSettleKeepsLeases: while a settling search runs longer than a lease,
// its jobs' leases are renewed, so that no other worker takes them over.
func TestSettleKeepsLeases(t *testing.T) {
	w := newWorldWith(t, sqliteDSN(t), func(o *invoicing.Options) { o.Wait, o.Lease = time.Second, 1500*time.Millisecond })
	ctx := context.Background()
	lost := w.readyInvoices("LOST", 1)
	w.loseAnswers(lost)
	w.clk.Advance(time.Minute)

	entered, release := w.holdSearches()
	settled := make(chan error, 1)
	go func() {
		_, err := w.svc.SettleOnce(ctx)
		settled <- err
	}()
	<-entered
	claimed := w.job(lost[0]).LeaseUntil
	for deadline := time.Now().Add(30 * time.Second); !w.job(lost[0]).LeaseUntil.After(claimed); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the lease was not renewed while the search ran")
		}
	}
	// Past the lease taken at the claim: without the renewal another sweep
	// would take the job over.
	w.clk.Advance(claimed.Sub(w.clk.Now()) + time.Millisecond)
	if n, err := w.svc.SettleOnce(ctx); err != nil || n != 0 {
		t.Errorf("another sweep took %d, %v while the search ran; want none", n, err)
	}
	release()
	if err := <-settled; err != nil {
		t.Fatal(err)
	}
	w.work(10)
	w.wantValidOnce(lost)
}

// TestSettleWaitsForTheAuthority: the authority takes a submission in only
// after the service stopped waiting for it (the sandbox's late fault). A
// search before the grace after that call would not list it and send it a
// second time: the outcome is not searched for until the grace has passed,
// and the document then settles to the copy the authority holds, sent once.
func TestSettleWaitsForTheAuthority(t *testing.T) {
	w := newWorldWith(t, sqliteDSN(t), func(o *invoicing.Options) { o.Wait = 300 * time.Millisecond })
	ctx := context.Background()
	late := w.readyInvoices("LATE", 1)
	code := w.document(late[0]).InvoiceSerialNumber
	w.sandbox.AddFault(sandbox.Fault{Endpoint: "submit", Kind: sandbox.FaultLate, Count: 1, Delay: time.Second})
	w.submitBulk(late)
	if j := w.job(late[0]); !j.MaybeSent || len(w.received(code)) != 0 {
		t.Fatalf("the call the service gave up on: job %+v, %d copies at the authority; want maybe sent, none stored yet", j, len(w.received(code)))
	}
	w.clk.Advance(5 * time.Second) // past the backoff, within the grace
	if n, err := w.svc.SettleOnce(ctx); err != nil || n != 0 {
		t.Fatalf("SettleOnce within the grace took %d jobs (%v), want none", n, err)
	}
	for deadline := time.Now().Add(30 * time.Second); len(w.received(code)) == 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the sandbox never stored the late submission")
		}
	}
	w.clk.Advance(10 * time.Second)
	w.work(10)
	w.wantValidOnce(late)
	if calls := w.counter(myinvois.EndpointSubmit).Load(); calls != 1 {
		t.Errorf("%d submit calls, want the one", calls)
	}
}

// TestSettleAnsweredAtOnce: a call the authority answered with a 500 leaves
// nothing in flight: its outcome is searched for as soon as it is due, with
// no grace, and the document (never stored) is sent again, once.
func TestSettleAnsweredAtOnce(t *testing.T) {
	w := newWorldWith(t, sqliteDSN(t), func(o *invoicing.Options) { o.Wait = 300 * time.Millisecond })
	ctx := context.Background()
	failed := w.readyInvoices("FAILED", 1)
	w.sandbox.AddFault(sandbox.Fault{Endpoint: "submit", Kind: sandbox.FaultFail, Count: 1})
	w.submitBulk(failed)
	if j := w.job(failed[0]); !j.MaybeSent {
		t.Fatalf("after a 500: job %+v, want maybe sent", j)
	}
	w.clk.Advance(5 * time.Second) // past the backoff, within the grace
	if n, err := w.svc.SettleOnce(ctx); err != nil || n != 1 {
		t.Fatalf("SettleOnce after an answered 500 took %d jobs (%v), want it", n, err)
	}
	w.work(10)
	w.wantValidOnce(failed)
}
