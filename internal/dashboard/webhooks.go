package dashboard

import (
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/einvoice/einvoice/internal/einvoice"
	"github.com/einvoice/einvoice/internal/invoicing"
)

// webhooksData is the webhooks list's own data.
type webhooksData struct {
	Items []*einvoice.Webhook
	Total int
	Pager pager
}

// webhookData is a webhook's page (and the new webhook's form): the edit
// form with the event types to choose, the secret once after create or
// rotate, and the deliveries paged.
type webhookData struct {
	Hook   *einvoice.Webhook
	Edit   *form
	Events []eventChoice
	// Enabled is the edit form's checkbox.
	Enabled bool
	// Secret is shown once, on the page that answers create or rotate.
	Secret     string
	Deliveries []*einvoice.WebhookDelivery
	Total      int
	Pager      pager
}

// eventChoice is one event type's checkbox.
type eventChoice struct {
	Type    einvoice.EventType
	Checked bool
}

// eventChoices are the checkboxes of every event type, those of chosen
// checked.
func eventChoices(chosen []einvoice.EventType) []eventChoice {
	out := make([]eventChoice, len(einvoice.EventTypes))
	for i, t := range einvoice.EventTypes {
		out[i] = eventChoice{Type: t, Checked: slices.Contains(chosen, t)}
	}
	return out
}

// webhooks is the list of the tenant's webhooks, paged.
func (d *Dashboard) webhooks(w http.ResponseWriter, r *http.Request, u *user) {
	pr := pageRequest(r.URL.Query())
	page, err := d.svc.ListWebhooks(r.Context(), u.tenant(), pr)
	if err != nil {
		d.renderError(w, r, u, err)
		return
	}
	d.render(w, r, http.StatusOK, "webhooks", view{Title: "Webhooks", Nav: "webhooks", User: u,
		Data: webhooksData{Items: page.Items, Total: page.Total, Pager: pagerOf(url.Values{}, pr, page.Total)}})
}

// newWebhook is the form of a new webhook (a read-write key's).
func (d *Dashboard) newWebhook(w http.ResponseWriter, r *http.Request, u *user) {
	if !u.CanWrite() {
		d.forbidden(w, r, u, "This key is read-only: it cannot add webhooks.")
		return
	}
	d.render(w, r, http.StatusOK, "webhook", view{Title: "New webhook", Nav: "webhooks", User: u,
		Data: webhookData{Edit: &form{}, Events: eventChoices(nil), Enabled: true}})
}

// webhookInput reads the form: URL, the event types checked, enabled.
func webhookInput(r *http.Request) (invoicing.WebhookInput, []einvoice.EventType) {
	link := strings.TrimSpace(r.PostFormValue("url"))
	events := []einvoice.EventType{}
	for _, e := range r.PostForm["events"] {
		events = append(events, einvoice.EventType(e))
	}
	enabled := r.PostFormValue("enabled") == "on"
	return invoicing.WebhookInput{URL: &link, Events: &events, Enabled: &enabled}, events
}

// webhookForm is the form shown again after a refusal: what was typed, the
// errors of each event type ("events[2]") beside the events.
func webhookForm(r *http.Request, err error) *form {
	f := formOf(r, err)
	for k, msgs := range f.Errors {
		if strings.HasPrefix(k, "events[") {
			f.Errors["events"] = append(f.Errors["events"], msgs...)
			delete(f.Errors, k)
		}
	}
	if len(f.Errors) > 0 {
		f.Message = ""
	}
	return f
}

// createWebhook adds a webhook; the page that answers shows its secret,
// once.
func (d *Dashboard) createWebhook(w http.ResponseWriter, r *http.Request, u *user) {
	in, events := webhookInput(r)
	hook, err := d.svc.CreateWebhook(r.Context(), u.tenant(), in)
	if err != nil && !isUserError(err) {
		d.renderError(w, r, u, err)
		return
	}
	if err != nil {
		d.render(w, r, http.StatusUnprocessableEntity, "webhook", view{Title: "New webhook", Nav: "webhooks", User: u,
			Data: webhookData{Edit: webhookForm(r, err), Events: eventChoices(events), Enabled: *in.Enabled}})
		return
	}
	d.renderWebhook(w, r, u, http.StatusCreated, hook, nil, &flash{Kind: "ok", Message: "Webhook added: copy its signing secret now, it is shown only once."})
}

// webhook is a webhook's page.
func (d *Dashboard) webhook(w http.ResponseWriter, r *http.Request, u *user) {
	hook, err := d.svc.GetWebhook(r.Context(), u.tenant(), r.PathValue("id"))
	if err != nil {
		d.renderError(w, r, u, err)
		return
	}
	d.renderWebhook(w, r, u, http.StatusOK, hook, nil, nil)
}

// renderWebhook renders hook's page: the edit form (edit, after a
// refusal, else the webhook's own fields), the secret when fl names a
// create or rotate, and the deliveries.
func (d *Dashboard) renderWebhook(w http.ResponseWriter, r *http.Request, u *user, status int, hook *einvoice.Webhook, edit *form, fl *flash) {
	pr := pageRequest(r.URL.Query())
	page, err := d.svc.ListDeliveries(r.Context(), u.tenant(), hook.ID, pr)
	if err != nil {
		d.renderError(w, r, u, err)
		return
	}
	data := webhookData{Hook: hook, Edit: edit, Deliveries: page.Items, Total: page.Total, Pager: pagerOf(url.Values{}, pr, page.Total)}
	if edit == nil {
		data.Edit = &form{Values: map[string]string{"url": hook.URL}}
		data.Events, data.Enabled = eventChoices(hook.Events), hook.Enabled
	} else {
		_, events := webhookInput(r)
		data.Events, data.Enabled = eventChoices(events), r.PostFormValue("enabled") == "on"
	}
	if fl != nil && status != http.StatusUnprocessableEntity {
		data.Secret = hook.Secret
	}
	d.render(w, r, status, "webhook", view{Title: "Webhook", Nav: "webhooks", User: u, Flash: fl, Data: data})
}

// updateWebhook changes the URL, the events and whether it is enabled.
func (d *Dashboard) updateWebhook(w http.ResponseWriter, r *http.Request, u *user) {
	id := r.PathValue("id")
	in, _ := webhookInput(r)
	_, err := d.svc.UpdateWebhook(r.Context(), u.tenant(), id, in)
	if isNotFound(err) || err != nil && !isUserError(err) {
		d.renderError(w, r, u, err)
		return
	}
	if err != nil {
		hook, gerr := d.svc.GetWebhook(r.Context(), u.tenant(), id)
		if gerr != nil {
			d.renderError(w, r, u, gerr)
			return
		}
		d.renderWebhook(w, r, u, http.StatusUnprocessableEntity, hook, webhookForm(r, err), nil)
		return
	}
	redirectFlash(w, r, "/app/webhooks/"+id, "ok", "Webhook saved.")
}

// deleteWebhook removes a webhook and its deliveries.
func (d *Dashboard) deleteWebhook(w http.ResponseWriter, r *http.Request, u *user) {
	if err := d.svc.DeleteWebhook(r.Context(), u.tenant(), r.PathValue("id")); err != nil {
		d.renderError(w, r, u, err)
		return
	}
	redirectFlash(w, r, "/app/webhooks", "ok", "Webhook deleted.")
}

// rotateWebhook gives the webhook a new secret, shown once on the page
// that answers.
func (d *Dashboard) rotateWebhook(w http.ResponseWriter, r *http.Request, u *user) {
	hook, err := d.svc.RotateWebhookSecret(r.Context(), u.tenant(), r.PathValue("id"))
	if err != nil {
		d.renderError(w, r, u, err)
		return
	}
	d.renderWebhook(w, r, u, http.StatusOK, hook, nil,
		&flash{Kind: "ok", Message: "New signing secret: copy it now, it is shown only once. The old one still signs for 24 hours."})
}

// testWebhook queues a webhook.test event for the webhook.
func (d *Dashboard) testWebhook(w http.ResponseWriter, r *http.Request, u *user) {
	if _, err := d.svc.TestWebhook(r.Context(), u.tenant(), r.PathValue("id")); err != nil {
		d.renderError(w, r, u, err)
		return
	}
	redirectFlash(w, r, "/app/webhooks/"+r.PathValue("id"), "ok", "Test event queued: see its delivery below.")
}

// redeliver queues a delivery's event again.
func (d *Dashboard) redeliver(w http.ResponseWriter, r *http.Request, u *user) {
	if _, err := d.svc.Redeliver(r.Context(), u.tenant(), r.PathValue("id"), r.PathValue("delivery")); err != nil {
		d.renderError(w, r, u, err)
		return
	}
	redirectFlash(w, r, "/app/webhooks/"+r.PathValue("id"), "ok", "Delivery queued again.")
}

func init() { funcs["lastAttempt"] = lastAttempt }

// lastAttempt is a delivery's latest attempt, nil before any.
func lastAttempt(d *einvoice.WebhookDelivery) *einvoice.Attempt {
	if len(d.Attempts) == 0 {
		return nil
	}
	return &d.Attempts[len(d.Attempts)-1]
}
