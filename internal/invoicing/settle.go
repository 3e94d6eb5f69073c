package invoicing

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/einvoice/einvoice/internal/einvoice"
)

// settleBatch bounds how many unknown outcomes of one tenant one search
// settles.
const settleBatch = 1000

// settleGrace is how long after a job is marked maybe-sent its outcome may
// first be searched for (Job.SettleAfter), unless the authority answered the
// call (CallError.AnsweredByAuthority): an authority still taking in a
// submission our client gave up on (its wait ended, or the process died)
// does not list it yet, and a search that early would send it twice. At
// least 10 s, and three waits: the call itself may last a wait after the
// mark.
func settleGrace(wait time.Duration) time.Duration { return max(10*time.Second, 3*wait) }

// SettleOnce takes the submit jobs whose outcome is unknown (maybe sent) of
// one tenant that has one due, with the tenant's others along, due or not,
// each once its SettleAfter has passed, and settles them with one search: a
// document the authority has takes its state, a document the search shows
// it does not have is sent again (the same stored bytes), and the others
// wait for a later search, unsent. It returns how many jobs it took.
func (s *Service) SettleOnce(ctx context.Context) (int, error) {
	owner := einvoice.SweepOwnerPrefix + s.newID()
	now := s.now()
	jobs, err := s.store.ClaimUnknown(ctx, owner, now, now.Add(s.lease), settleBatch)
	if err != nil || len(jobs) == 0 {
		return 0, err
	}
	work := context.WithoutCancel(ctx) // record what was learnt
	t, err := s.tenant(work, jobs[0].TenantID)
	if err != nil {
		// Taken again once their lease ends.
		return len(jobs), fmt.Errorf("load the tenant of unknown outcomes: %w", err)
	}
	if resend := s.settle(ctx, t, jobs, owner); len(resend) > 0 {
		s.send(work, t, resend, owner)
	}
	return len(jobs), nil
}

// sweepBudgetWait is how long a settle sweep waits for each search slot: a
// little more than the budget's window, so a sweep of many pages is never
// cut short by our own budget.
const sweepBudgetWait = 2 * time.Minute

// settle finds out which of the jobs (all of tenant t, leased to owner)
// reached the authority, with one search for all of them, and records what
// it learnt; it returns the documents the authority is known not to have,
// to be sent again. The search may outlast a lease (it waits for the search
// budget, 12 calls a minute): the leases are renewed meanwhile. It stops
// when ctx ends; what remains unknown is asked again later.
func (s *Service) settle(ctx context.Context, t *einvoice.Tenant, jobs []*einvoice.Job, owner string) []*item {
	work := context.WithoutCancel(ctx)
	var items []*item
	var sought []einvoice.SoughtDocument
	for _, j := range jobs {
		if it := s.loadItem(work, j, owner); it != nil {
			items = append(items, it)
			sought = append(sought, soughtOf(it))
		}
	}
	if len(items) == 0 {
		return nil
	}
	creds, err := s.credentials(t)
	var found einvoice.FindResult
	if err == nil {
		stop := s.keepLeases(work, items, owner)
		// A sweep that gave up a page for want of budget would start over
		// next time: it waits for its slots instead (the leases are kept).
		found, err = s.authority.FindDocuments(einvoice.WithBudgetWait(ctx, sweepBudgetWait), creds, sought)
		stop()
	}
	var resend, unknown []*item
	for i, it := range items {
		switch {
		case i < len(found.Matches) && len(found.Matches[i]) > 0:
			st := best(found.Matches[i])
			s.log.InfoContext(work, "unknown outcome settled: the authority has the document", "document_id", it.doc.ID, "uuid", st.UUID,
				"copies", len(found.Matches[i]))
			s.accepted(work, it, owner, st.SubmissionUID, st.UUID,
				"accepted by the authority as "+st.UUID+" (found by a search after its answer was lost)")
		case i < len(found.Absent) && found.Absent[i]:
			s.log.InfoContext(work, "unknown outcome settled: the authority does not have the document; sending", "document_id", it.doc.ID,
				"code_number", sought[i].CodeNumber, "since", sought[i].Since, "issued_at", sought[i].IssuedAt)
			resend = append(resend, it)
		default:
			unknown = append(unknown, it)
		}
	}
	if len(unknown) > 0 {
		if err == nil {
			err = errors.New("the search could not read every submission since the document may have been sent")
		}
		s.retryLater(work, unknown, owner, fmt.Errorf("settle unknown outcome: %w", err), true)
	}
	return resend
}

// soughtOf is what the search looks for to settle an item: its code number,
// issued at the time written into its UBL, submitted no earlier than its
// job was recorded.
func soughtOf(it *item) einvoice.SoughtDocument {
	s := einvoice.SoughtDocument{CodeNumber: it.doc.InvoiceSerialNumber, Since: it.job.CreatedAt}
	if it.doc.Authority != nil {
		s.IssuedAt = it.doc.Authority.IssuedAt
	}
	return s
}

// best is the copy an unknown outcome settles to when the authority lists
// several: the earliest it did not find Invalid (a later copy of the same
// document is a duplicate of it), else the earliest.
func best(copies []einvoice.DocumentState) einvoice.DocumentState {
	b := copies[0]
	for _, s := range copies[1:] {
		bi, si := isInvalid(b), isInvalid(s)
		if (bi && !si) || (bi == si && s.SubmittedAt.Before(b.SubmittedAt)) {
			b = s
		}
	}
	return b
}

func isInvalid(s einvoice.DocumentState) bool { return strings.EqualFold(s.Status, "invalid") }

// keepLeases renews the leases of the items' jobs, held by owner, every
// third of a lease until the returned stop is called (and has returned).
func (s *Service) keepLeases(ctx context.Context, items []*item, owner string) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		tick := time.NewTicker(s.lease / 3)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				s.renew(ctx, items, owner)
			}
		}
	})
	return func() {
		close(done)
		wg.Wait()
	}
}

// renew extends the leases of the items' jobs; a job whose lease was lost
// is left to the worker that holds it now (its writes here will fail).
func (s *Service) renew(ctx context.Context, items []*item, owner string) {
	until := s.now().Add(s.lease)
	jobs := make([]*einvoice.Job, len(items))
	for i, it := range items {
		it.job.LeaseUntil = until
		jobs[i] = it.job
	}
	if s.store.WriteSubmission(ctx, einvoice.SubmissionWrite{Jobs: jobs, Lease: owner}) == nil {
		return
	}
	for _, j := range jobs {
		if err := s.store.WriteSubmission(ctx, einvoice.SubmissionWrite{Jobs: []*einvoice.Job{j}, Lease: owner}); err != nil {
			s.log.WarnContext(ctx, "could not renew the lease of an unknown outcome", "document_id", j.DocumentID, "error", err)
		}
	}
}

// release ends a job's lease without touching anything else, for another
// loop to take it.
func (s *Service) release(ctx context.Context, j *einvoice.Job, owner string) {
	j.LeaseUntil = s.now()
	if err := s.store.WriteSubmission(context.WithoutCancel(ctx), einvoice.SubmissionWrite{Jobs: []*einvoice.Job{j}, Lease: owner}); err != nil {
		s.log.WarnContext(ctx, "could not release a job", "document_id", j.DocumentID, "error", err)
	}
}
