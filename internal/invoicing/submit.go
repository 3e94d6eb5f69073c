package invoicing

import (
	"context"
	"errors"
	"fmt"

	"github.com/einvoice/einvoice/internal/einvoice"
)

// Outcome is the result of submitting one document.
type Outcome struct {
	Doc *einvoice.Document
	// Pending: the intent is recorded and the outcome awaits the worker (HTTP 202).
	Pending bool
	// Rejected: the authority refused the document (it is now Invalid).
	Rejected bool
}

// item is one document on its way to the authority.
type item struct {
	doc *einvoice.Document
	job *einvoice.Job
	ubl []byte
}

// Submit records the intent to submit a ready document and sends it at once,
// waiting for the authority at most Options.Wait.
func (s *Service) Submit(ctx context.Context, tenantID, keyID, id string) (*Outcome, error) {
	t, d, err := s.tenantDocument(ctx, tenantID, id)
	if err != nil {
		return nil, err
	}
	owner := s.newID()
	it, err := s.record(ctx, t, keyID, d, owner)
	if err != nil {
		return s.notRecorded(ctx, tenantID, id, err)
	}
	s.send(ctx, t, []*item{it}, owner)
	return s.outcome(ctx, tenantID, id)
}

// Record commits the intent to submit a ready document without sending it:
// a worker sends it once the lease expires. (Tests use it to stand for a
// process that stopped between recording and sending.)
func (s *Service) Record(ctx context.Context, tenantID, keyID, id string) (*einvoice.Document, error) {
	t, d, err := s.tenantDocument(ctx, tenantID, id)
	if err != nil {
		return nil, err
	}
	it, err := s.record(ctx, t, keyID, d, s.newID())
	if err != nil {
		return nil, err
	}
	return it.doc, nil
}

// notRecorded explains why a document could not be recorded for submission:
// a submitting document answers as pending again.
func (s *Service) notRecorded(ctx context.Context, tenantID, id string, err error) (*Outcome, error) {
	if !errors.Is(err, einvoice.ErrWrongState) {
		return nil, err
	}
	d, gerr := s.document(ctx, tenantID, id)
	if gerr != nil {
		return nil, gerr
	}
	if d.Status == einvoice.StatusSubmitting {
		return &Outcome{Doc: d, Pending: true}, nil
	}
	return nil, stateError(d)
}

// stateError is why a document in its status cannot be submitted.
func stateError(d *einvoice.Document) error {
	switch d.Status {
	case einvoice.StatusDraft:
		return einvoice.Errorf(einvoice.CodeDocumentNotReady, "Document must be validated and in 'ready' status before submission.")
	case einvoice.StatusSubmitted, einvoice.StatusValid, einvoice.StatusInvalid, einvoice.StatusCancelled:
		return einvoice.Errorf(einvoice.CodeDocumentSubmitted, "The document was already submitted (it is %s).", d.Status)
	}
	return einvoice.Errorf(einvoice.CodeDocumentNotReady, "The document is %s and cannot be submitted.", d.Status)
}

// outcome reads what became of a submitted document.
func (s *Service) outcome(ctx context.Context, tenantID, id string) (*Outcome, error) {
	d, err := s.document(ctx, tenantID, id)
	if err != nil {
		return nil, err
	}
	switch d.Status {
	case einvoice.StatusSubmitting:
		return &Outcome{Doc: d, Pending: true}, nil
	case einvoice.StatusInvalid:
		return &Outcome{Doc: d, Rejected: true}, nil
	}
	return &Outcome{Doc: d}, nil
}

// record commits the intent to submit d: its status moves from ready to
// submitting (only if unchanged since read), its UBL and parties are frozen,
// and its job is written, leased to owner.
func (s *Service) record(ctx context.Context, t *einvoice.Tenant, keyID string, d *einvoice.Document, owner string) (*item, error) {
	if d.Status != einvoice.StatusReady {
		return nil, fmt.Errorf("document is %s: %w", d.Status, einvoice.ErrWrongState)
	}
	now := s.now()
	built, err := s.Build(ctx, t, d, issueTime(d, now))
	if err != nil {
		return nil, err
	}
	version := d.UpdatedAt
	issued := built.IssuedAt
	d.Authority = &einvoice.AuthorityRecord{IssuedAt: &issued, Version: built.Version}
	d.Frozen = &built.Frozen
	d.Status, d.UpdatedAt = einvoice.StatusSubmitting, now
	job := &einvoice.Job{ID: s.newID(), TenantID: t.ID, DocumentID: d.ID, Kind: einvoice.JobSubmit, State: einvoice.JobPending,
		NextAttemptAt: now, LeaseOwner: owner, LeaseUntil: now.Add(s.lease), CreatedAt: now, UpdatedAt: now}
	ev := &einvoice.Event{ID: s.newID(), Status: einvoice.StatusSubmitting, KeyID: keyID, By: einvoice.ByOf(ctx), Note: "submission recorded", At: now}
	err = s.store.WriteSubmission(ctx, einvoice.SubmissionWrite{Doc: d, From: []einvoice.Status{einvoice.StatusReady},
		Version: version, UBL: built.UBL, Jobs: []*einvoice.Job{job}, Event: ev})
	if err != nil {
		return nil, fmt.Errorf("record submission: %w", err)
	}
	return &item{doc: d, job: job, ubl: built.UBL}, nil
}
