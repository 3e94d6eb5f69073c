package sandbox

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"
)

// State-change rules.
const (
	// stateWindow is how long after validation a document may be cancelled
	// or rejected.
	stateWindow  = 72 * time.Hour
	maxReasonLen = 300
	maxStateBody = 64 << 10
)

// stateRefusal is a state change refused with an authority error.
type stateRefusal struct {
	status int
	err    apiError
}

func (e *stateRefusal) Error() string { return e.err.Code + ": " + e.err.Message }

func refuse(status int, code, target, msg string) *stateRefusal {
	return &stateRefusal{status, apiError{Code: code, Message: msg, Target: target}}
}

// handleState is PUT /api/v1.0/documents/state/{uuid}/state: cancel (by the
// submitting client, while Valid, within 72 hours of validation, when no
// Valid note references the document) or reject (a rejection request by
// the receiver, a client bound to the receiver's TIN logged in as a
// taxpayer: the document stays Valid; once).
func (s *Server) handleState(w http.ResponseWriter, r *http.Request, c caller) {
	id := r.PathValue("uuid")
	if !cleanText(id, maxIDParam) {
		writeError(w, http.StatusNotFound, apiError{Code: "NotFound", Message: "Document not found"})
		return
	}
	body, tooBig, err := readAll(w, r, maxStateBody)
	if tooBig || err != nil {
		badArgument(w, "body", "The request body could not be read")
		return
	}
	var req struct {
		Status string `json:"status"`
		Reason string `json:"reason"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		badArgument(w, "body", `The body must be {"status": "cancelled"|"rejected", "reason": "..."}`)
		return
	}
	op := strings.ToLower(strings.TrimSpace(req.Status))
	reason := strings.TrimSpace(req.Reason)
	switch n := utf8.RuneCountInString(reason); {
	case op != "cancelled" && op != "rejected":
		badArgument(w, "status", `status must be "cancelled" or "rejected"`)
		return
	case n < 1 || n > maxReasonLen || !cleanText(reason, 4*maxReasonLen):
		badArgument(w, "reason", "reason must have 1 to 300 characters")
		return
	}
	now := s.now()
	err = s.tx(r.Context(), func(tx *sql.Tx) error {
		return s.changeState(r.Context(), tx, id, op, reason, c, now)
	})
	var refusal *stateRefusal
	switch {
	case errors.As(err, &refusal):
		writeError(w, refusal.status, refusal.err)
	case err != nil:
		s.internalError(w, r, err)
	case op == "cancelled":
		writeJSON(w, http.StatusOK, map[string]string{"uuid": id, "status": statusCancelled})
	default:
		writeJSON(w, http.StatusOK, map[string]string{"uuid": id, "status": "Requested for Rejection"})
	}
}

// changeState applies a cancellation or rejection request in tx.
func (s *Server) changeState(ctx context.Context, tx *sql.Tx, id, op, reason string, c caller, now time.Time) error {
	d, err := scanDoc(tx.QueryRowContext(ctx, `SELECT `+docColumns+` FROM sandbox_documents WHERE uuid = $1`+s.forUpdate(), id))
	if errors.Is(err, sql.ErrNoRows) {
		return refuse(http.StatusNotFound, "NotFound", id, "Document not found")
	}
	if err != nil {
		return fmt.Errorf("read document: %w", err)
	}
	if op == "cancelled" && d.ClientID != c.ClientID {
		return refuse(http.StatusForbidden, "Forbidden", id, "Only the issuer may cancel a document")
	}
	if op == "rejected" && !c.receives(d) {
		return refuse(http.StatusForbidden, "Forbidden", id, "Only the receiver (buyer) may reject a document")
	}
	if st := d.status(now); st != statusValid {
		return refuse(http.StatusBadRequest, "IncorrectState", id, "The document is "+st+"; only a Valid document can be "+op)
	}
	if now.Sub(d.ValidatedAt) > stateWindow {
		return refuse(http.StatusBadRequest, "OperationPeriodOver", id, "The document was validated more than 72 hours ago")
	}
	if op == "rejected" {
		if d.RejectRequestedAt != nil {
			return refuse(http.StatusBadRequest, "IncorrectState", id, "A rejection was already requested for this document")
		}
		if _, err := tx.ExecContext(ctx, `UPDATE sandbox_documents SET reject_requested_at = $2, status_reason = $3 WHERE uuid = $1`,
			id, micros(now), reason); err != nil {
			return fmt.Errorf("record rejection: %w", err)
		}
		return nil
	}
	var note string
	err = tx.QueryRowContext(ctx, `SELECT d.uuid FROM sandbox_references r JOIN sandbox_documents d ON d.uuid = r.document_uuid
		WHERE r.referenced_uuid = $1 AND d.verdict = 'Valid' AND d.cancelled_at IS NULL ORDER BY d.uuid LIMIT 1`, id).Scan(&note)
	switch {
	case err == nil:
		return refuse(http.StatusBadRequest, "ActiveReferencingDocuments", id, "The document is referenced by the Valid document "+note+"; cancel that first")
	case !errors.Is(err, sql.ErrNoRows):
		return fmt.Errorf("read referencing documents: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `UPDATE sandbox_documents SET cancelled_at = $2, status_reason = $3 WHERE uuid = $1`,
		id, micros(now), reason); err != nil {
		return fmt.Errorf("cancel document: %w", err)
	}
	return nil
}
