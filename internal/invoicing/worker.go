package invoicing

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/einvoice/einvoice/internal/einvoice"
	"github.com/einvoice/einvoice/internal/retry"
)

// claimBatch is how many jobs a worker takes at once.
const claimBatch = 100

// Run starts every background loop of the service and blocks until ctx
// ends and they have finished the work in hand. Each loop is switched by its
// own setting, so that switching one off leaves the others running:
//   - the outbox (Workers, none when 0): per worker a loop that sends and
//     polls (RunOnce), one that only polls for verdicts (PollOnce) and one
//     that settles unknown outcomes (SettleOnce), so that a settling search,
//     which may wait for the authority's search budget, never holds up sends
//     and polls, and verdicts never wait behind sends the submit budget
//     holds;
//   - webhook delivery (DeliveryWorkers, when there is a webhook sender);
//   - the received-documents poller (ReceivedInterval, when the authority
//     serves received documents);
//   - the completion of consolidations whose process stopped, and the
//     consolidation scheduler (AutoConsolidate);
//   - housekeeping (the purge of old events, ended sessions and expired
//     idempotency keys), always;
//   - the audit log's writer (invoicing/audit), always: it appends the
//     entries recorded meanwhile, and those left when ctx ends.
func (s *Service) Run(ctx context.Context) {
	var wg sync.WaitGroup
	for i := 0; i < s.workers; i++ {
		wg.Go(func() { s.loop(ctx, "submission worker", s.RunOnce) })
		wg.Go(func() { s.loop(ctx, "verdicts", s.PollOnce) })
		wg.Go(func() { s.loop(ctx, "settle unknown outcomes", s.SettleOnce) })
	}
	wg.Go(func() { s.receivedService.Run(ctx) })
	wg.Go(func() { s.loop(ctx, "consolidations", s.ConsolidateOnce) })
	if s.autoConsolidate {
		wg.Go(func() { s.scheduleLoop(ctx) })
	}
	wg.Go(func() { s.webhookService.Run(ctx) })
	wg.Go(func() { s.mailService.Run(ctx) })
	wg.Go(func() { s.housekeepingLoop(ctx) })
	wg.Go(func() { s.auditService.Run(ctx) })
	wg.Wait()
}

// loop runs once until ctx ends, resting when it found nothing to do.
func (s *Service) loop(ctx context.Context, what string, once func(context.Context) (int, error)) {
	for ctx.Err() == nil {
		n, err := once(ctx)
		if err != nil && ctx.Err() == nil {
			s.log.WarnContext(ctx, what, "error", err)
		}
		if n == 0 || err != nil {
			rest := retry.Around(s.idle).Delay(1)
			select {
			case <-ctx.Done():
			case <-time.After(rest):
			}
		}
	}
}

// RunOnce claims the due jobs (up to a batch) and works them: sends and
// polls; unknown outcomes are SettleOnce's. It returns how many it took.
func (s *Service) RunOnce(ctx context.Context) (int, error) {
	owner := s.newID()
	now := s.now()
	jobs, err := s.store.ClaimJobs(ctx, owner, now, now.Add(s.lease), claimBatch)
	if err != nil || len(jobs) == 0 {
		return 0, err
	}
	// Group by tenant: fresh submit jobs of a tenant go out together; polls
	// of one submission are one call.
	type group struct {
		fresh []*einvoice.Job
		polls map[string][]*einvoice.Job
	}
	groups := map[string]*group{}
	var order []string
	for _, j := range jobs {
		g := groups[j.TenantID]
		if g == nil {
			g = &group{polls: map[string][]*einvoice.Job{}}
			groups[j.TenantID] = g
			order = append(order, j.TenantID)
		}
		switch {
		case j.Kind == einvoice.JobPoll:
			g.polls[j.SubmissionUID] = append(g.polls[j.SubmissionUID], j)
		case j.MaybeSent:
			// Never sent again unsettled: the job goes back to the settle
			// loop (ClaimJobs leaves such jobs to ClaimUnknown).
			s.release(ctx, j, owner)
		default:
			g.fresh = append(g.fresh, j)
		}
	}
	work := context.WithoutCancel(ctx) // finish what was claimed
	for _, tid := range order {
		g := groups[tid]
		t, err := s.tenant(work, tid)
		if err != nil {
			// The other tenants' work goes on; these jobs are taken again
			// once their lease ends.
			s.log.WarnContext(work, "load the tenant of claimed jobs", "tenant_id", tid, "error", err)
			continue
		}
		var send []*item
		for _, j := range g.fresh {
			if it := s.loadItem(work, j, owner); it != nil {
				send = append(send, it)
			}
		}
		if len(send) > 0 {
			s.send(work, t, send, owner)
		}
		s.pollSubmissions(work, t, g.polls, owner)
	}
	return len(jobs), nil
}

// PollOnce claims the due poll jobs (up to a batch) and asks the authority
// for their verdicts, one question per submission. It returns how many it
// took.
func (s *Service) PollOnce(ctx context.Context) (int, error) {
	owner := s.newID()
	now := s.now()
	jobs, err := s.store.ClaimPolls(ctx, owner, now, now.Add(s.lease), claimBatch)
	if err != nil || len(jobs) == 0 {
		return 0, err
	}
	byTenant := map[string]map[string][]*einvoice.Job{}
	var order []string
	for _, j := range jobs {
		if byTenant[j.TenantID] == nil {
			byTenant[j.TenantID] = map[string][]*einvoice.Job{}
			order = append(order, j.TenantID)
		}
		byTenant[j.TenantID][j.SubmissionUID] = append(byTenant[j.TenantID][j.SubmissionUID], j)
	}
	work := context.WithoutCancel(ctx) // finish what was claimed
	for _, tid := range order {
		t, err := s.tenant(work, tid)
		if err != nil {
			s.log.WarnContext(work, "load the tenant of claimed polls", "tenant_id", tid, "error", err)
			continue
		}
		s.pollSubmissions(work, t, byTenant[tid], owner)
	}
	return len(jobs), nil
}

// pollSubmissions asks for the verdicts of the tenant's submissions, each
// with the whole submission in one question: its other pending documents
// are taken along, due or not.
func (s *Service) pollSubmissions(ctx context.Context, t *einvoice.Tenant, polls map[string][]*einvoice.Job, owner string) {
	for uid, js := range polls {
		now := s.now()
		more, err := s.store.ClaimSubmissionPolls(ctx, t.ID, uid, owner, now, now.Add(s.lease))
		if err != nil {
			s.log.WarnContext(ctx, "claim the rest of a submission", "submission_uid", uid, "error", err)
		}
		s.poll(ctx, t, uid, append(js, more...), owner)
	}
}

// loadItem reads the document and UBL of a submit job; a document no longer
// submitting closes the job.
func (s *Service) loadItem(ctx context.Context, j *einvoice.Job, owner string) *item {
	d, err := s.store.GetDocument(ctx, j.TenantID, j.DocumentID)
	if err == nil && d.Status != einvoice.StatusSubmitting {
		s.closeJob(ctx, j, owner, "the document is "+string(d.Status))
		return nil
	}
	var body []byte
	if err == nil {
		body, err = s.store.GetUBL(ctx, j.TenantID, j.DocumentID)
	}
	if err != nil {
		s.retryLater(ctx, []*item{{doc: &einvoice.Document{ID: j.DocumentID}, job: j}}, owner, fmt.Errorf("load document: %w", err), j.MaybeSent)
		return nil
	}
	return &item{doc: d, job: j, ubl: body}
}

// closeJob marks a job done without touching its document.
func (s *Service) closeJob(ctx context.Context, j *einvoice.Job, owner, why string) {
	now := s.now()
	j.State, j.MaybeSent, j.LeaseUntil, j.UpdatedAt = einvoice.JobDone, false, now, now
	if err := s.store.WriteSubmission(ctx, einvoice.SubmissionWrite{Jobs: []*einvoice.Job{j}, Lease: owner}); err != nil {
		s.log.WarnContext(ctx, "could not close job", "document_id", j.DocumentID, "why", why, "error", err)
	}
}

// poll asks the authority about the documents of one submission and records
// their verdicts; documents still Submitted are asked again later.
func (s *Service) poll(ctx context.Context, t *einvoice.Tenant, submissionUID string, jobs []*einvoice.Job, owner string) {
	creds, err := s.credentials(t)
	var st einvoice.SubmissionState
	if err == nil {
		callCtx, cancel := context.WithTimeout(ctx, s.wait)
		st, err = s.authority.GetSubmission(callCtx, creds, submissionUID)
		cancel()
	}
	byUUID := map[string]einvoice.DocumentState{}
	for _, state := range st.Documents {
		byUUID[state.UUID] = state
	}
	// The documents' outcomes are recorded a few at a time: each is a
	// transaction of its own, and on SQLite those that wait together share
	// one fsync (one after the other, a submission's 100 verdicts took 100
	// commits' time, and verdicts fell behind the authority's pace).
	sem := make(chan struct{}, pollRecorders)
	var wg sync.WaitGroup
	for _, j := range jobs {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			s.pollOne(ctx, t, creds, byUUID, j, owner, err)
		})
	}
	wg.Wait()
}

// pollRecorders is how many documents of one submission poll records at
// once.
const pollRecorders = 8

// pollOne records what the authority's answer about a submission (or the
// error asking it, callErr) says of one of its documents.
func (s *Service) pollOne(ctx context.Context, t *einvoice.Tenant, creds einvoice.Credentials, byUUID map[string]einvoice.DocumentState,
	j *einvoice.Job, owner string, callErr error) {
	d, err := s.store.GetDocument(ctx, j.TenantID, j.DocumentID)
	if err != nil {
		s.pollLater(ctx, j, owner, err)
		return
	}
	if d.Status != einvoice.StatusSubmitted {
		s.closeJob(ctx, j, owner, "the document is "+string(d.Status))
		return
	}
	if callErr != nil {
		s.pollLater(ctx, j, owner, callErr)
		return
	}
	state, ok := byUUID[d.Authority.DocumentUUID]
	if !ok {
		s.pollLater(ctx, j, owner, errors.New("the submission does not list the document yet"))
		return
	}
	if final, err := s.apply(ctx, t, creds, d, state, j, owner); !final {
		s.pollLater(ctx, j, owner, err)
	}
}

// pollLater schedules the next status question, further apart each time (3
// s, growing to a minute).
func (s *Service) pollLater(ctx context.Context, j *einvoice.Job, owner string, cause error) {
	now := s.now()
	j.Attempts++
	wait := retry.Policy{Base: s.pollAfter, Max: time.Minute, Factor: 1.5}.Delay(j.Attempts)
	if cause != nil {
		j.LastError = einvoice.Truncate(cause.Error(), 500)
		if ce, ok := einvoice.AsCallError(cause); ok {
			if ce.NotSent || ce.Status == 429 {
				// Throttled, by the authority or by our own budget for it:
				// ask again once allowed, not later each time.
				wait = max(s.pollAfter, ce.RetryAfter)
			} else {
				wait = max(wait, ce.RetryAfter)
			}
		}
	} else {
		j.LastError = ""
	}
	j.NextAttemptAt, j.LeaseUntil, j.UpdatedAt = now.Add(min(wait, time.Minute)), now, now
	if err := s.store.WriteSubmission(ctx, einvoice.SubmissionWrite{Jobs: []*einvoice.Job{j}, Lease: owner}); err != nil {
		s.log.WarnContext(ctx, "could not reschedule poll", "document_id", j.DocumentID, "error", err)
	}
}
