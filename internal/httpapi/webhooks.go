package httpapi

import (
	"net/http"

	"github.com/einvoice/einvoice/internal/einvoice"
	"github.com/einvoice/einvoice/internal/invoicing"
)

// webhookRequest is the body of POST /webhooks and PATCH /webhooks/{id}:
// every field optional on PATCH (what is left out is kept).
type webhookRequest struct {
	URL         *string               `json:"url"`
	Events      *[]einvoice.EventType `json:"events"`
	Description *string               `json:"description"`
	Enabled     *bool                 `json:"enabled"`
}

func (webhookRequest) echo() any { return einvoice.Webhook{} } // not the secret

// webhookJSON is a webhook in responses; Secret only in the answers of
// create and rotate-secret.
type webhookJSON struct {
	*einvoice.Webhook
	Secret string `json:"secret,omitempty"`
}

func decodeWebhook(r *http.Request) (invoicing.WebhookInput, error) {
	var req webhookRequest
	if err := decode(r, maxBody, &req); err != nil {
		return invoicing.WebhookInput{}, err
	}
	return invoicing.WebhookInput{URL: req.URL, Events: req.Events, Description: req.Description, Enabled: req.Enabled}, nil
}

func (s *Server) createWebhook(w http.ResponseWriter, r *http.Request, k *einvoice.APIKey) error {
	in, err := decodeWebhook(r)
	if err != nil {
		return err
	}
	h, err := s.svc.CreateWebhook(r.Context(), k.TenantID, in)
	if err != nil {
		return err
	}
	ok(w, http.StatusCreated, webhookJSON{Webhook: h, Secret: h.Secret})
	return nil
}

func (s *Server) listWebhooks(w http.ResponseWriter, r *http.Request, k *einvoice.APIKey) error {
	pr, err := pageRequest(r)
	if err != nil {
		return err
	}
	page, err := s.svc.ListWebhooks(r.Context(), k.TenantID, pr)
	if err != nil {
		return err
	}
	items := make([]webhookJSON, len(page.Items))
	for i, h := range page.Items {
		items[i] = webhookJSON{Webhook: h}
	}
	okPage(w, page, items)
	return nil
}

func (s *Server) getWebhook(w http.ResponseWriter, r *http.Request, k *einvoice.APIKey) error {
	h, err := s.svc.GetWebhook(r.Context(), k.TenantID, r.PathValue("id"))
	if err != nil {
		return err
	}
	ok(w, http.StatusOK, webhookJSON{Webhook: h})
	return nil
}

func (s *Server) updateWebhook(w http.ResponseWriter, r *http.Request, k *einvoice.APIKey) error {
	// The webhook must exist before its body is judged.
	if _, err := s.svc.GetWebhook(r.Context(), k.TenantID, r.PathValue("id")); err != nil {
		return err
	}
	in, err := decodeWebhook(r)
	if err != nil {
		return err
	}
	h, err := s.svc.UpdateWebhook(r.Context(), k.TenantID, r.PathValue("id"), in)
	if err != nil {
		return err
	}
	ok(w, http.StatusOK, webhookJSON{Webhook: h})
	return nil
}

func (s *Server) deleteWebhook(w http.ResponseWriter, r *http.Request, k *einvoice.APIKey) error {
	id := r.PathValue("id")
	if err := s.svc.DeleteWebhook(r.Context(), k.TenantID, id); err != nil {
		return err
	}
	ok(w, http.StatusOK, deleted{ID: id, Deleted: true})
	return nil
}

func (s *Server) rotateWebhookSecret(w http.ResponseWriter, r *http.Request, k *einvoice.APIKey) error {
	h, err := s.svc.RotateWebhookSecret(r.Context(), k.TenantID, r.PathValue("id"))
	if err != nil {
		return err
	}
	ok(w, http.StatusOK, webhookJSON{Webhook: h, Secret: h.Secret})
	return nil
}

func (s *Server) testWebhook(w http.ResponseWriter, r *http.Request, k *einvoice.APIKey) error {
	d, err := s.svc.TestWebhook(r.Context(), k.TenantID, r.PathValue("id"))
	if err != nil {
		return err
	}
	ok(w, http.StatusAccepted, d)
	return nil
}

func (s *Server) listDeliveries(w http.ResponseWriter, r *http.Request, k *einvoice.APIKey) error {
	pr, err := pageRequest(r)
	if err != nil {
		return err
	}
	page, err := s.svc.ListDeliveries(r.Context(), k.TenantID, r.PathValue("id"), pr)
	if err != nil {
		return err
	}
	items := page.Items
	if items == nil {
		items = []*einvoice.WebhookDelivery{}
	}
	okPage(w, page, items)
	return nil
}

func (s *Server) redeliver(w http.ResponseWriter, r *http.Request, k *einvoice.APIKey) error {
	d, err := s.svc.Redeliver(r.Context(), k.TenantID, r.PathValue("id"), r.PathValue("deliveryId"))
	if err != nil {
		return err
	}
	ok(w, http.StatusAccepted, d)
	return nil
}
