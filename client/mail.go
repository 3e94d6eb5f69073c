package client

import (
	"context"
	"encoding/json"
	"iter"
	"net/http"
	"net/url"
	"time"
)

// MailState is where a message of the mail outbox stands.
type MailState string

// The states of a message (MailMessage.State). A DocumentDelivery is
// pending, sent, failed or not applicable: a message kept without a mail
// server is a delivery not applicable, with that reason.
const (
	// MailPending: to be sent (at NextAttemptAt), or tried again after a
	// temporary failure.
	MailPending MailState = "pending"
	// MailSent: the mail server took it (SentAt).
	MailSent MailState = "sent"
	// MailFailed: refused for good (SMTP 5xx), or still failing after 3
	// days (LastError).
	MailFailed MailState = "failed"
	// MailKept: the service has no mail server; the message stays in its
	// mailbox, to be read there (Mail.List).
	MailKept MailState = "kept"
	// MailNotApplicable: nothing was sent, for the reason Note gives (the
	// buyer has no e-mail address, mail to buyers is off).
	MailNotApplicable MailState = "not_applicable"
)

// MailType is what a message is for.
type MailType string

// The types of message (MailMessage.Type).
const (
	// MailDocument shares a Valid document with its buyer: the PDF visual
	// e-invoice attached, the validation link in the body.
	MailDocument MailType = "document"
	// MailTest is the test message of the mail settings (Mail.Test).
	MailTest MailType = "test"
	// MailNotice is a message to a person (an invitation, a password reset).
	MailNotice MailType = "notice"
)

// The languages of the mail templates (MailSettings.Language, the keys of
// MailSettings.Templates).
const (
	LanguageEnglish = "en"
	LanguageMalay   = "ms"
)

// MailMessage is one message of the tenant's mail outbox: a Valid document
// shared with its buyer, a test message or a notice. It is sent once, by
// the service's workers; temporary failures are retried for 3 days.
type MailMessage struct {
	ID   string   `json:"id"`
	Type MailType `json:"type"`
	// DocumentID is the document shared (MailDocument messages).
	DocumentID string    `json:"documentId,omitempty"`
	State      MailState `json:"state"`
	// Note says why a kept or not applicable message was not sent ("not
	// sent: no mail server configured").
	Note string `json:"note,omitempty"`
	// Language is the templates' language: LanguageEnglish or
	// LanguageMalay.
	Language string   `json:"language"`
	FromName string   `json:"fromName"`
	ReplyTo  string   `json:"replyTo"`
	To       []string `json:"to"`
	Bcc      []string `json:"bcc"`
	Subject  string   `json:"subject"`
	Body     string   `json:"body"`
	// Attachment is the document's PDF visual e-invoice (read it with
	// Mail.Attachment); nil for a message without one.
	Attachment *MailAttachment `json:"attachment"`
	Attempts   int             `json:"attempts"`
	// LastError is the last failure of a pending or failed message, or
	// why a sent one is Unconfirmed.
	LastError string `json:"lastError,omitempty"`
	// NextAttemptAt is when a pending message is due.
	NextAttemptAt *time.Time `json:"nextAttemptAt,omitempty"`
	SentAt        *time.Time `json:"sentAt,omitempty"`
	// Unconfirmed: the service stopped while the mail server was taking
	// the message; it is recorded sent and never sent again, although it
	// may not have arrived.
	Unconfirmed bool      `json:"unconfirmed"`
	CreatedAt   time.Time `json:"createdAt"`
	UpdatedAt   time.Time `json:"updatedAt"`
}

// MailAttachment names a message's attachment and where the service serves
// it.
type MailAttachment struct {
	ContentType string `json:"contentType"`
	// URL is the attachment's path on the service
	// ("/api/v1/mail/{id}/attachment").
	URL string `json:"url"`
}

// DocumentDelivery is how a Valid document reached its buyer by mail: the
// newest message sharing it (Document.EmailDelivery, and the data of the
// document.delivered and document.delivery_failed events).
type DocumentDelivery struct {
	// State is MailPending, MailSent, MailFailed or MailNotApplicable.
	State MailState `json:"state"`
	// Reason is why nothing was sent (MailNotApplicable: no e-mail address,
	// mail off, no mail server configured).
	Reason string     `json:"reason,omitempty"`
	To     []string   `json:"to,omitempty"`
	SentAt *time.Time `json:"sentAt,omitempty"`
	// Unconfirmed: recorded sent, but the service stopped while the mail
	// server was taking it (see MailMessage.Unconfirmed).
	Unconfirmed bool `json:"unconfirmed,omitempty"`
	// Error is the last failure (MailFailed, or MailPending after a
	// temporary one).
	Error    string `json:"error,omitempty"`
	Attempts int    `json:"attempts"`
	// MailID is the message (Mail.Get).
	MailID string `json:"mailId"`
}

// DeliveryEvent is the data of the document.delivered and
// document.delivery_failed events (see APIEvent.Delivery).
type DeliveryEvent struct {
	DocumentID    string           `json:"documentId"`
	EmailDelivery DocumentDelivery `json:"emailDelivery"`
}

// Delivery decodes the data of a document.delivered or
// document.delivery_failed event.
func (e *APIEvent) Delivery() (*DeliveryEvent, error) {
	var d DeliveryEvent
	if err := json.Unmarshal(e.Data, &d); err != nil {
		return nil, err
	}
	return &d, nil
}

// MailTemplate is a subject and a plain-text body in one language: Go
// templates with the placeholders of MailSettings.Placeholders
// ("{{.Number}}", "{{.ValidationURL}}"...).
type MailTemplate struct {
	Subject string `json:"subject"`
	Body    string `json:"body"`
}

// MailSettings are the tenant's choices for sharing its Valid documents by
// mail, with what the service tells of them (Sending, Placeholders).
type MailSettings struct {
	// Enabled: a document that turns Valid is mailed to its buyer.
	Enabled    bool     `json:"enabled"`
	SenderName string   `json:"senderName"`
	ReplyTo    string   `json:"replyTo"`
	Bcc        []string `json:"bcc"`
	// Language is the templates' language used for buyers.
	Language string `json:"language"`
	// Templates are by language, both always present.
	Templates map[string]MailTemplate `json:"templates"`
	// Sending tells whether the operator configured a mail server:
	// without one every message is kept in the service's mailbox.
	Sending bool `json:"sending"`
	// Placeholders are what the templates may use, as written.
	Placeholders []string `json:"placeholders"`
}

// Input returns the settings as Mail.UpdateSettings takes them: change its
// fields and send it back.
func (m *MailSettings) Input() *MailSettingsInput {
	in := &MailSettingsInput{Enabled: m.Enabled, SenderName: m.SenderName, ReplyTo: m.ReplyTo, Language: m.Language}
	in.Bcc = append([]string{}, m.Bcc...)
	if m.Templates != nil {
		in.Templates = make(map[string]MailTemplate, len(m.Templates))
		for k, v := range m.Templates {
			in.Templates[k] = v
		}
	}
	return in
}

// MailSettingsInput replaces the mail settings (Mail.UpdateSettings).
type MailSettingsInput struct {
	Enabled bool `json:"enabled"`
	// SenderName is shown beside the operator's sender address: at most
	// 200 bytes, one line; may be empty.
	SenderName string `json:"senderName"`
	// ReplyTo is an e-mail address, or empty.
	ReplyTo string `json:"replyTo"`
	// Bcc are at most 20 addresses copied on every document's message.
	Bcc []string `json:"bcc,omitempty"`
	// Language is LanguageEnglish or LanguageMalay (required).
	Language string `json:"language,omitempty"`
	// Templates replace the saved ones of the languages given; a language
	// left out keeps its own.
	Templates map[string]MailTemplate `json:"templates,omitempty"`
}

// MailPreviewRequest is what Mail.Preview renders.
type MailPreviewRequest struct {
	// DocumentID names the document whose fields fill the placeholders; a
	// sample document's when empty.
	DocumentID string `json:"documentId,omitempty"`
	// Templates are rendered instead of the saved ones, by language.
	Templates map[string]MailTemplate `json:"templates,omitempty"`
}

// MailPreview is a template rendered: what a buyer would read.
type MailPreview struct {
	Language string `json:"language"`
	Subject  string `json:"subject"`
	Body     string `json:"body"`
}

// MailListOptions filter a list of messages.
type MailListOptions struct {
	// State keeps the messages in one state.
	State MailState
	// DocumentID keeps the messages sharing one document.
	DocumentID string
	ListOptions
}

func (o *MailListOptions) query() url.Values {
	q := url.Values{}
	if o.State != "" {
		q.Set("state", string(o.State))
	}
	if o.DocumentID != "" {
		q.Set("documentId", o.DocumentID)
	}
	return o.ListOptions.query(q)
}

// MailService reads the tenant's mail outbox and mailbox, and keeps its
// mail settings.
type MailService struct{ c *Client }

const mailPath = "/api/v1/mail"

// Deliver sends a Valid document's message again: to its buyer (the
// on-behalf seller of a self-billed kind) when to is nil, else to those 1
// to 20 addresses. The message is queued: its outcome is its State
// (Mail.Get) and the document's EmailDelivery. A document that is not Valid
// is an *Error with CodeDocumentNotValid.
func (s *DocumentService) Deliver(ctx context.Context, id string, to []string, opts ...CallOption) (*MailMessage, error) {
	var body any
	if to != nil {
		body = struct {
			To []string `json:"to"`
		}{to}
	}
	var out MailMessage
	if _, err := s.c.call(ctx, http.MethodPost, actionPath(id, "deliver"), nil, body, &out, opts); err != nil {
		return nil, err
	}
	return &out, nil
}

// List returns one page of messages, newest first.
func (s *MailService) List(ctx context.Context, opts *MailListOptions) (*Page[MailMessage], error) {
	if opts == nil {
		opts = &MailListOptions{}
	}
	return list[MailMessage](ctx, s.c, mailPath, opts.query())
}

// All iterates over every message, from opts.Page on.
func (s *MailService) All(ctx context.Context, opts *MailListOptions) iter.Seq2[MailMessage, error] {
	o := MailListOptions{}
	if opts != nil {
		o = *opts
	}
	fetch := func(ctx context.Context, page int) (*Page[MailMessage], error) {
		o.Page = page
		return s.List(ctx, &o)
	}
	return all(ctx, fetch, o.Page, func(m MailMessage) string { return m.ID })
}

// Get returns one message.
func (s *MailService) Get(ctx context.Context, id string) (*MailMessage, error) {
	var out MailMessage
	if _, err := s.c.call(ctx, http.MethodGet, mailPath+"/"+escape(id), nil, nil, &out, nil); err != nil {
		return nil, err
	}
	return &out, nil
}

// Attachment returns a message's attachment: its document's PDF visual
// e-invoice. A message without one is an *Error with CodeNotFound.
func (s *MailService) Attachment(ctx context.Context, id string) ([]byte, error) {
	return s.c.raw(ctx, mailPath+"/"+escape(id)+"/attachment", "application/pdf", nil)
}

// Settings returns the tenant's mail settings (the defaults when it saved
// none).
func (s *MailService) Settings(ctx context.Context) (*MailSettings, error) {
	var out MailSettings
	if _, err := s.c.call(ctx, http.MethodGet, mailPath+"/settings", nil, nil, &out, nil); err != nil {
		return nil, err
	}
	return &out, nil
}

// UpdateSettings replaces the mail settings and returns them as saved.
// Every problem (an address, a template that does not render) is an *Error
// with CodeValidationFailed naming its field.
func (s *MailService) UpdateSettings(ctx context.Context, in *MailSettingsInput) (*MailSettings, error) {
	var out MailSettings
	if _, err := s.c.call(ctx, http.MethodPut, mailPath+"/settings", nil, in, &out, nil); err != nil {
		return nil, err
	}
	return &out, nil
}

// Preview renders templates (the saved ones when req or its Templates are
// empty) with a document's fields or a sample's, one MailPreview per
// language. It writes nothing.
func (s *MailService) Preview(ctx context.Context, req *MailPreviewRequest) ([]MailPreview, error) {
	var body any
	if req != nil {
		body = req
	}
	var out []MailPreview
	if _, err := s.c.call(ctx, http.MethodPost, mailPath+"/preview", nil, body, &out, nil); err != nil {
		return nil, err
	}
	return out, nil
}

// Test queues the settings' test message to one address, in language's
// templates (the settings' language when empty), and returns it.
func (s *MailService) Test(ctx context.Context, to, language string, opts ...CallOption) (*MailMessage, error) {
	body := struct {
		To       string `json:"to"`
		Language string `json:"language,omitempty"`
	}{to, language}
	var out MailMessage
	if _, err := s.c.call(ctx, http.MethodPost, mailPath+"/test", nil, body, &out, opts); err != nil {
		return nil, err
	}
	return &out, nil
}
