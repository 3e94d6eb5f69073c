package dashboard

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/einvoice/einvoice/internal/einvoice"
)

// noMailServer is the banner of the mail pages when the operator set no
// mail server (DECISIONS 21): the messages are kept, to be read here.
const noMailServer = "No mail server is configured: messages are kept here, not sent. The operator sets one with --smtp-url."

// mailStates are the state filter's choices, in the order shown.
var mailStates = []einvoice.MailState{einvoice.MailPending, einvoice.MailSent, einvoice.MailFailed, einvoice.MailKept, einvoice.MailNotApplicable}

// mailListData is the Mail page's own data.
type mailListData struct {
	// Banner: no mail server is configured.
	Banner string
	States []einvoice.MailState
	Items  []mailRow
	Total  int
	Pager  pager
}

// mailRow is one message of the list: the message, what its state means,
// and the number of the document it shares.
type mailRow struct {
	*einvoice.MailMessage
	Note      string
	DocNumber string
}

// mailData is a message's page.
type mailData struct {
	*einvoice.MailMessage
	Note      string
	DocNumber string
	Banner    string
}

// mailBanner is the banner of the mail pages: noMailServer without a mail
// server, else "".
func (d *Dashboard) mailBanner() string {
	if d.svc.HasSender() {
		return ""
	}
	return noMailServer
}

// mailStateLabel is a message's state as the pages name it.
func mailStateLabel(s einvoice.MailState) string {
	switch s {
	case einvoice.MailNotApplicable:
		return "Not sent"
	case "":
		return ""
	}
	return capital(string(s))
}

// deliveryStateLabel is a document delivery's state as the pages name it.
func deliveryStateLabel(s string) string { return mailStateLabel(einvoice.MailState(s)) }

// mailKindLabel is what a message is for, as the pages name it.
func mailKindLabel(k einvoice.MailKind) string {
	switch k {
	case einvoice.MailDocument:
		return "Document to its buyer"
	case einvoice.MailTest:
		return "Test message"
	case einvoice.MailNotice:
		return "Notice"
	}
	return string(k)
}

func init() {
	funcs["mailStateLabel"] = mailStateLabel
	funcs["deliveryStateLabel"] = deliveryStateLabel
	funcs["mailKindLabel"] = mailKindLabel
	funcs["join"] = strings.Join
}

// mailNote is what a message's state means, as the API's note says it:
// why it was not sent, or the error of a failed or retried attempt.
func mailNote(m *einvoice.MailMessage) string {
	if n := m.NotSent(); n != "" {
		return n
	}
	switch m.State {
	case einvoice.MailFailed:
		return m.LastError
	case einvoice.MailPending:
		if m.LastError != "" {
			return m.LastError + " (next attempt " + formatTime(m.NextAttemptAt) + ")"
		}
	case einvoice.MailSent:
		if m.Unconfirmed {
			return "unconfirmed: " + m.LastError
		}
	}
	return ""
}

// mailFilter reads the list's filter (state, page) from the query; an
// unknown state is no filter.
func mailFilter(q url.Values) (einvoice.MailFilter, *form) {
	f := &form{Values: map[string]string{}}
	filter := einvoice.MailFilter{PageRequest: pageRequest(q)}
	for _, st := range mailStates {
		if q.Get("state") == string(st) {
			filter.State = st
			f.Values["state"] = string(st)
		}
	}
	return filter, f
}

// mailList is the Mail page: the tenant's messages, newest first, paged,
// with a state filter and the banner when no mail server is configured.
func (d *Dashboard) mailList(w http.ResponseWriter, r *http.Request, u *user) {
	filter, f := mailFilter(r.URL.Query())
	page, err := d.svc.ListMail(r.Context(), u.tenant(), filter)
	if err != nil {
		d.renderError(w, r, u, err)
		return
	}
	numbers := map[string]string{}
	rows := make([]mailRow, len(page.Items))
	for i, m := range page.Items {
		n, err := d.documentNumber(r, u, m.DocumentID, numbers)
		if err != nil {
			d.renderError(w, r, u, err)
			return
		}
		rows[i] = mailRow{MailMessage: m, Note: mailNote(m), DocNumber: n}
	}
	keep := url.Values{}
	if filter.State != "" {
		keep.Set("state", string(filter.State))
	}
	d.render(w, r, http.StatusOK, "mail", view{Title: "Mail", Nav: "mail", User: u, Form: f,
		Data: mailListData{Banner: d.mailBanner(), States: mailStates, Items: rows, Total: page.Total,
			Pager: pagerOf(keep, filter.PageRequest, page.Total)}})
}

// documentNumber is the serial number of a message's document ("" for
// none), read once per page (seen).
func (d *Dashboard) documentNumber(r *http.Request, u *user, id string, seen map[string]string) (string, error) {
	if id == "" {
		return "", nil
	}
	if n, ok := seen[id]; ok {
		return n, nil
	}
	doc, _, err := d.svc.GetDocument(r.Context(), u.tenant(), id)
	switch {
	case isNotFound(err):
		seen[id] = "a deleted document"
	case err != nil:
		return "", err
	default:
		seen[id] = doc.InvoiceSerialNumber
	}
	return seen[id], nil
}

// mailMessage is a message as its recipient reads it: from, reply-to, to,
// bcc, subject, the body as written, and the attachment.
func (d *Dashboard) mailMessage(w http.ResponseWriter, r *http.Request, u *user) {
	m, err := d.svc.GetMail(r.Context(), u.tenant(), r.PathValue("id"))
	if err != nil {
		d.renderError(w, r, u, err)
		return
	}
	n, err := d.documentNumber(r, u, m.DocumentID, map[string]string{})
	if err != nil {
		d.renderError(w, r, u, err)
		return
	}
	title := m.Subject
	if strings.TrimSpace(title) == "" {
		title = "(no subject)"
	}
	d.render(w, r, http.StatusOK, "mailmessage", view{Title: title, Nav: "mail", User: u,
		Data: mailData{MailMessage: m, Note: mailNote(m), DocNumber: n, Banner: d.mailBanner()}})
}

// mailAttachment downloads a message's attachment (the document's PDF).
func (d *Dashboard) mailAttachment(w http.ResponseWriter, r *http.Request, u *user) {
	a, err := d.svc.Attachment(r.Context(), u.tenant(), r.PathValue("id"))
	if err != nil {
		d.renderError(w, r, u, err)
		return
	}
	ct := a.ContentType
	if ct == "" {
		ct = "application/octet-stream"
	}
	w.Header().Set("Content-Type", ct)
	w.Header().Set("Content-Disposition", fmt.Sprintf("attachment; filename=%q", a.Name))
	_, _ = w.Write(a.Data)
}

// splitAddresses reads a list of addresses typed separated by commas,
// semicolons or lines; nil when none was typed.
func splitAddresses(s string) []string {
	var out []string
	for _, a := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ';' || r == '\n' || r == '\r' }) {
		if a = strings.TrimSpace(a); a != "" {
			out = append(out, a)
		}
	}
	return out
}

// addressErrors moves the errors of each address ("to.2") beside the
// field that lists them ("to"), naming the address.
func addressErrors(f *form, field string, addrs []string) {
	for i, a := range addrs {
		k := fmt.Sprintf("%s.%d", field, i)
		for _, msg := range f.Errors[k] {
			f.Errors[field] = append(f.Errors[field], fmt.Sprintf("%q %s.", a, msg))
		}
		delete(f.Errors, k)
	}
}

// deliverDocument sends a Valid document to its buyer again, or to the
// addresses typed; a bad address is shown beside the field, nothing sent.
func (d *Dashboard) deliverDocument(w http.ResponseWriter, r *http.Request, u *user) {
	to := splitAddresses(r.PostFormValue("to"))
	m, err := d.svc.Deliver(r.Context(), u.tenant(), r.PathValue("id"), to)
	if isNotFound(err) || err != nil && !isUserError(err) {
		d.renderError(w, r, u, err)
		return
	}
	if err != nil {
		f := formOf(r, err)
		if len(f.Errors) == 0 {
			backToDocument(w, r, "error", errorMessage(err))
			return
		}
		addressErrors(f, "to", to)
		f.Message = ""
		strayErrors(f, []string{"to"})
		d.renderDocumentWith(w, r, u, http.StatusUnprocessableEntity, nil, f)
		return
	}
	msg := "Queued for " + strings.Join(m.To, ", ") + ": see the message below."
	if m.State == einvoice.MailKept {
		msg = "Not sent: no mail server configured. The message to " + strings.Join(m.To, ", ") + " is kept on the Mail page."
	}
	backToDocument(w, r, "ok", msg)
}
