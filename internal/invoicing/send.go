package invoicing

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/einvoice/einvoice/internal/einvoice"
	"github.com/einvoice/einvoice/internal/retry"
)

// chunks splits items into as few submissions as the authority's limits
// allow (the client's Split, on the exact bytes it would send).
func (s *Service) chunks(items []*item) ([][]*item, error) {
	docs := make([]einvoice.OutgoingDocument, len(items))
	for i, it := range items {
		docs[i] = einvoice.OutgoingDocument{CodeNumber: it.doc.InvoiceSerialNumber, Body: it.ubl}
	}
	groups, err := s.authority.Split(docs)
	if err != nil {
		return nil, err
	}
	out := make([][]*item, len(groups))
	i := 0
	for g, docs := range groups { // Split keeps the order
		out[g], i = items[i:i+len(docs)], i+len(docs)
	}
	return out, nil
}

// send sends items (all of tenant t, leased to owner) in as few submissions
// as the limits allow, and records each outcome. It returns the submission
// uids.
func (s *Service) send(ctx context.Context, t *einvoice.Tenant, items []*item, owner string) []string {
	groups, err := s.chunks(items)
	if err != nil {
		// Documents the authority would never take are refused alone (a
		// check without I/O), so that the others still go together.
		var fit []*item
		for _, it := range items {
			if _, err := s.chunks([]*item{it}); err != nil {
				s.rejected(ctx, it, owner, []einvoice.AuthorityError{{Code: "MaximumSizeExceeded", Message: err.Error()}},
					"over the authority's size limits: not sent")
				continue
			}
			fit = append(fit, it)
		}
		if len(fit) == 0 {
			return nil
		}
		if groups, err = s.chunks(fit); err != nil {
			s.retryLater(ctx, fit, owner, err, false)
			return nil
		}
	}
	var uids []string
	for _, c := range groups {
		if uid := s.sendChunk(ctx, t, c, owner); uid != "" {
			uids = append(uids, uid)
		}
	}
	return uids
}

// sendChunk sends one submission.
func (s *Service) sendChunk(ctx context.Context, t *einvoice.Tenant, items []*item, owner string) string {
	creds, err := s.credentials(t)
	if err != nil {
		s.retryLater(ctx, items, owner, err, false)
		return ""
	}
	// Mark every job maybe-sent before the call: a crash from here on
	// leaves the outcome unknown, to be settled by asking the authority.
	now := s.now()
	jobs := make([]*einvoice.Job, len(items))
	for i, it := range items {
		// The lease is renewed with the mark, so that no other worker can
		// take the job over while this call may still be under way.
		it.job.Attempts++
		it.job.MaybeSent, it.job.LeaseUntil, it.job.UpdatedAt = true, now.Add(s.lease), now
		it.job.SettleAfter = now.Add(settleGrace(s.wait))
		jobs[i] = it.job
	}
	sendable := items
	if err := s.store.WriteSubmission(ctx, einvoice.SubmissionWrite{Jobs: jobs, Lease: owner}); err != nil {
		// One job's lease was lost (or the write failed): mark them one by
		// one and send those still held.
		sendable = nil
		for _, it := range items {
			if err := s.store.WriteSubmission(ctx, einvoice.SubmissionWrite{Jobs: []*einvoice.Job{it.job}, Lease: owner}); err != nil {
				s.log.WarnContext(ctx, "submission job lost before sending", "document_id", it.doc.ID, "error", err)
				continue
			}
			sendable = append(sendable, it)
		}
	}
	if len(sendable) == 0 {
		return ""
	}
	docs := make([]einvoice.OutgoingDocument, len(sendable))
	for i, it := range sendable {
		docs[i] = einvoice.OutgoingDocument{CodeNumber: it.doc.InvoiceSerialNumber, Body: it.ubl}
	}
	callCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.wait)
	res, err := s.authority.Submit(callCtx, creds, docs)
	cancel()
	if err != nil {
		if authorityFailed(err) {
			s.submitStreak.Add(1)
		}
		s.submitFailed(ctx, sendable, owner, err)
		return ""
	}
	s.submitStreak.Store(0)
	byCode := map[string]*item{}
	for _, it := range sendable {
		byCode[it.doc.InvoiceSerialNumber] = it
	}
	for _, a := range res.Accepted {
		if it := byCode[a.CodeNumber]; it != nil {
			delete(byCode, a.CodeNumber)
			s.accepted(ctx, it, owner, res.SubmissionUID, a.UUID, "accepted by the authority as "+a.UUID)
		}
	}
	for _, r := range res.Rejected {
		if it := byCode[r.CodeNumber]; it != nil {
			delete(byCode, r.CodeNumber)
			s.rejected(ctx, it, owner, []einvoice.AuthorityError{r.Error}, "refused by the authority at submission")
		}
	}
	for _, it := range byCode { // not in the answer: settle later
		s.retryLater(ctx, []*item{it}, owner, errors.New("the authority's answer did not mention the document"), true)
	}
	return res.SubmissionUID
}

// submitFailed records a submission call that failed.
func (s *Service) submitFailed(ctx context.Context, items []*item, owner string, err error) {
	ce, ok := einvoice.AsCallError(err)
	switch {
	case errors.Is(err, einvoice.ErrTooLarge):
		for _, it := range items {
			s.rejected(ctx, it, owner, []einvoice.AuthorityError{{Code: "MaximumSizeExceeded", Message: err.Error()}},
				"over the authority's size limits: not sent")
		}
	case ok && ce.Deferred():
		// Held back by our own rate budget: nothing left, nothing failed.
		// It goes out when its slot comes, and the wait does not count as
		// an attempt (attempts grow the backoff: a document deferred a few
		// times behind a busy budget would otherwise wait minutes).
		for _, it := range items {
			it.job.Attempts--
		}
		s.retryLater(ctx, items, owner, err, false)
	case errors.Is(err, einvoice.ErrLogin), ok && ce.NotSent:
		// Nothing was sent (a failed login: the tenant's credentials may
		// need fixing, as the last error says; or the rate budget): try
		// again later.
		s.retryLater(ctx, items, owner, err, false)
	case ok && ce.Status == 422 && ce.Body.Code == "DuplicateSubmission":
		// The authority has seen this very payload: settle by asking.
		s.retryLater(ctx, items, owner, err, true)
	case ok && ce.Temporary():
		s.retryLater(ctx, items, owner, err, ce.Unanswered())
	case ok && ce.Status >= 400 && ce.Status < 500:
		body := ce.Body
		if body.Code == "" && body.Message == "" {
			body = einvoice.AuthorityError{Code: fmt.Sprintf("HTTP%d", ce.Status), Message: err.Error()}
		}
		for _, it := range items {
			s.rejected(ctx, it, owner, []einvoice.AuthorityError{body}, "refused by the authority at submission")
		}
	case ok:
		s.retryLater(ctx, items, owner, err, true)
	default:
		// Refused before any call, or an unknown failure: ask before sending
		// again, to be safe.
		s.retryLater(ctx, items, owner, err, true)
	}
}

// authorityFailed reports whether err is a failure of the authority itself
// (an error answer, a throttle, no answer), not a refusal of ours before any
// call (our rate budget, a failed login).
func authorityFailed(err error) bool {
	ce, ok := einvoice.AsCallError(err)
	return ok && !ce.NotSent && ce.Temporary() && !errors.Is(err, einvoice.ErrLogin)
}

// retryAttempts is the attempt count the backoff of a job grows with. After
// a failure of the authority it is the fewer of the job's attempts and the
// authority's failures in a row: under an outage every call fails and the
// wait grows to its cap, while under faults that come and go (a 500 or a
// 429 among successes) a document that was unlucky several times is not
// left waiting minutes while the authority takes others.
func (s *Service) retryAttempts(j *einvoice.Job, cause error) int {
	if !authorityFailed(cause) {
		return j.Attempts
	}
	return min(j.Attempts, max(int(s.submitStreak.Load()), 1))
}

// backoff is the wait before attempt n+1: exponential from 2 s, capped at 5
// minutes, with jitter; at least the authority's Retry-After.
func backoff(attempts int, retryAfter time.Duration) time.Duration {
	return max(retry.Policy{Base: 2 * time.Second, Max: 5 * time.Minute, Jitter: retry.EqualJitter}.Delay(attempts), retryAfter)
}

// retryLater releases the jobs for a later attempt by any worker.
func (s *Service) retryLater(ctx context.Context, items []*item, owner string, cause error, maybeSent bool) {
	now := s.now()
	var ra time.Duration
	deferred := false
	if ce, ok := einvoice.AsCallError(cause); ok {
		ra, deferred = ce.RetryAfter, ce.Deferred() && ce.RetryAfter > 0
	}
	for _, it := range items {
		j := it.job
		j.MaybeSent = maybeSent
		if ce, ok := einvoice.AsCallError(cause); maybeSent && ok && ce.AnsweredByAuthority() {
			j.SettleAfter = now // nothing left in flight: search when due
		}
		j.LastError = einvoice.Truncate(cause.Error(), 500)
		if deferred {
			// Held back by our own rate budget: due when its slot comes,
			// whatever the job's past attempts (a backoff would send it
			// seconds after the slot, and the authority's minute unused).
			j.NextAttemptAt = now.Add(ra)
		} else {
			j.NextAttemptAt = now.Add(backoff(s.retryAttempts(j, cause), ra))
		}
		j.LeaseUntil, j.UpdatedAt = now, now
		if err := s.store.WriteSubmission(context.WithoutCancel(ctx), einvoice.SubmissionWrite{Jobs: []*einvoice.Job{j}, Lease: owner}); err != nil {
			s.log.WarnContext(ctx, "could not reschedule submission job", "document_id", it.doc.ID, "error", err)
		}
	}
	s.log.InfoContext(ctx, "authority call failed; will retry", "documents", len(items), "maybe_sent", maybeSent, "error", cause)
}

// accepted records a document the authority took in: Submitted, and its job
// now follows it to its verdict; note goes to the document's history.
func (s *Service) accepted(ctx context.Context, it *item, owner, submissionUID, uuid, note string) {
	now := s.now()
	d, j := it.doc, it.job
	d.Status, d.UpdatedAt = einvoice.StatusSubmitted, now
	if d.Authority == nil {
		d.Authority = &einvoice.AuthorityRecord{}
	}
	d.Authority.DocumentUUID, d.Authority.SubmissionUID, d.Authority.SubmittedAt = uuid, submissionUID, &now
	j.Kind, j.State, j.MaybeSent, j.LastError = einvoice.JobPoll, einvoice.JobPending, false, ""
	j.SubmissionUID, j.NextAttemptAt, j.LeaseUntil, j.UpdatedAt = submissionUID, now.Add(s.pollAfter), now, now
	ev := &einvoice.Event{ID: s.newID(), Status: einvoice.StatusSubmitted, Note: note, At: now}
	s.write(ctx, einvoice.SubmissionWrite{Doc: d, From: []einvoice.Status{einvoice.StatusSubmitting}, Jobs: []*einvoice.Job{j}, Lease: owner, Event: ev,
		Notify: s.documentEvent(ctx, d, j, einvoice.EventDocumentSubmitted)})
}

// rejected records a document the authority refused: Invalid with its errors.
func (s *Service) rejected(ctx context.Context, it *item, owner string, errs []einvoice.AuthorityError, note string) {
	now := s.now()
	d, j := it.doc, it.job
	d.Status, d.UpdatedAt = einvoice.StatusInvalid, now
	if d.Authority == nil {
		d.Authority = &einvoice.AuthorityRecord{}
	}
	d.Authority.Errors = errs
	j.State, j.MaybeSent, j.LeaseUntil, j.UpdatedAt = einvoice.JobFailed, false, now, now
	if len(errs) > 0 {
		j.LastError = einvoice.Truncate(errs[0].Code+" "+errs[0].Message, 500)
	}
	ev := &einvoice.Event{ID: s.newID(), Status: einvoice.StatusInvalid, Note: note, At: now}
	s.write(ctx, einvoice.SubmissionWrite{Doc: d, From: []einvoice.Status{einvoice.StatusSubmitting, einvoice.StatusSubmitted},
		Jobs: []*einvoice.Job{j}, Lease: owner, Event: ev, Notify: s.documentEvent(ctx, d, j, einvoice.EventDocumentInvalid)})
}

// write applies a lifecycle write, logging a lost lease (another worker has
// taken the job over and will settle it).
func (s *Service) write(ctx context.Context, w einvoice.SubmissionWrite) {
	if err := s.writeNotified(context.WithoutCancel(ctx), w); err != nil {
		s.log.WarnContext(ctx, "submission step not recorded", "document_id", w.Doc.ID, "error", err)
	}
}
