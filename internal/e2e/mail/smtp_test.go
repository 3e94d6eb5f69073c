package mail

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/einvoice/einvoice/client"
	"github.com/einvoice/einvoice/internal/e2e/e2etest"
	"github.com/einvoice/einvoice/internal/testsmtp"
)

// TestMailSent: a document that turns Valid reaches its buyer through a
// real SMTP server on loopback (STARTTLS, AUTH PLAIN), once: from the
// tenant's sender name, with its reply-to, the bcc in the envelope only,
// the serial number in the subject, the validation link in the body, the
// PDF attached; the document says sent and a document.delivered event is
// written. Sent again in Malay, and a test message, as the settings say.
func TestMailSent(t *testing.T) {
	t.Parallel()
	e2etest.EachEngine(t, func(t *testing.T, dsn string) {
		srv := testsmtp.Start(t, testsmtp.Options{TLS: true, User: "einvoice", Password: "p@ss word:1"})
		svc, c := e2etest.StartLifecycleAPI(t, dsn, mailFlags(t, srv)...)
		raw, ctx := svc.Client(t, svc.DemoKey), t.Context()
		set, err := c.Mail.Settings(ctx)
		in := e2etest.Must(t, set, err).Input()
		in.SenderName, in.ReplyTo, in.Bcc = "Supplier's Name Accounts", "ar@supplier.example", []string{"archive@supplier.example"}
		_, err = c.Mail.UpdateSettings(ctx, in)
		e2etest.Must(t, in, err)

		id, st := validInvoice(t, c, "MAIL-SENT-1", buyer(t, c, "Pembeli Satu Sdn Bhd", "ap@pembeli.example"))
		srv.WaitCount(t, 1, 30*time.Second)
		m := srv.Messages()[0]
		if got := strings.Join(m.To, ","); got != "ap@pembeli.example,archive@supplier.example" {
			t.Errorf("envelope recipients %q, want the buyer and the bcc", got)
		}
		if m.From != "einvoice@supplier.example" {
			t.Errorf("envelope sender %q, want --mail-from", m.From)
		}
		h := m.Header
		wantContains(t, "From", h.Get("From"), "Supplier's Name Accounts", "<einvoice@supplier.example>")
		if h.Get("To") != "<ap@pembeli.example>" && h.Get("To") != "ap@pembeli.example" {
			t.Errorf("To: %q, want the buyer", h.Get("To"))
		}
		if h.Get("Bcc") != "" || strings.Contains(string(m.Raw), "archive@supplier.example") {
			t.Errorf("the bcc address shows in the message: Bcc: %q", h.Get("Bcc"))
		}
		wantContains(t, "Reply-To", h.Get("Reply-To"), "ar@supplier.example")
		wantContains(t, "Subject", m.Subject(), "MAIL-SENT-1", "Supplier's Name")
		wantContains(t, "body", m.Text, st.ValidationURL, "Pembeli Satu Sdn Bhd")
		if len(m.Attachments) != 1 || m.Attachments[0].ContentType != "application/pdf" || !bytes.HasPrefix(m.Attachments[0].Data, []byte("%PDF-")) ||
			!strings.HasSuffix(m.Attachments[0].Name, ".pdf") {
			t.Errorf("attachments %+v, want the PDF", m.Attachments)
		}
		msgs := documentMessages(t, raw, id)
		wantContains(t, "Message-ID", h.Get("Message-Id"), e2etest.Str(msgs[0]["id"]))
		sent := waitMessageState(t, raw, id, "sent", 10*time.Second)
		if sent["sentAt"] == nil || sent["attempts"] != float64(1) || sent["unconfirmed"] != false {
			t.Errorf("message %v, want sent at once, confirmed", sent)
		}
		doc, err := c.Documents.Get(ctx, id)
		if d := e2etest.Must(t, doc, err).EmailDelivery; d == nil || d.State != "sent" || d.SentAt == nil || len(d.To) != 1 {
			t.Errorf("emailDelivery %+v, want sent to the buyer", d)
		}
		events, _ := e2etest.DocumentEvents(t, c)
		delivered := 0
		for _, e := range events {
			if e.Type == client.EventDocumentDelivered {
				delivered++
				if dv, err := e.Delivery(); err != nil || dv.DocumentID != id || dv.EmailDelivery.State != "sent" {
					t.Errorf("document.delivered data %+v, %v", dv, err)
				}
			}
		}
		if delivered != 1 {
			t.Errorf("%d document.delivered events, want 1", delivered)
		}

		// In Malay, sent again to the buyer (with the bcc), then a test
		// message: each received once.
		in.Language = client.LanguageMalay
		_, err = c.Mail.UpdateSettings(ctx, in)
		e2etest.Must(t, in, err)
		again, err := c.Documents.Deliver(ctx, id, nil)
		e2etest.Must(t, again, err)
		srv.WaitCount(t, 2, 30*time.Second)
		ms := srv.Messages()[1]
		wantContains(t, "Malay subject", ms.Subject(), "e-Invois MAIL-SENT-1 daripada Supplier's Name")
		wantContains(t, "Malay body", ms.Text, "Dilampirkan", st.ValidationURL)
		if len(ms.To) != 2 {
			t.Errorf("sent again to %v, want the buyer and the bcc", ms.To)
		}
		test, err := c.Mail.Test(ctx, "me@supplier.example", client.LanguageEnglish)
		e2etest.Must(t, test, err)
		srv.WaitCount(t, 3, 30*time.Second)
		if mt := srv.Messages()[2]; !strings.HasPrefix(mt.Subject(), "[Test] Invoice INV-0001") || len(mt.Attachments) != 0 {
			t.Errorf("test message %q with %d attachments", mt.Subject(), len(mt.Attachments))
		}
		if n := srv.CountFor("ap@pembeli.example"); n != 2 {
			t.Errorf("the buyer received %d messages, want 2 (one per message)", n)
		}
	})
}

// TestMailFaults: a mail server that refuses for now (451), drops the
// connection after the data, or never answers is tried again until it
// takes the message, once; one that refuses for good (550) is recorded
// failed, with a document.delivery_failed event, and not tried again.
func TestMailFaults(t *testing.T) {
	t.Parallel()
	e2etest.EachEngine(t, func(t *testing.T, dsn string) {
		srv := testsmtp.Start(t, testsmtp.Options{TLS: true})
		svc, c := e2etest.StartLifecycleAPI(t, dsn, append(mailFlags(t, srv), "--smtp-timeout", "1s")...)
		raw := svc.Client(t, svc.DemoKey)
		for i, tc := range []struct {
			what     string
			fault    func()
			state    string
			received int
			attempts float64
		}{
			{"451 at RCPT", func() { srv.FailNext("RCPT", 451, "4.7.1 try again later") }, "sent", 1, 2},
			{"421 at MAIL", func() { srv.FailNext("MAIL", 421, "4.3.2 shutting down") }, "sent", 1, 2},
			{"the connection dropped after the data", srv.DropAfterData, "sent", 1, 2},
			{"a server that never answers", srv.HangNext, "sent", 1, 2},
			{"550 at DATA", func() { srv.FailNext("DATA", 550, "5.1.1 mailbox unavailable") }, "failed", 0, 1},
			// The server took the whole message, and its answer never came:
			// maybe delivered, so recorded sent, unconfirmed, not sent again.
			{"no answer to the end of the data", func() { t.Cleanup(srv.HoldDataReply()) }, "sent", 1, 1},
		} {
			addr := fmt.Sprintf("fault%d@pembeli.example", i)
			tc.fault()
			id, _ := validInvoice(t, c, fmt.Sprintf("MAIL-FAULT-%d", i), buyer(t, c, "Pembeli "+tc.what, addr))
			m := waitMessageState(t, raw, id, tc.state, 30*time.Second)
			if m["attempts"] != tc.attempts {
				t.Errorf("%s: %v attempts, want %v: %v", tc.what, m["attempts"], tc.attempts, m)
			}
			if n := srv.CountFor(addr); n != tc.received {
				t.Errorf("%s: received %d times, want %d", tc.what, n, tc.received)
			}
			if unconfirmed := tc.what == "no answer to the end of the data"; m["unconfirmed"] != unconfirmed {
				t.Errorf("%s: unconfirmed %v, want %v", tc.what, m["unconfirmed"], unconfirmed)
			}
			if tc.state == "failed" {
				wantContains(t, tc.what+": the error", e2etest.Str(m["lastError"]), "550")
				doc, err := c.Documents.Get(t.Context(), id)
				if d := e2etest.Must(t, doc, err).EmailDelivery; d == nil || d.State != "failed" || !strings.Contains(d.Error, "550") {
					t.Errorf("%s: emailDelivery %+v, want failed with the server's answer", tc.what, d)
				}
			}
		}
		events, _ := e2etest.DocumentEvents(t, c)
		counts := map[string]int{}
		for _, e := range events {
			counts[e.Type]++
		}
		if counts[client.EventDocumentDelivered] != 5 || counts[client.EventDocumentDeliveryFailed] != 1 {
			t.Errorf("events %v, want 5 document.delivered and 1 document.delivery_failed", counts)
		}
	})
}

// mailFlags are the serve flags of a service sending through srv (its CA
// trusted), retrying within 50 ms.
func mailFlags(t *testing.T, srv *testsmtp.Server) []string {
	return []string{"--smtp-url", srv.URL(), "--mail-from", "einvoice@supplier.example", "--smtp-ca", srv.CAFile(t),
		"--mail-retry-base", "50ms"}
}
