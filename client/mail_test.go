package client_test

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/einvoice/einvoice/client"
	"github.com/einvoice/einvoice/internal/apidoc/apidoctest"
)

// TestMail calls every operation of the Mail service and Documents.Deliver
// against the service without a mail server (every message kept in its
// mailbox), each answer checked against the OpenAPI document.
func TestMail(t *testing.T) {
	ctx := context.Background()
	v := apidoctest.New(t)
	c := newClient(t, client.WithHTTPClient(&http.Client{Transport: v.Transport(t, nil)}))

	saved, err := c.Mail.Settings(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if saved.Sending || len(saved.Placeholders) == 0 || saved.Templates[client.LanguageEnglish].Subject == "" ||
		saved.Templates[client.LanguageMalay].Body == "" || saved.Bcc == nil {
		t.Fatalf("Settings = %+v, want both templates, placeholders and no mail server", saved)
	}
	defer func() {
		if _, err := c.Mail.UpdateSettings(ctx, saved.Input()); err != nil {
			t.Errorf("restore the mail settings: %v", err)
		}
	}()
	in := saved.Input()
	in.Enabled, in.SenderName, in.Bcc = true, "Mail Test", []string{"books@example.com"}
	in.Templates = map[string]client.MailTemplate{client.LanguageEnglish: {Subject: "Invoice {{.Number}}", Body: "See {{.ValidationURL}}"}}
	got, err := c.Mail.UpdateSettings(ctx, in)
	if err != nil || got.SenderName != "Mail Test" || len(got.Bcc) != 1 || got.Templates[client.LanguageEnglish].Subject != "Invoice {{.Number}}" ||
		got.Templates[client.LanguageMalay] != saved.Templates[client.LanguageMalay] {
		t.Fatalf("UpdateSettings = %+v, %v; want the English template replaced, the Malay one kept", got, err)
	}
	bad := got.Input()
	bad.Bcc = []string{"books@example.com", "not an address"}
	bad.Templates = map[string]client.MailTemplate{client.LanguageMalay: {Subject: "{{.Nope}}", Body: "x"}}
	_, err = c.Mail.UpdateSettings(ctx, bad)
	if e := asError(t, err); e.StatusCode != 422 || e.Field("bcc.1") == nil || e.Field("templates.ms.subject") == nil {
		t.Errorf("bad settings: %v %v, want 422 naming bcc.1 and templates.ms.subject", e, e.Fields)
	}

	previews, err := c.Mail.Preview(ctx, nil)
	if err != nil || len(previews) != 2 || previews[0].Language != client.LanguageEnglish || previews[0].Subject != "Invoice INV-0001" {
		t.Errorf("Preview = %+v, %v; want both languages, the sample's number", previews, err)
	}
	previews, err = c.Mail.Preview(ctx, &client.MailPreviewRequest{Templates: map[string]client.MailTemplate{
		client.LanguageMalay: {Subject: "Invois {{.Number}}", Body: "{{.Total}}"}}})
	if err != nil || len(previews) != 1 || previews[0].Subject != "Invois INV-0001" || previews[0].Body == "" {
		t.Errorf("Preview of a template = %+v, %v", previews, err)
	}

	test, err := c.Mail.Test(ctx, "owner@example.com", client.LanguageMalay)
	if err != nil || test.Type != client.MailTest || test.State != client.MailKept || test.Note == "" || test.Language != client.LanguageMalay ||
		!strings.HasPrefix(test.Subject, "[Test] ") || test.Attachment != nil || len(test.To) != 1 {
		t.Fatalf("Test = %+v, %v; want a kept test message", test, err)
	}
	_, err = c.Mail.Test(ctx, "", "fr")
	if e := asError(t, err); e.StatusCode != 422 || e.Field("to") == nil || e.Field("language") == nil {
		t.Errorf("Test without an address: %v, want 422 naming to and language", e)
	}

	// A Valid document's message is written with its verdict.
	b, err := c.Buyers.Create(ctx, hebat("Mail Test Sdn. Bhd."))
	if err != nil {
		t.Fatal(err)
	}
	d, err := c.Documents.Create(ctx, &client.Document{BuyerID: b.ID, InvoiceSerialNumber: "MAIL-0001", CurrencyCode: "MYR",
		AutoCalculate: true, Lines: []client.Line{cable()}, Payment: &client.Payment{PaymentMode: "01"}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Documents.Deliver(ctx, d.ID, nil)
	if e := asError(t, err); e.StatusCode != 409 || e.Code != client.CodeDocumentNotValid {
		t.Errorf("Deliver of a draft: %v, want 409 DOCUMENT_NOT_VALID", e)
	}
	if _, err := c.Documents.Validate(ctx, d.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Documents.Submit(ctx, d.ID); err != nil {
		t.Fatal(err)
	}
	waitValid(t, c, d.ID)
	doc, err := c.Documents.Get(ctx, d.ID)
	if err != nil || doc.EmailDelivery == nil || doc.EmailDelivery.State != client.MailNotApplicable ||
		doc.EmailDelivery.Reason == "" || doc.EmailDelivery.MailID == "" {
		t.Fatalf("Get = %v, emailDelivery %+v; want not applicable (no mail server)", err, doc.EmailDelivery)
	}
	first, err := c.Mail.Get(ctx, doc.EmailDelivery.MailID)
	if err != nil || first.Type != client.MailDocument || first.DocumentID != d.ID || first.State != client.MailKept ||
		first.Attachment == nil || first.Subject != "Invoice MAIL-0001" || len(first.To) != 1 || first.To[0] != "ap@hebat.example" {
		t.Fatalf("Mail.Get = %+v, %v", first, err)
	}
	pdf, err := c.Mail.Attachment(ctx, first.ID)
	if err != nil || !bytes.HasPrefix(pdf, []byte("%PDF-")) {
		t.Errorf("Attachment: %v", err)
	}
	_, err = c.Mail.Attachment(ctx, test.ID)
	if e := asError(t, err); e.StatusCode != 404 || e.Code != client.CodeNotFound {
		t.Errorf("Attachment of the test message: %v, want 404 NOT_FOUND", e)
	}

	again, err := c.Documents.Deliver(ctx, d.ID, nil)
	if err != nil || again.DocumentID != d.ID || again.ID == first.ID || len(again.To) != 1 || again.To[0] != "ap@hebat.example" {
		t.Errorf("Deliver = %+v, %v; want a new message to the buyer", again, err)
	}
	other, err := c.Documents.Deliver(ctx, d.ID, []string{"ap@other.example"})
	if err != nil || len(other.To) != 1 || other.To[0] != "ap@other.example" || len(other.Bcc) != 0 {
		t.Errorf("Deliver to an address = %+v, %v", other, err)
	}
	_, err = c.Documents.Deliver(ctx, d.ID, []string{"ap@other.example", "nope"})
	if e := asError(t, err); e.StatusCode != 422 || e.Field("to.1") == nil {
		t.Errorf("Deliver to a wrong address: %v %v, want 422 naming to.1", e, e.Fields)
	}

	page, err := c.Mail.List(ctx, &client.MailListOptions{DocumentID: d.ID, State: client.MailKept})
	if err != nil || page.Meta.Total != 3 || page.Items[0].ID != other.ID {
		t.Errorf("List = %+v, %v; want the document's 3 messages, newest first", page, err)
	}
	n := 0
	for m, err := range c.Mail.All(ctx, &client.MailListOptions{State: client.MailKept, ListOptions: client.ListOptions{PerPage: 2}}) {
		if err != nil {
			t.Fatal(err)
		}
		if m.ID == test.ID || m.ID == first.ID {
			n++
		}
	}
	if n != 2 {
		t.Errorf("All yielded %d of the test and the first message, want 2", n)
	}
	_, err = c.Mail.List(ctx, &client.MailListOptions{State: "lost"})
	if e := asError(t, err); e.StatusCode != 422 || e.Field("state") == nil {
		t.Errorf("List of an unknown state: %v, want 422 naming state", e)
	}
	_, err = c.Mail.Get(ctx, d.ID)
	if e := asError(t, err); e.StatusCode != 404 || e.Code != client.CodeNotFound {
		t.Errorf("Get of an unknown message: %v, want 404 NOT_FOUND", e)
	}
}
