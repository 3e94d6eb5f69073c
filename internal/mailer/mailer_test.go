package mailer_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/einvoice/einvoice/internal/einvoice"
	"github.com/einvoice/einvoice/internal/mailer"
	"github.com/einvoice/einvoice/internal/testsmtp"
)

const from = "einvoice@mail.example.my"

// pdf stands for a PDF visual e-invoice: bytes of every value, lines of
// every length.
var pdf = func() []byte {
	b := []byte("%PDF-1.7\r\n.\r\n..\n")
	for i := range 3000 {
		b = append(b, byte(i*7))
	}
	return b
}()

func message() *einvoice.OutgoingMail {
	return &einvoice.OutgoingMail{
		ID:       "0190f3a2-7c1e-7b4a-9d3e-5f1a2b3c4d5e",
		FromName: "Demo Trading Sdn Bhd",
		ReplyTo:  "accounts@demo.example.my",
		To:       []string{"buyer@buyer.example.my", "Pembeli Dua <dua@buyer.example.my>"},
		Bcc:      []string{"archive@demo.example.my"},
		Subject:  "e-Invois INV-001 daripada Demo Trading Sdn Bhd: jumlah RM 1,234.50 — sila semak",
		Body:     "Tuan/Puan,\n\nSila lihat e-Invois yang dilampirkan (RM 1,234.50).\n.\nPautan pengesahan: https://myinvois.example/abc\n\nTerima kasih.\n",
		Attachments: []einvoice.MailAttachment{
			{Name: "INV-001.pdf", ContentType: "application/pdf", Data: pdf},
		},
	}
}

func newSender(t *testing.T, srv *testsmtp.Server, rawURL string, o mailer.Options) *mailer.Sender {
	t.Helper()
	if o.TLSConfig == nil {
		o.TLSConfig = srv.TLSConfig()
	}
	if o.Timeout == 0 {
		o.Timeout = 10 * time.Second
	}
	s, err := mailer.New(rawURL, from, o)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func noCommit() error { return nil }

// sendError checks err is a MailSendError with code and temporary.
func sendError(t *testing.T, err error, code int, temporary bool) *einvoice.MailSendError {
	t.Helper()
	var mse *einvoice.MailSendError
	if !errors.As(err, &mse) {
		t.Fatalf("error %v (%T) is not a MailSendError", err, err)
	}
	if mse.Code != code || mse.Temporary != temporary {
		t.Fatalf("error %v: code %d temporary %v, want %d %v", err, mse.Code, mse.Temporary, code, temporary)
	}
	return mse
}

func TestSendSTARTTLSAuth(t *testing.T) {
	t.Parallel()
	srv := testsmtp.Start(t, testsmtp.Options{TLS: true, User: "relay@demo", Password: "p@ss:w/rd%"})
	if !strings.HasPrefix(srv.URL(), "smtp://") {
		t.Fatalf("URL %s", srv.URL())
	}
	s := newSender(t, srv, srv.URL(), mailer.Options{LocalName: "einvoice.test"})
	commits := 0
	if err := s.Send(t.Context(), message(), func() error { commits++; return nil }); err != nil {
		t.Fatal(err)
	}
	if commits != 1 {
		t.Fatalf("commit called %d times", commits)
	}
	checkReceived(t, srv, message())
}

// checkReceived checks the one message srv received is m, as sent.
func checkReceived(t *testing.T, srv *testsmtp.Server, m *einvoice.OutgoingMail) {
	t.Helper()
	msgs := srv.Messages()
	if len(msgs) != 1 {
		t.Fatalf("received %d messages", len(msgs))
	}
	got := msgs[0]
	if got.Err != nil {
		t.Fatalf("parse: %v\n%s", got.Err, got.Raw)
	}
	if got.From != from {
		t.Errorf("envelope from %q", got.From)
	}
	wantTo := []string{"buyer@buyer.example.my", "dua@buyer.example.my", "archive@demo.example.my"}
	if strings.Join(got.To, ",") != strings.Join(wantTo, ",") {
		t.Errorf("envelope to %q, want %q", got.To, wantTo)
	}
	h := got.Header
	if v := h.Get("From"); v != `"Demo Trading Sdn Bhd" <`+from+`>` {
		t.Errorf("From: %q", v)
	}
	fromAddr, err := h.AddressList("From")
	if err != nil || len(fromAddr) != 1 || fromAddr[0].Name != m.FromName || fromAddr[0].Address != from {
		t.Errorf("From %v: %v", fromAddr, err)
	}
	to, err := h.AddressList("To")
	if err != nil || len(to) != 2 || to[0].Address != "buyer@buyer.example.my" || to[1].Name != "Pembeli Dua" || to[1].Address != "dua@buyer.example.my" {
		t.Errorf("To %v: %v", to, err)
	}
	if v := h.Get("Reply-To"); v != "<accounts@demo.example.my>" {
		t.Errorf("Reply-To: %q", v)
	}
	if v, ok := h["Bcc"]; ok || bytes.Contains(got.Raw, []byte("archive@")) {
		t.Errorf("the bcc address is in the message: Bcc %q\n%s", v, got.Raw)
	}
	if subj := got.Subject(); subj != m.Subject {
		t.Errorf("Subject %q, want %q (raw %q)", subj, m.Subject, h.Get("Subject"))
	}
	if v := h.Get("Message-Id"); v != "<"+m.ID+"@mail.example.my>" {
		t.Errorf("Message-ID: %q", v)
	}
	if d, err := h.Date(); err != nil || time.Since(d) > time.Minute {
		t.Errorf("Date %v: %v", d, err)
	}
	if got.Text != m.Body {
		t.Errorf("text %q, want %q", got.Text, m.Body)
	}
	if len(got.Attachments) != 1 {
		t.Fatalf("%d attachments", len(got.Attachments))
	}
	a := got.Attachments[0]
	if a.Name != "INV-001.pdf" || a.ContentType != "application/pdf" || !bytes.Equal(a.Data, pdf) {
		t.Errorf("attachment %q %q, %d bytes (equal %v)", a.Name, a.ContentType, len(a.Data), bytes.Equal(a.Data, pdf))
	}
}

func TestSendSMTPS(t *testing.T) {
	t.Parallel()
	srv := testsmtp.Start(t, testsmtp.Options{Implicit: true, User: "u", Password: "secret"})
	if !strings.HasPrefix(srv.URL(), "smtps://") {
		t.Fatalf("URL %s", srv.URL())
	}
	s := newSender(t, srv, srv.URL(), mailer.Options{})
	if err := s.Send(t.Context(), message(), noCommit); err != nil {
		t.Fatal(err)
	}
	checkReceived(t, srv, message())
}

func TestSendInsecureLoopback(t *testing.T) {
	t.Parallel()
	srv := testsmtp.Start(t, testsmtp.Options{User: "u", Password: "secret"})
	if !strings.HasPrefix(srv.URL(), "smtp+insecure://") {
		t.Fatalf("URL %s", srv.URL())
	}
	s := newSender(t, srv, srv.URL(), mailer.Options{})
	if err := s.Send(t.Context(), message(), noCommit); err != nil {
		t.Fatal(err)
	}
	checkReceived(t, srv, message())

	// Without credentials: no AUTH.
	open := testsmtp.Start(t, testsmtp.Options{})
	s = newSender(t, open, open.URL(), mailer.Options{})
	m := message()
	m.Attachments = nil
	if err := s.Send(t.Context(), m, noCommit); err != nil {
		t.Fatal(err)
	}
	if open.Count() != 1 || open.CountFor("dua@buyer.example.my") != 1 || open.CountFor("nobody@example.my") != 0 {
		t.Fatalf("count %d", open.Count())
	}
}

func TestNew(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ url, want string }{
		{"smtp://u:pw@mail.example.my", "smtp://mail.example.my:587 (STARTTLS, AUTH PLAIN as \"u\") from " + from},
		{"smtps://u%40x:p%3Aw@mail.example.my", "smtps://mail.example.my:465 (TLS, AUTH PLAIN as \"u@x\") from " + from},
		{"smtp+insecure://127.0.0.2", "smtp+insecure://127.0.0.2:25 (no TLS, no AUTH) from " + from},
		{"smtp+insecure://localhost:2525", "smtp+insecure://localhost:2525 (no TLS, no AUTH) from " + from},
		{"smtp+insecure://[::1]:2525", "smtp+insecure://[::1]:2525 (no TLS, no AUTH) from " + from},
		{"SMTP://relay.example.my:25/", "smtp://relay.example.my:25 (STARTTLS, no AUTH) from " + from},
	} {
		s, err := mailer.New(c.url, from, mailer.Options{})
		if err != nil {
			t.Errorf("%s: %v", c.url, err)
			continue
		}
		if got := s.String(); got != c.want {
			t.Errorf("%s: %s, want %s", c.url, got, c.want)
		}
	}
}

func TestNewRefuses(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ url, from, want string }{
		{"", from, "EINVOICE_SMTP_URL: empty"},
		{"smtp+insecure://mail.example.my:25", from, "loopback"},
		{"smtp+insecure://10.0.0.1", from, "loopback"},
		{"http://u:hunter2@mail.example.my", from, "scheme"},
		{"mail.example.my:587", from, "EINVOICE_SMTP_URL"},
		{"smtp://", from, "no host"},
		{"smtp://u:hunter2@mail.example.my:99999", from, "port"},
		{"smtp://u:hunter2@mail.example.my:x", from, "EINVOICE_SMTP_URL: not a URL"},
		{"smtp://u:hunter2@mail.example.my/path", from, "path"},
		{"smtp://u:hunter2@mail.example.my?tls=no", from, "query"},
		{"smtp://u@mail.example.my", from, "without a password"},
		{"smtp://:hunter2@mail.example.my", from, "without a user"},
		{"smtp://mail.example.my", "", "EINVOICE_MAIL_FROM: empty"},
		{"smtp://mail.example.my", "not an address", "EINVOICE_MAIL_FROM"},
		{"smtp://mail.example.my", "Demo <einvoice@mail.example.my>", "plain address"},
	} {
		_, err := mailer.New(c.url, c.from, mailer.Options{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q %q: error %v, want %q", c.url, c.from, err, c.want)
		} else if strings.Contains(err.Error(), "hunter2") {
			t.Errorf("%q: the error shows the password: %v", c.url, err)
		}
	}
}

func TestNoSTARTTLS(t *testing.T) {
	t.Parallel()
	srv := testsmtp.Start(t, testsmtp.Options{User: "u", Password: "secret"})
	s := newSender(t, srv, srv.URLWith("smtp", "u", "secret"), mailer.Options{})
	err := s.Send(t.Context(), message(), noCommit)
	mse := sendError(t, err, 0, true)
	if !strings.Contains(mse.Message, "does not offer STARTTLS") || strings.Contains(err.Error(), "secret") {
		t.Fatalf("error %v", err)
	}
	if srv.Count() != 0 || srv.Attempts() != 0 {
		t.Fatalf("count %d attempts %d", srv.Count(), srv.Attempts())
	}
}

func TestUntrustedCertificate(t *testing.T) {
	t.Parallel()
	for _, o := range []testsmtp.Options{{TLS: true}, {Implicit: true}} {
		srv := testsmtp.Start(t, o)
		s, err := mailer.New(srv.URL(), from, mailer.Options{Timeout: 10 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		err = s.Send(t.Context(), message(), noCommit)
		mse := sendError(t, err, 0, true)
		if !strings.Contains(mse.Message, "certificate is not trusted") {
			t.Fatalf("error %v", err)
		}
		if srv.Attempts() != 0 {
			t.Fatal("DATA sent")
		}
	}
}

func TestWrongPassword(t *testing.T) {
	t.Parallel()
	srv := testsmtp.Start(t, testsmtp.Options{TLS: true, User: "u", Password: "secret"})
	s := newSender(t, srv, srv.URLWith("smtp", "u", "wrong"), mailer.Options{})
	err := s.Send(t.Context(), message(), noCommit)
	sendError(t, err, 535, false)
	if strings.Contains(err.Error(), "wrong") || srv.Attempts() != 0 {
		t.Fatalf("error %v, attempts %d", err, srv.Attempts())
	}
}

func TestServerRefusals(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		stage     string
		code      int
		temporary bool
	}{
		{"MAIL", 421, true},
		{"MAIL", 451, true},
		{"RCPT", 550, false},
		{"RCPT", 452, true},
		{"DATA", 451, true},
		{"DATA", 554, false},
	} {
		t.Run(c.stage+"_"+string(rune('0'+c.code/100)), func(t *testing.T) {
			t.Parallel()
			srv := testsmtp.Start(t, testsmtp.Options{TLS: true})
			s := newSender(t, srv, srv.URL(), mailer.Options{})
			srv.FailNext(c.stage, c.code, "refused for the test")
			commits := 0
			err := s.Send(t.Context(), message(), func() error { commits++; return nil })
			mse := sendError(t, err, c.code, c.temporary)
			if mse.Message != "refused for the test" {
				t.Errorf("message %q", mse.Message)
			}
			if srv.Count() != 0 {
				t.Errorf("received %d", srv.Count())
			}
			if want := map[bool]int{true: 1, false: 0}[c.stage == "DATA"]; commits != want {
				t.Errorf("commit called %d times", commits)
			}
			// The fault is consumed: the next message goes through.
			if err := s.Send(t.Context(), message(), noCommit); err != nil {
				t.Fatal(err)
			}
			if srv.Count() != 1 {
				t.Fatalf("received %d", srv.Count())
			}
		})
	}
}

func TestDropAfterData(t *testing.T) {
	t.Parallel()
	srv := testsmtp.Start(t, testsmtp.Options{Implicit: true})
	s := newSender(t, srv, srv.URL(), mailer.Options{})
	srv.DropAfterData()
	err := s.Send(t.Context(), message(), noCommit)
	sendError(t, err, 0, true)
	var me *mailer.Error
	if !errors.As(err, &me) || me.Op != "end of data" {
		t.Fatalf("error %v", err)
	}
	if srv.Count() != 0 || srv.Attempts() != 1 {
		t.Fatalf("count %d attempts %d", srv.Count(), srv.Attempts())
	}
}

func TestHang(t *testing.T) {
	t.Parallel()
	for _, o := range []testsmtp.Options{{TLS: true}, {Implicit: true}} {
		srv := testsmtp.Start(t, o)
		s := newSender(t, srv, srv.URL(), mailer.Options{Timeout: 500 * time.Millisecond})
		srv.HangNext()
		start := time.Now()
		err := s.Send(t.Context(), message(), noCommit)
		elapsed := time.Since(start)
		sendError(t, err, 0, true)
		if !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Errorf("error %v is not a timeout", err)
		}
		if elapsed < 400*time.Millisecond || elapsed > 5*time.Second {
			t.Errorf("gave up after %v", elapsed)
		}
		if srv.Connections() != 1 || srv.Attempts() != 0 {
			t.Fatalf("connections %d attempts %d", srv.Connections(), srv.Attempts())
		}
	}
}

func TestCommitFails(t *testing.T) {
	t.Parallel()
	for _, o := range []testsmtp.Options{{TLS: true}, {}} {
		srv := testsmtp.Start(t, o)
		s := newSender(t, srv, srv.URL(), mailer.Options{})
		errLost := errors.New("lease lost")
		err := s.Send(t.Context(), message(), func() error { return errLost })
		if !errors.Is(err, errLost) {
			t.Fatalf("error %v", err)
		}
		var mse *einvoice.MailSendError
		if errors.As(err, &mse) {
			t.Fatalf("a commit error is a MailSendError: %v", err)
		}
		srv.Wait(t, 10*time.Second, "the message discarded", func() bool { return srv.Discarded() == 1 })
		if srv.Count() != 0 || srv.Attempts() != 1 {
			t.Fatalf("count %d attempts %d", srv.Count(), srv.Attempts())
		}
	}
}

func TestHeldReplyCancelled(t *testing.T) {
	t.Parallel()
	srv := testsmtp.Start(t, testsmtp.Options{TLS: true})
	s := newSender(t, srv, srv.URL(), mailer.Options{})
	release := srv.HoldDataReply()
	defer release()
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	var commits atomic.Int32
	go func() { done <- s.Send(ctx, message(), func() error { commits.Add(1); return nil }) }()
	srv.WaitCount(t, 1, 10*time.Second)
	cancel() // the worker is stopped while the server holds its reply
	err := <-done
	sendError(t, err, 0, true)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("error %v does not say the context was cancelled", err)
	}
	release()
	if srv.Count() != 1 || commits.Load() != 1 {
		t.Fatalf("count %d commits %d", srv.Count(), commits.Load())
	}
}

func TestCancelledBeforeSending(t *testing.T) {
	t.Parallel()
	srv := testsmtp.Start(t, testsmtp.Options{})
	s := newSender(t, srv, srv.URL(), mailer.Options{})
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	err := s.Send(ctx, message(), noCommit)
	sendError(t, err, 0, true)
	if !errors.Is(err, context.Canceled) || srv.Connections() != 0 {
		t.Fatalf("error %v, connections %d", err, srv.Connections())
	}
}

func TestMessageIDDeterministic(t *testing.T) {
	t.Parallel()
	srv := testsmtp.Start(t, testsmtp.Options{})
	s := newSender(t, srv, srv.URL(), mailer.Options{})
	for range 2 {
		if err := s.Send(t.Context(), message(), noCommit); err != nil {
			t.Fatal(err)
		}
	}
	msgs := srv.Messages()
	if len(msgs) != 2 {
		t.Fatalf("received %d", len(msgs))
	}
	a, b := msgs[0].Header.Get("Message-Id"), msgs[1].Header.Get("Message-Id")
	if a == "" || a != b {
		t.Fatalf("Message-IDs %q and %q", a, b)
	}
}

func TestSendRefusesInvalid(t *testing.T) {
	t.Parallel()
	srv := testsmtp.Start(t, testsmtp.Options{})
	s := newSender(t, srv, srv.URL(), mailer.Options{})
	for name, change := range map[string]func(m *einvoice.OutgoingMail){
		"subject CRLF":     func(m *einvoice.OutgoingMail) { m.Subject = "Invoice\r\nBcc: victim@example.com" },
		"subject LF":       func(m *einvoice.OutgoingMail) { m.Subject = "Invoice\nX: y" },
		"name CR":          func(m *einvoice.OutgoingMail) { m.FromName = "Demo\rBcc: victim@example.com" },
		"name LF":          func(m *einvoice.OutgoingMail) { m.FromName = "Demo\n" },
		"reply-to LF":      func(m *einvoice.OutgoingMail) { m.ReplyTo = "a@b.my\nBcc: victim@example.com" },
		"to invalid":       func(m *einvoice.OutgoingMail) { m.To = []string{"not an address"} },
		"to LF":            func(m *einvoice.OutgoingMail) { m.To = []string{"a@b.my\n"} },
		"bcc invalid":      func(m *einvoice.OutgoingMail) { m.Bcc = []string{"@"} },
		"reply-to invalid": func(m *einvoice.OutgoingMail) { m.ReplyTo = "nope" },
		"no recipient":     func(m *einvoice.OutgoingMail) { m.To, m.Bcc = nil, nil },
		"too many": func(m *einvoice.OutgoingMail) {
			m.Bcc = nil
			for range einvoice.MaxMailRecipients {
				m.Bcc = append(m.Bcc, "x@example.my")
			}
		},
		"attachment name LF": func(m *einvoice.OutgoingMail) { m.Attachments[0].Name = "a\n.pdf" },
		"content type":       func(m *einvoice.OutgoingMail) { m.Attachments[0].ContentType = "application/pdf\r\nX: y" },
		"id":                 func(m *einvoice.OutgoingMail) { m.ID = "a>b" },
		"no id":              func(m *einvoice.OutgoingMail) { m.ID = "" },
	} {
		m := message()
		change(m)
		err := s.Send(t.Context(), m, func() error { t.Errorf("%s: commit called", name); return nil })
		var mse *einvoice.MailSendError
		if !errors.As(err, &mse) || mse.Temporary {
			t.Errorf("%s: error %v, want a permanent MailSendError", name, err)
		}
	}
	if srv.Connections() != 0 {
		t.Fatalf("%d connections", srv.Connections())
	}
}

func TestBccOnly(t *testing.T) {
	t.Parallel()
	srv := testsmtp.Start(t, testsmtp.Options{})
	s := newSender(t, srv, srv.URL(), mailer.Options{})
	m := message()
	m.To, m.ReplyTo, m.FromName = nil, "", ""
	m.Bcc = []string{"archive@demo.example.my", "ARCHIVE@demo.example.my"}
	if err := s.Send(t.Context(), m, noCommit); err != nil {
		t.Fatal(err)
	}
	got := srv.Messages()[0]
	if len(got.To) != 1 || got.Header.Get("Bcc") != "" || got.Header.Get("To") != "" || got.Header.Get("Reply-To") != "" {
		t.Fatalf("to %q, header %v", got.To, got.Header)
	}
	if v := got.Header.Get("From"); v != "<"+from+">" {
		t.Fatalf("From: %q", v)
	}
}

func TestErrorAs(t *testing.T) {
	t.Parallel()
	err := error(&mailer.Error{Op: "dial", Err: errors.New("connection refused"), Temporary: true})
	var mse *einvoice.MailSendError
	if !errors.As(err, &mse) || mse.Code != 0 || !mse.Temporary || mse.Message != "mailer: dial: connection refused" {
		t.Fatalf("%+v", mse)
	}
}
