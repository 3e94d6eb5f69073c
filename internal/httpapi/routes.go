package httpapi

import (
	"net/http"
	"slices"
	"strings"

	"github.com/einvoice/einvoice/internal/einvoice"
	"github.com/einvoice/einvoice/internal/refdata"
	"github.com/einvoice/einvoice/internal/web"
)

// Permissions of API routes.
const (
	read  = false
	write = true
)

// routes registers the routes of the API and the operations endpoints.
func (s *Server) routes() {
	// Operations, without authentication.
	s.root.HandleFunc("GET /healthz", s.healthz)
	s.root.HandleFunc("GET /readyz", s.readyz)
	s.root.Handle("GET /metrics", web.MetricsHandler(s.root.Registry()))
	s.root.HandleFunc("GET /openapi.json", s.openapi)
	s.root.HandleFunc("GET /docs", s.docs)

	// Tenant profile.
	s.api("GET /api/v1/profile", read, s.getProfile)
	s.api("PUT /api/v1/profile", write, s.putProfile)
	s.api("GET /api/v1/profile/check", read, s.checkProfile)

	// Buyers and on-behalf sellers.
	for _, p := range []struct {
		kind einvoice.PartyKind
		path string
	}{{einvoice.KindBuyer, "/api/v1/buyers"}, {einvoice.KindSeller, "/api/v1/on-behalf-sellers"}} {
		s.api("GET "+p.path, read, s.listParties(p.kind))
		s.api("POST "+p.path, write, s.createParty(p.kind))
		s.api("GET "+p.path+"/{id}", read, s.getParty(p.kind))
		s.api("PUT "+p.path+"/{id}", write, s.updateParty(p.kind))
		s.api("DELETE "+p.path+"/{id}", write, s.deleteParty(p.kind))
	}

	// Documents: one create route per kind; list, read, replace and delete
	// under /invoices for every kind.
	for _, ki := range einvoice.Kinds {
		s.api("POST /api/v1"+ki.Path, write, s.createDocument(ki.Kind))
	}
	s.api("GET /api/v1/invoices", read, s.listDocuments)
	s.api("GET /api/v1/invoices/{id}", read, s.getDocument)
	s.api("PUT /api/v1/invoices/{id}", write, s.updateDocument)
	s.api("DELETE /api/v1/invoices/{id}", write, s.deleteDocument)

	// Document operations.
	s.api("POST /api/v1/documents/{id}/validate", write, s.validateDocument)
	if s.svc.Submits() {
		s.api("POST /api/v1/documents/{id}/submit", write, s.submitDocument)
		s.api("POST /api/v1/documents/submit-bulk", write, s.submitBulk)
		s.api("GET /api/v1/documents/{id}/status", read, s.documentStatus)
		s.api("POST /api/v1/documents/{id}/cancel", write, s.cancelDocument)
		s.api("GET /api/v1/documents/{id}/ubl", read, s.documentUBL)
		s.apiOffering("GET /api/v1/documents/{id}/qr", read, qrOffers, s.documentQR)
		s.apiOffering("GET /api/v1/documents/{id}/pdf", read, []string{"application/pdf"}, s.documentPDF)
	}
	// Received documents (DECISIONS 16).
	s.api("GET /api/v1/received-documents", read, s.listReceived)
	s.api("GET /api/v1/received-documents/{id}", read, s.getReceived)
	s.api("GET /api/v1/received-documents/{id}/ubl", read, s.receivedUBL)
	s.apiOffering("GET /api/v1/received-documents/{id}/pdf", read, []string{"application/pdf"}, s.receivedPDF)
	if s.svc.Submits() {
		s.api("POST /api/v1/received-documents/{id}/reject", write, s.rejectReceived)
	}
	// B2C receipts (DECISIONS 17).
	s.api("POST /api/v1/receipts", write, s.createReceipt)
	s.api("POST /api/v1/receipts/bulk", write, s.createReceipts)
	s.methodsOnly("/api/v1/receipts/bulk", http.MethodPost)
	s.api("GET /api/v1/receipts", read, s.listReceipts)
	s.api("GET /api/v1/receipts/{id}", read, s.getReceipt)
	s.api("DELETE /api/v1/receipts/{id}", write, s.deleteReceipt)
	s.apiOffering("GET /api/v1/receipts/{id}/qr", read, qrOffers, s.receiptQR)
	if s.svc.Submits() {
		s.api("POST /api/v1/receipts/{id}/invoice", write, s.invoiceReceipt)
	}
	s.api("POST /api/v1/receipts/{id}/credit-note", write, s.receiptCreditNote)
	// Consolidated e-invoices of the month's receipts (DECISIONS 17).
	s.api("POST /api/v1/consolidations", write, s.createConsolidation)
	s.api("GET /api/v1/consolidations", read, s.listConsolidations)
	s.api("GET /api/v1/consolidations/{id}", read, s.getConsolidation)
	// Mail: documents shared with their buyers, the mailbox, the settings
	// (DECISIONS 21).
	if s.svc.Submits() {
		s.api("POST /api/v1/documents/{id}/deliver", write, s.deliverDocument)
	}
	s.api("GET /api/v1/mail", read, s.listMail)
	s.api("GET /api/v1/mail/settings", read, s.getMailSettings)
	s.api("PUT /api/v1/mail/settings", write, s.putMailSettings)
	s.methodsOnly("/api/v1/mail/settings", http.MethodGet, http.MethodPut)
	s.api("POST /api/v1/mail/preview", write, s.previewMail)
	s.methodsOnly("/api/v1/mail/preview", http.MethodPost)
	s.api("POST /api/v1/mail/test", write, s.testMail)
	s.methodsOnly("/api/v1/mail/test", http.MethodPost)
	s.api("GET /api/v1/mail/{id}", read, s.getMail)
	s.apiOffering("GET /api/v1/mail/{id}/attachment", read, []string{"application/pdf"}, s.mailAttachment)
	// Events and webhooks (DECISIONS 15).
	s.api("GET /api/v1/events", read, s.listEvents)
	s.api("GET /api/v1/webhooks", read, s.listWebhooks)
	s.api("POST /api/v1/webhooks", write, s.createWebhook)
	s.api("GET /api/v1/webhooks/{id}", read, s.getWebhook)
	s.api("PATCH /api/v1/webhooks/{id}", write, s.updateWebhook)
	s.api("DELETE /api/v1/webhooks/{id}", write, s.deleteWebhook)
	s.api("POST /api/v1/webhooks/{id}/rotate-secret", write, s.rotateWebhookSecret)
	s.api("POST /api/v1/webhooks/{id}/test", write, s.testWebhook)
	s.api("GET /api/v1/webhooks/{id}/deliveries", read, s.listDeliveries)
	s.api("POST /api/v1/webhooks/{id}/deliveries/{deliveryId}/redeliver", write, s.redeliver)
	// The audit log (DECISIONS 20): read-write keys only.
	s.api("GET /api/v1/audit-log", write, s.listAudit)

	// Reference data: states, countries, classifications, unit-types,
	// tax-types, currencies, payment-modes, id-types.
	for _, name := range refdata.Endpoints() {
		list, _ := refdata.ByEndpoint(name)
		s.api("GET /api/v1/"+name, read, s.referenceList(list))
	}
}

// methodsOnly answers the methods of a literal path other than allowed
// with 405 and Allow, as the mux answers a wrong method anywhere else: for
// a path that an {id} route would otherwise take (GET /receipts/bulk is no
// receipt's).
func (s *Server) methodsOnly(path string, allowed ...string) {
	allow := strings.Join(allowed, ", ")
	for _, m := range []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete} {
		if slices.Contains(allowed, m) {
			continue
		}
		s.root.HandleFunc(m+" "+path, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Allow", allow)
			web.WriteError(w, r, s.logger, einvoice.Errorf(einvoice.CodeMethodNotAllowed,
				"%s is not allowed on %s; allowed: %s.", r.Method, r.URL.Path, allow))
		})
	}
}

// api registers an authenticated, rate-limited route answering JSON.
func (s *Server) api(pattern string, needsWrite bool, h apiFunc) {
	s.apiOffering(pattern, needsWrite, []string{"application/json"}, h)
}

// apiOffering registers an authenticated, rate-limited route that answers
// one of the media types offered (the first by default); an Accept header
// that allows none is a 406.
func (s *Server) apiOffering(pattern string, needsWrite bool, offers []string, h apiFunc) {
	s.root.Handle(pattern, s.audit.Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := s.authorize(w, r, needsWrite, offers, h); err != nil {
			web.WriteError(w, r, s.logger, err)
		}
	})))
}
