// Package testsmtp is a real SMTP server on loopback for tests (built on
// emersion/go-smtp): STARTTLS or implicit TLS with a test certificate, AUTH
// PLAIN, the messages it received parsed (headers, text, attachments), and
// faults on demand (replies 4xx/5xx, a connection dropped after the data,
// a connection that never answers, a reply held back).
//
// It is a normal package used by tests only.
package testsmtp

import (
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
)

// Options say what the server offers.
type Options struct {
	// TLS offers STARTTLS with a test certificate for 127.0.0.1 and
	// localhost (see TLSConfig).
	TLS bool
	// Implicit: TLS from the start of the connection (smtps); implies TLS,
	// without STARTTLS.
	Implicit bool
	// User and Password: AUTH PLAIN is offered (over TLS, or over plain
	// SMTP when the server has no TLS) and required before MAIL.
	User, Password string
}

// Server is a running test SMTP server. Its methods are safe for
// concurrent use.
type Server struct {
	o         Options
	srv       *smtp.Server
	addr      string // 127.0.0.1:port
	clientTLS *tlsPair

	mu          sync.Mutex
	changed     chan struct{} // closed and replaced on every change
	closed      chan struct{}
	messages    []Message
	attempts    int
	discarded   int
	connections int
	faults      map[string][]fault // by stage: "conn", "MAIL", "RCPT", "DATA"
	hung        []net.Conn
}

// fault is one queued fault.
type fault struct {
	kind    faultKind
	code    int
	msg     string
	release chan struct{} // hold
}

type faultKind int

const (
	failReply faultKind = iota
	dropAfterData
	holdReply
	hang
)

// Start starts a server on 127.0.0.1 (a free port) as o says; it is
// stopped by t.Cleanup.
func Start(t testing.TB, o Options) *Server {
	t.Helper()
	if o.Implicit {
		o.TLS = true
	}
	s := &Server{
		o:       o,
		changed: make(chan struct{}),
		closed:  make(chan struct{}),
		faults:  map[string][]fault{},
	}
	tcp, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("testsmtp: listen: %v", err)
	}
	s.addr = tcp.Addr().String()
	var ln net.Listener = &listener{Listener: tcp, s: s}

	s.srv = smtp.NewServer(backend{s})
	s.srv.Domain = "localhost"
	s.srv.ErrorLog = discardLog{}
	s.srv.MaxRecipients = 100
	s.srv.MaxMessageBytes = 32 << 20
	s.srv.ReadTimeout = time.Minute
	s.srv.WriteTimeout = time.Minute
	if o.TLS {
		pair, err := testTLS()
		if err != nil {
			tcp.Close()
			t.Fatalf("testsmtp: certificate: %v", err)
		}
		s.clientTLS = pair
		if o.Implicit {
			ln = tlsListener(ln, pair.server.Clone())
		} else {
			s.srv.TLSConfig = pair.server.Clone()
		}
	} else {
		s.srv.AllowInsecureAuth = true
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = s.srv.Serve(ln)
	}()
	t.Cleanup(func() {
		s.mu.Lock()
		close(s.closed) // releases held replies
		hung := s.hung
		s.hung = nil
		s.mu.Unlock()
		for _, c := range hung {
			c.Close()
		}
		_ = s.srv.Close()
		// Serve may not have registered the listener with the server yet.
		tcp.Close()
		<-done
	})
	return s
}

// Addr returns the server's address, 127.0.0.1:port.
func (s *Server) Addr() string { return s.addr }

// URL returns the URL of the server for mailer.New: smtp:// (STARTTLS),
// smtps:// (Implicit) or smtp+insecure:// (no TLS), with the user and
// password when set.
func (s *Server) URL() string {
	scheme := "smtp+insecure"
	switch {
	case s.o.Implicit:
		scheme = "smtps"
	case s.o.TLS:
		scheme = "smtp"
	}
	return s.URLWith(scheme, s.o.User, s.o.Password)
}

// URLWith returns a URL of the server with any scheme and credentials (to
// test refusals: smtp:// to a server without STARTTLS, a wrong password).
func (s *Server) URLWith(scheme, user, password string) string {
	u := &url.URL{Scheme: scheme, Host: s.addr}
	if user != "" {
		u.User = url.UserPassword(user, password)
	}
	return u.String()
}

// TLSConfig returns a client configuration trusting the server's
// certificate (RootCAs), nil when the server has no TLS.
func (s *Server) TLSConfig() *tls.Config {
	if s.clientTLS == nil {
		return nil
	}
	return s.clientTLS.client.Clone()
}

// CAFile writes the server's certificate (its own authority) into a file
// of t's temporary directory and returns its path: a service's --smtp-ca.
// It fails t for a server without TLS.
func (s *Server) CAFile(t testing.TB) string {
	t.Helper()
	if s.clientTLS == nil {
		t.Fatal("testsmtp: CAFile of a server without TLS")
	}
	path := filepath.Join(t.TempDir(), "testsmtp-ca.pem")
	if err := os.WriteFile(path, s.clientTLS.certPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// Messages returns the messages received so far, in order.
func (s *Server) Messages() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Message(nil), s.messages...)
}

// Count returns the number of messages received.
func (s *Server) Count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.messages)
}

// CountFor returns the number of messages received with addr among their
// envelope's recipients (case-insensitive).
func (s *Server) CountFor(addr string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, m := range s.messages {
		for _, to := range m.To {
			if strings.EqualFold(to, addr) {
				n++
				break
			}
		}
	}
	return n
}

// Attempts returns the number of DATA commands the server accepted: the
// messages received, refused at their end (FailNext "DATA"), dropped
// (DropAfterData) or abandoned by the client before their end.
func (s *Server) Attempts() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.attempts
}

// Discarded returns the number of messages abandoned by the client before
// their end (the connection ended without the final "."): not received.
func (s *Server) Discarded() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.discarded
}

// Connections returns the number of connections accepted, hung ones
// (HangNext) included.
func (s *Server) Connections() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.connections
}

// WaitCount waits until the server received at least n messages, failing
// t after timeout.
func (s *Server) WaitCount(t testing.TB, n int, timeout time.Duration) {
	t.Helper()
	s.Wait(t, timeout, fmt.Sprintf("%d messages received", n), func() bool { return s.Count() >= n })
}

// Wait waits until cond, evaluated on every change of the server's state
// (a connection, a DATA, a message), is true, failing t with what after
// timeout.
func (s *Server) Wait(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	for {
		s.mu.Lock()
		ch := s.changed
		s.mu.Unlock()
		if cond() {
			return
		}
		select {
		case <-ch:
		case <-timer.C:
			t.Fatalf("testsmtp: waited %v for %s (received %d, attempts %d, connections %d)",
				timeout, what, s.Count(), s.Attempts(), s.Connections())
		}
	}
}

// notify wakes the waiters; s.mu is held.
func (s *Server) notify() {
	close(s.changed)
	s.changed = make(chan struct{})
}

// FailNext makes the server answer the next command of stage ("MAIL",
// "RCPT" or "DATA") with code and msg (e.g. 421, 451, 550, 554). A "DATA"
// failure is the reply to the end of the data: the message is read, then
// refused (not received). Faults of a stage are consumed in the order they
// were queued, one per command (DATA faults of FailNext, DropAfterData and
// HoldDataReply share one queue).
func (s *Server) FailNext(stage string, code int, msg string) {
	stage = strings.ToUpper(stage)
	switch stage {
	case "MAIL", "RCPT", "DATA":
	default:
		panic("testsmtp: FailNext: stage " + stage + " is not MAIL, RCPT or DATA")
	}
	if code < 400 || code > 599 {
		panic(fmt.Sprintf("testsmtp: FailNext: code %d is not 4xx or 5xx", code))
	}
	s.queue(stage, fault{kind: failReply, code: code, msg: msg})
}

// DropAfterData makes the server read the next message whole, then close
// the connection without replying: the client sees a connection error,
// the message is not received.
func (s *Server) DropAfterData() { s.queue("DATA", fault{kind: dropAfterData}) }

// HangNext makes the server accept the next connection and never answer
// (not even the greeting, nor a TLS handshake) until it stops.
func (s *Server) HangNext() { s.queue("conn", fault{kind: hang}) }

// HoldDataReply makes the server receive the next message (it counts) and
// hold the reply to its end until release is called (or the server stops).
// release may be called more than once.
func (s *Server) HoldDataReply() (release func()) {
	ch := make(chan struct{})
	s.queue("DATA", fault{kind: holdReply, release: ch})
	var once sync.Once
	return func() { once.Do(func() { close(ch) }) }
}

func (s *Server) queue(stage string, f fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults[stage] = append(s.faults[stage], f)
}

// next pops the next fault of stage; s.mu is held.
func (s *Server) next(stage string) (fault, bool) {
	q := s.faults[stage]
	if len(q) == 0 {
		return fault{}, false
	}
	s.faults[stage] = q[1:]
	return q[0], true
}

// listener counts connections and holds the hung ones.
type listener struct {
	net.Listener
	s *Server
}

func (l *listener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		s := l.s
		s.mu.Lock()
		s.connections++
		s.notify()
		f, ok := s.next("conn")
		if ok && f.kind == hang {
			select {
			case <-s.closed:
				c.Close()
			default:
				s.hung = append(s.hung, c)
			}
			s.mu.Unlock()
			continue
		}
		s.mu.Unlock()
		return c, nil
	}
}

// backend makes the sessions.
type backend struct{ s *Server }

func (b backend) NewSession(c *smtp.Conn) (smtp.Session, error) {
	return &session{s: b.s, conn: c}, nil
}

// session is one connection's state.
type session struct {
	s      *Server
	conn   *smtp.Conn
	authed bool
	from   string
	to     []string
}

var _ smtp.AuthSession = (*session)(nil)

func (ss *session) AuthMechanisms() []string {
	if ss.s.o.User == "" {
		return nil
	}
	return []string{sasl.Plain}
}

func (ss *session) Auth(mech string) (sasl.Server, error) {
	if ss.s.o.User == "" || mech != sasl.Plain {
		return nil, smtp.ErrAuthUnknownMechanism
	}
	return sasl.NewPlainServer(func(identity, user, password string) error {
		if (identity != "" && identity != user) || user != ss.s.o.User || password != ss.s.o.Password {
			return smtp.ErrAuthFailed
		}
		ss.authed = true
		return nil
	}), nil
}

var errAuthRequired = &smtp.SMTPError{Code: 530, EnhancedCode: smtp.EnhancedCode{5, 7, 0}, Message: "Authentication required"}

func (ss *session) Mail(from string, _ *smtp.MailOptions) error {
	if ss.s.o.User != "" && !ss.authed {
		return errAuthRequired
	}
	if err := ss.fault("MAIL"); err != nil {
		return err
	}
	ss.from, ss.to = from, nil
	return nil
}

func (ss *session) Rcpt(to string, _ *smtp.RcptOptions) error {
	if err := ss.fault("RCPT"); err != nil {
		return err
	}
	ss.to = append(ss.to, to)
	return nil
}

// fault returns the reply of the next fault of stage, if any.
func (ss *session) fault(stage string) error {
	ss.s.mu.Lock()
	defer ss.s.mu.Unlock()
	if f, ok := ss.s.next(stage); ok {
		return &smtp.SMTPError{Code: f.code, EnhancedCode: smtp.NoEnhancedCode, Message: f.msg}
	}
	return nil
}

func (ss *session) Data(r io.Reader) error {
	s := ss.s
	s.mu.Lock()
	s.attempts++
	f, faulty := s.next("DATA")
	s.notify()
	s.mu.Unlock()

	raw, err := io.ReadAll(r)
	if err != nil {
		s.mu.Lock()
		s.discarded++
		s.notify()
		s.mu.Unlock()
		return err
	}
	if faulty {
		switch f.kind {
		case failReply:
			return &smtp.SMTPError{Code: f.code, EnhancedCode: smtp.NoEnhancedCode, Message: f.msg}
		case dropAfterData:
			ss.conn.Conn().Close()
			return errors.New("testsmtp: dropped")
		}
	}
	m := parse(raw)
	m.From, m.To = ss.from, append([]string(nil), ss.to...)
	s.mu.Lock()
	s.messages = append(s.messages, m)
	s.notify()
	s.mu.Unlock()
	if faulty && f.kind == holdReply {
		select {
		case <-f.release:
		case <-s.closed:
		}
	}
	return nil
}

func (ss *session) Reset() { ss.from, ss.to = "", nil }

func (ss *session) Logout() error { return nil }

type discardLog struct{}

func (discardLog) Printf(string, ...any) {}
func (discardLog) Println(...any)        {}
