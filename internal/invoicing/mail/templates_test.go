package mail

import (
	"strings"
	"testing"

	"github.com/einvoice/einvoice/internal/einvoice"
)

// TestDefaultTemplates: the default templates render with every field, in
// both languages, and pass the settings' checks.
func TestDefaultTemplates(t *testing.T) {
	for _, l := range Languages {
		subject, body, err := Render(DefaultTemplates[l], SampleFields)
		if err != nil {
			t.Fatalf("%s: %v", l, err)
		}
		for _, want := range []string{SampleFields.Number, SampleFields.Supplier} {
			if !strings.Contains(subject, want) {
				t.Errorf("%s subject %q lacks %q", l, subject, want)
			}
		}
		for _, want := range []string{SampleFields.Buyer, SampleFields.Total, SampleFields.ValidationURL, SampleFields.IssueDate} {
			if !strings.Contains(body, want) {
				t.Errorf("%s body lacks %q:\n%s", l, want, body)
			}
		}
	}
	if err := CheckSettings(Defaults()); err != nil {
		t.Errorf("the defaults do not pass their own checks: %v", err)
	}
}

// TestCheckSettings: every problem of a settings value is named at once,
// by its field.
func TestCheckSettings(t *testing.T) {
	ms := &einvoice.MailSettings{Enabled: true, SenderName: "A\r\nB", ReplyTo: "nope", Bcc: []string{"ok@x.example", "bad"}, Language: "fr",
		Templates: map[string]einvoice.MailTemplate{
			"en": {Subject: "{{.Number}}\n", Body: "{{.Missing}}"},
			"ms": {Subject: "", Body: "{{if}}"},
			"fr": {Subject: "x", Body: "y"},
		}}
	var e *einvoice.Error
	err := CheckSettings(ms)
	if !asError(err, &e) {
		t.Fatalf("CheckSettings = %v, want field errors", err)
	}
	for _, f := range []string{"senderName", "replyTo", "bcc.1", "language", "templates.en.subject", "templates.en.body",
		"templates.ms.subject", "templates.ms.body", "templates.fr"} {
		if len(e.Fields[f]) == 0 {
			t.Errorf("no problem named %s: %v", f, e.Fields)
		}
	}
	if len(e.Fields["bcc.0"]) != 0 {
		t.Errorf("a good bcc address refused: %v", e.Fields["bcc.0"])
	}
}

func asError(err error, e **einvoice.Error) bool {
	x, ok := err.(*einvoice.Error)
	*e = x
	return ok && x.Fields != nil
}
