package people

import (
	"context"
	"log/slog"
	"strings"
	"time"

	"github.com/einvoice/einvoice/internal/einvoice"
)

// Store is what people needs of the database.
type Store interface {
	einvoice.UserStore
	einvoice.SessionStore
	GetTenant(ctx context.Context, id string) (*einvoice.Tenant, error)
}

// Notifier queues a message to a person (the mail outbox); the links it
// carries are single use.
type Notifier func(ctx context.Context, tenantID string, to []string, subject, body string) error

// Options are the dependencies and settings of a Service.
type Options struct {
	Store Store
	// Notify mails invitations and password resets; when nil, or when
	// MailConfigured is false, the inviting admin is shown the link to copy
	// (the message is still queued, kept in the service's mailbox).
	Notify         Notifier
	MailConfigured bool
	// BaseURL is where the dashboard is, for the links (http://127.0.0.1).
	BaseURL string
	// Argon2 are the password hash's parameters (DefaultArgon2 when zero).
	Argon2 Argon2Params
	// Now is the clock (time.Now when nil).
	Now func() time.Time
	// NewID makes a new sortable id (UUID v7).
	NewID  func() string
	Logger *slog.Logger
}

// Service is the people capability. It is made once, by New, and not
// changed after.
type Service struct {
	store          Store
	notify         Notifier
	mailConfigured bool
	baseURL        string
	argon2         Argon2Params
	dummyHash      string
	limiter        *addressLimiter
	clock          func() time.Time
	newID          func() string
	log            *slog.Logger
}

// New returns a Service with defaults filled in.
func New(o Options) *Service {
	s := &Service{store: o.Store, notify: o.Notify, mailConfigured: o.MailConfigured && o.Notify != nil,
		baseURL: strings.TrimRight(o.BaseURL, "/"), argon2: o.Argon2, clock: o.Now, newID: o.NewID, log: o.Logger}
	if s.argon2 == (Argon2Params{}) {
		s.argon2 = DefaultArgon2
	}
	if s.baseURL == "" {
		s.baseURL = "http://127.0.0.1"
	}
	if s.clock == nil {
		s.clock = time.Now
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	s.limiter = newAddressLimiter(signInsPerAddress, time.Minute)
	// A hash that no password matches: an unknown e-mail is checked against
	// it, so that it costs what a known one does. It is made without
	// hashing (a random key), so that New costs no hash.
	s.dummyHash = s.unmatchableHash()
	return s
}

func (s *Service) now() time.Time { return s.clock().UTC().Truncate(time.Microsecond) }

// MailConfigured reports whether links go out by mail (else the inviting
// admin copies them).
func (s *Service) MailConfigured() bool { return s.mailConfigured }
