package mail

import (
	"bytes"
	"fmt"
	"strings"
	"text/template"

	"github.com/einvoice/einvoice/internal/einvoice"
)

// Languages are the templates' languages: English and Malay.
var Languages = []string{"en", "ms"}

// Fields are the placeholders of the templates, as {{.Number}}.
type Fields struct {
	// Number is the document's invoice serial number.
	Number string
	// Kind is the document's kind as a person reads it ("Invoice").
	Kind string
	// Supplier and Buyer are the parties' names.
	Supplier string
	Buyer    string
	// Total is the amount payable with its currency ("MYR 1,060.00").
	Total string
	// IssueDate is the document's issue date (YYYY-MM-DD).
	IssueDate string
	// UUID is the authority's id of the document.
	UUID string
	// ValidationURL is the authority's public page of the document, the
	// link of its QR code.
	ValidationURL string
}

// SampleFields are the fields of a made-up document: templates are checked
// and previewed with them.
var SampleFields = Fields{Number: "INV-0001", Kind: "Invoice", Supplier: "Demo Trading Sdn Bhd", Buyer: "Pembeli Contoh Sdn Bhd",
	Total: "MYR 1,060.00", IssueDate: "2026-11-27", UUID: "F9D425P6DS7D8IU", ValidationURL: "https://myinvois.hasil.gov.my/F9D425P6DS7D8IU/share/SAMPLE"}

// DefaultTemplates are the templates of a tenant that wrote none.
var DefaultTemplates = map[string]einvoice.MailTemplate{
	"en": {
		Subject: "{{.Kind}} {{.Number}} from {{.Supplier}}",
		Body: `Dear {{.Buyer}},

Please find attached {{.Kind | lower}} {{.Number}} from {{.Supplier}}, of {{.Total}}, issued on {{.IssueDate}} and validated by LHDNM.

Check it at the tax authority:
{{.ValidationURL}}

{{.Supplier}}
`,
	},
	"ms": {
		Subject: "e-Invois {{.Number}} daripada {{.Supplier}}",
		Body: `Kepada {{.Buyer}},

Dilampirkan e-Invois {{.Number}} daripada {{.Supplier}}, berjumlah {{.Total}}, bertarikh {{.IssueDate}}, yang telah disahkan oleh LHDNM.

Semak di laman LHDNM:
{{.ValidationURL}}

{{.Supplier}}
`,
	},
}

var funcs = template.FuncMap{"lower": strings.ToLower, "upper": strings.ToUpper}

// parse parses one template: unknown placeholders are errors when executed
// (missingkey does not apply to struct fields: an unknown field always is).
func parse(name, text string) (*template.Template, error) {
	return template.New(name).Funcs(funcs).Option("missingkey=error").Parse(text)
}

// render executes text with f.
func render(name, text string, f Fields) (string, error) {
	t, err := parse(name, text)
	if err != nil {
		return "", err
	}
	var b bytes.Buffer
	if err := t.Execute(&b, f); err != nil {
		return "", err
	}
	return b.String(), nil
}

// Render returns the subject and body of tpl with f.
func Render(tpl einvoice.MailTemplate, f Fields) (subject, body string, err error) {
	if subject, err = render("subject", tpl.Subject, f); err != nil {
		return "", "", fmt.Errorf("subject: %w", err)
	}
	if body, err = render("body", tpl.Body, f); err != nil {
		return "", "", fmt.Errorf("body: %w", err)
	}
	return strings.TrimSpace(subject), body, nil
}

// templateProblem is what is wrong with a template's text, checked by
// executing it with the sample fields, or "".
func templateProblem(text string, max int, oneLine bool) string {
	if strings.TrimSpace(text) == "" {
		return "is required"
	}
	if len(text) > max {
		return fmt.Sprintf("is longer than %d bytes", max)
	}
	out, err := render("t", text, SampleFields)
	if err != nil {
		msg := err.Error()
		msg = strings.TrimPrefix(msg, "template: ")
		return "is not a valid template: " + msg + " (placeholders: " + strings.Join(Placeholders(), ", ") + ")"
	}
	if oneLine && strings.ContainsAny(out, "\r\n") {
		return "must be one line (no line breaks)"
	}
	return ""
}

// Placeholders lists the templates' placeholders, as written.
func Placeholders() []string {
	return []string{"{{.Number}}", "{{.Kind}}", "{{.Supplier}}", "{{.Buyer}}", "{{.Total}}", "{{.IssueDate}}", "{{.UUID}}", "{{.ValidationURL}}"}
}
