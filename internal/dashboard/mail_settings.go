package dashboard

import (
	"net/http"
	"strings"

	"github.com/einvoice/einvoice/internal/einvoice"
	"github.com/einvoice/einvoice/internal/invoicing/mail"
)

// mailSettingsData is the mail settings page's own data; the settings
// form is the view's Form.
type mailSettingsData struct {
	// Banner: no mail server is configured.
	Banner       string
	Placeholders []string
	Languages    []mailLanguage
	// Previews are the templates as typed, rendered with the sample fields
	// (after Preview).
	Previews []mail.Preview
	// Test is the test message's form.
	Test *form
}

// mailLanguage is a language of the templates and its name.
type mailLanguage struct{ Code, Name string }

// mailLanguages are the templates' languages as the page names them.
func mailLanguages() []mailLanguage {
	out := make([]mailLanguage, len(mail.Languages))
	for i, l := range mail.Languages {
		out[i] = mailLanguage{Code: l, Name: languageName(l)}
	}
	return out
}

// languageName is a template language's name.
func languageName(code string) string {
	switch code {
	case "en":
		return "English"
	case "ms":
		return "Bahasa Melayu"
	}
	return code
}

func init() {
	funcs["languageName"] = languageName
	funcs["mailLanguages"] = mailLanguages
}

// mailSettingsFields are the settings form's inputs, named as the API's
// fields (a template's as templates.en.subject).
func mailSettingsFields() []string {
	out := []string{"enabled", "senderName", "replyTo", "bcc", "language"}
	for _, l := range mail.Languages {
		out = append(out, "templates."+l+".subject", "templates."+l+".body")
	}
	return out
}

// mailSettingsValues are the settings as the form's values.
func mailSettingsValues(ms *einvoice.MailSettings) map[string]string {
	v := map[string]string{"senderName": ms.SenderName, "replyTo": ms.ReplyTo, "bcc": strings.Join(ms.Bcc, ", "), "language": ms.Language}
	if ms.Enabled {
		v["enabled"] = "on"
	}
	for _, l := range mail.Languages {
		v["templates."+l+".subject"] = ms.Templates[l].Subject
		v["templates."+l+".body"] = ms.Templates[l].Body
	}
	return v
}

// formText is a field of the form as typed, its line breaks a browser's
// CRLF made LF.
func formText(r *http.Request, name string) string {
	return strings.ReplaceAll(r.PostFormValue(name), "\r\n", "\n")
}

// mailTemplatesInput reads the templates of every language from the form.
func mailTemplatesInput(r *http.Request) map[string]einvoice.MailTemplate {
	tpl := map[string]einvoice.MailTemplate{}
	for _, l := range mail.Languages {
		tpl[l] = einvoice.MailTemplate{Subject: formText(r, "templates."+l+".subject"), Body: formText(r, "templates."+l+".body")}
	}
	return tpl
}

// mailSettingsInput reads the settings form.
func mailSettingsInput(r *http.Request) *einvoice.MailSettings {
	return &einvoice.MailSettings{Enabled: r.PostFormValue("enabled") == "on", SenderName: strings.TrimSpace(r.PostFormValue("senderName")),
		ReplyTo: strings.TrimSpace(r.PostFormValue("replyTo")), Bcc: splitAddresses(r.PostFormValue("bcc")),
		Language: r.PostFormValue("language"), Templates: mailTemplatesInput(r)}
}

// mailSettingsForm is the settings form after a refusal: what was typed,
// each error beside its field (a BCC address's beside the BCC), the others
// above the form.
func mailSettingsForm(r *http.Request, err error, bcc []string) *form {
	f := formOf(r, err)
	addressErrors(f, "bcc", bcc)
	if len(f.Errors) > 0 {
		f.Message = "Not saved: see the errors beside the fields."
	}
	strayErrors(f, mailSettingsFields())
	return f
}

// mailSettings is the mail settings page.
func (d *Dashboard) mailSettings(w http.ResponseWriter, r *http.Request, u *user) {
	d.renderMailSettings(w, r, u, http.StatusOK, nil, nil, nil)
}

// renderMailSettings renders the settings page: f and test are the
// settings and test forms after a refusal or a preview (nil: the saved
// settings, an empty test form).
func (d *Dashboard) renderMailSettings(w http.ResponseWriter, r *http.Request, u *user, status int, f, test *form, previews []mail.Preview) {
	if f == nil {
		ms, err := d.svc.Settings(r.Context(), u.tenant())
		if err != nil {
			d.renderError(w, r, u, err)
			return
		}
		f = &form{Values: mailSettingsValues(ms)}
	}
	if test == nil {
		test = &form{Values: map[string]string{"testLanguage": f.Value("language")}}
	}
	data := mailSettingsData{Banner: d.mailBanner(), Placeholders: mail.Placeholders(), Languages: mailLanguages(), Previews: previews, Test: test}
	d.render(w, r, status, "mailsettings", view{Title: "Mail settings", Nav: "mail", User: u, Form: f, Data: data})
}

// saveMailSettings saves the settings form (PUT /mail/settings' use case
// and rules): every problem beside its field, nothing saved.
func (d *Dashboard) saveMailSettings(w http.ResponseWriter, r *http.Request, u *user) {
	in := mailSettingsInput(r)
	_, err := d.svc.SaveSettings(r.Context(), u.tenant(), in)
	if err != nil && !isUserError(err) {
		d.renderError(w, r, u, err)
		return
	}
	if err != nil {
		d.renderMailSettings(w, r, u, http.StatusUnprocessableEntity, mailSettingsForm(r, err, in.Bcc), nil, nil)
		return
	}
	redirectFlash(w, r, "/app/mail/settings", "ok", "Mail settings saved.")
}

// previewMailSettings renders the templates as typed with the sample
// fields, saving nothing; what was typed stays in the form.
func (d *Dashboard) previewMailSettings(w http.ResponseWriter, r *http.Request, u *user) {
	previews, err := d.svc.PreviewTemplates(r.Context(), u.tenant(), "", mailTemplatesInput(r))
	if err != nil && !isUserError(err) {
		d.renderError(w, r, u, err)
		return
	}
	if err != nil {
		f := formOf(r, err)
		if len(f.Errors) > 0 {
			f.Message = "No preview: see the errors beside the templates."
		}
		strayErrors(f, mailSettingsFields())
		d.renderMailSettings(w, r, u, http.StatusUnprocessableEntity, f, nil, nil)
		return
	}
	d.renderMailSettings(w, r, u, http.StatusOK, formOf(r, nil), nil, previews)
}

// testMail queues the test message (the saved templates, the sample
// fields) and leads to the Mail page, where it is listed.
func (d *Dashboard) testMail(w http.ResponseWriter, r *http.Request, u *user) {
	to := strings.TrimSpace(r.PostFormValue("testTo"))
	m, err := d.svc.TestMessage(r.Context(), u.tenant(), to, r.PostFormValue("testLanguage"))
	if err != nil && !isUserError(err) {
		d.renderError(w, r, u, err)
		return
	}
	if err != nil {
		test := formOf(r, err)
		for from, to := range map[string]string{"to": "testTo", "language": "testLanguage"} {
			if msgs, ok := test.Errors[from]; ok {
				test.Errors[to] = msgs
				delete(test.Errors, from)
			}
		}
		if len(test.Errors) > 0 {
			test.Message = ""
		}
		strayErrors(test, []string{"testTo", "testLanguage"})
		d.renderMailSettings(w, r, u, http.StatusUnprocessableEntity, nil, test, nil)
		return
	}
	msg := "Test message to " + to + " queued: it is the newest message below."
	if m.State == einvoice.MailKept {
		msg = "Test message to " + to + " written: it is the newest message below, kept here (not sent: no mail server configured)."
	}
	redirectFlash(w, r, "/app/mail", "ok", msg)
}
