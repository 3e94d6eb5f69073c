package mail

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/einvoice/einvoice/internal/einvoice"
)

// ErrCodeNotValid: only a Valid document is shared with its buyer.
const notValidMessage = "Only a Valid document is mailed to its buyer."

// ForDocument returns the message that shares a document just turned
// Valid, to be written with that change: pending (or kept, without a mail
// server), or not_applicable with the reason (mail is off, the buyer has no
// e-mail). nil when the settings cannot be read (logged: the document's
// change is recorded all the same).
func (s *Service) ForDocument(ctx context.Context, d *Document) *einvoice.MailMessage {
	ms, err := s.Settings(ctx, d.TenantID)
	if err != nil {
		s.log.ErrorContext(ctx, "no mail for a Valid document: its tenant's mail settings cannot be read", "document_id", d.ID, "error", err)
		return nil
	}
	m, err := s.documentMessage(d, ms, nil)
	if err != nil {
		s.log.ErrorContext(ctx, "no mail for a Valid document", "document_id", d.ID, "error", err)
		return nil
	}
	return m
}

// documentMessage makes the message of d to its recipient, or to to when
// given (sending again).
func (s *Service) documentMessage(d *Document, ms *einvoice.MailSettings, to []string) (*einvoice.MailMessage, error) {
	m := s.newMessage(d.TenantID, einvoice.MailDocument, ms)
	m.DocumentID, m.AttachPDF = d.ID, true
	if to == nil {
		m.Bcc = ms.Bcc
		switch r := strings.TrimSpace(d.Recipient); {
		case !ms.Enabled:
			m.State, m.LastError = einvoice.MailNotApplicable, "mail to buyers is off in the mail settings"
		case r == "" || strings.EqualFold(r, "NA"):
			m.State, m.LastError = einvoice.MailNotApplicable, fmt.Sprintf("the %s has no e-mail address", d.RecipientRole)
		case einvoice.CheckEmail(r) != "":
			m.State, m.LastError = einvoice.MailNotApplicable, fmt.Sprintf("the %s's e-mail address %q cannot receive mail", d.RecipientRole, r)
		default:
			m.To = []string{r}
		}
	} else {
		m.To = to
	}
	tpl := ms.Templates[m.Language]
	subject, body, err := Render(tpl, d.Fields)
	if err != nil {
		return nil, fmt.Errorf("the %s template: %w", m.Language, err)
	}
	m.Subject, m.Body = subject, body
	return m, nil
}

// newMessage returns a message of the tenant's settings, pending (kept
// without a mail server), due now.
func (s *Service) newMessage(tenantID string, kind einvoice.MailKind, ms *einvoice.MailSettings) *einvoice.MailMessage {
	now := s.now()
	m := &einvoice.MailMessage{ID: s.newID(), TenantID: tenantID, Kind: kind, Language: ms.Language, FromName: ms.SenderName,
		ReplyTo: ms.ReplyTo, To: []string{}, Bcc: []string{}, State: einvoice.MailPending, NextAttemptAt: now, CreatedAt: now, UpdatedAt: now}
	if m.Language == "" {
		m.Language = "en"
	}
	if s.sender == nil {
		m.State = einvoice.MailKept
	}
	return m
}

// Deliver sends a Valid document to its buyer again, or to the addresses
// to (each checked; at most MaxMailRecipients). The message is queued:
// its outcome is the document's emailDelivery.
func (s *Service) Deliver(ctx context.Context, tenantID, documentID string, to []string) (*einvoice.MailMessage, error) {
	d, err := s.document(ctx, tenantID, documentID)
	if err != nil {
		return nil, err
	}
	if to != nil {
		f := einvoice.FieldErrors{}
		checkAddresses(f, "to", to, einvoice.MaxMailRecipients, true)
		if err := f.Err(); err != nil {
			return nil, err
		}
	}
	if !d.Valid {
		return nil, &einvoice.Error{Code: einvoice.CodeDocumentNotValid, Message: notValidMessage}
	}
	ms, err := s.Settings(ctx, tenantID)
	if err != nil {
		return nil, err
	}
	if to == nil {
		// To the document's recipient, as when it turned Valid (with the
		// settings' bcc), whether or not mail is on.
		if r := strings.TrimSpace(d.Recipient); r == "" || strings.EqualFold(r, "NA") || einvoice.CheckEmail(r) != "" {
			return nil, einvoice.FieldErrors{"to": {fmt.Sprintf("is required: the %s has no e-mail address", d.RecipientRole)}}.Err()
		}
		on := *ms
		on.Enabled = true
		ms = &on
	}
	m, err := s.documentMessage(d, ms, to)
	if err != nil {
		return nil, err
	}
	if err := s.store.EnqueueMail(ctx, m); err != nil {
		return nil, fmt.Errorf("queue the document's mail: %w", err)
	}
	s.WakeMail()
	return m, nil
}

// TestMessage queues the settings' test message to one address, in lang's
// template with the sample fields.
func (s *Service) TestMessage(ctx context.Context, tenantID, to, lang string) (*einvoice.MailMessage, error) {
	f := einvoice.FieldErrors{}
	if p := einvoice.CheckEmail(to); p != "" || to == "" {
		if to == "" {
			p = "is required"
		}
		f.Add("to", "%s", p)
	}
	if lang != "" && lang != "en" && lang != "ms" {
		f.Add("language", "must be en or ms")
	}
	if err := f.Err(); err != nil {
		return nil, err
	}
	ms, err := s.Settings(ctx, tenantID)
	if err != nil {
		return nil, err
	}
	m := s.newMessage(tenantID, einvoice.MailTest, ms)
	if lang != "" {
		m.Language = lang
	}
	subject, body, err := Render(ms.Templates[m.Language], SampleFields)
	if err != nil {
		return nil, fmt.Errorf("the %s template: %w", m.Language, err)
	}
	m.To, m.Subject, m.Body = []string{to}, "[Test] "+subject, body
	if err := s.store.EnqueueMail(ctx, m); err != nil {
		return nil, fmt.Errorf("queue the test message: %w", err)
	}
	s.WakeMail()
	return m, nil
}

// Notice queues a message to a person (an invitation, a password reset):
// the same outbox, no attachment.
func (s *Service) Notice(ctx context.Context, tenantID string, to []string, subject, body string) (*einvoice.MailMessage, error) {
	ms, err := s.Settings(ctx, tenantID)
	if err != nil {
		return nil, err
	}
	m := s.newMessage(tenantID, einvoice.MailNotice, ms)
	m.To, m.Subject, m.Body = to, subject, body
	if err := s.store.EnqueueMail(ctx, m); err != nil {
		return nil, fmt.Errorf("queue a notice: %w", err)
	}
	s.WakeMail()
	return m, nil
}

// Preview is a template rendered: the subject and body a buyer would read.
type Preview struct {
	Language string `json:"language"`
	Subject  string `json:"subject"`
	Body     string `json:"body"`
}

// PreviewTemplates renders templates (the tenant's saved ones when nil)
// with a document's fields (documentID) or the sample's. Templates that do
// not parse are a VALIDATION_FAILED naming the field.
func (s *Service) PreviewTemplates(ctx context.Context, tenantID, documentID string, templates map[string]einvoice.MailTemplate) ([]Preview, error) {
	fields := SampleFields
	if documentID != "" {
		d, err := s.document(ctx, tenantID, documentID)
		if err != nil {
			return nil, err
		}
		fields = d.Fields
	}
	if len(templates) == 0 {
		ms, err := s.Settings(ctx, tenantID)
		if err != nil {
			return nil, err
		}
		templates = ms.Templates
	} else if err := CheckSettings(&einvoice.MailSettings{Language: "en", Templates: templates}); err != nil {
		return nil, err
	}
	out := []Preview{}
	for _, l := range Languages {
		tpl, ok := templates[l]
		if !ok {
			continue
		}
		subject, body, err := Render(tpl, fields)
		if err != nil {
			return nil, einvoice.FieldErrors{"templates." + l: {err.Error()}}.Err()
		}
		out = append(out, Preview{Language: l, Subject: subject, Body: body})
	}
	return out, nil
}

// ListMail returns a page of the tenant's messages, newest first.
func (s *Service) ListMail(ctx context.Context, tenantID string, f einvoice.MailFilter) (einvoice.Page[*einvoice.MailMessage], error) {
	p, err := s.store.ListMail(ctx, tenantID, f)
	if err != nil {
		return p, fmt.Errorf("list mail: %w", err)
	}
	return p, nil
}

// GetMail returns one of the tenant's messages; NOT_FOUND.
func (s *Service) GetMail(ctx context.Context, tenantID, id string) (*einvoice.MailMessage, error) {
	m, err := s.store.GetMail(ctx, tenantID, id)
	if errors.Is(err, einvoice.ErrNotFound) {
		return nil, &einvoice.Error{Code: einvoice.CodeNotFound, Message: fmt.Sprintf("No message with id %q.", id)}
	}
	if err != nil {
		return nil, fmt.Errorf("get mail: %w", err)
	}
	return m, nil
}

// Attachment returns the attachment of a message (the document's PDF
// visual e-invoice); NOT_FOUND when it has none.
func (s *Service) Attachment(ctx context.Context, tenantID, id string) (einvoice.MailAttachment, error) {
	m, err := s.GetMail(ctx, tenantID, id)
	if err != nil {
		return einvoice.MailAttachment{}, err
	}
	if !m.AttachPDF || m.DocumentID == "" {
		return einvoice.MailAttachment{}, &einvoice.Error{Code: einvoice.CodeNotFound, Message: "This message has no attachment."}
	}
	return s.pdf(ctx, tenantID, m.DocumentID)
}

// DocumentDelivery returns how a document reached its buyer by mail; nil
// when no message of it was ever written.
func (s *Service) DocumentDelivery(ctx context.Context, tenantID, documentID string) (*einvoice.DocumentDelivery, error) {
	m, err := s.store.LatestDocumentMail(ctx, tenantID, documentID)
	if errors.Is(err, einvoice.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("the document's mail: %w", err)
	}
	return m.Delivery(), nil
}
