package invoicing

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/einvoice/einvoice/internal/einvoice"
)

func consolidationNotFound(id string) error {
	return einvoice.Errorf(einvoice.CodeConsolidationNotFound, "No consolidation with id %q.", id)
}

// checkMonth refuses a malformed month, or one not yet ended (Malaysian
// time), naming the field month.
func (s *Service) checkMonth(month string) error {
	if _, ok := einvoice.ParseReceiptMonth(month); !ok {
		return einvoice.FieldErrors{"month": {"must be a month as YYYY-MM, e.g. 2026-10"}}.Err()
	}
	if !einvoice.MonthEnded(month, s.now()) {
		return einvoice.FieldErrors{"month": {"has not ended yet (Malaysian time): a month is consolidated once it is over"}}.Err()
	}
	return nil
}

// exclusions sorts the month's open and excluded receipts by the exclusion
// rule as it reads now: those to consolidate, those to exclude (open now
// excluded) and those to reopen (excluded, now allowed, e.g. within the
// interim relaxation the profile declares since).
func exclusions(t *einvoice.Tenant, rs []*einvoice.Receipt) (include, exclude, reopen []*einvoice.Receipt) {
	for _, r := range rs {
		reason := einvoice.ReceiptExclusion(r, t)
		switch {
		case r.Status == einvoice.ReceiptOpen && reason == "":
			include = append(include, r)
		case r.Status == einvoice.ReceiptOpen:
			r.ExcludedReason = reason
			exclude = append(exclude, r)
		case r.Status == einvoice.ReceiptExcluded && reason == "":
			include = append(include, r)
			reopen = append(reopen, r)
		}
	}
	return include, exclude, reopen
}

var openOrExcluded = []einvoice.ReceiptStatus{einvoice.ReceiptOpen, einvoice.ReceiptExcluded}

// Consolidate turns the month's receipts that are neither converted nor
// consolidated into consolidated invoices, validates and submits them
// (DECISIONS 17), and returns the consolidation: completed, or running when
// it was cut short (a worker completes it). 422 for a malformed month or
// one not ended, NOTHING_TO_CONSOLIDATE when no receipt is left,
// CONSOLIDATION_RUNNING while the tenant's previous one runs.
func (s *Service) Consolidate(ctx context.Context, tenantID, keyID, month string) (*einvoice.Consolidation, error) {
	if err := s.checkMonth(month); err != nil {
		return nil, err
	}
	t, err := s.GetTenant(ctx, tenantID)
	if err != nil {
		return nil, err
	}
	rs, err := s.store.MonthReceipts(ctx, tenantID, month, openOrExcluded)
	if err != nil {
		return nil, fmt.Errorf("consolidate: %w", err)
	}
	if include, _, _ := exclusions(t, rs); len(include) == 0 {
		return nil, einvoice.Errorf(einvoice.CodeNothingToConsolidate,
			"The month %s has no receipt left to consolidate: every receipt of it is consolidated, converted or excluded.", month)
	}
	now := s.now()
	c := &einvoice.Consolidation{ID: s.newID(), TenantID: tenantID, Month: month, Status: einvoice.ConsolidationRunning,
		Documents: []einvoice.ConsolidationDocument{}, Excluded: []einvoice.ExcludedReceipt{},
		LeaseOwner: s.newID(), LeaseUntil: now.Add(s.lease), CreatedAt: now}
	if err := s.store.CreateConsolidation(ctx, c); err != nil {
		if errors.Is(err, einvoice.ErrConflict) {
			return nil, einvoice.Errorf(einvoice.CodeConsolidationRunning,
				"A consolidation of this tenant is still running; try again once it has completed.")
		}
		return nil, fmt.Errorf("create consolidation: %w", err)
	}
	// The work goes on without the request: a month too large to finish
	// within consolidateWait answers running, and this process completes it
	// (or, should it stop, a worker once the lease expires).
	work := context.WithoutCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- s.workConsolidation(work, t, c, keyID) }()
	select {
	case err := <-done:
		if err != nil {
			s.log.WarnContext(ctx, "consolidation cut short; a worker completes it", "consolidation", c.ID, "error", err)
		}
	case <-time.After(s.consolidateWait):
	case <-ctx.Done():
	}
	return s.GetConsolidation(work, tenantID, c.ID)
}

// GetConsolidation returns a consolidation of the tenant, its documents'
// statuses as they are now.
func (s *Service) GetConsolidation(ctx context.Context, tenantID, id string) (*einvoice.Consolidation, error) {
	c, err := s.store.GetConsolidation(ctx, tenantID, id)
	if errors.Is(err, einvoice.ErrNotFound) {
		return nil, consolidationNotFound(id)
	}
	if err != nil {
		return nil, fmt.Errorf("get consolidation: %w", err)
	}
	s.freshStatuses(ctx, c)
	return c, nil
}

// ListConsolidations returns one page of the tenant's consolidations,
// newest first.
func (s *Service) ListConsolidations(ctx context.Context, tenantID string, f einvoice.ConsolidationFilter) (einvoice.Page[*einvoice.Consolidation], error) {
	if f.Month != "" {
		if _, ok := einvoice.ParseReceiptMonth(f.Month); !ok {
			return einvoice.Page[*einvoice.Consolidation]{}, einvoice.FieldErrors{"month": {"must be a month as YYYY-MM"}}.Err()
		}
	}
	page, err := s.store.ListConsolidations(ctx, tenantID, f)
	if err != nil {
		return page, fmt.Errorf("list consolidations: %w", err)
	}
	if page.Items == nil {
		page.Items = []*einvoice.Consolidation{}
	}
	for _, c := range page.Items {
		s.freshStatuses(ctx, c)
	}
	return page, nil
}

// freshStatuses reads the current status of each document of c.
func (s *Service) freshStatuses(ctx context.Context, c *einvoice.Consolidation) {
	for i := range c.Documents {
		if d, err := s.store.GetDocument(ctx, c.TenantID, c.Documents[i].ID); err == nil {
			c.Documents[i].Status = d.Status
		}
	}
}

// ConsolidateOnce resumes one running consolidation whose process stopped
// (its lease expired): the worker loop of Run. It returns how many it took.
func (s *Service) ConsolidateOnce(ctx context.Context) (int, error) {
	now := s.now()
	c, err := s.store.ClaimConsolidation(ctx, s.newID(), now, now.Add(s.lease))
	if err != nil || c == nil {
		return 0, err
	}
	t, err := s.tenant(ctx, c.TenantID)
	if err != nil {
		return 1, err
	}
	s.log.InfoContext(ctx, "resuming a consolidation", "consolidation", c.ID, "tenant", c.TenantID, "month", c.Month)
	return 1, s.workConsolidation(ctx, t, c, "")
}

// workConsolidation takes c to completed: it applies the exclusion rule,
// makes the documents of the month's open receipts (each created with its
// receipts' transition in one transaction, provided they are still open, so
// that a crash or a second worker never duplicates one), validates and
// submits every document of c, and completes c with its event. It may run
// again on the same c after a crash: each step looks at what is done.
func (s *Service) workConsolidation(ctx context.Context, t *einvoice.Tenant, c *einvoice.Consolidation, keyID string) error {
	rs, err := s.store.MonthReceipts(ctx, t.ID, c.Month, openOrExcluded)
	if err != nil {
		return fmt.Errorf("read the month's receipts: %w", err)
	}
	_, exclude, reopen := exclusions(t, rs)
	for _, r := range exclude {
		if err := s.store.TransitionReceipt(ctx, t.ID, r.ID, einvoice.ReceiptTransition{From: []einvoice.ReceiptStatus{einvoice.ReceiptOpen},
			To: einvoice.ReceiptExcluded, ExcludedReason: r.ExcludedReason, At: s.now()}); err != nil && !errors.Is(err, einvoice.ErrWrongState) {
			return fmt.Errorf("exclude receipt %s: %w", r.ID, err)
		}
	}
	if len(reopen) > 0 {
		ids := make([]string, len(reopen))
		for i, r := range reopen {
			ids[i] = r.ID
		}
		if _, err := s.store.TransitionReceipts(ctx, t.ID, ids, einvoice.ReceiptTransition{From: []einvoice.ReceiptStatus{einvoice.ReceiptExcluded},
			To: einvoice.ReceiptOpen, At: s.now()}); err != nil {
			return fmt.Errorf("reopen receipts: %w", err)
		}
	}
	if err := s.refreshProgress(ctx, c); err != nil {
		return err
	}
	for attempt := 0; ; attempt++ {
		open, err := s.store.MonthReceipts(ctx, t.ID, c.Month, []einvoice.ReceiptStatus{einvoice.ReceiptOpen})
		if err != nil {
			return fmt.Errorf("read the month's open receipts: %w", err)
		}
		if len(open) == 0 || attempt > 20 {
			break
		}
		groups, err := s.planConsolidation(t, c, open)
		if err != nil {
			return err
		}
		for _, g := range groups {
			if err := s.createConsolidated(ctx, t, c, g, keyID); err != nil {
				if errors.Is(err, einvoice.ErrWrongState) {
					break // a receipt moved meanwhile (a buyer's request): plan again
				}
				return err
			}
		}
	}
	s.submitConsolidated(ctx, t, c, keyID)
	if err := s.refreshProgress(ctx, c); err != nil {
		return err
	}
	excluded, err := s.store.MonthReceipts(ctx, t.ID, c.Month, []einvoice.ReceiptStatus{einvoice.ReceiptExcluded})
	if err != nil {
		return fmt.Errorf("read the month's excluded receipts: %w", err)
	}
	einvoice.SortReceipts(excluded)
	c.Excluded = make([]einvoice.ExcludedReceipt, len(excluded))
	for i, r := range excluded {
		c.Excluded[i] = einvoice.ExcludedReceipt{ID: r.ID, ReceiptNumber: r.ReceiptNumber, Reason: r.ExcludedReason}
	}
	c.ExcludedCount = len(excluded)
	now := s.now()
	c.Status, c.CompletedAt = einvoice.ConsolidationCompleted, &now
	s.freshStatuses(ctx, c)
	ev, err := einvoice.NewAPIEvent(s.newID(), t.ID, einvoice.EventConsolidationCompleted, c.ID, now, c)
	if err != nil {
		return fmt.Errorf("consolidation event: %w", err)
	}
	if err := s.store.CompleteConsolidation(ctx, c, ev); err != nil {
		return fmt.Errorf("complete consolidation: %w", err)
	}
	return nil
}

// refreshProgress reads c's documents and receipt count from the receipts
// that name c (the truth, whatever a crash left unsaved), and saves them,
// renewing the lease.
func (s *Service) refreshProgress(ctx context.Context, c *einvoice.Consolidation) error {
	counts, err := s.store.ConsolidationCounts(ctx, c.TenantID, c.ID)
	if err != nil {
		return fmt.Errorf("read the consolidated receipts: %w", err)
	}
	total := 0
	for _, n := range counts {
		total += n
	}
	ids := make([]string, 0, len(counts))
	for id := range counts {
		ids = append(ids, id)
	}
	slices.Sort(ids) // ids are UUID v7: the order of creation
	docs := make([]einvoice.ConsolidationDocument, 0, len(ids))
	for _, id := range ids {
		cd := einvoice.ConsolidationDocument{ID: id, ReceiptCount: counts[id]}
		if d, err := s.store.GetDocument(ctx, c.TenantID, id); err == nil {
			cd.InvoiceSerialNumber, cd.Status = d.InvoiceSerialNumber, d.Status
		}
		docs = append(docs, cd)
	}
	c.Documents, c.ReceiptCount = docs, total
	c.LeaseUntil = s.now().Add(s.lease)
	if err := s.store.SaveConsolidation(ctx, c); err != nil {
		return fmt.Errorf("save consolidation progress: %w", err)
	}
	return nil
}

// consolidatedSerial is the serial number of the n-th document of c:
// CONS-YYYYMM-<consolidation number>-<n>, 4 digits.
func consolidatedSerial(c *einvoice.Consolidation, n int) string {
	return fmt.Sprintf("CONS-%s-%d-%04d", strings.ReplaceAll(c.Month, "-", ""), c.Seq, n)
}

// newConsolidated makes the draft consolidated invoice of receipts.
func (s *Service) newConsolidated(t *einvoice.Tenant, c *einvoice.Consolidation, receipts []*einvoice.Receipt, n int) *einvoice.Document {
	d := einvoice.ConsolidatedDocument(receipts)
	now := s.now()
	d.ID, d.TenantID, d.Status, d.CreatedAt, d.UpdatedAt = s.newID(), t.ID, einvoice.StatusDraft, now, now
	d.InvoiceSerialNumber = consolidatedSerial(c, n)
	d.References = []einvoice.DocumentReference{}
	return d
}

// planConsolidation cuts the open receipts into the groups of one document
// each: at most einvoice.MaxLines lines, and a UBL within the authority's
// 300 KB as invoicing measures it for validate (with room for the
// signature); the line budget shrinks until every group fits.
func (s *Service) planConsolidation(t *einvoice.Tenant, c *einvoice.Consolidation, open []*einvoice.Receipt) ([][]*einvoice.Receipt, error) {
	maxLines := einvoice.MaxLines
	limit := einvoice.MaxUBLBytes * 9 / 10
	for {
		groups := einvoice.SplitReceipts(open, maxLines)
		worst := 0
		for _, g := range groups {
			size, err := s.ublSize(t, s.newConsolidated(t, c, g, 1), nil)
			if err != nil {
				return nil, fmt.Errorf("measure a consolidated invoice: %w", err)
			}
			worst = max(worst, size)
			if worst > limit {
				break // shrink the budget before measuring the rest
			}
		}
		if worst <= limit || maxLines == 1 {
			return groups, nil
		}
		maxLines = max(1, min(maxLines-1, maxLines*limit/worst))
	}
}

// createConsolidated creates the document of one group of receipts with
// their transition (one transaction, provided they are all still open),
// then validates and submits it.
func (s *Service) createConsolidated(ctx context.Context, t *einvoice.Tenant, c *einvoice.Consolidation, g []*einvoice.Receipt, keyID string) error {
	ids := make([]string, len(g))
	for i, r := range g {
		ids[i] = r.ID
	}
	for n := len(c.Documents) + 1; ; n++ {
		d := s.newConsolidated(t, c, g, n)
		ev := einvoice.Event{ID: s.newID(), Status: einvoice.StatusDraft, KeyID: keyID, By: einvoice.ByOf(ctx),
			Note: fmt.Sprintf("created by consolidation %s (%d receipts)", c.ID, len(g)), At: d.CreatedAt}
		err := s.store.CreateConsolidatedDocument(ctx, einvoice.ConsolidatedDocumentWrite{Doc: d, Event: ev, ReceiptIDs: ids, At: d.CreatedAt}, c.ID)
		if errors.Is(err, einvoice.ErrConflict) && n < len(c.Documents)+100 {
			continue // the serial number is taken by a document of the tenant's own
		}
		if err != nil {
			return fmt.Errorf("create consolidated invoice: %w", err)
		}
		c.Documents = append(c.Documents, einvoice.ConsolidationDocument{ID: d.ID, InvoiceSerialNumber: d.InvoiceSerialNumber,
			Status: d.Status, ReceiptCount: len(g)})
		c.ReceiptCount += len(g)
		c.LeaseUntil = s.now().Add(s.lease)
		if err := s.store.SaveConsolidation(ctx, c); err != nil {
			return fmt.Errorf("save consolidation progress: %w", err)
		}
		s.validateConsolidated(ctx, t, d.ID, keyID)
		return nil
	}
}

// validateConsolidated validates a consolidated invoice still draft
// (against the receipts it carries).
func (s *Service) validateConsolidated(ctx context.Context, t *einvoice.Tenant, id, keyID string) {
	res, err := s.ValidateDocument(ctx, t.ID, keyID, id)
	if err != nil {
		s.log.WarnContext(ctx, "validate a consolidated invoice", "document", id, "error", err)
		return
	}
	if !res.Passed() {
		s.log.WarnContext(ctx, "a consolidated invoice failed validation", "document", id, "problems", einvoice.Summary(res.Problems))
	}
}

// submitConsolidated validates c's documents still draft and submits those
// ready, up to MaxBulk at a time in as few submissions as the authority's
// limits allow (SubmitBulk); one already submitted is left to the
// submission queue (a failed submission is retried like any other).
func (s *Service) submitConsolidated(ctx context.Context, t *einvoice.Tenant, c *einvoice.Consolidation, keyID string) {
	var ready []string
	for _, cd := range c.Documents {
		d, err := s.store.GetDocument(ctx, t.ID, cd.ID)
		if err != nil {
			s.log.WarnContext(ctx, "consolidated invoice unreadable", "document", cd.ID, "error", err)
			continue
		}
		if d.Status == einvoice.StatusDraft {
			s.validateConsolidated(ctx, t, d.ID, keyID)
			if d, err = s.store.GetDocument(ctx, t.ID, cd.ID); err != nil {
				continue
			}
		}
		if d.Status == einvoice.StatusReady {
			ready = append(ready, d.ID)
		}
	}
	for start := 0; start < len(ready); start += MaxBulk {
		if _, err := s.SubmitBulk(ctx, t.ID, keyID, ready[start:min(start+MaxBulk, len(ready))]); err != nil {
			s.log.WarnContext(ctx, "submit consolidated invoices", "consolidation", c.ID, "error", err)
		}
	}
}
