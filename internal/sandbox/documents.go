package sandbox

import (
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"
)

// maxIDParam bounds ids in paths (the authority's have 26 characters).
const maxIDParam = 64

// docColumns are the columns scanDoc reads.
const docColumns = `uuid, submission_uid, client_id, internal_id, type_code, type_version, issuer_tin, issuer_name,
	receiver_tin, receiver_name, date_time_issued, total_excluding_tax, total_discount, total_net_amount,
	total_payable_amount, received_at, validated_at, verdict, long_id, cancelled_at, reject_requested_at, status_reason`

// docRow is a stored document without its text and validation steps.
type docRow struct {
	UUID, SubmissionUID, ClientID, InternalID, TypeCode, TypeVersion string
	IssuerTIN, IssuerName, ReceiverTIN, ReceiverName, DateTimeIssued string
	TotalExcludingTax, TotalDiscount, TotalNet, TotalPayable         string
	ReceivedAt, ValidatedAt                                          time.Time
	Verdict, LongID                                                  string
	CancelledAt, RejectRequestedAt                                   *time.Time
	StatusReason                                                     *string
}

type scanner interface{ Scan(dest ...any) error }

// scanDoc reads docColumns, then the extra columns into extra.
func scanDoc(sc scanner, extra ...any) (docRow, error) {
	var d docRow
	var received, validated int64
	var cancelled, rejected sql.NullInt64
	var reason sql.NullString
	dest := append([]any{&d.UUID, &d.SubmissionUID, &d.ClientID, &d.InternalID, &d.TypeCode, &d.TypeVersion, &d.IssuerTIN,
		&d.IssuerName, &d.ReceiverTIN, &d.ReceiverName, &d.DateTimeIssued, &d.TotalExcludingTax, &d.TotalDiscount,
		&d.TotalNet, &d.TotalPayable, &received, &validated, &d.Verdict, &d.LongID, &cancelled, &rejected, &reason}, extra...)
	if err := sc.Scan(dest...); err != nil {
		return docRow{}, err
	}
	d.ReceivedAt, d.ValidatedAt = fromMicros(received), fromMicros(validated)
	d.CancelledAt, d.RejectRequestedAt = nullMicros(cancelled), nullMicros(rejected)
	if reason.Valid {
		d.StatusReason = &reason.String
	}
	return d, nil
}

// status is the document's status at now: Submitted until its validation
// time, then its verdict, Cancelled once cancelled.
func (d docRow) status(now time.Time) string {
	switch {
	case now.Before(d.ValidatedAt):
		return statusSubmitted
	case d.Verdict == statusInvalid:
		return statusInvalid
	case d.CancelledAt != nil:
		return statusCancelled
	}
	return statusValid
}

// documentSummary is a document as Get Submission, Get Document and Search
// show it.
type documentSummary struct {
	UUID                  string          `json:"uuid"`
	SubmissionUID         string          `json:"submissionUid"`
	LongID                string          `json:"longId,omitempty"`
	InternalID            string          `json:"internalId"`
	TypeName              string          `json:"typeName"`
	TypeVersionName       string          `json:"typeVersionName"`
	IssuerTIN             string          `json:"issuerTin"`
	IssuerName            string          `json:"issuerName"`
	ReceiverID            string          `json:"receiverId"`
	ReceiverName          string          `json:"receiverName"`
	DateTimeIssued        string          `json:"dateTimeIssued"`
	DateTimeReceived      string          `json:"dateTimeReceived"`
	DateTimeValidated     *string         `json:"dateTimeValidated"`
	TotalExcludingTax     json.RawMessage `json:"totalExcludingTax"`
	TotalDiscount         json.RawMessage `json:"totalDiscount"`
	TotalNetAmount        json.RawMessage `json:"totalNetAmount"`
	TotalPayableAmount    json.RawMessage `json:"totalPayableAmount"`
	Status                string          `json:"status"`
	CancelDateTime        *string         `json:"cancelDateTime"`
	RejectRequestDateTime *string         `json:"rejectRequestDateTime"`
	DocumentStatusReason  *string         `json:"documentStatusReason"`
	// CreatedByUserID is always "": the sandbox has no users, and the
	// submitting client's id must not be shown to other clients.
	CreatedByUserID string `json:"createdByUserId"`
}

// summary shows the document at now: no validation time while Submitted,
// the long id only while Valid.
func (d docRow) summary(now time.Time) documentSummary {
	st := d.status(now)
	out := documentSummary{
		UUID: d.UUID, SubmissionUID: d.SubmissionUID, InternalID: d.InternalID,
		TypeName: typeNames[d.TypeCode], TypeVersionName: d.TypeVersion,
		IssuerTIN: d.IssuerTIN, IssuerName: d.IssuerName, ReceiverID: d.ReceiverTIN, ReceiverName: d.ReceiverName,
		DateTimeIssued: d.DateTimeIssued, DateTimeReceived: formatTime(d.ReceivedAt),
		TotalExcludingTax: number(d.TotalExcludingTax), TotalDiscount: number(d.TotalDiscount),
		TotalNetAmount: number(d.TotalNet), TotalPayableAmount: number(d.TotalPayable),
		Status: st, CancelDateTime: formatTimePtr(d.CancelledAt), RejectRequestDateTime: formatTimePtr(d.RejectRequestedAt),
		DocumentStatusReason: d.StatusReason,
	}
	if st != statusSubmitted {
		out.DateTimeValidated = formatTimePtr(&d.ValidatedAt)
	}
	if st == statusValid {
		out.LongID = d.LongID
	}
	return out
}

// number is a stored decimal as a JSON number. The totals are written only
// by Server.store, from amount (a plainDecimal or "0"), so they are JSON
// numbers already; were one not, json.Marshal would refuse it (a 500, never
// broken JSON).
func number(s string) json.RawMessage { return json.RawMessage(s) }

// handleGetSubmission is GET /api/v1.0/documentsubmissions/{uid}: the
// submitting client only.
func (s *Server) handleGetSubmission(w http.ResponseWriter, r *http.Request, c caller) {
	uid := r.PathValue("uid")
	pageNo, pageSize, ok := paging(w, r)
	if !ok {
		return
	}
	if !cleanText(uid, maxIDParam) {
		writeError(w, http.StatusNotFound, apiError{Code: "NotFound", Message: "Submission not found"})
		return
	}
	ctx := r.Context()
	var owner string
	var received int64
	err := s.rdb.QueryRowContext(ctx, `SELECT client_id, received_at FROM sandbox_submissions WHERE uid = $1`, uid).Scan(&owner, &received)
	if errors.Is(err, sql.ErrNoRows) {
		writeError(w, http.StatusNotFound, apiError{Code: "NotFound", Message: "Submission not found", Target: uid})
		return
	}
	if err != nil {
		s.internalError(w, r, fmt.Errorf("read submission: %w", err))
		return
	}
	if owner != c.ClientID {
		writeError(w, http.StatusForbidden, apiError{Code: "Forbidden", Message: "Only the submitter may read a submission", Target: uid})
		return
	}
	docs, err := s.queryDocs(r, `SELECT `+docColumns+` FROM sandbox_documents WHERE submission_uid = $1 ORDER BY position`, uid)
	if err != nil {
		s.internalError(w, r, err)
		return
	}
	now := s.now()
	page := make([]documentSummary, 0, pageSize)
	var submitted, valid, invalid int
	for i, d := range docs {
		switch d.status(now) {
		case statusSubmitted:
			submitted++
		case statusInvalid:
			invalid++
		default:
			valid++
		}
		if i >= (pageNo-1)*pageSize && len(page) < pageSize {
			page = append(page, d.summary(now))
		}
	}
	overall := "partially valid"
	switch {
	case submitted > 0:
		overall = "in progress"
	case invalid == 0:
		overall = "valid"
	case valid == 0:
		overall = "invalid"
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"submissionUid":    uid,
		"documentCount":    len(docs),
		"dateTimeReceived": formatTime(fromMicros(received)),
		"overallStatus":    overall,
		"documentSummary":  page,
	})
}

// queryDocs runs a query returning docColumns.
func (s *Server) queryDocs(r *http.Request, query string, args ...any) ([]docRow, error) {
	rows, err := s.rdb.QueryContext(r.Context(), query, args...)
	if err != nil {
		return nil, fmt.Errorf("read documents: %w", err)
	}
	defer rows.Close()
	var out []docRow
	for rows.Next() {
		d, err := scanDoc(rows)
		if err != nil {
			return nil, fmt.Errorf("read documents: %w", err)
		}
		out = append(out, d)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read documents: %w", err)
	}
	return out, nil
}

// visibleDoc loads a document the caller may see: its submitter's, or a
// Valid or Cancelled one whose receiver is the caller's represented TIN.
// Anything else is answered 404.
func (s *Server) visibleDoc(w http.ResponseWriter, r *http.Request, c caller, column string) (docRow, string, bool) {
	id := r.PathValue("uuid")
	if !cleanText(id, maxIDParam) {
		writeError(w, http.StatusNotFound, apiError{Code: "NotFound", Message: "Document not found"})
		return docRow{}, "", false
	}
	var text string
	row := s.rdb.QueryRowContext(r.Context(), `SELECT `+docColumns+`, `+column+` FROM sandbox_documents WHERE uuid = $1`, id)
	d, err := scanDoc(row, &text)
	if errors.Is(err, sql.ErrNoRows) {
		writeError(w, http.StatusNotFound, apiError{Code: "NotFound", Message: "Document not found", Target: id})
		return docRow{}, "", false
	}
	if err != nil {
		s.internalError(w, r, fmt.Errorf("read document: %w", err))
		return docRow{}, "", false
	}
	st := d.status(s.now())
	receiver := c.receives(d) && (st == statusValid || st == statusCancelled)
	if d.ClientID != c.ClientID && !receiver {
		writeError(w, http.StatusNotFound, apiError{Code: "NotFound", Message: "Document not found", Target: id})
		return docRow{}, "", false
	}
	return d, text, true
}

// handleRaw is GET /api/v1.0/documents/{uuid}/raw: the metadata and the
// document as submitted; Invalid documents are not returned (404).
func (s *Server) handleRaw(w http.ResponseWriter, r *http.Request, c caller) {
	d, text, ok := s.visibleDoc(w, r, c, "document")
	if !ok {
		return
	}
	now := s.now()
	if d.status(now) == statusInvalid {
		writeError(w, http.StatusNotFound, apiError{Code: "NotFound", Message: "Invalid documents are not returned; use the document details", Target: d.UUID})
		return
	}
	writeJSON(w, http.StatusOK, struct {
		documentSummary
		Document string `json:"document"`
	}{d.summary(now), text})
}

// validationResults is the details' validation outcome.
type validationResults struct {
	Status          string           `json:"status"`
	ValidationSteps []validationStep `json:"validationSteps"`
}

// handleDetails is GET /api/v1.0/documents/{uuid}/details: the metadata and
// the validation results (status Submitted and no steps until validated).
func (s *Server) handleDetails(w http.ResponseWriter, r *http.Request, c caller) {
	d, text, ok := s.visibleDoc(w, r, c, "validation")
	if !ok {
		return
	}
	now := s.now()
	res := validationResults{Status: statusSubmitted, ValidationSteps: []validationStep{}}
	if d.status(now) != statusSubmitted {
		res.Status = d.Verdict
		if err := json.Unmarshal([]byte(text), &res.ValidationSteps); err != nil {
			s.internalError(w, r, fmt.Errorf("read validation of %s: %w", d.UUID, err))
			return
		}
	}
	writeJSON(w, http.StatusOK, struct {
		documentSummary
		ValidationResults validationResults `json:"validationResults"`
	}{d.summary(now), res})
}

// paging reads pageNo (default 1) and pageSize (default and at most 100).
func paging(w http.ResponseWriter, r *http.Request) (pageNo, pageSize int, ok bool) {
	pageNo, ok = intParam(w, r, "pageNo", 1, 1, 100000)
	if !ok {
		return 0, 0, false
	}
	pageSize, ok = intParam(w, r, "pageSize", 100, 1, 100)
	return pageNo, pageSize, ok
}
