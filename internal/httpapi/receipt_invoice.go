package httpapi

import (
	"net/http"

	"github.com/einvoice/einvoice/internal/einvoice"
)

// receiptInvoiceRequest is the body of POST /receipts/{id}/invoice.
type receiptInvoiceRequest struct {
	BuyerID string `json:"buyerId"`
}

// invoiceReceipt is POST /api/v1/receipts/{id}/invoice: an open or excluded
// receipt's invoice for an existing buyer, created, validated and
// submitted (201 with the invoice as it stands); 409 once the receipt is
// converted or consolidated.
func (s *Server) invoiceReceipt(w http.ResponseWriter, r *http.Request, k *einvoice.APIKey) error {
	var req receiptInvoiceRequest
	if err := decode(r, maxBody, &req); err != nil {
		return err
	}
	d, history, err := s.svc.InvoiceReceipt(r.Context(), k.TenantID, k.ID, r.PathValue("id"), req.BuyerID)
	if err != nil {
		return err
	}
	ok(w, http.StatusCreated, documentJSON{Document: d, History: history})
	return nil
}
