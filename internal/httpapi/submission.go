package httpapi

import (
	"net/http"
	"strings"

	"github.com/einvoice/einvoice/internal/einvoice"
	"github.com/einvoice/einvoice/internal/invoicing"
)

// submitResult is the data of POST /documents/{id}/submit.
type submitResult struct {
	ID                string          `json:"id"`
	Status            einvoice.Status `json:"status"`
	DocumentUUID      string          `json:"document_uuid"`
	InvoiceCodeNumber string          `json:"invoice_code_number"`
	SubmissionUID     string          `json:"submission_uid,omitempty"`
}

// statusResult is the data of GET /documents/{id}/status and of cancel (and
// of the document's events).
type statusResult = invoicing.StatusView

func newStatusResult(r *invoicing.StatusResult) statusResult { return r.View() }

func (s *Server) submitDocument(w http.ResponseWriter, r *http.Request, k *einvoice.APIKey) error {
	out, err := s.svc.Submit(r.Context(), k.TenantID, k.ID, r.PathValue("id"))
	if err != nil {
		return err
	}
	d := out.Doc
	res := submitResult{ID: d.ID, Status: d.Status, InvoiceCodeNumber: d.InvoiceSerialNumber}
	if d.Authority != nil {
		res.DocumentUUID, res.SubmissionUID = d.Authority.DocumentUUID, d.Authority.SubmissionUID
	}
	switch {
	case out.Rejected:
		msg := "The tax authority refused the document; it is now Invalid. Correct it, validate it and submit it again."
		var errs []einvoice.AuthorityError
		if d.Authority != nil {
			errs = d.Authority.Errors
		}
		// What the authority's signature codes mean, in words (DS3xx).
		if hints := einvoice.AuthorityHints(errs); len(hints) > 0 {
			msg = "The tax authority refused the document; it is now Invalid. " + strings.Join(hints, " ")
		}
		e := einvoice.Errorf(einvoice.CodeAuthorityRejected, "%s", msg)
		e.Authority = errs
		return e
	case out.Pending:
		ok(w, http.StatusAccepted, res)
	default:
		ok(w, http.StatusOK, res)
	}
	return nil
}

// bulkRequest is the body of POST /documents/submit-bulk.
type bulkRequest struct {
	DocumentIDs []string `json:"document_ids"`
}

func (s *Server) submitBulk(w http.ResponseWriter, r *http.Request, k *einvoice.APIKey) error {
	var req bulkRequest
	if err := decode(r, maxBulkBody, &req); err != nil {
		return err
	}
	res, err := s.svc.SubmitBulk(r.Context(), k.TenantID, k.ID, req.DocumentIDs)
	if err != nil {
		return err
	}
	ok(w, http.StatusOK, res)
	return nil
}

func (s *Server) documentStatus(w http.ResponseWriter, r *http.Request, k *einvoice.APIKey) error {
	res, err := s.svc.Status(r.Context(), k.TenantID, r.PathValue("id"))
	if err != nil {
		return err
	}
	ok(w, http.StatusOK, newStatusResult(res))
	return nil
}

// cancelRequest is the body of POST /documents/{id}/cancel.
type cancelRequest struct {
	Reason string `json:"reason"`
}

func (s *Server) cancelDocument(w http.ResponseWriter, r *http.Request, k *einvoice.APIKey) error {
	var req cancelRequest
	if err := decode(r, maxBody, &req); err != nil {
		return err
	}
	res, err := s.svc.Cancel(r.Context(), k.TenantID, k.ID, r.PathValue("id"), req.Reason)
	if err != nil {
		return err
	}
	ok(w, http.StatusOK, newStatusResult(res))
	return nil
}

func (s *Server) documentUBL(w http.ResponseWriter, r *http.Request, k *einvoice.APIKey) error {
	body, err := s.svc.UBL(r.Context(), k.TenantID, r.PathValue("id"))
	if err != nil {
		return err
	}
	writeBytes(w, "application/json", body)
	return nil
}
