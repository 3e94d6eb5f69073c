package invoicing_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/einvoice/einvoice/internal/einvoice"
	"github.com/einvoice/einvoice/internal/invoicing"
)

// scripted is a tax authority that answers what the test scripted, in
// order, and counts the calls: the one fake of the tests (of the
// AuthorityAPI interface), for the branches of the submission logic that a
// real authority cannot be made to take on demand. Calls that were not
// scripted fail the test.
type scripted struct {
	t      *testing.T
	mu     sync.Mutex
	submit []func(docs []einvoice.OutgoingDocument) (einvoice.SubmitResult, error)
	find   []func(sought []einvoice.SoughtDocument) (einvoice.FindResult, error)
	poll   []func(uid string) (einvoice.SubmissionState, error)
	detail []func(uuid string) (einvoice.DocumentState, error)
	// tooLarge names the code numbers Split refuses.
	tooLarge map[string]bool
	calls    map[string]int
	sent     [][]einvoice.OutgoingDocument
}

var _ einvoice.AuthorityAPI = (*scripted)(nil)

func newScripted(t *testing.T) *scripted {
	return &scripted{t: t, tooLarge: map[string]bool{}, calls: map[string]int{}}
}

// next pops the next scripted answer of an endpoint.
func next[F any](a *scripted, endpoint string, queue *[]F) (F, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.calls[endpoint]++
	var f F
	if len(*queue) == 0 {
		a.t.Errorf("unscripted call to %s", endpoint)
		return f, false
	}
	f, *queue = (*queue)[0], (*queue)[1:]
	return f, true
}

func (a *scripted) count(endpoint string) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.calls[endpoint]
}

func (a *scripted) Submit(_ context.Context, _ einvoice.Credentials, docs []einvoice.OutgoingDocument) (einvoice.SubmitResult, error) {
	a.mu.Lock()
	a.sent = append(a.sent, docs)
	a.mu.Unlock()
	f, ok := next(a, "submit", &a.submit)
	if !ok {
		return einvoice.SubmitResult{}, errors.New("unscripted")
	}
	return f(docs)
}

func (a *scripted) GetSubmission(_ context.Context, _ einvoice.Credentials, uid string) (einvoice.SubmissionState, error) {
	f, ok := next(a, "submission", &a.poll)
	if !ok {
		return einvoice.SubmissionState{}, errors.New("unscripted")
	}
	return f(uid)
}

func (a *scripted) GetDocumentDetails(_ context.Context, _ einvoice.Credentials, uuid string) (einvoice.DocumentState, error) {
	f, ok := next(a, "details", &a.detail)
	if !ok {
		return einvoice.DocumentState{}, errors.New("unscripted")
	}
	return f(uuid)
}

func (a *scripted) FindDocuments(_ context.Context, _ einvoice.Credentials, sought []einvoice.SoughtDocument) (einvoice.FindResult, error) {
	f, ok := next(a, "search", &a.find)
	if !ok {
		return einvoice.FindResult{}, errors.New("unscripted")
	}
	return f(sought)
}

func (a *scripted) CancelDocument(context.Context, einvoice.Credentials, string, string) error {
	a.t.Errorf("unscripted call to cancel")
	return errors.New("unscripted")
}

// Login accepts every client.
func (a *scripted) Login(context.Context, einvoice.Credentials) error { return nil }

// ValidateTIN knows every TIN.
func (a *scripted) ValidateTIN(context.Context, einvoice.Credentials, string, string, string) (bool, error) {
	return true, nil
}

// SearchTIN finds no taxpayer.
func (a *scripted) SearchTIN(context.Context, einvoice.Credentials, einvoice.TINSearch) (string, error) {
	return "", einvoice.ErrTINNotFound
}

// Split puts every document in one submission, unless one is too large.
func (a *scripted) Split(docs []einvoice.OutgoingDocument) ([][]einvoice.OutgoingDocument, error) {
	for _, d := range docs {
		if a.tooLarge[d.CodeNumber] {
			return nil, fmt.Errorf("%s: %w", d.CodeNumber, einvoice.ErrTooLarge)
		}
	}
	return [][]einvoice.OutgoingDocument{docs}, nil
}

// acceptAll answers a submission by accepting every document, as uuids
// U-<code number>, in submission uid.
func acceptAll(uid string) func([]einvoice.OutgoingDocument) (einvoice.SubmitResult, error) {
	return func(docs []einvoice.OutgoingDocument) (einvoice.SubmitResult, error) {
		res := einvoice.SubmitResult{SubmissionUID: uid}
		for _, d := range docs {
			res.Accepted = append(res.Accepted, einvoice.AcceptedDocument{UUID: "U-" + d.CodeNumber, CodeNumber: d.CodeNumber})
		}
		return res, nil
	}
}

// fail answers a call with err.
func fail[R any](err error) func(R) (einvoice.SubmitResult, error) {
	return func(R) (einvoice.SubmitResult, error) { return einvoice.SubmitResult{}, err }
}

// scriptedWorld is a world (a real SQLite store) whose authority is a.
func scriptedWorld(t *testing.T) (*world, *scripted) {
	t.Helper()
	a := newScripted(t)
	w := newWorldWith(t, sqliteDSN(t), func(o *invoicing.Options) { o.Authority = a; o.Wait = time.Second })
	return w, a
}

// TestScriptedSubmitOutcomes: each answer to a submission leaves the
// document and its job where the outcome says: accepted, refused, or
// unknown (maybe sent, settled by a search before anything is sent again),
// or not sent at all (retried as a fresh send).
func TestScriptedSubmitOutcomes(t *testing.T) {
	for _, tc := range []struct {
		name   string
		answer func([]einvoice.OutgoingDocument) (einvoice.SubmitResult, error)
		status einvoice.Status
		state  einvoice.JobState
		kind   einvoice.JobKind
		maybe  bool   // the job is left maybe-sent
		errs   string // the document's first authority error code
		last   string // in the job's last error
	}{
		{name: "accepted", answer: acceptAll("SUB-1"), status: einvoice.StatusSubmitted, state: einvoice.JobPending, kind: einvoice.JobPoll},
		{name: "refused", answer: func(docs []einvoice.OutgoingDocument) (einvoice.SubmitResult, error) {
			return einvoice.SubmitResult{SubmissionUID: "SUB-2", Rejected: []einvoice.RejectedDocument{{CodeNumber: docs[0].CodeNumber,
				Error: einvoice.AuthorityError{Code: "BadStructure", Message: "no"}}}}, nil
		}, status: einvoice.StatusInvalid, state: einvoice.JobFailed, kind: einvoice.JobSubmit, errs: "BadStructure", last: "BadStructure"},
		{name: "answer without the document", answer: func([]einvoice.OutgoingDocument) (einvoice.SubmitResult, error) {
			return einvoice.SubmitResult{SubmissionUID: "SUB-3"}, nil
		}, status: einvoice.StatusSubmitting, state: einvoice.JobPending, kind: einvoice.JobSubmit, maybe: true, last: "did not mention"},
		{name: "no answer", answer: fail[[]einvoice.OutgoingDocument](&einvoice.CallError{Op: "submit", Err: context.DeadlineExceeded}),
			status: einvoice.StatusSubmitting, state: einvoice.JobPending, kind: einvoice.JobSubmit, maybe: true, last: "submit"},
		{name: "5xx", answer: fail[[]einvoice.OutgoingDocument](&einvoice.CallError{Op: "submit", Status: 503}),
			status: einvoice.StatusSubmitting, state: einvoice.JobPending, kind: einvoice.JobSubmit, maybe: true, last: "HTTP 503"},
		{name: "429 answered", answer: fail[[]einvoice.OutgoingDocument](&einvoice.CallError{Op: "submit", Status: 429, RetryAfter: time.Minute}),
			status: einvoice.StatusSubmitting, state: einvoice.JobPending, kind: einvoice.JobSubmit, last: "HTTP 429"},
		{name: "not sent (budget)", answer: fail[[]einvoice.OutgoingDocument](&einvoice.CallError{Op: "submit", NotSent: true}),
			status: einvoice.StatusSubmitting, state: einvoice.JobPending, kind: einvoice.JobSubmit, last: "submit"},
		{name: "login failed", answer: fail[[]einvoice.OutgoingDocument](fmt.Errorf("token: %w", einvoice.ErrLogin)),
			status: einvoice.StatusSubmitting, state: einvoice.JobPending, kind: einvoice.JobSubmit, last: "login"},
		{name: "duplicate submission", answer: fail[[]einvoice.OutgoingDocument](&einvoice.CallError{Op: "submit", Status: 422,
			Body: einvoice.AuthorityError{Code: "DuplicateSubmission"}}),
			status: einvoice.StatusSubmitting, state: einvoice.JobPending, kind: einvoice.JobSubmit, maybe: true, last: "HTTP 422"},
		{name: "4xx with a body", answer: fail[[]einvoice.OutgoingDocument](&einvoice.CallError{Op: "submit", Status: 400,
			Body: einvoice.AuthorityError{Code: "BadArgument", Message: "bad"}}),
			status: einvoice.StatusInvalid, state: einvoice.JobFailed, kind: einvoice.JobSubmit, errs: "BadArgument", last: "BadArgument"},
		{name: "4xx without a body", answer: fail[[]einvoice.OutgoingDocument](&einvoice.CallError{Op: "submit", Status: 403}),
			status: einvoice.StatusInvalid, state: einvoice.JobFailed, kind: einvoice.JobSubmit, errs: "HTTP403", last: "HTTP403"},
		{name: "too large", answer: fail[[]einvoice.OutgoingDocument](fmt.Errorf("submit: %w", einvoice.ErrTooLarge)),
			status: einvoice.StatusInvalid, state: einvoice.JobFailed, kind: einvoice.JobSubmit, errs: "MaximumSizeExceeded", last: "MaximumSizeExceeded"},
		{name: "unknown failure", answer: fail[[]einvoice.OutgoingDocument](errors.New("something odd")),
			status: einvoice.StatusSubmitting, state: einvoice.JobPending, kind: einvoice.JobSubmit, maybe: true, last: "something odd"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, a := scriptedWorld(t)
			id := w.readyInvoices("INV", 1)[0]
			a.submit = append(a.submit, tc.answer)
			out, err := w.svc.Submit(context.Background(), w.tenant.ID, "", id)
			if err != nil {
				t.Fatal(err)
			}
			d, j := w.document(id), w.job(id)
			if d.Status != tc.status || j.State != tc.state || j.Kind != tc.kind || j.MaybeSent != tc.maybe || !strings.Contains(j.LastError, tc.last) {
				t.Errorf("document %s, job %s %s maybe-sent %v last error %q; want %s, %s %s %v, %q",
					d.Status, j.Kind, j.State, j.MaybeSent, j.LastError, tc.status, tc.kind, tc.state, tc.maybe, tc.last)
			}
			if out.Pending != (tc.status == einvoice.StatusSubmitting) || out.Rejected != (tc.status == einvoice.StatusInvalid) {
				t.Errorf("outcome pending %v rejected %v for a %s document", out.Pending, out.Rejected, d.Status)
			}
			if tc.errs != "" && (d.Authority == nil || len(d.Authority.Errors) == 0 || d.Authority.Errors[0].Code != tc.errs) {
				t.Errorf("authority errors %+v, want %s", d.Authority, tc.errs)
			}
			if tc.state == einvoice.JobPending && tc.kind == einvoice.JobSubmit && !j.NextAttemptAt.After(w.clk.Now()) {
				t.Errorf("released job due at %v, not after now %v: no backoff", j.NextAttemptAt, w.clk.Now())
			}
			if tc.name == "429 answered" && j.NextAttemptAt.Before(w.clk.Now().Add(time.Minute-time.Second)) {
				t.Errorf("after a 429 with Retry-After 1m the job is due at %v, before the minute", j.NextAttemptAt)
			}
		})
	}
}

// TestScriptedTooLargeAlone: a document the authority would never take is
// refused alone, without I/O; the others of the bulk go out together.
func TestScriptedTooLargeAlone(t *testing.T) {
	w, a := scriptedWorld(t)
	ids := w.readyInvoices("BIG", 3)
	a.tooLarge["BIG-0002"] = true
	a.submit = append(a.submit, acceptAll("SUB-B"))
	w.submitBulk(ids)
	if got := w.document(ids[1]); got.Status != einvoice.StatusInvalid || got.Authority.Errors[0].Code != "MaximumSizeExceeded" {
		t.Errorf("the too large document is %s %+v, want Invalid MaximumSizeExceeded", got.Status, got.Authority)
	}
	for _, id := range []string{ids[0], ids[2]} {
		if got := w.document(id); got.Status != einvoice.StatusSubmitted {
			t.Errorf("%s is %s, want Submitted", got.InvoiceSerialNumber, got.Status)
		}
	}
	if len(a.sent) != 1 || len(a.sent[0]) != 2 {
		t.Errorf("sent %d submissions (%v), want one of the two that fit", len(a.sent), a.sent)
	}
}

// TestScriptedSettle: an unknown outcome is settled by one search before
// anything is sent again: found, it is accepted as the copy the authority
// holds; known absent, the same bytes are sent again; neither, it waits,
// unsent.
func TestScriptedSettle(t *testing.T) {
	noAnswer := fail[[]einvoice.OutgoingDocument](&einvoice.CallError{Op: "submit", Err: context.DeadlineExceeded})
	for _, tc := range []struct {
		name   string
		find   func([]einvoice.SoughtDocument) (einvoice.FindResult, error)
		resend bool
		status einvoice.Status
		maybe  bool
	}{
		{name: "found", find: func(s []einvoice.SoughtDocument) (einvoice.FindResult, error) {
			return einvoice.FindResult{Matches: [][]einvoice.DocumentState{{
				{UUID: "LATER", SubmissionUID: "S2", Status: "Invalid", SubmittedAt: time.Unix(200, 0)},
				{UUID: "FIRST", SubmissionUID: "S1", Status: "Submitted", SubmittedAt: time.Unix(100, 0)}}}}, nil
		}, status: einvoice.StatusSubmitted},
		{name: "absent", find: func(s []einvoice.SoughtDocument) (einvoice.FindResult, error) {
			return einvoice.FindResult{Matches: make([][]einvoice.DocumentState, len(s)), Absent: []bool{true}}, nil
		}, resend: true, status: einvoice.StatusSubmitted},
		{name: "search cut short", find: func(s []einvoice.SoughtDocument) (einvoice.FindResult, error) {
			return einvoice.FindResult{}, &einvoice.CallError{Op: "search", Status: 503}
		}, status: einvoice.StatusSubmitting, maybe: true},
		{name: "search incomplete without error", find: func(s []einvoice.SoughtDocument) (einvoice.FindResult, error) {
			return einvoice.FindResult{Matches: make([][]einvoice.DocumentState, len(s)), Absent: make([]bool, len(s))}, nil
		}, status: einvoice.StatusSubmitting, maybe: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, a := scriptedWorld(t)
			id := w.readyInvoices("SET", 1)[0]
			a.submit = append(a.submit, noAnswer)
			if _, err := w.svc.Submit(context.Background(), w.tenant.ID, "", id); err != nil {
				t.Fatal(err)
			}
			// The send loop never takes a maybe-sent job: only the settle
			// loop does, once the job is due.
			w.clk.Advance(10 * time.Minute)
			if n, err := w.svc.RunOnce(context.Background()); err != nil || a.count("submit") != 1 {
				t.Fatalf("RunOnce took %d (%v) and sent %d times; a maybe-sent job must not be sent unsettled", n, err, a.count("submit"))
			}
			a.find = append(a.find, tc.find)
			if tc.resend {
				a.submit = append(a.submit, acceptAll("SUB-AGAIN"))
			}
			if n, err := w.svc.SettleOnce(context.Background()); err != nil || n != 1 {
				t.Fatalf("SettleOnce = %d, %v; want the one unknown outcome", n, err)
			}
			d, j := w.document(id), w.job(id)
			if d.Status != tc.status || j.MaybeSent != tc.maybe {
				t.Errorf("document %s, maybe-sent %v; want %s, %v", d.Status, j.MaybeSent, tc.status, tc.maybe)
			}
			if got, want := a.count("submit"), map[bool]int{false: 1, true: 2}[tc.resend]; got != want {
				t.Errorf("sent %d times, want %d", got, want)
			}
			if tc.resend && string(a.sent[1][0].Body) != string(a.sent[0][0].Body) {
				t.Error("sent again with other bytes than the first time")
			}
			if tc.name == "found" && (d.Authority.DocumentUUID != "FIRST" || d.Authority.SubmissionUID != "S1") {
				t.Errorf("settled to %s in %s, want the copy not found Invalid (FIRST in S1)", d.Authority.DocumentUUID, d.Authority.SubmissionUID)
			}
			if tc.maybe && !j.NextAttemptAt.After(w.clk.Now()) {
				t.Errorf("unsettled job due at %v, not after now %v", j.NextAttemptAt, w.clk.Now())
			}
		})
	}
}

// TestScriptedLeaseLost: a worker whose lease was taken over while it
// waited for the authority records nothing; the job stays maybe-sent for
// its new owner to settle.
func TestScriptedLeaseLost(t *testing.T) {
	w, a := scriptedWorld(t)
	id := w.readyInvoices("LEASE", 1)[0]
	a.submit = append(a.submit, func(docs []einvoice.OutgoingDocument) (einvoice.SubmitResult, error) {
		j := w.job(id)
		owner := j.LeaseOwner
		j.LeaseOwner, j.LeaseUntil = "another-worker", w.clk.Now().Add(time.Hour)
		if err := w.store.WriteSubmission(context.Background(), einvoice.SubmissionWrite{Jobs: []*einvoice.Job{j}, Lease: owner}); err != nil {
			t.Errorf("take the lease over: %v", err)
		}
		return acceptAll("SUB-L")(docs)
	})
	if _, err := w.svc.Submit(context.Background(), w.tenant.ID, "", id); err != nil {
		t.Fatal(err)
	}
	d, j := w.document(id), w.job(id)
	if d.Status != einvoice.StatusSubmitting || !j.MaybeSent || j.LeaseOwner != "another-worker" || j.Kind != einvoice.JobSubmit {
		t.Errorf("after a lost lease: document %s, job %s maybe-sent %v owned by %q; want submitting, a maybe-sent submit job of another-worker",
			d.Status, j.Kind, j.MaybeSent, j.LeaseOwner)
	}
}

// TestScriptedPollGrouping: the documents of one submission are followed
// with one Get Submission; one the submission does not list yet is asked
// again later, further apart each time; an Invalid one without errors gets
// them from Get Document Details.
func TestScriptedPollGrouping(t *testing.T) {
	w, a := scriptedWorld(t)
	ids := w.readyInvoices("POLL", 3)
	a.submit = append(a.submit, acceptAll("SUB-P"))
	w.submitBulk(ids)
	validated := time.Unix(1_800_000_000, 0).UTC()
	a.poll = append(a.poll, func(uid string) (einvoice.SubmissionState, error) {
		if uid != "SUB-P" {
			t.Errorf("polled %q, want SUB-P", uid)
		}
		return einvoice.SubmissionState{SubmissionUID: uid, Documents: []einvoice.DocumentState{
			{UUID: "U-POLL-0001", Status: "Valid", LongID: "LONG1", ValidatedAt: &validated},
			{UUID: "U-POLL-0002", Status: "Invalid"},
		}}, nil
	})
	a.detail = append(a.detail, func(uuid string) (einvoice.DocumentState, error) {
		return einvoice.DocumentState{UUID: uuid, Status: "Invalid", Errors: []einvoice.AuthorityError{{Code: "CF321", Message: "wrong"}}}, nil
	})
	w.clk.Advance(time.Minute)
	if _, err := w.svc.RunOnce(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := a.count("submission"); n != 1 {
		t.Errorf("%d Get Submission calls for one submission of three documents, want 1", n)
	}
	if d := w.document(ids[0]); d.Status != einvoice.StatusValid || d.Authority.LongID != "LONG1" {
		t.Errorf("first: %s %+v, want Valid with its long id", d.Status, d.Authority)
	}
	if d := w.document(ids[1]); d.Status != einvoice.StatusInvalid || len(d.Authority.Errors) != 1 || d.Authority.Errors[0].Code != "CF321" {
		t.Errorf("second: %s %+v, want Invalid with the details' errors", d.Status, d.Authority)
	}
	third := w.job(ids[2])
	if w.document(ids[2]).Status != einvoice.StatusSubmitted || third.State != einvoice.JobPending || !strings.Contains(third.LastError, "does not list") {
		t.Errorf("third: job %s %q, want pending, asked again later", third.State, third.LastError)
	}
	first := third.NextAttemptAt.Sub(w.clk.Now())
	a.poll = append(a.poll, func(uid string) (einvoice.SubmissionState, error) {
		return einvoice.SubmissionState{SubmissionUID: uid}, nil
	})
	w.clk.Advance(first)
	if _, err := w.svc.RunOnce(context.Background()); err != nil {
		t.Fatal(err)
	}
	if again := w.job(ids[2]).NextAttemptAt.Sub(w.clk.Now()); again <= first {
		t.Errorf("asked again after %v, then %v: want further apart each time", first, again)
	}
}

// TestScriptedDeferralIsNoAttempt: a send held back by our own rate budget
// (not sent, with the time to its slot) is retried when the slot comes and
// does not count as an attempt, so that a busy budget does not grow the
// backoff; a 429 the authority answered does count.
func TestScriptedDeferralIsNoAttempt(t *testing.T) {
	w, a := scriptedWorld(t)
	ids := w.readyInvoices("INV", 2)
	a.submit = append(a.submit,
		fail[[]einvoice.OutgoingDocument](&einvoice.CallError{Op: "submit", Status: 429, NotSent: true, RetryAfter: 20 * time.Second}),
		fail[[]einvoice.OutgoingDocument](&einvoice.CallError{Op: "submit", Status: 429, RetryAfter: 20 * time.Second}))
	before := time.Now()
	for _, id := range ids {
		if _, err := w.svc.Submit(context.Background(), w.tenant.ID, "", id); err != nil {
			t.Fatal(err)
		}
	}
	deferred, throttled := w.job(ids[0]), w.job(ids[1])
	if deferred.Attempts != 0 || deferred.MaybeSent || deferred.NextAttemptAt.Before(before.Add(20*time.Second)) {
		t.Errorf("deferred by the budget: %d attempts, maybe-sent %v, next attempt in %s; want 0, false, at least 20s",
			deferred.Attempts, deferred.MaybeSent, deferred.NextAttemptAt.Sub(before))
	}
	if throttled.Attempts != 1 {
		t.Errorf("throttled by the authority: %d attempts, want 1", throttled.Attempts)
	}
}

// TestScriptedDeferralDueAtItsSlot: a job that failed before and is then
// held back by our own budget is due when the budget's slot comes, not
// after the backoff its past attempts would give (which left the
// authority's minute unused behind a busy budget).
func TestScriptedDeferralDueAtItsSlot(t *testing.T) {
	w, a := scriptedWorld(t)
	id := w.readyInvoices("INV", 1)[0]
	a.submit = append(a.submit, fail[[]einvoice.OutgoingDocument](&einvoice.CallError{Op: "submit", NotSent: true}))
	if _, err := w.svc.Submit(context.Background(), w.tenant.ID, "", id); err != nil {
		t.Fatal(err)
	}
	// As after five failures of the authority in a row: a backoff of a
	// minute or so.
	j := w.job(id)
	j.Attempts, j.NextAttemptAt = 6, time.Now().Add(-time.Second)
	if err := w.store.WriteSubmission(context.Background(), einvoice.SubmissionWrite{Jobs: []*einvoice.Job{j}}); err != nil {
		t.Fatal(err)
	}
	a.submit = append(a.submit, fail[[]einvoice.OutgoingDocument](&einvoice.CallError{Op: "submit", Status: 429, NotSent: true, RetryAfter: 3 * time.Second}))
	before := time.Now()
	if _, err := w.svc.RunOnce(context.Background()); err != nil {
		t.Fatal(err)
	}
	if a.count("submit") != 2 {
		t.Fatalf("%d submit calls, want 2 (the failure, then the deferral)", a.count("submit"))
	}
	j = w.job(id)
	if wait := j.NextAttemptAt.Sub(before); j.Attempts != 6 || wait < 3*time.Second || wait > 4*time.Second {
		t.Errorf("deferred after %d attempts: %d attempts, due in %s; want 6, at the slot (3 s)", 6, j.Attempts, wait)
	}
}
