package invoicing

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/einvoice/einvoice/internal/einvoice"
)

// MaxBulk is the most document ids one bulk submit takes.
const MaxBulk = 100

// BulkResult is the outcome of a bulk submit (DECISIONS section 9).
type BulkResult struct {
	SubmissionUIDs []string       `json:"submission_uids"`
	Accepted       []BulkAccepted `json:"accepted"`
	Rejected       []BulkRejected `json:"rejected"`
	Pending        []BulkPending  `json:"pending"`
}

// BulkAccepted is a document the authority took in.
type BulkAccepted struct {
	ID                string `json:"id"`
	DocumentUUID      string `json:"document_uuid"`
	InvoiceCodeNumber string `json:"invoice_code_number"`
}

// BulkRejected is a document that was not sent, or that the authority refused.
type BulkRejected struct {
	ID        string                    `json:"id"`
	ErrorCode einvoice.Code             `json:"error_code"`
	Message   string                    `json:"message"`
	Authority []einvoice.AuthorityError `json:"authority,omitempty"`
}

// BulkPending is a document whose outcome awaits the worker.
type BulkPending struct {
	ID     string          `json:"id"`
	Status einvoice.Status `json:"status"`
}

// bulkAtOnce is how many bulk submits a process builds and sends at once;
// the others wait for their turn.
const bulkAtOnce = 4

// SubmitBulk submits up to 100 documents: ids that are unknown or not ready
// are rejected one by one; the rest go out in as few submissions as the
// authority's limits allow. An id given more than once is processed at its
// first occurrence; each later one is rejected with DUPLICATE_ID.
func (s *Service) SubmitBulk(ctx context.Context, tenantID, keyID string, ids []string) (*BulkResult, error) {
	if len(ids) == 0 || len(ids) > MaxBulk {
		return nil, einvoice.FieldErrors{"document_ids": {fmt.Sprintf("must hold 1 to %d document ids", MaxBulk)}}.Err()
	}
	t, err := s.tenant(ctx, tenantID)
	if err != nil {
		return nil, err
	}
	// A bulk holds up to 100 documents, their UBL and the submission being
	// sent: a few MB. A client's submissions go out one by one at the
	// authority's pace anyway, so more bulks at once only hold more memory
	// while they wait for its budget.
	select {
	case s.bulkSlots <- struct{}{}:
		defer func() { <-s.bulkSlots }()
	case <-ctx.Done():
		return nil, fmt.Errorf("wait for a bulk submit's turn: %w", ctx.Err())
	}
	res := &BulkResult{SubmissionUIDs: []string{}, Accepted: []BulkAccepted{}, Rejected: []BulkRejected{}, Pending: []BulkPending{}}
	owner := s.newID()
	seen := map[string]bool{}
	var items []*item
	for _, id := range ids {
		if seen[id] {
			res.Rejected = append(res.Rejected, BulkRejected{ID: id, ErrorCode: einvoice.CodeDuplicateID,
				Message: "This id was given earlier in the request; the document is processed once."})
			continue
		}
		seen[id] = true
		d, err := s.document(ctx, tenantID, id)
		if err != nil {
			if einvoice.ErrorCode(err) == einvoice.CodeDocumentNotFound {
				res.Rejected = append(res.Rejected, BulkRejected{ID: id, ErrorCode: einvoice.CodeDocumentNotFound, Message: "No document with this id."})
				continue
			}
			return nil, err
		}
		it, err := s.record(ctx, t, keyID, d, owner)
		if err != nil {
			if !errors.Is(err, einvoice.ErrWrongState) {
				return nil, err
			}
			out, nerr := s.notRecorded(ctx, tenantID, id, err)
			switch {
			case nerr != nil:
				var e *einvoice.Error
				if !errors.As(nerr, &e) {
					return nil, nerr
				}
				res.Rejected = append(res.Rejected, BulkRejected{ID: id, ErrorCode: e.Code, Message: e.Message})
			case out.Pending:
				res.Pending = append(res.Pending, BulkPending{ID: id, Status: out.Doc.Status})
			}
			continue
		}
		items = append(items, it)
	}
	if len(items) > 0 {
		res.SubmissionUIDs = append(res.SubmissionUIDs, s.send(ctx, t, items, owner)...)
	}
	for _, it := range items {
		out, err := s.outcome(ctx, tenantID, it.doc.ID)
		if err != nil {
			return nil, err
		}
		d := out.Doc
		switch {
		case out.Pending:
			res.Pending = append(res.Pending, BulkPending{ID: d.ID, Status: d.Status})
		case out.Rejected:
			r := BulkRejected{ID: d.ID, ErrorCode: einvoice.CodeAuthorityRejected, Message: "The tax authority refused the document."}
			if d.Authority != nil {
				r.Authority = d.Authority.Errors
				if len(r.Authority) > 0 {
					r.Message = "The tax authority refused the document: " + cmp.Or(r.Authority[0].Message, r.Authority[0].Code)
				}
				if hints := einvoice.AuthorityHints(r.Authority); len(hints) > 0 {
					r.Message = strings.TrimSuffix(r.Message, ".") + ". " + strings.Join(hints, " ")
				}
			}
			res.Rejected = append(res.Rejected, r)
		default:
			res.Accepted = append(res.Accepted, BulkAccepted{ID: d.ID, DocumentUUID: d.Authority.DocumentUUID, InvoiceCodeNumber: d.InvoiceSerialNumber})
		}
	}
	return res, nil
}
