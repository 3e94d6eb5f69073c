package dashboard

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/einvoice/einvoice/internal/einvoice"
	"github.com/einvoice/einvoice/internal/invoicing"
)

// documentData is the document page's own data.
type documentData struct {
	*invoicing.DocumentView
	// History is the events with the name of the key behind each.
	History []historyEntry
	// CanValidate, CanSubmit, CanCancel: the actions the status allows
	// (shown only to a read-write key).
	CanValidate, CanSubmit, CanCancel bool
	HasQR                             bool
	Cancel                            *form

	// CanEdit: draft, ready or Invalid, editable through the form.
	CanEdit bool

	// ShowDelivery: a Valid or Cancelled document shows how it reached its
	// buyer by mail (Delivery, nil when no message was written);
	// CanDeliver: a Valid one may be sent again (Deliver: the form).
	ShowDelivery, CanDeliver bool
	Delivery                 *einvoice.DocumentDelivery
	Deliver                  *form
}

// historyEntry is one event and who caused it.
type historyEntry struct {
	einvoice.Event
	By string
}

// document is a document's page: parties, lines, taxes, totals, status,
// history, the authority's errors with their hints, the QR code and the
// PDF, and the actions its status allows.
func (d *Dashboard) document(w http.ResponseWriter, r *http.Request, u *user) {
	d.renderDocument(w, r, u, http.StatusOK, nil)
}

// renderDocument renders the document page, with the cancel form's error
// when cancel was refused.
func (d *Dashboard) renderDocument(w http.ResponseWriter, r *http.Request, u *user, status int, cancel *form) {
	d.renderDocumentWith(w, r, u, status, cancel, nil)
}

// renderDocumentWith renders the document page, with the cancel or the
// send again form's errors when one was refused.
func (d *Dashboard) renderDocumentWith(w http.ResponseWriter, r *http.Request, u *user, status int, cancel, deliver *form) {
	v, err := d.svc.ViewDocument(r.Context(), u.tenant(), r.PathValue("id"))
	if err != nil {
		d.renderError(w, r, u, err)
		return
	}
	names, err := d.keyNames(r, u)
	if err != nil {
		d.serverError(w, r, err)
		return
	}
	data := documentData{DocumentView: v, Cancel: cancel, Deliver: deliver}
	if data.Cancel == nil {
		data.Cancel = &form{}
	}
	if data.Deliver == nil {
		data.Deliver = &form{}
	}
	for _, e := range v.Events {
		by := "the service"
		switch {
		case e.By != "":
			by = e.By
		case e.KeyID != "":
			by = names[e.KeyID]
		}
		data.History = append(data.History, historyEntry{Event: e, By: by})
	}
	data.CanEdit = v.Doc.Status.Editable()
	switch v.Doc.Status {
	case einvoice.StatusDraft, einvoice.StatusInvalid:
		data.CanValidate = true
	case einvoice.StatusReady:
		data.CanValidate, data.CanSubmit = true, true
	case einvoice.StatusValid:
		data.HasQR = true
		// The issuer may cancel within 72 hours of validation.
		at := v.Doc.Authority
		data.CanCancel = at == nil || at.ValidatedAt == nil || d.now().Before(at.ValidatedAt.Add(einvoice.CancelWindow))
		data.ShowDelivery, data.CanDeliver = true, true
	case einvoice.StatusCancelled:
		data.ShowDelivery = true
	}
	if data.ShowDelivery {
		if data.Delivery, err = d.svc.DocumentDelivery(r.Context(), u.tenant(), v.Doc.ID); err != nil {
			d.renderError(w, r, u, err)
			return
		}
	}
	d.render(w, r, status, "document", view{Title: documentTitle(v.Doc), Nav: "documents", User: u, Data: data})
}

// keyNames maps the tenant's key ids to their names (the prefix when
// unnamed), for the history.
func (d *Dashboard) keyNames(r *http.Request, u *user) (map[string]string, error) {
	keys, err := d.svc.ListAPIKeys(r.Context(), u.tenant())
	if err != nil {
		return nil, fmt.Errorf("key names: %w", err)
	}
	out := make(map[string]string, len(keys))
	for _, k := range keys {
		out[k.ID] = "key " + k.Name
		if k.Name == "" {
			out[k.ID] = "key " + k.Prefix + "…"
		}
	}
	return out, nil
}

// documentTitle is the page's title: kind and serial number.
func documentTitle(doc *einvoice.Document) string {
	return kindLabel(doc.Kind) + " " + doc.InvoiceSerialNumber
}

// kindLabel is a document kind as the pages name it ("Credit note").
func kindLabel(k einvoice.DocumentKind) string {
	kind := strings.ReplaceAll(string(k), "_", " ")
	if kind == "" {
		return ""
	}
	return strings.ToUpper(kind[:1]) + kind[1:]
}

func init() { funcs["kindLabel"] = kindLabel }

// documentPDF answers the document's PDF, inline, framable by our own
// pages only.
func (d *Dashboard) documentPDF(w http.ResponseWriter, r *http.Request, u *user) {
	f, err := d.svc.PDF(r.Context(), u.tenant(), r.PathValue("id"))
	if err != nil {
		d.renderError(w, r, u, err)
		return
	}
	writeInlinePDF(w, f.Name, f.Body)
}

// writeInlinePDF answers a PDF to be shown inline, framable by our own
// pages only.
func writeInlinePDF(w http.ResponseWriter, name string, body []byte) {
	setPDFFrameHeaders(w.Header())
	w.Header().Set("Content-Type", "application/pdf")
	w.Header().Set("Content-Disposition", fmt.Sprintf("inline; filename=%q", name))
	_, _ = w.Write(body)
}

// documentQR answers the QR code of a Valid document's validation link.
func (d *Dashboard) documentQR(w http.ResponseWriter, r *http.Request, u *user) {
	c, err := d.svc.QR(r.Context(), u.tenant(), r.PathValue("id"), 240, invoicing.QRPNG)
	if err != nil {
		d.renderError(w, r, u, err)
		return
	}
	w.Header().Set("Content-Type", "image/png")
	_, _ = w.Write(c.Image)
}

// backToDocument redirects to the document's page with a flash message.
func backToDocument(w http.ResponseWriter, r *http.Request, kind, msg string) {
	redirectFlash(w, r, "/app/documents/"+r.PathValue("id"), kind, msg)
}

// validateDocument runs the authority's rules on the document.
func (d *Dashboard) validateDocument(w http.ResponseWriter, r *http.Request, u *user) {
	res, err := d.svc.ValidateDocument(r.Context(), u.tenant(), "", r.PathValue("id"))
	if isNotFound(err) || err != nil && !isUserError(err) {
		d.renderError(w, r, u, err)
		return
	}
	switch {
	case err != nil:
		backToDocument(w, r, "error", errorMessage(err))
	case res.Passed():
		backToDocument(w, r, "ok", "Validated: the document is ready to submit.")
	default:
		backToDocument(w, r, "error", problemsMessage(res.Problems))
	}
}

// submitDocument sends the document to the tax authority.
func (d *Dashboard) submitDocument(w http.ResponseWriter, r *http.Request, u *user) {
	out, err := d.svc.Submit(r.Context(), u.tenant(), "", r.PathValue("id"))
	if isNotFound(err) || err != nil && !isUserError(err) {
		d.renderError(w, r, u, err)
		return
	}
	switch {
	case err != nil:
		backToDocument(w, r, "error", errorMessage(err))
	case out.Rejected:
		backToDocument(w, r, "error", "The tax authority refused the document: see its errors below.")
	case out.Pending:
		backToDocument(w, r, "ok", "Submitted: the tax authority's answer will follow.")
	default:
		backToDocument(w, r, "ok", "Submitted: the document is now "+statusLabel(out.Doc.Status)+".")
	}
}

// cancelDocument cancels a Valid document with the reason typed; a
// refusal is shown beside the reason, what was typed kept.
func (d *Dashboard) cancelDocument(w http.ResponseWriter, r *http.Request, u *user) {
	reason := strings.TrimSpace(r.PostFormValue("reason"))
	_, err := d.svc.Cancel(r.Context(), u.tenant(), "", r.PathValue("id"), reason)
	if isNotFound(err) || err != nil && !isUserError(err) {
		d.renderError(w, r, u, err)
		return
	}
	if err != nil {
		f := reasonForm(r, err)
		d.renderDocument(w, r, u, http.StatusUnprocessableEntity, f)
		return
	}
	backToDocument(w, r, "ok", "Cancelled.")
}

// isUserError reports whether err is the service's answer to the request
// (an einvoice.Error other than an internal one), to be shown on the page.
func isUserError(err error) bool {
	c := einvoice.ErrorCode(err)
	return c != "" && c != einvoice.CodeInternal
}

// problemsMessage sums up validate's problems for a flash message: the
// first few (a cookie is small), and how many more.
func problemsMessage(problems []einvoice.Problem) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Not valid (%d problems):", len(problems))
	for i, p := range problems {
		if i == 5 {
			fmt.Fprintf(&b, " … and %d more.", len(problems)-i)
			break
		}
		msg := p.Message
		if len(msg) > 200 {
			msg = msg[:200] + "…"
		}
		fmt.Fprintf(&b, " %s: %s", p.Field, msg)
	}
	return b.String()
}
