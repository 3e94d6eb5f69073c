package httpapi

import (
	"fmt"
	"net/http"
	"time"

	"github.com/einvoice/einvoice/internal/einvoice"
	"github.com/einvoice/einvoice/internal/invoicing/mail"
)

// mailJSON is a message of the outbox in responses.
type mailJSON struct {
	ID            string              `json:"id"`
	Type          einvoice.MailKind   `json:"type"`
	DocumentID    string              `json:"documentId,omitempty"`
	State         einvoice.MailState  `json:"state"`
	Note          string              `json:"note,omitempty"`
	Language      string              `json:"language"`
	FromName      string              `json:"fromName"`
	ReplyTo       string              `json:"replyTo"`
	To            []string            `json:"to"`
	Bcc           []string            `json:"bcc"`
	Subject       string              `json:"subject"`
	Body          string              `json:"body"`
	Attachment    *mailAttachmentJSON `json:"attachment"`
	Attempts      int                 `json:"attempts"`
	LastError     string              `json:"lastError,omitempty"`
	NextAttemptAt *time.Time          `json:"nextAttemptAt,omitempty"`
	SentAt        *time.Time          `json:"sentAt,omitempty"`
	Unconfirmed   bool                `json:"unconfirmed"`
	CreatedAt     time.Time           `json:"createdAt"`
	UpdatedAt     time.Time           `json:"updatedAt"`
}

// mailAttachmentJSON names a message's attachment and where to read it.
type mailAttachmentJSON struct {
	ContentType string `json:"contentType"`
	URL         string `json:"url"`
}

func mailView(m *einvoice.MailMessage) mailJSON {
	v := mailJSON{ID: m.ID, Type: m.Kind, DocumentID: m.DocumentID, State: m.State, Language: m.Language, FromName: m.FromName,
		ReplyTo: m.ReplyTo, To: m.To, Bcc: m.Bcc, Subject: m.Subject, Body: m.Body, Attempts: m.Attempts, LastError: m.LastError,
		SentAt: m.SentAt, Unconfirmed: m.Unconfirmed, CreatedAt: m.CreatedAt, UpdatedAt: m.UpdatedAt}
	if v.To == nil {
		v.To = []string{}
	}
	if v.Bcc == nil {
		v.Bcc = []string{}
	}
	v.Note = m.NotSent()
	switch m.State {
	case einvoice.MailNotApplicable:
		v.LastError = "" // the reason is the note
	case einvoice.MailPending:
		next := m.NextAttemptAt
		v.NextAttemptAt = &next
	}
	if m.AttachPDF {
		v.Attachment = &mailAttachmentJSON{ContentType: "application/pdf", URL: "/api/v1/mail/" + m.ID + "/attachment"}
	}
	return v
}

// deliverRequest is the optional body of POST /documents/{id}/deliver.
type deliverRequest struct {
	To *[]string `json:"to"`
}

func (deliverRequest) echo() any { return deliverRequest{} }

func (s *Server) deliverDocument(w http.ResponseWriter, r *http.Request, k *einvoice.APIKey) error {
	var req deliverRequest
	if r.ContentLength != 0 {
		if err := decode(r, maxBody, &req); err != nil {
			return err
		}
	}
	var to []string
	if req.To != nil {
		to = *req.To
		if to == nil {
			to = []string{}
		}
	}
	m, err := s.svc.Deliver(r.Context(), k.TenantID, r.PathValue("id"), to)
	if err != nil {
		return err
	}
	ok(w, http.StatusAccepted, mailView(m))
	return nil
}

func (s *Server) listMail(w http.ResponseWriter, r *http.Request, k *einvoice.APIKey) error {
	pr, err := pageRequest(r)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	f := einvoice.MailFilter{DocumentID: q.Get("documentId"), State: einvoice.MailState(q.Get("state")), PageRequest: pr}
	switch f.State {
	case "", einvoice.MailPending, einvoice.MailSent, einvoice.MailFailed, einvoice.MailKept, einvoice.MailNotApplicable:
	default:
		return einvoice.FieldErrors{"state": {"must be pending, sent, failed, kept or not_applicable"}}.Err()
	}
	page, err := s.svc.ListMail(r.Context(), k.TenantID, f)
	if err != nil {
		return err
	}
	items := make([]mailJSON, len(page.Items))
	for i, m := range page.Items {
		items[i] = mailView(m)
	}
	okPage(w, page, items)
	return nil
}

func (s *Server) getMail(w http.ResponseWriter, r *http.Request, k *einvoice.APIKey) error {
	m, err := s.svc.GetMail(r.Context(), k.TenantID, r.PathValue("id"))
	if err != nil {
		return err
	}
	ok(w, http.StatusOK, mailView(m))
	return nil
}

func (s *Server) mailAttachment(w http.ResponseWriter, r *http.Request, k *einvoice.APIKey) error {
	a, err := s.svc.Attachment(r.Context(), k.TenantID, r.PathValue("id"))
	if err != nil {
		return err
	}
	w.Header().Set("Content-Disposition", fmt.Sprintf(`attachment; filename="%s"`, a.Name))
	writeBytes(w, a.ContentType, a.Data)
	return nil
}

// mailSettingsJSON is the tenant's mail settings in requests and responses,
// with what the service tells of them.
type mailSettingsJSON struct {
	einvoice.MailSettings
	// Sending: whether the operator configured a mail server (else messages are
	// kept in the mailbox); Placeholders: what templates may use.
	Sending      bool     `json:"sending"`
	Placeholders []string `json:"placeholders"`
}

// mailSettingsRequest is the body of PUT /mail/settings: every field
// required but bcc (empty when left out) and templates (the saved ones kept
// for a language left out).
type mailSettingsRequest struct {
	Enabled    *bool                             `json:"enabled"`
	SenderName *string                           `json:"senderName"`
	ReplyTo    *string                           `json:"replyTo"`
	Bcc        []string                          `json:"bcc"`
	Language   *string                           `json:"language"`
	Templates  map[string]*einvoice.MailTemplate `json:"templates"`
}

func (mailSettingsRequest) echo() any { return mailSettingsJSON{} }

func (s *Server) mailSettingsView(ms *einvoice.MailSettings) mailSettingsJSON {
	return mailSettingsJSON{MailSettings: *ms, Sending: s.svc.HasSender(), Placeholders: mail.Placeholders()}
}

func (s *Server) getMailSettings(w http.ResponseWriter, r *http.Request, k *einvoice.APIKey) error {
	ms, err := s.svc.Settings(r.Context(), k.TenantID)
	if err != nil {
		return err
	}
	ok(w, http.StatusOK, s.mailSettingsView(ms))
	return nil
}

func (s *Server) putMailSettings(w http.ResponseWriter, r *http.Request, k *einvoice.APIKey) error {
	var req mailSettingsRequest
	if err := decode(r, maxBody, &req); err != nil {
		return err
	}
	cur, err := s.svc.Settings(r.Context(), k.TenantID)
	if err != nil {
		return err
	}
	f := einvoice.FieldErrors{}
	if req.Enabled == nil {
		f.Add("enabled", "is required")
	}
	if req.SenderName == nil {
		f.Add("senderName", "is required (may be empty)")
	}
	if req.ReplyTo == nil {
		f.Add("replyTo", "is required (may be empty)")
	}
	if req.Language == nil {
		f.Add("language", "is required")
	}
	for l, t := range req.Templates {
		if t == nil {
			f.Add("templates."+l, "must be an object with subject and body")
		}
	}
	if err := f.Err(); err != nil {
		return err
	}
	ms := &einvoice.MailSettings{Enabled: *req.Enabled, SenderName: *req.SenderName, ReplyTo: *req.ReplyTo, Bcc: req.Bcc,
		Language: *req.Language, Templates: cur.Templates}
	if ms.Bcc == nil {
		ms.Bcc = []string{}
	}
	for l, t := range req.Templates {
		ms.Templates[l] = *t
	}
	saved, err := s.svc.SaveSettings(r.Context(), k.TenantID, ms)
	if err != nil {
		return err
	}
	ok(w, http.StatusOK, s.mailSettingsView(saved))
	return nil
}

// mailPreviewRequest is the body of POST /mail/preview: the templates to
// render (the saved ones when left out), with a document's fields or the
// sample's.
type mailPreviewRequest struct {
	DocumentID string                           `json:"documentId"`
	Templates  map[string]einvoice.MailTemplate `json:"templates"`
}

func (mailPreviewRequest) echo() any { return mailPreviewRequest{} }

func (s *Server) previewMail(w http.ResponseWriter, r *http.Request, k *einvoice.APIKey) error {
	var req mailPreviewRequest
	if r.ContentLength != 0 {
		if err := decode(r, maxBody, &req); err != nil {
			return err
		}
	}
	p, err := s.svc.PreviewTemplates(r.Context(), k.TenantID, req.DocumentID, req.Templates)
	if err != nil {
		return err
	}
	ok(w, http.StatusOK, p)
	return nil
}

// mailTestRequest is the body of POST /mail/test.
type mailTestRequest struct {
	To       string `json:"to"`
	Language string `json:"language"`
}

func (mailTestRequest) echo() any { return mailTestRequest{} }

func (s *Server) testMail(w http.ResponseWriter, r *http.Request, k *einvoice.APIKey) error {
	var req mailTestRequest
	if err := decode(r, maxBody, &req); err != nil {
		return err
	}
	m, err := s.svc.TestMessage(r.Context(), k.TenantID, req.To, req.Language)
	if err != nil {
		return err
	}
	ok(w, http.StatusAccepted, mailView(m))
	return nil
}
