package received

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/einvoice/einvoice/internal/einvoice"
	"github.com/einvoice/einvoice/internal/retry"
)

// The received-documents poller's rules (DECISIONS 16).
const (
	// receivedWindow is the widest search window (the authority's 31 days).
	receivedWindow = 31 * 24 * time.Hour
	// receivedLag keeps the cursor this far behind now: a document shows in
	// the search only once validated, some time after its submission time,
	// by which the search finds it.
	receivedLag = 5 * time.Minute
	// receivedCancelLookback is how far back a pass looks for cancellations
	// of documents already stored: the issuer's 72 hours, and a margin.
	receivedCancelLookback = einvoice.CancelWindow + time.Hour
	// receivedMaxBackoff bounds the wait after repeated failures.
	receivedMaxBackoff = 15 * time.Minute
)

// Run runs the poller until ctx ends, when the service has an authority:
// a pass whenever one is due (ReceivedOnce), resting about Idle when
// nothing was found.
func (s *Service) Run(ctx context.Context) {
	if s.authority == nil {
		return
	}
	for ctx.Err() == nil {
		n, err := s.ReceivedOnce(ctx)
		if err != nil && ctx.Err() == nil {
			s.log.WarnContext(ctx, "received documents", "error", err)
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

// ReceivedOnce runs one pass of the received-documents poller for each
// tenant in taxpayer mode whose pass is due and whose lease it takes (one
// replica at a time per tenant). It returns how many documents it stored
// or changed.
func (s *Service) ReceivedOnce(ctx context.Context) (int, error) {
	api := s.authority
	if api == nil {
		return 0, nil
	}
	tenants, err := s.store.ListTenants(ctx)
	if err != nil {
		return 0, fmt.Errorf("list tenants: %w", err)
	}
	total := 0
	var errs []error
	for _, t := range tenants {
		if ctx.Err() != nil {
			break
		}
		if t.Authority.Mode == einvoice.ModeIntermediary || t.Authority.ClientID == "" || t.Profile.TIN == "" {
			continue
		}
		n, err := s.pollTenant(ctx, api, t)
		total += n
		if err != nil {
			errs = append(errs, fmt.Errorf("tenant %s: %w", t.ID, err))
		}
	}
	return total, errors.Join(errs...)
}

// pollTenant claims the tenant's poller and runs its pass.
func (s *Service) pollTenant(ctx context.Context, api einvoice.ReceivedAPI, t *einvoice.Tenant) (int, error) {
	owner := s.newID()
	now := s.now()
	st := s.receivedState(t.ID)
	if now.Before(st.due) {
		return 0, nil // this process set its next pass: no claim needed before then
	}
	p, ok, err := s.store.ClaimReceivedPoll(ctx, t.ID, owner, now.Add(-receivedWindow), now, now.Add(s.lease))
	if err != nil || !ok {
		return 0, err
	}
	passCtx, cancel := context.WithTimeout(einvoice.WithBudgetWait(ctx, s.lease/3), s.lease/2)
	n, done, err := s.receivedPass(passCtx, api, t, &p)
	cancel()
	now = s.now()
	next := now.Add(s.interval)
	ce, throttled := einvoice.AsCallError(err)
	throttled = throttled && ce.Status == 429
	switch {
	case throttled:
		// Over a rate limit (ours or the authority's): back when it says,
		// not a failure; the position is kept.
		p.Failures, next, err = 0, now.Add(max(ce.RetryAfter, time.Second)), nil
	case err != nil && !errors.Is(err, context.DeadlineExceeded):
		p.Failures++
		next = now.Add(retry.Policy{Base: 2 * s.interval, Max: min(s.interval<<10, receivedMaxBackoff)}.Delay(p.Failures))
	case !done:
		p.Failures, next, err = 0, now, nil // more to catch up: due at once
	default:
		p.Failures, err = 0, nil
	}
	if ferr := s.store.FinishReceivedPoll(context.WithoutCancel(ctx), p, owner, next); ferr != nil {
		return n, errors.Join(err, ferr)
	}
	st.due = next
	return n, err
}

// receivedPass searches the tenant's received documents from its cursor,
// oldest page first, storing each new one and advancing the cursor as it
// goes; then looks for cancellations of recent ones. done is false when it
// stopped before reaching now.
func (s *Service) receivedPass(ctx context.Context, api einvoice.ReceivedAPI, t *einvoice.Tenant, p *einvoice.ReceivedPoll) (int, bool, error) {
	creds, err := s.credentials(t)
	if err != nil {
		return 0, false, err
	}
	st := s.receivedState(t.ID)
	newDocs, cancels, seen := s.notified(ctx, api, creds, st)
	now := s.now()
	catchingUp := p.Cursor.Before(now.Add(-receivedLag - s.receivedSearchEvery()))
	n := 0
	if newDocs || catchingUp || now.Sub(st.searched) >= s.receivedSearchEvery() {
		k, done, err := s.receivedWindows(ctx, api, t, creds, p)
		n += k
		if err != nil || !done {
			return n, done, err
		}
		st.searched = now
	}
	if cancels || now.Sub(st.swept) >= receivedSweepEvery {
		k, err := s.receivedCancellations(ctx, api, t, creds)
		n += k
		if err != nil {
			return n, true, err
		}
		st.swept = now
	}
	st.seen = seen // only once what they told of is done
	return n, true, nil
}

// receivedState is what this process remembers of a tenant's poller between
// passes: when it last searched, swept for cancellations, the newest
// notification it saw, and when the next pass is due. Another replica, or a restart, starts afresh: it
// searches at once.
type receivedState struct {
	searched, swept time.Time
	// seen are the notifications read, by id, with their times.
	seen map[string]time.Time
	// due is when the next pass this process recorded is due.
	due time.Time
}

// receivedSweepEvery is how often a pass looks for the cancellations of the
// last 73 hours when no notification told it to.
const receivedSweepEvery = 5 * time.Minute

// receivedSearchEvery is how often a pass searches when no notification
// told it to: the poll interval, and at least a minute (the search's budget
// is 12 a minute, shared with the client's other searches).
func (s *Service) receivedSearchEvery() time.Duration { return max(s.interval, time.Minute) }

func (s *Service) receivedState(tenantID string) *receivedState {
	v, _ := s.states.LoadOrStore(tenantID, &receivedState{})
	return v.(*receivedState)
}

// notified reads the notifications since the newest seen (their times are
// to the second: the last second is read again, and those seen are known
// by id) and reports whether one tells of a document received or
// cancelled, and the notifications to remember once the pass has done what
// they told of. Notifications cost no search budget; when they cannot be
// read, the pass relies on its timed searches.
func (s *Service) notified(ctx context.Context, api einvoice.ReceivedAPI, creds einvoice.Credentials, st *receivedState) (newDocs, cancels bool, seen map[string]time.Time) {
	since := s.now().Add(-receivedCancelLookback)
	for _, at := range st.seen {
		if at.After(since) {
			since = at
		}
	}
	ns, err := api.Notifications(ctx, creds, since.Add(-time.Second))
	if err != nil {
		s.log.WarnContext(ctx, "read notifications", "error", err)
		return false, false, st.seen
	}
	seen = make(map[string]time.Time, len(ns))
	for id, at := range st.seen {
		if !at.Before(since.Add(-time.Minute)) {
			seen[id] = at
		}
	}
	for _, n := range ns {
		if _, ok := seen[n.ID]; ok && n.ID != "" {
			continue
		}
		seen[n.ID] = n.At
		switch n.TypeID {
		case einvoice.NotificationReceived:
			newDocs = true
		case einvoice.NotificationCancelled:
			cancels = true
		}
	}
	return newDocs, cancels, seen
}

// receivedWindows searches from the cursor to now, window by window.
func (s *Service) receivedWindows(ctx context.Context, api einvoice.ReceivedAPI, t *einvoice.Tenant, creds einvoice.Credentials, p *einvoice.ReceivedPoll) (int, bool, error) {
	n := 0
	for {
		now := s.now()
		from := p.Cursor.Truncate(time.Second)
		to := earlier(from.Add(receivedWindow-time.Second), now)
		page, err := api.SearchReceived(ctx, creds, from, to, "", 1)
		if err != nil {
			return n, false, err
		}
		if page.TotalPages > 1 {
			// Newest first: the last page holds the oldest documents.
			if page, err = api.SearchReceived(ctx, creds, from, to, "", page.TotalPages); err != nil {
				return n, false, err
			}
		}
		docs := page.Documents
		slices.SortStableFunc(docs, func(a, b einvoice.ReceivedSummary) int { return a.SubmittedAt.Compare(b.SubmittedAt) })
		k, err := s.storeReceived(ctx, api, t, creds, docs, func(at time.Time) {
			if c := earlier(at, now.Add(-receivedLag)); c.After(p.Cursor) {
				p.Cursor = c
			}
		})
		n += k
		if err != nil {
			return n, false, err
		}
		if page.TotalPages > 1 {
			if !p.Cursor.After(from) {
				// More than a page of documents in one second: step past it.
				p.Cursor = from.Add(time.Second)
			}
			continue
		}
		if c := earlier(to, now.Add(-receivedLag)); c.After(p.Cursor) {
			p.Cursor = c
		}
		if !to.Before(now) {
			return n, true, nil
		}
	}
}

// storeReceived stores the listed documents the tenant does not have yet
// (reading each one's raw document) and records the status changes of
// those it has; advance is told each one's submission time once handled.
func (s *Service) storeReceived(ctx context.Context, api einvoice.ReceivedAPI, t *einvoice.Tenant, creds einvoice.Credentials,
	docs []einvoice.ReceivedSummary, advance func(time.Time)) (int, error) {
	uuids := make([]string, len(docs))
	for i, d := range docs {
		uuids[i] = d.UUID
	}
	known, err := s.store.ReceivedUUIDs(ctx, t.ID, uuids)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, sum := range docs {
		st, ok := known[sum.UUID]
		switch {
		case !ok:
			if err := s.fetchReceived(ctx, api, t, creds, sum); err != nil {
				return n, err
			}
			n++
		case st != sum.Status && sum.Status == einvoice.ReceivedCancelled:
			if err := s.receivedCancelled(ctx, t.ID, sum); err != nil {
				return n, err
			}
			n++
		}
		known[sum.UUID] = sum.Status
		advance(sum.SubmittedAt)
	}
	return n, nil
}

// fetchReceived reads a document's raw form and stores it, parsed when our
// reader can, with its received_document.created event.
func (s *Service) fetchReceived(ctx context.Context, api einvoice.ReceivedAPI, t *einvoice.Tenant, creds einvoice.Credentials, listed einvoice.ReceivedSummary) error {
	uuid := listed.UUID
	sum, raw, err := api.GetRawDocument(ctx, creds, uuid)
	unavailable := ""
	if ce, ok := einvoice.AsCallError(err); ok && ce.Status >= 400 && ce.Status < 500 && ce.Status != 429 {
		// The authority refuses this document's raw form for good: keep
		// what the search listed rather than asking again forever.
		sum, raw, err, unavailable = listed, []byte{}, nil, "the authority did not give the raw document: "+ce.Error()
	}
	if err != nil {
		return err
	}
	now := s.now()
	d := &einvoice.ReceivedDocument{
		ID: s.newID(), TenantID: t.ID, UUID: sum.UUID, SubmissionUID: sum.SubmissionUID, LongID: sum.LongID,
		TypeName: sum.TypeName, TypeCode: typeCodes[sum.TypeName], TypeVersion: sum.TypeVersion, Number: sum.Number,
		IssuerTIN: sum.IssuerTIN, IssuerName: sum.IssuerName, ReceiverTIN: sum.ReceiverTIN, ReceiverName: sum.ReceiverName,
		IssuedAt: sum.IssuedAt, SubmittedAt: sum.SubmittedAt, ValidatedAt: sum.ValidatedAt, Status: sum.Status,
		CancelledAt: sum.CancelledAt, RejectionRequestedAt: sum.RejectionAt, StatusReason: sum.StatusReason,
		TotalExcludingTax: sum.TotalExcludingTax, TotalPayableAmount: sum.TotalPayable,
		Lines: []einvoice.ReceivedLine{}, CreatedAt: now, UpdatedAt: now,
	}
	if unavailable != "" {
		d.ParseError = unavailable
	} else {
		parseReceived(d, raw)
	}
	if d.Lines == nil {
		d.Lines = []einvoice.ReceivedLine{}
	}
	_, err = s.store.SaveReceived(ctx, einvoice.ReceivedWrite{Doc: d, Raw: raw, Notify: s.receivedEvents(ctx, d, einvoice.EventReceivedCreated)})
	if err != nil {
		return fmt.Errorf("store received document %s: %w", uuid, err)
	}
	s.notify()
	return nil
}

// receivedCancellations looks for the cancellations of the last 73 hours
// and records those of stored documents.
func (s *Service) receivedCancellations(ctx context.Context, api einvoice.ReceivedAPI, t *einvoice.Tenant, creds einvoice.Credentials) (int, error) {
	now := s.now()
	n := 0
	for pageNo := 1; ; pageNo++ {
		page, err := api.SearchReceived(ctx, creds, now.Add(-receivedCancelLookback), now, einvoice.ReceivedCancelled, pageNo)
		if err != nil {
			return n, err
		}
		k, err := s.storeReceived(ctx, api, t, creds, page.Documents, func(time.Time) {})
		n += k
		if err != nil || pageNo >= page.TotalPages {
			return n, err
		}
	}
}

// receivedCancelled records an issuer's cancellation of a stored document.
func (s *Service) receivedCancelled(ctx context.Context, tenantID string, sum einvoice.ReceivedSummary) error {
	d, err := s.store.GetReceived(ctx, tenantID, sum.UUID)
	if err != nil {
		return fmt.Errorf("read received document %s: %w", sum.UUID, err)
	}
	d.Status, d.CancelledAt, d.UpdatedAt = einvoice.ReceivedCancelled, sum.CancelledAt, s.now()
	if sum.StatusReason != "" {
		d.StatusReason = sum.StatusReason
	}
	if err := s.store.UpdateReceived(ctx, einvoice.ReceivedWrite{Doc: d, Notify: s.receivedEvents(ctx, d, einvoice.EventReceivedCancelled)}); err != nil {
		return fmt.Errorf("record cancellation of received document %s: %w", sum.UUID, err)
	}
	s.notify()
	return nil
}

// receivedEvents returns the event of a received document's change, its
// view as data.
func (s *Service) receivedEvents(ctx context.Context, d *einvoice.ReceivedDocument, typ einvoice.EventType) []*einvoice.APIEvent {
	e, err := einvoice.NewAPIEvent(s.newID(), d.TenantID, typ, d.ID, d.UpdatedAt, ViewOf(d, s.now()))
	if err != nil {
		s.log.ErrorContext(ctx, "could not make the event of a received document", "received_id", d.ID, "type", typ, "error", err)
		return nil
	}
	return []*einvoice.APIEvent{e}
}

// earlier returns the earlier of two times.
func earlier(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}
