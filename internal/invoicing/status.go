package invoicing

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/einvoice/einvoice/internal/einvoice"
)

// apply records what the authority says of a Submitted or Valid document.
// With a job (held by owner) a final verdict also closes the job. It reports
// whether the document reached a final status, and else why not when
// something failed (the caller reschedules the job with that cause). A
// document found Invalid as the duplicate of one the authority holds (DS302)
// takes that original's uuid and verdict (settleDuplicate).
func (s *Service) apply(ctx context.Context, t *einvoice.Tenant, creds einvoice.Credentials, d *einvoice.Document, state einvoice.DocumentState,
	j *einvoice.Job, owner string) (bool, error) {
	if isInvalid(state) && len(state.Errors) == 0 {
		callCtx, cancel := context.WithTimeout(ctx, s.wait)
		det, err := s.authority.GetDocumentDetails(callCtx, creds, state.UUID)
		cancel()
		if err != nil {
			return false, fmt.Errorf("read the errors of an invalid document: %w", err)
		}
		state.Errors = det.Errors
	}
	if isInvalid(state) {
		if dup, original := duplicateOf(state.Errors, state.UUID); dup {
			return s.settleDuplicate(ctx, creds, d, state, original, j, owner)
		}
	}
	return s.recordState(ctx, d, state, j, owner, "")
}

// recordState records the state s of d (Submitted or Valid) as the authority
// gives it, the errors of an Invalid one included; why, when given, starts
// the history note. It reports whether d reached a final status.
func (s *Service) recordState(ctx context.Context, d *einvoice.Document, state einvoice.DocumentState, j *einvoice.Job, owner, why string) (bool, error) {
	now := s.now()
	from := d.Status
	rec := d.Authority
	if rec == nil {
		rec = &einvoice.AuthorityRecord{}
		d.Authority = rec
	}
	if state.LongID != "" {
		rec.LongID = state.LongID
	}
	if state.ValidatedAt != nil {
		rec.ValidatedAt = state.ValidatedAt
	}
	var note string
	var typ einvoice.EventType
	switch strings.ToLower(state.Status) {
	case "valid":
		d.Status, note = einvoice.StatusValid, "validated by the authority"
		if state.RejectRequestedAt != nil && rec.RejectionRequested == nil {
			rr := &einvoice.RejectionRequest{Reason: state.StatusReason, RequestedAt: *state.RejectRequestedAt}
			if rec.ValidatedAt != nil {
				rr.CancelBefore = rec.ValidatedAt.Add(einvoice.CancelWindow)
			}
			rec.RejectionRequested, note = rr, "the buyer requested rejection: "+einvoice.Truncate(state.StatusReason, 200)
			typ = einvoice.EventDocumentRejectionRequested
		} else if from == einvoice.StatusValid {
			return true, nil // nothing new
		}
	case "invalid":
		d.Status, note = einvoice.StatusInvalid, "found invalid by the authority"
		rec.Errors = state.Errors
	case "cancelled":
		d.Status, note = einvoice.StatusCancelled, "cancelled at the authority"
		rec.CancelledAt = state.CancelledAt
		if rec.CancelledAt == nil {
			rec.CancelledAt = &now
		}
	default: // still Submitted
		return false, nil
	}
	d.UpdatedAt = now
	if why != "" {
		note = why + "; " + note
	}
	w := einvoice.SubmissionWrite{Doc: d, From: []einvoice.Status{from},
		Event: &einvoice.Event{ID: s.newID(), Status: d.Status, Note: note, At: now}}
	if j != nil {
		j.State, j.LeaseUntil, j.UpdatedAt, j.LastError = einvoice.JobDone, now, now, ""
		w.Jobs, w.Lease = []*einvoice.Job{j}, owner
	}
	// A document found Valid with a rejection already requested has both
	// events, in that order.
	var first einvoice.EventType
	if from != d.Status {
		first = statusEvent(d.Status)
	}
	w.Notify = s.documentEvent(ctx, d, j, first, typ)
	if d.Status == einvoice.StatusValid && from != einvoice.StatusValid {
		if m := s.documentMail(ctx, d); m != nil {
			w.Mail = []*einvoice.MailMessage{m}
		}
	}
	err := s.writeNotified(ctx, w)
	if err != nil && !errors.Is(err, einvoice.ErrWrongState) {
		s.log.WarnContext(ctx, "could not record the authority's verdict", "document_id", d.ID, "error", err)
		return false, fmt.Errorf("record the authority's verdict: %w", err)
	}
	if err == nil {
		s.auditService.RecordAudit(ctx, serviceActor(d.TenantID), einvoice.AuditEntry{At: now, Action: "document." + strings.ToLower(string(d.Status)),
			ResourceType: "document", ResourceID: d.ID, Detail: note})
	}
	if j == nil && from == einvoice.StatusSubmitted {
		// A verdict found by a status request: the poll job has nothing
		// left to follow.
		if err := s.store.FinishPoll(ctx, d.TenantID, d.ID, now); err != nil {
			s.log.WarnContext(ctx, "could not close the poll job", "document_id", d.ID, "error", err)
		}
	}
	return true, nil
}

// StatusResult is a document's status as the authority last told it.
type StatusResult struct {
	Doc *einvoice.Document
	Job *einvoice.Job
	// Stale: the authority could not be asked; this is the stored state.
	Stale bool
	// ValidationURL is the authority's public link of a Valid document.
	ValidationURL string
}

// Status returns a document's status, first refreshed from the authority for
// Submitted and Valid documents.
func (s *Service) Status(ctx context.Context, tenantID, id string) (*StatusResult, error) {
	t, d, err := s.tenantDocument(ctx, tenantID, id)
	if err != nil {
		return nil, err
	}
	res := &StatusResult{Doc: d}
	if (d.Status == einvoice.StatusSubmitted || d.Status == einvoice.StatusValid) && d.Authority != nil && d.Authority.SubmissionUID != "" {
		if !s.refresh(ctx, t, d) {
			res.Stale = true
		}
		if res.Doc, err = s.document(ctx, tenantID, id); err != nil {
			return nil, err
		}
	}
	if j, err := s.store.GetJob(ctx, tenantID, id); err == nil {
		res.Job = j
	}
	res.ValidationURL = s.ValidationURL(t, res.Doc)
	return res, nil
}

// refresh asks the authority about d and records the answer; false when the
// authority could not be asked.
func (s *Service) refresh(ctx context.Context, t *einvoice.Tenant, d *einvoice.Document) bool {
	creds, err := s.credentials(t)
	if err != nil {
		return false
	}
	callCtx, cancel := context.WithTimeout(ctx, min(s.wait, 5*time.Second))
	st, err := s.authority.GetSubmission(callCtx, creds, d.Authority.SubmissionUID)
	cancel()
	if err != nil {
		s.log.InfoContext(ctx, "status refresh failed; answering the stored state", "document_id", d.ID, "error", err)
		return false
	}
	for _, state := range st.Documents {
		if state.UUID == d.Authority.DocumentUUID {
			_, _ = s.apply(ctx, t, creds, d, state, nil, "") // the poller retries what failed
			return true
		}
	}
	return true
}

// Cancel cancels a Valid document at the authority, within 72 hours of its
// validation.
func (s *Service) Cancel(ctx context.Context, tenantID, keyID, id, reason string) (*StatusResult, error) {
	if n := utf8.RuneCountInString(strings.TrimSpace(reason)); n == 0 || utf8.RuneCountInString(reason) > 300 {
		return nil, einvoice.FieldErrors{"reason": {"is required, 1 to 300 characters"}}.Err()
	}
	d, err := s.document(ctx, tenantID, id)
	if err != nil {
		return nil, err
	}
	if d.Status != einvoice.StatusValid || d.Authority == nil {
		return nil, einvoice.Errorf(einvoice.CodeDocumentNotValid, "Only a Valid document can be cancelled; this one is %s.", d.Status)
	}
	now := s.now()
	if v := d.Authority.ValidatedAt; v != nil && now.After(v.Add(einvoice.CancelWindow)) {
		return nil, einvoice.Errorf(einvoice.CodeCancelWindowClosed,
			"The document was validated at %s: it can only be cancelled within 72 hours of that. Issue a credit note instead.", einvoice.FormatMYT(*v))
	}
	t, err := s.tenant(ctx, tenantID)
	if err != nil {
		return nil, err
	}
	creds, err := s.credentials(t)
	if err != nil {
		return nil, err
	}
	callCtx, cancel := context.WithTimeout(ctx, s.wait)
	err = s.authority.CancelDocument(callCtx, creds, d.Authority.DocumentUUID, reason)
	cancel()
	if err != nil {
		return nil, einvoice.AuthorityCallError(err, "cancel")
	}
	d.Status, d.UpdatedAt = einvoice.StatusCancelled, now
	d.Authority.CancelledAt, d.Authority.CancelReason = &now, reason
	ev := &einvoice.Event{ID: s.newID(), Status: einvoice.StatusCancelled, KeyID: keyID, By: einvoice.ByOf(ctx), Note: "cancelled: " + einvoice.Truncate(reason, 200), At: now}
	// The authority has cancelled it: record that even if the client left.
	if err := s.writeNotified(context.WithoutCancel(ctx), einvoice.SubmissionWrite{Doc: d, From: []einvoice.Status{einvoice.StatusValid}, Event: ev,
		Notify: s.documentEvent(ctx, d, nil, einvoice.EventDocumentCancelled)}); err != nil {
		return nil, fmt.Errorf("record cancellation: %w", err)
	}
	return &StatusResult{Doc: d, ValidationURL: s.ValidationURL(t, d)}, nil
}
