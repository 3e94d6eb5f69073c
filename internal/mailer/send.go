package mailer

import (
	"bytes"
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"mime"
	"net"
	"net/mail"
	"strings"
	"time"

	"github.com/einvoice/einvoice/internal/einvoice"
	gomail "github.com/wneessen/go-mail"
	"github.com/wneessen/go-mail/smtp"
)

// Send sends m through the mail server on a connection of its own: EHLO,
// STARTTLS or TLS, AUTH, MAIL FROM, RCPT TO for each address of To and
// Bcc, DATA and the message; then it calls commit and, only when commit
// succeeded, ends the data (".") and reads the server's reply. When commit
// fails the connection is dropped before the end of the data, so that the
// server discards the message, and commit's error is returned wrapped.
//
// A message that cannot be sent (an address that does not parse, a line
// break in a header, no recipient) is refused before connecting with a
// permanent error. Every failure of the server or the network satisfies
// errors.As(err, new(*einvoice.MailSendError)): the server's replies with
// their code (4xx temporary, 5xx permanent), the network, TLS and the
// server's missing capabilities (STARTTLS, AUTH) temporary, with Code 0.
// A QUIT that fails after the message was accepted is not an error.
func (s *Sender) Send(ctx context.Context, m *einvoice.OutgoingMail, commit func() error) error {
	msg, rcpts, err := s.compose(m)
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return &Error{Op: "dial", Err: err, Temporary: true}
	}

	dialer := net.Dialer{Timeout: s.timeout}
	raw, err := dialer.DialContext(ctx, "tcp", s.addr)
	if err != nil {
		return fail(ctx, "dial "+s.addr, err)
	}
	defer raw.Close()
	// Cancelling ctx ends the connection abruptly: any command under way
	// fails, and a message not yet ended is discarded by the server.
	stop := context.AfterFunc(ctx, func() { raw.Close() })
	defer stop()
	deadline := func() { _ = raw.SetDeadline(time.Now().Add(s.timeout)) }

	conn := raw
	if s.security == implicitTLS {
		tc := tls.Client(raw, s.tls)
		deadline()
		if err := tc.HandshakeContext(ctx); err != nil {
			return fail(ctx, "TLS handshake with "+s.addr, err)
		}
		conn = tc
	}
	deadline()
	c, err := smtp.NewClient(conn, s.host)
	if err != nil {
		return fail(ctx, "greeting", err)
	}
	deadline()
	if err := c.Hello(s.localName); err != nil {
		return fail(ctx, "EHLO", err)
	}
	if s.security == startTLS {
		if ok, _ := c.Extension("STARTTLS"); !ok {
			return &Error{Op: "STARTTLS", Temporary: true, Err: fmt.Errorf(
				"the mail server %s does not offer STARTTLS, which smtp:// requires (use smtps:// if it takes TLS on connection)", s.addr)}
		}
		deadline()
		if err := c.StartTLS(s.tls); err != nil {
			return fail(ctx, "STARTTLS", err)
		}
	}
	if s.auth {
		if ok, _ := c.Extension("AUTH"); !ok {
			return &Error{Op: "AUTH", Temporary: true, Err: fmt.Errorf(
				"the mail server %s does not offer AUTH, and the URL has a user and password", s.addr)}
		}
		deadline()
		if err := c.Auth(smtp.PlainAuth("", s.user, s.password, s.host, s.security == plain)); err != nil {
			return fail(ctx, "AUTH PLAIN as "+s.user, err)
		}
	}
	deadline()
	if err := c.Mail("<" + s.from + ">"); err != nil {
		return fail(ctx, "MAIL FROM", err)
	}
	for _, r := range rcpts {
		deadline()
		if err := c.Rcpt("<" + r + ">"); err != nil {
			return fail(ctx, "RCPT TO <"+r+">", err)
		}
	}
	deadline()
	w, err := c.Data()
	if err != nil {
		return fail(ctx, "DATA", err)
	}
	if _, err := msg.WriteTo(&deadlineWriter{w: w, deadline: deadline}); err != nil {
		return fail(ctx, "writing the message", err)
	}
	// Hand the whole message to the server before commit: only its end
	// remains to be sent.
	deadline()
	if err := c.Text.W.Flush(); err != nil {
		return fail(ctx, "writing the message", err)
	}
	if err := commit(); err != nil {
		raw.Close() // no final ".": the server discards the message
		return fmt.Errorf("mailer: message abandoned before its end: %w", err)
	}
	deadline()
	if err := w.Close(); err != nil {
		return fail(ctx, "end of data", err)
	}
	deadline()
	_ = c.Quit() // the message was accepted: a failing QUIT does not matter
	return nil
}

// deadlineWriter extends the connection's deadline before each write.
type deadlineWriter struct {
	w        io.Writer
	deadline func()
}

func (d *deadlineWriter) Write(p []byte) (int, error) {
	d.deadline()
	return d.w.Write(p)
}

// compose checks m and makes its message and the envelope's recipients.
func (s *Sender) compose(m *einvoice.OutgoingMail) (*gomail.Msg, []string, error) {
	if m == nil {
		return nil, nil, invalid("no message")
	}
	if m.ID == "" || strings.ContainsFunc(m.ID, func(r rune) bool { return !isAtext(r) }) {
		return nil, nil, invalid("message ID %q is not usable in a Message-ID", m.ID)
	}
	for _, h := range []struct{ name, v string }{{"sender name", m.FromName}, {"subject", m.Subject}} {
		if strings.ContainsAny(h.v, "\r\n") {
			return nil, nil, invalid("the %s contains a line break", h.name)
		}
		if strings.ContainsFunc(h.v, isControl) {
			return nil, nil, invalid("the %s contains a control character", h.name)
		}
	}
	if n := len(m.To) + len(m.Bcc); n == 0 {
		return nil, nil, invalid("no recipient")
	} else if n > einvoice.MaxMailRecipients {
		return nil, nil, invalid("%d recipients, more than %d", n, einvoice.MaxMailRecipients)
	}

	msg := gomail.NewMsg(gomail.WithNoDefaultUserAgent())
	msg.FromMailAddress(&mail.Address{Name: m.FromName, Address: s.from})
	var rcpts []string
	seen := map[string]bool{}
	add := func(a *mail.Address) {
		if k := strings.ToLower(a.Address); !seen[k] {
			seen[k] = true
			rcpts = append(rcpts, a.Address)
		}
	}
	to := make([]*mail.Address, 0, len(m.To))
	for _, v := range m.To {
		a, err := parseAddress("to", v)
		if err != nil {
			return nil, nil, err
		}
		to = append(to, a)
		add(a)
	}
	for _, v := range m.Bcc {
		a, err := parseAddress("bcc", v)
		if err != nil {
			return nil, nil, err
		}
		add(a) // the envelope only: no Bcc header
	}
	if len(to) > 0 {
		msg.ToMailAddress(to...)
	}
	if m.ReplyTo != "" {
		a, err := parseAddress("reply-to", m.ReplyTo)
		if err != nil {
			return nil, nil, err
		}
		msg.ReplyToMailAddress(a)
	}
	msg.Subject(m.Subject)
	msg.SetDate()
	msg.SetMessageIDWithValue(m.ID + "@" + s.domain)
	msg.SetBodyString(gomail.TypeTextPlain, m.Body)
	for i, a := range m.Attachments {
		if a.Name == "" || strings.ContainsAny(a.Name, "\r\n") || strings.ContainsFunc(a.Name, isControl) {
			return nil, nil, invalid("attachment %d: name %q is empty or contains a line break or control character", i+1, a.Name)
		}
		ct := a.ContentType
		if ct == "" {
			ct = "application/octet-stream"
		}
		mt, _, err := mime.ParseMediaType(ct)
		if err != nil || strings.ContainsAny(ct, "\r\n") {
			return nil, nil, invalid("attachment %q: content type %q: not a media type", a.Name, ct)
		}
		if err := msg.AttachReader(a.Name, bytes.NewReader(a.Data),
			gomail.WithFileContentType(gomail.ContentType(mt)), gomail.WithFileEncoding(gomail.EncodingB64)); err != nil {
			return nil, nil, invalid("attachment %q: %v", a.Name, err)
		}
	}
	return msg, rcpts, nil
}

// parseAddress parses one address of a message's header field.
func parseAddress(field, v string) (*mail.Address, error) {
	if strings.ContainsAny(v, "\r\n") {
		return nil, invalid("%s address %q contains a line break", field, v)
	}
	a, err := mail.ParseAddress(v)
	if err != nil {
		return nil, invalid("%s address %q: %v", field, v, err)
	}
	if strings.ContainsAny(a.Address, "<>\r\n ") {
		return nil, invalid("%s address %q is not usable in SMTP", field, v)
	}
	return a, nil
}

// isAtext reports whether r may appear in the left-hand side of a
// Message-ID (RFC 5322 atext, and ".").
func isAtext(r rune) bool {
	switch {
	case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
		return true
	}
	return strings.ContainsRune("!#$%&'*+-/=?^_`{|}~.", r)
}

func isControl(r rune) bool { return r < 0x20 && r != '\t' || r == 0x7f }
