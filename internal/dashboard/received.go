package dashboard

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/einvoice/einvoice/internal/einvoice"
	"github.com/einvoice/einvoice/internal/invoicing"
)

// receivedListData is the received documents list's own data.
type receivedListData struct {
	Statuses []string
	Items    []*invoicing.ReceivedDocumentView
	Total    int
	Pager    pager
}

// receivedData is a received document's page's own data.
type receivedData struct {
	*invoicing.ReceivedDocumentView
	// CanReject: the rejection window is open (the form is shown to a
	// read-write key); Left is the time left in it ("41 h 12 min").
	CanReject bool
	Left      string
	Reject    *form
}

// receivedFilter reads the list's filter from the query, as the API's:
// status, search (issuer name, TIN or number), from and to (issue dates,
// inclusive); problems are field errors of f's form.
func receivedFilter(q url.Values) (einvoice.ReceivedFilter, *form) {
	f := &form{Values: map[string]string{}, Errors: einvoice.FieldErrors{}}
	for _, k := range []string{"status", "search", "from", "to"} {
		f.Values[k] = q.Get(k)
	}
	filter := einvoice.ReceivedFilter{Search: strings.TrimSpace(q.Get("search")), PageRequest: pageRequest(q)}
	for _, st := range invoicing.ReceivedStatuses {
		if q.Get("status") == st {
			filter.Status = st
		}
	}
	if !utf8.ValidString(filter.Search) || strings.ContainsRune(filter.Search, 0) || len(filter.Search) > 100 {
		f.Errors.Add("search", "Type at most 100 characters of text.")
		filter.Search = ""
	}
	from, to := formDate(q.Get("from"), "from", f.Errors), formDate(q.Get("to"), "to", f.Errors)
	if !from.IsZero() && !to.IsZero() && from.After(to) {
		f.Errors.Add("to", "Must not be before the from date.")
		to = time.Time{}
	}
	if !from.IsZero() {
		filter.From = &from
	}
	if !to.IsZero() {
		end := to.AddDate(0, 0, 1)
		filter.To = &end
	}
	return filter, f
}

// receivedList is the list of documents other taxpayers issued to the
// tenant: status, search and issue-date filters, paged.
func (d *Dashboard) receivedList(w http.ResponseWriter, r *http.Request, u *user) {
	q := r.URL.Query()
	filter, f := receivedFilter(q)
	page, err := d.svc.ListReceived(r.Context(), u.tenant(), filter)
	if err != nil {
		d.renderError(w, r, u, err)
		return
	}
	keep := url.Values{}
	for _, k := range []string{"status", "search", "from", "to"} {
		if v := q.Get(k); v != "" && f.Error(k) == "" {
			keep.Set(k, v)
		}
	}
	d.render(w, r, http.StatusOK, "received", view{Title: "Received documents", Nav: "received", User: u, Form: f,
		Data: receivedListData{Statuses: invoicing.ReceivedStatuses, Items: page.Items, Total: page.Total,
			Pager: pagerOf(keep, filter.PageRequest, page.Total)}})
}

// receivedDocument is a received document's page: supplier, amounts,
// lines, the PDF, and the rejection form while the window is open.
func (d *Dashboard) receivedDocument(w http.ResponseWriter, r *http.Request, u *user) {
	d.renderReceived(w, r, u, http.StatusOK, nil)
}

// renderReceived renders a received document's page, with the reject
// form's error when the rejection was refused.
func (d *Dashboard) renderReceived(w http.ResponseWriter, r *http.Request, u *user, status int, reject *form) {
	v, err := d.svc.GetReceived(r.Context(), u.tenant(), r.PathValue("id"))
	if err != nil {
		d.renderError(w, r, u, err)
		return
	}
	data := receivedData{ReceivedDocumentView: v, Reject: reject}
	if data.Reject == nil {
		data.Reject = &form{}
	}
	if v.Rejectable && v.RejectableUntil != nil {
		if left := v.RejectableUntil.Sub(d.now()); left > 0 {
			data.CanReject, data.Left = true, formatLeft(left)
		}
	}
	title := v.DocumentTypeName + " " + v.Number
	d.render(w, r, status, "receivedone", view{Title: strings.TrimSpace(title), Nav: "received", User: u, Data: data})
}

// formatLeft writes a duration as hours and minutes ("41 h 12 min").
func formatLeft(left time.Duration) string {
	m := int(left.Minutes())
	return fmt.Sprintf("%d h %d min", m/60, m%60)
}

// receivedPDF answers our PDF of a received document, inline, framable by
// our own pages only.
func (d *Dashboard) receivedPDF(w http.ResponseWriter, r *http.Request, u *user) {
	f, err := d.svc.ReceivedPDF(r.Context(), u.tenant(), r.PathValue("id"))
	if err != nil {
		d.renderError(w, r, u, err)
		return
	}
	writeInlinePDF(w, f.Name, f.Body)
}

// rejectReceived asks the authority to reject a received document with
// the reason typed; a refusal (the window closed among them) is shown
// beside the reason, what was typed kept.
func (d *Dashboard) rejectReceived(w http.ResponseWriter, r *http.Request, u *user) {
	reason := strings.TrimSpace(r.PostFormValue("reason"))
	_, err := d.svc.RejectReceived(r.Context(), u.tenant(), r.PathValue("id"), reason)
	if isNotFound(err) || err != nil && !isUserError(err) {
		d.renderError(w, r, u, err)
		return
	}
	if err != nil {
		f := reasonForm(r, err)
		d.renderReceived(w, r, u, http.StatusUnprocessableEntity, f)
		return
	}
	redirectFlash(w, r, "/app/received/"+r.PathValue("id"), "ok", "Rejection requested: the issuer is told.")
}
