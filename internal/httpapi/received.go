package httpapi

import (
	"fmt"
	"net/http"

	"github.com/einvoice/einvoice/internal/einvoice"
)

// listReceived is GET /api/v1/received-documents: newest issued first,
// filtered by status, search (issuer name, TIN or number) and issue dates
// from and to (inclusive, UTC days).
func (s *Server) listReceived(w http.ResponseWriter, r *http.Request, k *einvoice.APIKey) error {
	pr, f := listPaging(r)
	q := r.URL.Query()
	filter := einvoice.ReceivedFilter{Status: q.Get("status"), Search: q.Get("search"), PageRequest: pr}
	f.Merge("", checkSearch(filter.Search))
	from, to := queryDate(q.Get("from"), "from", f), queryDate(q.Get("to"), "to", f)
	if !from.IsZero() {
		filter.From = &from
	}
	if !to.IsZero() {
		end := to.AddDate(0, 0, 1)
		filter.To = &end
	}
	if !from.IsZero() && !to.IsZero() && from.After(to) {
		f.Add("to", "must not be before from (%s)", q.Get("from"))
	}
	if err := f.Err(); err != nil {
		return err
	}
	page, err := s.svc.ListReceived(r.Context(), k.TenantID, filter)
	if err != nil {
		return err
	}
	okPage(w, page, page.Items)
	return nil
}

// getReceived is GET /api/v1/received-documents/{id}.
func (s *Server) getReceived(w http.ResponseWriter, r *http.Request, k *einvoice.APIKey) error {
	v, err := s.svc.GetReceived(r.Context(), k.TenantID, r.PathValue("id"))
	if err != nil {
		return err
	}
	ok(w, http.StatusOK, v)
	return nil
}

// receivedUBL is GET /api/v1/received-documents/{id}/ubl: the raw document
// as the authority gave it (UBL JSON, or XML), not wrapped.
func (s *Server) receivedUBL(w http.ResponseWriter, r *http.Request, k *einvoice.APIKey) error {
	body, err := s.svc.ReceivedRaw(r.Context(), k.TenantID, r.PathValue("id"))
	if err != nil {
		return err
	}
	ct := "application/json"
	if len(body) > 0 && body[0] == '<' {
		ct = "application/xml"
	}
	writeBytes(w, ct, body)
	return nil
}

// rejectRequest is the body of POST /received-documents/{id}/reject.
type rejectRequest struct {
	Reason string `json:"reason"`
}

// rejectReceived is POST /api/v1/received-documents/{id}/reject.
func (s *Server) rejectReceived(w http.ResponseWriter, r *http.Request, k *einvoice.APIKey) error {
	var req rejectRequest
	if err := decode(r, maxBody, &req); err != nil {
		return err
	}
	v, err := s.svc.RejectReceived(r.Context(), k.TenantID, r.PathValue("id"), req.Reason)
	if err != nil {
		return err
	}
	ok(w, http.StatusOK, v)
	return nil
}

// receivedPDF is GET /api/v1/received-documents/{id}/pdf: our visual
// e-invoice of it, marked as received.
func (s *Server) receivedPDF(w http.ResponseWriter, r *http.Request, k *einvoice.APIKey) error {
	file, err := s.svc.ReceivedPDF(r.Context(), k.TenantID, r.PathValue("id"))
	if err != nil {
		return err
	}
	w.Header().Set("Content-Disposition", fmt.Sprintf(`inline; filename="%s"`, file.Name))
	writeBytes(w, "application/pdf", file.Body)
	return nil
}
