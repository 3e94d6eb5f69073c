package invoicing

import (
	"time"

	"github.com/einvoice/einvoice/internal/einvoice"
)

// StatusView is a document's status result as the API shows it: the data of
// GET /documents/{id}/status and of cancel, and of the document's events.
type StatusView struct {
	ID                 string                     `json:"id"`
	Status             einvoice.Status            `json:"status"`
	DocumentUUID       string                     `json:"document_uuid"`
	DocumentLongID     string                     `json:"document_long_id"`
	ValidatedAt        *time.Time                 `json:"validated_at"`
	InvoiceCodeNumber  string                     `json:"invoice_code_number"`
	SubmissionUID      string                     `json:"submission_uid,omitempty"`
	ValidationURL      string                     `json:"validation_url,omitempty"`
	CancelledAt        *time.Time                 `json:"cancelled_at,omitempty"`
	RejectionRequested *einvoice.RejectionRequest `json:"rejection_requested,omitempty"`
	AuthorityErrors    []einvoice.AuthorityError  `json:"authority_errors,omitempty"`
	Submission         *einvoice.Job              `json:"submission,omitempty"`
	Stale              bool                       `json:"stale"`
}

// View returns the status result as the API shows it.
func (r *StatusResult) View() StatusView {
	d := r.Doc
	out := StatusView{ID: d.ID, Status: d.Status, InvoiceCodeNumber: d.InvoiceSerialNumber, ValidationURL: r.ValidationURL,
		Submission: r.Job, Stale: r.Stale}
	if a := d.Authority; a != nil {
		out.DocumentUUID, out.DocumentLongID, out.ValidatedAt = a.DocumentUUID, a.LongID, a.ValidatedAt
		out.SubmissionUID, out.CancelledAt, out.RejectionRequested, out.AuthorityErrors = a.SubmissionUID, a.CancelledAt, a.RejectionRequested, a.Errors
	}
	return out
}
