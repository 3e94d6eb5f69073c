package mail

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/einvoice/einvoice/internal/einvoice"
)

// Defaults are the settings of a tenant that saved none: on, in English,
// the default templates.
func Defaults() *einvoice.MailSettings {
	tpl := map[string]einvoice.MailTemplate{}
	for k, v := range DefaultTemplates {
		tpl[k] = v
	}
	return &einvoice.MailSettings{Enabled: true, Language: "en", Templates: tpl, Bcc: []string{}}
}

// Settings returns a tenant's mail settings (the defaults when it saved
// none; missing languages filled with the defaults).
func (s *Service) Settings(ctx context.Context, tenantID string) (*einvoice.MailSettings, error) {
	ms, err := s.store.GetMailSettings(ctx, tenantID)
	if errors.Is(err, einvoice.ErrNotFound) {
		return Defaults(), nil
	}
	if err != nil {
		return nil, fmt.Errorf("mail settings: %w", err)
	}
	if ms.Templates == nil {
		ms.Templates = map[string]einvoice.MailTemplate{}
	}
	for _, l := range Languages {
		if _, ok := ms.Templates[l]; !ok {
			ms.Templates[l] = DefaultTemplates[l]
		}
	}
	if ms.Bcc == nil {
		ms.Bcc = []string{}
	}
	return ms, nil
}

// SaveSettings checks and saves a tenant's settings: every problem at once,
// as a VALIDATION_FAILED naming the fields.
func (s *Service) SaveSettings(ctx context.Context, tenantID string, ms *einvoice.MailSettings) (*einvoice.MailSettings, error) {
	if err := CheckSettings(ms); err != nil {
		return nil, err
	}
	if ms.Bcc == nil {
		ms.Bcc = []string{}
	}
	if err := s.store.PutMailSettings(ctx, tenantID, ms, s.now()); err != nil {
		return nil, fmt.Errorf("save mail settings: %w", err)
	}
	return s.Settings(ctx, tenantID)
}

// CheckSettings returns the problems of ms as a VALIDATION_FAILED, or nil.
func CheckSettings(ms *einvoice.MailSettings) error {
	f := einvoice.FieldErrors{}
	if p := headerProblem(ms.SenderName, 200); p != "" {
		f.Add("senderName", "%s", p)
	}
	if ms.ReplyTo != "" {
		if p := einvoice.CheckEmail(ms.ReplyTo); p != "" {
			f.Add("replyTo", "%s", p)
		}
	}
	checkAddresses(f, "bcc", ms.Bcc, einvoice.MaxMailRecipients, false)
	if ms.Language != "en" && ms.Language != "ms" {
		f.Add("language", "must be en or ms")
	}
	for l, tpl := range ms.Templates {
		if l != "en" && l != "ms" {
			f.Add("templates."+l, "is not a language of the templates (en, ms)")
			continue
		}
		if p := templateProblem(tpl.Subject, einvoice.MaxMailSubject, true); p != "" {
			f.Add("templates."+l+".subject", "%s", p)
		}
		if p := templateProblem(tpl.Body, einvoice.MaxMailBody, false); p != "" {
			f.Add("templates."+l+".body", "%s", p)
		}
	}
	return f.Err()
}

// headerProblem is what is wrong with text written into a mail header.
func headerProblem(text string, max int) string {
	switch {
	case len(text) > max:
		return fmt.Sprintf("is longer than %d bytes", max)
	case strings.ContainsAny(text, "\r\n\x00"):
		return "must not contain line breaks"
	}
	return ""
}

// checkAddresses adds the problems of a list of addresses to f under field
// (each as field.i); required: at least one.
func checkAddresses(f einvoice.FieldErrors, field string, addrs []string, max int, required bool) {
	switch {
	case required && len(addrs) == 0:
		f.Add(field, "needs at least one address")
	case len(addrs) > max:
		f.Add(field, "holds %d addresses, at most %d", len(addrs), max)
		return
	}
	for i, a := range addrs {
		if p := einvoice.CheckEmail(a); p != "" {
			f.Add(fmt.Sprintf("%s.%d", field, i), "%s", p)
		}
	}
}
