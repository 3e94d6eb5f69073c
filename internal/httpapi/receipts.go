package httpapi

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"slices"

	"github.com/einvoice/einvoice/internal/einvoice"
	"github.com/einvoice/einvoice/internal/invoicing"
	"github.com/einvoice/einvoice/internal/web"
)

// receiptRequest is the body of POST /receipts and each item of a bulk
// create: the sale's fields only. A receipt is never replaced, so, unlike
// the resources a PUT takes back, a response field (an amount, the
// requestUrl) is an unknown field here, not silently ignored.
type receiptRequest struct {
	einvoice.ReceiptInput
}

// receiptBulkRequest is the body of POST /receipts/bulk: each item is
// decoded on its own, so that a malformed one is refused alone.
type receiptBulkRequest struct {
	Receipts []json.RawMessage `json:"receipts"`
}

// receiptRefusedJSON is a refused item of a bulk create.
type receiptRefusedJSON struct {
	Index     int                  `json:"index"`
	ErrorCode einvoice.Code        `json:"error_code"`
	Message   string               `json:"message"`
	Errors    einvoice.FieldErrors `json:"errors"`
}

// receiptBulkJSON is the answer of a bulk create.
type receiptBulkJSON struct {
	Created []*einvoice.Receipt  `json:"created"`
	Refused []receiptRefusedJSON `json:"refused"`
}

// createReceipt is POST /api/v1/receipts.
func (s *Server) createReceipt(w http.ResponseWriter, r *http.Request, k *einvoice.APIKey) error {
	var req receiptRequest
	if err := decode(r, maxBody, &req); err != nil {
		return err
	}
	rc, err := s.svc.CreateReceipt(r.Context(), k.TenantID, &req.ReceiptInput)
	if err != nil {
		return err
	}
	ok(w, http.StatusCreated, rc)
	return nil
}

// createReceipts is POST /api/v1/receipts/bulk: up to 1,000 receipts, each
// stored or refused on its own (200 with both lists); more is a 422 for
// the whole request.
func (s *Server) createReceipts(w http.ResponseWriter, r *http.Request, k *einvoice.APIKey) error {
	var req receiptBulkRequest
	if err := decode(r, maxBulkBody, &req); err != nil {
		return err
	}
	if req.Receipts == nil {
		return einvoice.FieldErrors{"receipts": {"is required: an array of 1 to 1000 receipts"}}.Err()
	}
	if len(req.Receipts) > einvoice.MaxReceiptsPerBulk {
		return einvoice.FieldErrors{"receipts": {"at most 1000 receipts per request"}}.Err()
	}
	items := make([]invoicing.ReceiptRequest, len(req.Receipts))
	for i, raw := range req.Receipts {
		var one receiptRequest
		if err := decodeBytes(raw, &one); err != nil {
			items[i].Err = err
			continue
		}
		items[i].Input = &one.ReceiptInput
	}
	res, err := s.svc.CreateReceipts(r.Context(), k.TenantID, items)
	if err != nil {
		return err
	}
	out := receiptBulkJSON{Created: res.Created, Refused: make([]receiptRefusedJSON, len(res.Refused))}
	for i, f := range res.Refused {
		fields := f.Err.Fields
		if fields == nil {
			fields = einvoice.FieldErrors{}
		}
		out.Refused[i] = receiptRefusedJSON{Index: f.Index, ErrorCode: f.Err.Code, Message: f.Err.Message, Errors: fields}
		if f.Err.Code == einvoice.CodeInternal {
			s.logger.ErrorContext(r.Context(), "bulk receipt refused", "request_id", web.RequestID(r.Context()), "index", f.Index, "error", f.Err)
		}
	}
	ok(w, http.StatusOK, out)
	return nil
}

// listReceipts is GET /api/v1/receipts: newest issued first, filtered by
// month (YYYY-MM, Malaysian time), status and search (a receipt number
// prefix).
func (s *Server) listReceipts(w http.ResponseWriter, r *http.Request, k *einvoice.APIKey) error {
	pr, f := listPaging(r)
	q := r.URL.Query()
	filter := einvoice.ReceiptFilter{Month: q.Get("month"), Status: einvoice.ReceiptStatus(q.Get("status")),
		Search: q.Get("search"), PageRequest: pr}
	f.Merge("", checkSearch(filter.Search))
	f.Merge("", checkMonth(filter.Month))
	if filter.Status != "" && !slices.Contains(einvoice.ReceiptStatuses, filter.Status) {
		f.Add("status", "must be one of open, converted, consolidated, excluded")
	}
	if err := f.Err(); err != nil {
		return err
	}
	page, err := s.svc.ListReceipts(r.Context(), k.TenantID, filter)
	if err != nil {
		return err
	}
	logUnreadable(r, s.logger, page)
	okPage(w, page, page.Items)
	return nil
}

// checkMonth checks a month filter: empty, or YYYY-MM.
func checkMonth(month string) einvoice.FieldErrors {
	if _, isMonth := einvoice.ParseReceiptMonth(month); month != "" && !isMonth {
		return einvoice.FieldErrors{"month": {"must be a month as YYYY-MM (e.g. 2026-01)"}}
	}
	return nil
}

// getReceipt is GET /api/v1/receipts/{id}.
func (s *Server) getReceipt(w http.ResponseWriter, r *http.Request, k *einvoice.APIKey) error {
	rc, err := s.svc.GetReceipt(r.Context(), k.TenantID, r.PathValue("id"))
	if err != nil {
		return err
	}
	ok(w, http.StatusOK, rc)
	return nil
}

// deleteReceipt is DELETE /api/v1/receipts/{id}.
func (s *Server) deleteReceipt(w http.ResponseWriter, r *http.Request, k *einvoice.APIKey) error {
	id := r.PathValue("id")
	if err := s.svc.DeleteReceipt(r.Context(), k.TenantID, id); err != nil {
		return err
	}
	ok(w, http.StatusOK, deleted{ID: id, Deleted: true})
	return nil
}

// receiptQRResult is the JSON answer of GET /receipts/{id}/qr.
type receiptQRResult struct {
	ID string `json:"id"`
	// URL is what the code holds: the receipt's requestUrl.
	URL string `json:"url"`
	// QRCode is the PNG in plain base64 (no data: prefix).
	QRCode string `json:"qr_code"`
}

// receiptQR is GET /api/v1/receipts/{id}/qr: the QR code of the receipt's
// requestUrl, as the document QR answers (JSON, PNG or JPEG by Accept;
// size in pixels).
func (s *Server) receiptQR(w http.ResponseWriter, r *http.Request, k *einvoice.APIKey) error {
	size, mt, format, err := qrRequest(r)
	if err != nil {
		return err
	}
	code, err := s.svc.ReceiptQR(r.Context(), k.TenantID, r.PathValue("id"), size, format)
	if err != nil {
		return err
	}
	if mt == "application/json" {
		ok(w, http.StatusOK, receiptQRResult{ID: code.Receipt.ID, URL: code.URL, QRCode: base64.StdEncoding.EncodeToString(code.Image)})
		return nil
	}
	writeBytes(w, mt, code.Image)
	return nil
}
