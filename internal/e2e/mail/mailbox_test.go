package mail

import (
	"bytes"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/einvoice/einvoice/client"
	"github.com/einvoice/einvoice/internal/e2e/e2etest"
)

// TestMailbox: without a mail server, a document that turns Valid has its
// message kept in the service's mailbox, exactly as it would go out: to the
// buyer, the serial number in the subject, the validation link in the body,
// the PDF attached; the document's emailDelivery says why nothing was sent.
// A buyer without an e-mail gets a not_applicable message with the reason.
func TestMailbox(t *testing.T) {
	t.Parallel()
	e2etest.EachEngine(t, func(t *testing.T, dsn string) {
		svc, c := e2etest.StartLifecycleAPI(t, dsn)
		raw := svc.Client(t, svc.DemoKey)
		withMail := buyer(t, c, "Pembeli Satu Sdn Bhd", "accounts@pembeli.example")
		noMail := buyer(t, c, "Pembeli Dua Sdn Bhd", "")

		id, st := validInvoice(t, c, "MAIL-KEPT-1", withMail)
		ms := documentMessages(t, raw, id)
		if len(ms) != 1 {
			t.Fatalf("%d messages of the Valid document, want 1: %v", len(ms), ms)
		}
		m := ms[0]
		if m["state"] != "kept" || m["note"] != "not sent: no mail server configured" || m["type"] != "document" {
			t.Errorf("message = %v, want kept, not sent: no mail server configured", m)
		}
		if to := strs(m["to"]); len(to) != 1 || to[0] != "accounts@pembeli.example" {
			t.Errorf("to = %v, want the buyer's address", to)
		}
		wantContains(t, "subject", e2etest.Str(m["subject"]), "MAIL-KEPT-1", "Supplier's Name")
		wantContains(t, "body", e2etest.Str(m["body"]), st.ValidationURL, "Pembeli Satu Sdn Bhd", "MYR ")
		att := m["attachment"].(map[string]any)
		pdf := raw.Send("GET", e2etest.Str(att["url"]), nil, "Accept", "application/pdf")
		if pdf.Status != http.StatusOK || !bytes.HasPrefix(pdf.Raw, []byte("%PDF-")) {
			t.Errorf("attachment: %d %.40q, want a PDF", pdf.Status, pdf.Raw)
		}
		one := raw.Do("GET", "/api/v1/mail/"+e2etest.Str(m["id"]), nil).Want(t, 200, "").Data()
		if one["id"] != m["id"] || one["subject"] != m["subject"] {
			t.Errorf("GET /mail/{id} = %v, want the listed message", one)
		}
		doc := raw.Do("GET", "/api/v1/invoices/"+id, nil).Want(t, 200, "").Data()
		del, _ := doc["emailDelivery"].(map[string]any)
		if del == nil || del["state"] != "not_applicable" || !strings.Contains(e2etest.Str(del["reason"]), "no mail server") || del["mailId"] != m["id"] {
			t.Errorf("emailDelivery = %v, want not_applicable: no mail server, of the message", doc["emailDelivery"])
		}

		id2, _ := validInvoice(t, c, "MAIL-NONE-1", noMail)
		m2 := documentMessages(t, raw, id2)
		if len(m2) != 1 || m2[0]["state"] != "not_applicable" || m2[0]["note"] != "not sent: the buyer has no e-mail address" {
			t.Errorf("messages of a buyer without e-mail = %v, want one not_applicable: the buyer has no e-mail address", m2)
		}
		doc2 := raw.Do("GET", "/api/v1/invoices/"+id2, nil).Want(t, 200, "").Data()
		if del, _ := doc2["emailDelivery"].(map[string]any); del == nil || del["reason"] != "the buyer has no e-mail address" {
			t.Errorf("emailDelivery = %v, want not_applicable: the buyer has no e-mail address", doc2["emailDelivery"])
		}
		// Sending again needs an address for that buyer; with one it is kept.
		raw.Do("POST", "/api/v1/documents/"+id2+"/deliver", nil).Want(t, 422, "VALIDATION_FAILED")
		again := raw.Do("POST", "/api/v1/documents/"+id2+"/deliver", map[string]any{"to": []string{"finance@pembeli-dua.example"}}).Want(t, 202, "").Data()
		if again["state"] != "kept" || strs(again["to"])[0] != "finance@pembeli-dua.example" {
			t.Errorf("deliver again = %v, want kept to the given address", again)
		}
		if n := len(documentMessages(t, raw, id2)); n != 2 {
			t.Errorf("%d messages after sending again, want 2", n)
		}
		// A self-billed invoice goes to the on-behalf seller (the supplier).
		sp := e2etest.SampleSellerParty()
		sp.Contact.Email = "sales@penjual.example"
		seller, err := c.Sellers.Create(t.Context(), sp)
		body := e2etest.SingleLineBody("MAIL-SB-1")
		body["onBehalfSellerId"] = e2etest.Must(t, seller, err).ID
		sb, err := c.Documents.Create(t.Context(), e2etest.DocOf(t, client.TypeSelfBilledInvoice, body))
		sbID := e2etest.Must(t, sb, err).ID
		e2etest.WantValidationPassed(t, c, "MAIL-SB-1", sbID)
		_, err = c.Documents.Submit(t.Context(), sbID)
		e2etest.Must(t, sbID, err)
		e2etest.WaitStatusTyped(t, c, sbID, client.StatusValid, 30*time.Second)
		if m := documentMessages(t, raw, sbID); len(m) != 1 || strs(m[0]["to"])[0] != "sales@penjual.example" ||
			!strings.Contains(e2etest.Str(m[0]["subject"]), "Self Billed Invoice MAIL-SB-1") {
			t.Errorf("a self-billed invoice's messages = %v, want one to the seller", m)
		}
		// A draft is not mailed.
		draft := e2etest.ReadyInvoiceDoc(t, c, "MAIL-DRAFT-1", withMail)
		raw.Do("POST", "/api/v1/documents/"+draft+"/deliver", nil).Want(t, 409, "DOCUMENT_NOT_VALID")
		if doc := raw.Do("GET", "/api/v1/invoices/"+draft, nil).Want(t, 200, "").Data(); doc["emailDelivery"] != nil {
			t.Errorf("a ready document's emailDelivery = %v, want none", doc["emailDelivery"])
		}
	})
}

// TestMailBadInput: bad addresses, too many of them, header injection, a
// template that does not parse or names an unknown placeholder, an
// oversized body: each a 4xx naming the field, and nothing written.
func TestMailBadInput(t *testing.T) {
	t.Parallel()
	e2etest.EachEngine(t, func(t *testing.T, dsn string) {
		svc, c := e2etest.StartLifecycleAPI(t, dsn)
		raw := svc.Client(t, svc.DemoKey)
		id, _ := validInvoice(t, c, "MAIL-BAD-1", buyer(t, c, "Pembeli Sdn Bhd", "ap@pembeli.example"))
		before := len(messages(t, raw, ""))
		settings := raw.Do("GET", "/api/v1/mail/settings", nil).Want(t, 200, "").Data()

		hundred := make([]string, 100)
		for i := range hundred {
			hundred[i] = fmt.Sprintf("a%d@pembeli.example", i)
		}
		for _, tc := range []struct {
			what, method, path string
			body               any
			status             int
			code, field        string
		}{
			{"a bad address among good ones", "POST", "/api/v1/documents/" + id + "/deliver", map[string]any{"to": []string{"ok@pembeli.example", "not an address"}}, 422, "VALIDATION_FAILED", "to.1"},
			{"an address with a line break", "POST", "/api/v1/documents/" + id + "/deliver", map[string]any{"to": []string{"ok@pembeli.example\r\nBcc: x@evil.example"}}, 422, "VALIDATION_FAILED", "to.0"},
			{"100 addresses", "POST", "/api/v1/documents/" + id + "/deliver", map[string]any{"to": hundred}, 422, "VALIDATION_FAILED", "to"},
			{"no address", "POST", "/api/v1/documents/" + id + "/deliver", map[string]any{"to": []string{}}, 422, "VALIDATION_FAILED", "to"},
			{"an unknown field", "POST", "/api/v1/documents/" + id + "/deliver", map[string]any{"cc": []string{"a@b.example"}}, 422, "VALIDATION_FAILED", "cc"},
			{"an unknown document", "POST", "/api/v1/documents/" + e2etest.NewID() + "/deliver", nil, 404, "DOCUMENT_NOT_FOUND", ""},
			{"a test message to a bad address", "POST", "/api/v1/mail/test", map[string]any{"to": "nobody"}, 422, "VALIDATION_FAILED", "to"},
			{"a test message in another language", "POST", "/api/v1/mail/test", map[string]any{"to": "a@b.example", "language": "fr"}, 422, "VALIDATION_FAILED", "language"},
			{"a sender name with CR/LF", "PUT", "/api/v1/mail/settings", settingsWith(settings, "senderName", "Demo\r\nBcc: x@evil.example"), 422, "VALIDATION_FAILED", "senderName"},
			{"a bad reply-to", "PUT", "/api/v1/mail/settings", settingsWith(settings, "replyTo", "reply"), 422, "VALIDATION_FAILED", "replyTo"},
			{"a bad bcc", "PUT", "/api/v1/mail/settings", settingsWith(settings, "bcc", []string{"a@b.example", "x"}), 422, "VALIDATION_FAILED", "bcc.1"},
			{"a template that does not parse", "PUT", "/api/v1/mail/settings", settingsWith(settings, "templates", map[string]any{"ms": map[string]any{"subject": "Invois {{.Number}}", "body": "Terima kasih {{.Buyer"}}), 422, "VALIDATION_FAILED", "templates.ms.body"},
			{"an unknown placeholder", "PUT", "/api/v1/mail/settings", settingsWith(settings, "templates", map[string]any{"en": map[string]any{"subject": "Invoice {{.Nombor}}", "body": "Hello"}}), 422, "VALIDATION_FAILED", "templates.en.subject"},
			{"a subject template with a line break", "PUT", "/api/v1/mail/settings", settingsWith(settings, "templates", map[string]any{"en": map[string]any{"subject": "Invoice\n{{.Number}}", "body": "Hello"}}), 422, "VALIDATION_FAILED", "templates.en.subject"},
			{"a language of no template", "PUT", "/api/v1/mail/settings", settingsWith(settings, "language", "fr"), 422, "VALIDATION_FAILED", "language"},
			{"a preview of a broken template", "POST", "/api/v1/mail/preview", map[string]any{"templates": map[string]any{"en": map[string]any{"subject": "{{", "body": "x"}}}, 422, "VALIDATION_FAILED", "templates.en.subject"},
			{"a 10 MB body", "PUT", "/api/v1/mail/settings", settingsWith(settings, "templates", map[string]any{"en": map[string]any{"subject": "x", "body": strings.Repeat("x", 10<<20)}}), 413, "PAYLOAD_TOO_LARGE", ""},
		} {
			r := raw.Do(tc.method, tc.path, tc.body).Want(t, tc.status, tc.code)
			if tc.field != "" {
				if _, ok := r.FieldErrors()[tc.field]; !ok {
					t.Errorf("%s: field errors %v, want %s named", tc.what, r.FieldErrors(), tc.field)
				}
			}
		}
		if after := len(messages(t, raw, "")); after != before {
			t.Errorf("%d messages after the bad requests, %d before: want nothing written", after, before)
		}
		if now := raw.Do("GET", "/api/v1/mail/settings", nil).Want(t, 200, "").Data(); fmt.Sprint(now) != fmt.Sprint(settings) {
			t.Errorf("settings changed by refused requests:\n%v\nwas\n%v", now, settings)
		}
	})
}

// settingsWith is the settings answer as a PUT body with one field changed.
func settingsWith(settings map[string]any, field string, v any) map[string]any {
	out := map[string]any{}
	for k, x := range settings {
		if k == "sending" || k == "placeholders" {
			continue
		}
		out[k] = x
	}
	out[field] = v
	return out
}
