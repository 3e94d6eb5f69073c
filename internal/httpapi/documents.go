package httpapi

import (
	"net/http"
	"slices"
	"time"

	"github.com/einvoice/einvoice/internal/einvoice"
)

// documentRequest is the body of a document create or PUT. What a GET
// answers is accepted back (echo): history is ignored, and the Document's
// own response fields (id, type, typeCode, status, timestamps, the
// authority's record, frozen parties, and with autoCalculate the amounts)
// are overwritten by the service. The status answer's submission is
// ignored too.
type documentRequest struct {
	_ struct{} `ignore:"submission"`
	einvoice.Document
}

func (documentRequest) echo() any { return documentJSON{} }

// documentJSON is a document in responses: the document and its history.
type documentJSON struct {
	*einvoice.Document
	// EmailDelivery is how a Valid document reached its buyer by mail
	// (DECISIONS 21): absent before a message of it was written.
	EmailDelivery *einvoice.DocumentDelivery `json:"emailDelivery,omitempty"`
	History       []einvoice.Event           `json:"history"`
}

func (s *Server) createDocument(kind einvoice.DocumentKind) apiFunc {
	return func(w http.ResponseWriter, r *http.Request, k *einvoice.APIKey) error {
		var req documentRequest
		if err := decode(r, maxBody, &req); err != nil {
			return err
		}
		d, history, err := s.svc.CreateDocument(r.Context(), k.TenantID, k.ID, kind, &req.Document)
		if err != nil {
			return err
		}
		writeDocument(w, http.StatusCreated, d, history)
		return nil
	}
}

func (s *Server) getDocument(w http.ResponseWriter, r *http.Request, k *einvoice.APIKey) error {
	d, history, err := s.svc.GetDocumentJSON(r.Context(), k.TenantID, r.PathValue("id"))
	if err != nil {
		return err
	}
	delivery, err := s.svc.DocumentDelivery(r.Context(), k.TenantID, r.PathValue("id"))
	if err != nil {
		return err
	}
	okRawDocument(w, http.StatusOK, d, history, delivery)
	return nil
}

func (s *Server) updateDocument(w http.ResponseWriter, r *http.Request, k *einvoice.APIKey) error {
	// The state comes first: a document that is not editable is a 409
	// whatever the body holds.
	old, err := s.svc.CheckEditable(r.Context(), k.TenantID, r.PathValue("id"))
	if err != nil {
		return err
	}
	var req documentRequest
	if err := decode(r, maxBody, &req); err != nil {
		return err
	}
	d, history, err := s.svc.UpdateDocument(r.Context(), k.ID, old, &req.Document)
	if err != nil {
		return err
	}
	writeDocument(w, http.StatusOK, d, history)
	return nil
}

func (s *Server) deleteDocument(w http.ResponseWriter, r *http.Request, k *einvoice.APIKey) error {
	id := r.PathValue("id")
	if err := s.svc.DeleteDocument(r.Context(), k.TenantID, id); err != nil {
		return err
	}
	ok(w, http.StatusOK, deleted{ID: id, Deleted: true})
	return nil
}

func (s *Server) listDocuments(w http.ResponseWriter, r *http.Request, k *einvoice.APIKey) error {
	pr, f := listPaging(r)
	q := r.URL.Query()
	filter := einvoice.DocumentFilter{Status: einvoice.Status(q.Get("status")), Kind: einvoice.DocumentKind(q.Get("type")),
		Search: q.Get("search"), PageRequest: pr}
	f.Merge("", checkSearch(filter.Search))
	if filter.Status != "" && !slices.Contains(einvoice.Statuses, filter.Status) {
		f.Add("status", "must be one of draft, ready, submitting, Submitted, Valid, Invalid, Cancelled")
	}
	if _, known := einvoice.InfoOf(filter.Kind); filter.Kind != "" && !known {
		f.Add("type", "must be one of invoice, credit_note, debit_note, refund_note, consolidated_invoice, self_billed_invoice, self_billed_credit_note, self_billed_debit_note, self_billed_refund_note")
	}
	filter.From = queryDate(q.Get("from"), "from", f)
	filter.To = queryDate(q.Get("to"), "to", f)
	if !filter.From.IsZero() && !filter.To.IsZero() && filter.From.After(filter.To) {
		f.Add("to", "must not be before from (%s)", q.Get("from"))
	}
	if err := f.Err(); err != nil {
		return err
	}
	page, err := s.svc.ListDocumentsJSON(r.Context(), k.TenantID, filter)
	if err != nil {
		return err
	}
	logUnreadable(r, s.logger, page)
	okRawPage(w, page)
	return nil
}

// queryDate reads a date query parameter (YYYY-MM-DD, a UTC calendar date):
// the zero time when it is empty, and a problem of name in f when it is not
// a date.
func queryDate(v, name string, f einvoice.FieldErrors) time.Time {
	if v == "" {
		return time.Time{}
	}
	d, err := time.Parse(time.DateOnly, v)
	if err != nil {
		f.Add(name, "must be a date as YYYY-MM-DD (e.g. 2026-01-31)")
		return time.Time{}
	}
	return d
}

// validateResult is the data of POST /documents/{id}/validate, with the
// spec's snake_case names.
type validateResult struct {
	ID               string               `json:"id"`
	Status           einvoice.Status      `json:"status"`
	ValidationPassed bool                 `json:"validation_passed"`
	Message          string               `json:"message"`
	Errors           einvoice.FieldErrors `json:"errors,omitempty"`
	Problems         []einvoice.Problem   `json:"problems,omitempty"`
}

func (s *Server) validateDocument(w http.ResponseWriter, r *http.Request, k *einvoice.APIKey) error {
	res, err := s.svc.ValidateDocument(r.Context(), k.TenantID, k.ID, r.PathValue("id"))
	if err != nil {
		return err
	}
	out := validateResult{ID: res.Doc.ID, Status: res.Doc.Status, ValidationPassed: res.Passed(), Message: einvoice.Summary(res.Problems)}
	if !res.Passed() {
		out.Errors, out.Problems = einvoice.ProblemFields(res.Problems), res.Problems
	}
	ok(w, http.StatusOK, out)
	return nil
}
