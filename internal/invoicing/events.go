package invoicing

import (
	"context"

	"github.com/einvoice/einvoice/internal/einvoice"
)

// documentEvent returns the API event of d's new status (its status result
// as data), to be written with the change; nil, logged, when it cannot be
// made (the change is recorded all the same).
func (s *Service) documentEvent(ctx context.Context, d *einvoice.Document, j *einvoice.Job, types ...einvoice.EventType) []*einvoice.APIEvent {
	res := &StatusResult{Doc: d, Job: j}
	if t, err := s.tenant(ctx, d.TenantID); err == nil {
		res.ValidationURL = s.ValidationURL(t, d)
	}
	var out []*einvoice.APIEvent
	for _, typ := range types {
		if typ == "" {
			continue
		}
		e, err := einvoice.NewAPIEvent(s.newID(), d.TenantID, typ, d.ID, d.UpdatedAt, res.View())
		if err != nil {
			s.log.ErrorContext(ctx, "could not make the event of a status change", "document_id", d.ID, "type", typ, "error", err)
			continue
		}
		out = append(out, e)
	}
	return out
}

// statusEvent is the event type of a document reaching status.
func statusEvent(status einvoice.Status) einvoice.EventType {
	switch status {
	case einvoice.StatusSubmitted:
		return einvoice.EventDocumentSubmitted
	case einvoice.StatusValid:
		return einvoice.EventDocumentValid
	case einvoice.StatusInvalid:
		return einvoice.EventDocumentInvalid
	case einvoice.StatusCancelled:
		return einvoice.EventDocumentCancelled
	}
	return ""
}

// writeNotified applies a lifecycle write that carries an event, then wakes
// this process's delivery workers.
func (s *Service) writeNotified(ctx context.Context, w einvoice.SubmissionWrite) error {
	err := s.store.WriteSubmission(ctx, w)
	if err == nil && len(w.Notify) > 0 {
		s.Wake()
	}
	if err == nil && len(w.Mail) > 0 {
		s.WakeMail()
	}
	return err
}
