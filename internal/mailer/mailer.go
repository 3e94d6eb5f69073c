// Package mailer sends the mail outbox's messages through the operator's
// mail server (--smtp-url): an einvoice.MailSender over SMTP with STARTTLS
// (smtp://), implicit TLS (smtps://) or, on loopback only, plain SMTP
// (smtp+insecure://), AUTH PLAIN with the URL's user and password.
//
// Messages are composed with go-mail (a text/plain UTF-8 body, attachments
// in base64, a Message-ID made from the message's ID) and sent one
// connection per message: simple, and a failure concerns one message only.
// The end of the data (the final ".") is sent only once the caller's commit
// succeeded; otherwise the connection is dropped and the server discards
// the message.
package mailer

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/mail"
	"net/textproto"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/einvoice/einvoice/internal/einvoice"
)

// Defaults of Options.
const (
	DefaultTimeout   = 30 * time.Second
	DefaultLocalName = "localhost"
)

// Options tune a Sender. The zero value is the production setting.
type Options struct {
	// TLSConfig is the TLS client configuration (tests set RootCAs); its
	// ServerName is set from the URL's host when empty. nil: the system's
	// roots.
	TLSConfig *tls.Config
	// Timeout bounds the dial and every command of a connection (each one
	// on its own, the message's data each write); DefaultTimeout when zero.
	Timeout time.Duration
	// LocalName is the name sent with EHLO; DefaultLocalName when empty.
	LocalName string
}

// security is how a Sender protects its connections.
type security int

const (
	startTLS    security = iota // smtp://: STARTTLS required
	implicitTLS                 // smtps://
	plain                       // smtp+insecure:// on loopback
)

// Sender sends messages through one mail server. It is safe for concurrent
// use: each Send opens its own connection.
type Sender struct {
	security  security
	host      string // without brackets; the TLS server name
	addr      string // host:port
	user      string
	password  string
	auth      bool
	from      string // the envelope sender and From address
	domain    string // of from: the Message-IDs' right-hand side
	tls       *tls.Config
	timeout   time.Duration
	localName string
}

var _ einvoice.MailSender = (*Sender)(nil)

// New returns a Sender for the mail server at rawURL (--smtp-url,
// EINVOICE_SMTP_URL) sending from the address from (--mail-from,
// EINVOICE_MAIL_FROM), a plain address.
//
// The URL is smtp://[user:password@]host[:port] (port 587, STARTTLS
// required), smtps://[user:password@]host[:port] (port 465, implicit TLS)
// or smtp+insecure://[user:password@]host[:port] (port 25, no TLS; only
// on a loopback host: 127.0.0.0/8, ::1, localhost). User and password are
// percent-decoded; with them the Sender authenticates with AUTH PLAIN,
// without them it does not authenticate. Errors never contain the
// password.
func New(rawURL, from string, o Options) (*Sender, error) {
	s := &Sender{timeout: o.Timeout, localName: o.LocalName}
	if s.timeout <= 0 {
		s.timeout = DefaultTimeout
	}
	if s.localName == "" {
		s.localName = DefaultLocalName
	}
	if strings.ContainsAny(s.localName, "\r\n \t") {
		return nil, errors.New("mailer: Options.LocalName contains white space or a line break")
	}
	if err := s.parseURL(rawURL); err != nil {
		return nil, err
	}
	if err := s.parseFrom(from); err != nil {
		return nil, err
	}
	if o.TLSConfig != nil {
		s.tls = o.TLSConfig.Clone()
	} else {
		s.tls = &tls.Config{}
	}
	if s.tls.ServerName == "" {
		s.tls.ServerName = s.host
	}
	if s.tls.MinVersion == 0 {
		s.tls.MinVersion = tls.VersionTLS12
	}
	return s, nil
}

func (s *Sender) parseURL(rawURL string) error {
	const name = "EINVOICE_SMTP_URL"
	if strings.TrimSpace(rawURL) == "" {
		return errors.New(name + ": empty; want smtp://user:password@host:587, smtps://user:password@host:465 or smtp+insecure://127.0.0.1:25")
	}
	u, err := url.Parse(rawURL)
	if err != nil {
		// url.Error repeats the URL, password included: keep its cause only.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return fmt.Errorf("%s: not a URL: %v", name, err)
	}
	var defaultPort string
	switch strings.ToLower(u.Scheme) {
	case "smtp":
		s.security, defaultPort = startTLS, "587"
	case "smtps":
		s.security, defaultPort = implicitTLS, "465"
	case "smtp+insecure":
		s.security, defaultPort = plain, "25"
	case "":
		return errors.New(name + ": no scheme; want smtp://, smtps:// or smtp+insecure://")
	default:
		return fmt.Errorf("%s: scheme %q is not smtp, smtps or smtp+insecure", name, u.Scheme)
	}
	if u.Opaque != "" {
		return fmt.Errorf("%s: want %s://host[:port], with two slashes", name, u.Scheme)
	}
	if (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" {
		return fmt.Errorf("%s: unexpected path, query or fragment; want %s://[user:password@]host[:port]", name, u.Scheme)
	}
	s.host = u.Hostname()
	if s.host == "" {
		return errors.New(name + ": no host")
	}
	port := u.Port()
	if port == "" {
		port = defaultPort
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
		return fmt.Errorf("%s: invalid port %q", name, port)
	}
	s.addr = net.JoinHostPort(s.host, port)
	if s.security == plain && !isLoopback(s.host) {
		return fmt.Errorf("%s: smtp+insecure:// (no TLS) is allowed on a loopback host only (127.0.0.1, ::1, localhost), not %q; use smtp:// (STARTTLS) or smtps://", name, s.host)
	}
	if u.User != nil {
		s.user = u.User.Username()
		pw, ok := u.User.Password()
		if s.user == "" {
			return errors.New(name + ": a password without a user")
		}
		if !ok || pw == "" {
			return fmt.Errorf("%s: user %q without a password", name, s.user)
		}
		s.password, s.auth = pw, true
	}
	return nil
}

func (s *Sender) parseFrom(from string) error {
	const name = "EINVOICE_MAIL_FROM"
	if from == "" {
		return errors.New(name + ": empty; want the address messages are sent from, e.g. einvoice@example.com")
	}
	a, err := mail.ParseAddress(from)
	if err != nil {
		return fmt.Errorf("%s: %q is not a mail address: %v", name, from, err)
	}
	if a.Name != "" || a.Address != strings.TrimSpace(from) {
		return fmt.Errorf("%s: want a plain address like einvoice@example.com, not %q (the display name is each tenant's sender name)", name, from)
	}
	at := strings.LastIndexByte(a.Address, '@')
	s.from, s.domain = a.Address, a.Address[at+1:]
	return nil
}

// isLoopback reports whether host is localhost or a loopback address.
func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// String describes the Sender, without its password: for the startup log.
func (s *Sender) String() string {
	var scheme, sec string
	switch s.security {
	case startTLS:
		scheme, sec = "smtp", "STARTTLS"
	case implicitTLS:
		scheme, sec = "smtps", "TLS"
	default:
		scheme, sec = "smtp+insecure", "no TLS"
	}
	auth := "no AUTH"
	if s.auth {
		auth = "AUTH PLAIN as " + strconv.Quote(s.user)
	}
	return fmt.Sprintf("%s://%s (%s, %s) from %s", scheme, s.addr, sec, auth, s.from)
}

// Error is a failure to send that is not a reply of the mail server: the
// network, TLS, the server's capabilities (temporary: the message waits
// for the network or the operator), or a message that cannot be sent
// (permanent). errors.As(err, new(*einvoice.MailSendError)) works on it,
// with Code 0.
type Error struct {
	Op        string // what was being done: "dial", "STARTTLS", "compose"...
	Err       error
	Temporary bool
}

// Error says what failed and why.
func (e *Error) Error() string { return "mailer: " + e.Op + ": " + e.Err.Error() }

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// As makes an Error an *einvoice.MailSendError with Code 0.
func (e *Error) As(target any) bool {
	if p, ok := target.(**einvoice.MailSendError); ok {
		*p = &einvoice.MailSendError{Code: 0, Message: e.Error(), Temporary: e.Temporary}
		return true
	}
	return false
}

// invalid is a message that cannot be sent: a permanent Error.
func invalid(format string, args ...any) error {
	return &Error{Op: "message", Err: fmt.Errorf(format, args...)}
}

// fail classifies err, from op: a reply of the server becomes an
// *einvoice.MailSendError (4xx temporary), anything else a temporary
// *Error, naming the context's error when it ended the connection.
func fail(ctx context.Context, op string, err error) error {
	var te *textproto.Error
	if errors.As(err, &te) {
		return fmt.Errorf("mailer: %s: %w", op, &einvoice.MailSendError{
			Code: te.Code, Message: te.Msg, Temporary: te.Code < 500 || te.Code >= 600,
		})
	}
	if ctx.Err() != nil {
		err = fmt.Errorf("%w (%v)", ctx.Err(), err)
	}
	var cv *tls.CertificateVerificationError
	var ua x509.UnknownAuthorityError
	var he x509.HostnameError
	var ie x509.CertificateInvalidError
	if errors.As(err, &cv) || errors.As(err, &ua) || errors.As(err, &he) || errors.As(err, &ie) {
		err = fmt.Errorf("the mail server's certificate is not trusted: %w", err)
	}
	return &Error{Op: op, Err: err, Temporary: true}
}
