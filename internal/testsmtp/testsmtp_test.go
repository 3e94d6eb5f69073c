package testsmtp_test

import (
	"bytes"
	"crypto/tls"
	"errors"
	"net"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/einvoice/einvoice/internal/testsmtp"
	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
	gomail "github.com/wneessen/go-mail"
)

const simple = "From: <a@example.my>\r\nTo: <b@example.my>\r\nSubject: hi\r\n\r\nline one\r\nline two\r\n"

// client dials srv as its options say (STARTTLS, TLS, AUTH PLAIN).
func client(t *testing.T, srv *testsmtp.Server) *smtp.Client {
	t.Helper()
	u, err := url.Parse(srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	var c *smtp.Client
	switch u.Scheme {
	case "smtps":
		c, err = smtp.DialTLS(srv.Addr(), srv.TLSConfig())
	case "smtp":
		c, err = smtp.DialStartTLS(srv.Addr(), srv.TLSConfig())
	default:
		c, err = smtp.Dial(srv.Addr())
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if u.User != nil {
		pw, _ := u.User.Password()
		if err := c.Auth(sasl.NewPlainClient("", u.User.Username(), pw)); err != nil {
			t.Fatal(err)
		}
	}
	return c
}

// send sends raw from a@example.my to rcpts on c.
func send(c *smtp.Client, raw string, rcpts ...string) error {
	if err := c.Mail("a@example.my", nil); err != nil {
		return err
	}
	for _, r := range rcpts {
		if err := c.Rcpt(r, nil); err != nil {
			return err
		}
	}
	w, err := c.Data()
	if err != nil {
		return err
	}
	if _, err := w.Write([]byte(raw)); err != nil {
		return err
	}
	return w.Close()
}

func code(t *testing.T, err error) int {
	t.Helper()
	var se *smtp.SMTPError
	if !errors.As(err, &se) {
		t.Fatalf("error %v (%T) is not an SMTP reply", err, err)
	}
	return se.Code
}

func TestModes(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		o      testsmtp.Options
		prefix string
	}{
		{testsmtp.Options{}, "smtp+insecure://127.0.0.1:"},
		{testsmtp.Options{User: "u", Password: "p"}, "smtp+insecure://u:p@127.0.0.1:"},
		{testsmtp.Options{TLS: true, User: "u@x", Password: "p:w"}, "smtp://u%40x:p%3Aw@127.0.0.1:"},
		{testsmtp.Options{Implicit: true, User: "u", Password: "p"}, "smtps://u:p@127.0.0.1:"},
	} {
		srv := testsmtp.Start(t, c.o)
		if !strings.HasPrefix(srv.URL(), c.prefix) {
			t.Errorf("URL %s, want %s...", srv.URL(), c.prefix)
		}
		if (srv.TLSConfig() != nil) != (c.o.TLS || c.o.Implicit) {
			t.Errorf("%s: TLSConfig %v", srv.URL(), srv.TLSConfig())
		}
		cl := client(t, srv)
		if _, ok := cl.TLSConnectionState(); ok != (c.o.TLS || c.o.Implicit) {
			t.Errorf("%s: TLS %v", srv.URL(), ok)
		}
		if err := send(cl, simple, "b@example.my", "bcc@example.my"); err != nil {
			t.Fatalf("%s: %v", srv.URL(), err)
		}
		if err := cl.Quit(); err != nil {
			t.Fatal(err)
		}
		srv.WaitCount(t, 1, 10*time.Second)
		m := srv.Messages()[0]
		if m.From != "a@example.my" || strings.Join(m.To, " ") != "b@example.my bcc@example.my" ||
			string(m.Raw) != simple || m.Text != "line one\nline two\n" || m.Subject() != "hi" || m.Err != nil {
			t.Errorf("%s: %+v", srv.URL(), m)
		}
		if srv.CountFor("BCC@example.my") != 1 || srv.CountFor("c@example.my") != 0 || srv.Attempts() != 1 || srv.Connections() != 1 {
			t.Errorf("%s: counts %d %d %d", srv.URL(), srv.CountFor("bcc@example.my"), srv.Attempts(), srv.Connections())
		}
	}
}

func TestAuth(t *testing.T) {
	t.Parallel()
	srv := testsmtp.Start(t, testsmtp.Options{TLS: true, User: "u", Password: "secret"})

	// AUTH is offered over TLS only.
	c, err := smtp.Dial(srv.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Hello("localhost"); err != nil {
		t.Fatal(err)
	}
	if ok, _ := c.Extension("STARTTLS"); !ok {
		t.Fatal("no STARTTLS")
	}
	if ok, _ := c.Extension("AUTH"); ok {
		t.Fatal("AUTH offered before TLS")
	}

	// Required before MAIL.
	c, err = smtp.DialStartTLS(srv.Addr(), srv.TLSConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if got := code(t, c.Mail("a@example.my", nil)); got != 530 {
		t.Fatalf("MAIL without AUTH: %d", got)
	}
	if got := code(t, c.Auth(sasl.NewPlainClient("", "u", "wrong"))); got != 535 {
		t.Fatalf("wrong password: %d", got)
	}
	if err := c.Auth(sasl.NewPlainClient("", "u", "secret")); err != nil {
		t.Fatal(err)
	}
	if err := send(c, simple, "b@example.my"); err != nil {
		t.Fatal(err)
	}
	if srv.Count() != 1 {
		t.Fatal(srv.Count())
	}

	// The certificate is not trusted without TLSConfig.
	c, err = smtp.DialStartTLS(srv.Addr(), &tls.Config{ServerName: "127.0.0.1"})
	if err == nil {
		defer c.Close()
		err = c.Noop() // the handshake may be lazy
	}
	if err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Fatalf("untrusted certificate: %v", err)
	}
}

func TestFailNext(t *testing.T) {
	t.Parallel()
	srv := testsmtp.Start(t, testsmtp.Options{TLS: true})
	srv.FailNext("RCPT", 550, "no such user")
	srv.FailNext("MAIL", 451, "try later")
	srv.FailNext("DATA", 554, "rejected")
	srv.FailNext("DATA", 451, "later")
	srv.FailNext("MAIL", 421, "closing")

	c := client(t, srv)
	// MAIL faults in order: 451, then 421.
	if got := code(t, send(c, simple, "b@example.my")); got != 451 {
		t.Fatalf("MAIL %d", got)
	}
	var se *smtp.SMTPError
	if err := send(c, simple, "b@example.my"); !errors.As(err, &se) || se.Code != 421 || se.Message != "closing" {
		t.Fatalf("MAIL %v", err)
	}
	c = client(t, srv)
	if got := code(t, send(c, simple, "b@example.my")); got != 550 {
		t.Fatalf("RCPT %d", got)
	}
	if err := c.Reset(); err != nil {
		t.Fatal(err)
	}
	if got := code(t, send(c, simple, "b@example.my")); got != 554 {
		t.Fatalf("DATA %d", got)
	}
	if got := code(t, send(c, simple, "b@example.my")); got != 451 {
		t.Fatalf("DATA %d", got)
	}
	if srv.Count() != 0 || srv.Attempts() != 2 {
		t.Fatalf("count %d attempts %d", srv.Count(), srv.Attempts())
	}
	if err := send(c, simple, "b@example.my"); err != nil {
		t.Fatal(err)
	}
	if srv.Count() != 1 || srv.Attempts() != 3 {
		t.Fatalf("count %d attempts %d", srv.Count(), srv.Attempts())
	}
}

func TestDropAfterData(t *testing.T) {
	t.Parallel()
	srv := testsmtp.Start(t, testsmtp.Options{})
	srv.DropAfterData()
	err := send(client(t, srv), simple, "b@example.my")
	var se *smtp.SMTPError
	if err == nil || errors.As(err, &se) {
		t.Fatalf("error %v, want a connection error", err)
	}
	if srv.Count() != 0 || srv.Attempts() != 1 {
		t.Fatalf("count %d attempts %d", srv.Count(), srv.Attempts())
	}
	if err := send(client(t, srv), simple, "b@example.my"); err != nil || srv.Count() != 1 {
		t.Fatalf("%v, count %d", err, srv.Count())
	}
}

func TestHangNext(t *testing.T) {
	t.Parallel()
	srv := testsmtp.Start(t, testsmtp.Options{Implicit: true})
	srv.HangNext()
	conn, err := net.Dial("tcp", srv.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(300 * time.Millisecond))
	if n, err := conn.Read(make([]byte, 1)); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("read %d, %v: want a timeout", n, err)
	}
	srv.Wait(t, 10*time.Second, "a connection", func() bool { return srv.Connections() == 1 })
	// The next connection is served.
	if err := send(client(t, srv), simple, "b@example.my"); err != nil {
		t.Fatal(err)
	}
	if srv.Connections() != 2 || srv.Count() != 1 {
		t.Fatalf("connections %d count %d", srv.Connections(), srv.Count())
	}
}

func TestHoldDataReply(t *testing.T) {
	t.Parallel()
	srv := testsmtp.Start(t, testsmtp.Options{})
	release := srv.HoldDataReply()
	c := client(t, srv)
	done := make(chan error, 1)
	go func() { done <- send(c, simple, "b@example.my") }()
	srv.WaitCount(t, 1, 10*time.Second)
	select {
	case err := <-done:
		t.Fatalf("the reply was not held: %v", err)
	default:
	}
	release()
	release()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if srv.Count() != 1 || srv.Attempts() != 1 {
		t.Fatalf("count %d attempts %d", srv.Count(), srv.Attempts())
	}
}

func TestHoldDataReplyUntilStop(t *testing.T) {
	t.Parallel()
	// Never released: the server's cleanup ends the hold.
	srv := testsmtp.Start(t, testsmtp.Options{})
	srv.HoldDataReply()
	c := client(t, srv)
	go send(c, simple, "b@example.my")
	srv.WaitCount(t, 1, 10*time.Second)
}

func TestAbandoned(t *testing.T) {
	t.Parallel()
	srv := testsmtp.Start(t, testsmtp.Options{})
	c := client(t, srv)
	if err := c.Mail("a@example.my", nil); err != nil {
		t.Fatal(err)
	}
	if err := c.Rcpt("b@example.my", nil); err != nil {
		t.Fatal(err)
	}
	w, err := c.Data()
	if err != nil {
		t.Fatal(err)
	}
	w.Write([]byte(simple))
	c.Close() // no final "."
	srv.Wait(t, 10*time.Second, "the message discarded", func() bool { return srv.Discarded() == 1 })
	if srv.Count() != 0 || srv.Attempts() != 1 {
		t.Fatalf("count %d attempts %d", srv.Count(), srv.Attempts())
	}
}

func TestParseGoMail(t *testing.T) {
	t.Parallel()
	pdf := bytes.Repeat([]byte{0, 1, 2, 0xff, '\r', '\n', '.'}, 500)
	msg := gomail.NewMsg()
	if err := msg.FromFormat("Syarikat Contoh Bhd", "einvoice@example.my"); err != nil {
		t.Fatal(err)
	}
	if err := msg.To("b@example.my"); err != nil {
		t.Fatal(err)
	}
	msg.Subject("Invois untuk bayaran RM 50.00 — terima kasih")
	msg.SetBodyString(gomail.TypeTextPlain, "Salam,\nJumlah: RM 50.00 ✓\nNo final line break")
	msg.AddAlternativeString(gomail.TypeTextHTML, "<p>Salam</p>")
	if err := msg.AttachReader("Invois Ñ.pdf", bytes.NewReader(pdf), gomail.WithFileContentType("application/pdf")); err != nil {
		t.Fatal(err)
	}
	if err := msg.AttachReader("data.xml", strings.NewReader("<Invoice/>"), gomail.WithFileContentType("application/xml"), gomail.WithFileEncoding(gomail.EncodingQP)); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := msg.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	m := testsmtp.Parse(buf.Bytes())
	if m.Err != nil {
		t.Fatalf("%v\n%s", m.Err, buf.Bytes())
	}
	if m.Subject() != "Invois untuk bayaran RM 50.00 — terima kasih" {
		t.Errorf("subject %q", m.Subject())
	}
	if m.Text != "Salam,\nJumlah: RM 50.00 ✓\nNo final line break" {
		t.Errorf("text %q", m.Text)
	}
	if len(m.Attachments) != 2 {
		t.Fatalf("%d attachments\n%s", len(m.Attachments), buf.Bytes())
	}
	if a := m.Attachments[0]; a.Name != "Invois Ñ.pdf" || a.ContentType != "application/pdf" || !bytes.Equal(a.Data, pdf) {
		t.Errorf("attachment %q %q %d bytes", a.Name, a.ContentType, len(a.Data))
	}
	if a := m.Attachments[1]; a.Name != "data.xml" || a.ContentType != "application/xml" || string(a.Data) != "<Invoice/>" {
		t.Errorf("attachment %q %q %q", a.Name, a.ContentType, a.Data)
	}
}

func TestParseErrors(t *testing.T) {
	t.Parallel()
	for _, raw := range []string{
		"no header\r\n",
		"Content-Type: multipart/mixed\r\n\r\nbody",
		"Content-Type: text/plain\r\nContent-Transfer-Encoding: base64\r\n\r\n!!!!",
		"Content-Type: text/plain\r\nContent-Transfer-Encoding: x-unknown\r\n\r\nbody",
		"Content-Type: text/plain; charset=iso-2022-jp\r\n\r\nbody",
	} {
		if m := testsmtp.Parse([]byte(raw)); m.Err == nil {
			t.Errorf("%q: no error", raw)
		}
	}
}
