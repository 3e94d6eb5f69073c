package httpapi

import (
	"net/http"

	"github.com/einvoice/einvoice/internal/einvoice"
)

// consolidationRequest is the body of POST /consolidations.
type consolidationRequest struct {
	Month *string `json:"month"`
}

// createConsolidation is POST /api/v1/consolidations: the month's receipts
// made consolidated invoices, validated and submitted (201 with the
// consolidation, completed or, when cut short, running).
func (s *Server) createConsolidation(w http.ResponseWriter, r *http.Request, k *einvoice.APIKey) error {
	var req consolidationRequest
	if err := decode(r, maxBody, &req); err != nil {
		return err
	}
	if req.Month == nil {
		return einvoice.FieldErrors{"month": {"is required: the month to consolidate, YYYY-MM (Malaysian time)"}}.Err()
	}
	c, err := s.svc.Consolidate(r.Context(), k.TenantID, k.ID, *req.Month)
	if err != nil {
		return err
	}
	ok(w, http.StatusCreated, c)
	return nil
}

// listConsolidations is GET /api/v1/consolidations: newest first, filtered
// by month.
func (s *Server) listConsolidations(w http.ResponseWriter, r *http.Request, k *einvoice.APIKey) error {
	pr, f := listPaging(r)
	month := r.URL.Query().Get("month")
	f.Merge("", checkMonth(month))
	if err := f.Err(); err != nil {
		return err
	}
	page, err := s.svc.ListConsolidations(r.Context(), k.TenantID, einvoice.ConsolidationFilter{Month: month, PageRequest: pr})
	if err != nil {
		return err
	}
	logUnreadable(r, s.logger, page)
	okPage(w, page, page.Items)
	return nil
}

// getConsolidation is GET /api/v1/consolidations/{id}.
func (s *Server) getConsolidation(w http.ResponseWriter, r *http.Request, k *einvoice.APIKey) error {
	c, err := s.svc.GetConsolidation(r.Context(), k.TenantID, r.PathValue("id"))
	if err != nil {
		return err
	}
	ok(w, http.StatusOK, c)
	return nil
}

// receiptCreditRequest is the optional body of POST
// /receipts/{id}/credit-note: the indexes of the receipt's lines returned
// (all when absent or empty).
type receiptCreditRequest struct {
	Lines []int `json:"lines"`
}

// receiptCreditNote is POST /api/v1/receipts/{id}/credit-note: the return
// of a consolidated receipt as a credit note on its consolidated invoice,
// validated and submitted (201 with the note).
func (s *Server) receiptCreditNote(w http.ResponseWriter, r *http.Request, k *einvoice.APIKey) error {
	var req receiptCreditRequest
	if r.ContentLength != 0 {
		if err := decode(r, maxBody, &req); err != nil {
			return err
		}
	}
	res, err := s.svc.ReceiptCreditNote(r.Context(), k.TenantID, k.ID, r.PathValue("id"), req.Lines)
	if err != nil {
		return err
	}
	_, history, err := s.svc.GetDocument(r.Context(), k.TenantID, res.Doc.ID)
	if err != nil {
		return err
	}
	ok(w, http.StatusCreated, documentJSON{Document: res.Doc, History: history})
	return nil
}
