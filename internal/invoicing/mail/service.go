package mail

import (
	"context"
	"log/slog"
	"time"

	"github.com/einvoice/einvoice/internal/einvoice"
)

// Store is what the mail capability keeps: the outbox and the settings,
// with the events its outcomes write.
type Store interface {
	einvoice.MailStore
}

// Document is what the mail capability needs of a document: who it goes
// to and what its templates say.
type Document struct {
	ID       string
	TenantID string
	// Valid: the document is Valid (only a Valid document is shared).
	Valid bool
	// Recipient is the buyer's e-mail (the on-behalf seller's of a
	// self-billed kind); "" or "NA" when it has none.
	Recipient string
	// RecipientRole names whose e-mail Recipient is ("buyer", "seller").
	RecipientRole string
	Fields        Fields
}

// Options are the dependencies and settings of a Service.
type Options struct {
	Store Store
	// Sender sends through the operator's mail server; when nil, every
	// message is kept in the service's mailbox.
	Sender einvoice.MailSender
	// Document returns a tenant's document as the mail needs it; PDF its
	// visual e-invoice. Both are the invoicing service's.
	Document func(ctx context.Context, tenantID, id string) (*Document, error)
	PDF      func(ctx context.Context, tenantID, id string) (einvoice.MailAttachment, error)
	// Notify is called after events were written (wakes the webhook
	// delivery workers); nothing when nil.
	Notify func()
	// Workers is the number of sending workers Run starts (1).
	Workers int
	// RetryBase is the first retry delay of a temporary failure (30 s, with
	// jitter); it doubles per attempt up to an hour, for MailRetryFor.
	RetryBase time.Duration
	// Lease is how long a claimed message is held (2 minutes): longer than
	// one attempt (the sender's timeouts) with the PDF's rendering.
	Lease time.Duration
	// Idle is how long an idle worker waits for work it was not woken for
	// (1 s).
	Idle time.Duration
	// Now is the clock (time.Now when nil).
	Now func() time.Time
	// NewID makes a new sortable id (UUID v7).
	NewID  func() string
	Logger *slog.Logger
}

// Service is the mail capability. It is made once, by New, and not
// changed after.
type Service struct {
	store     Store
	sender    einvoice.MailSender
	document  func(ctx context.Context, tenantID, id string) (*Document, error)
	pdf       func(ctx context.Context, tenantID, id string) (einvoice.MailAttachment, error)
	notify    func()
	workers   int
	retryBase time.Duration
	lease     time.Duration
	idle      time.Duration
	clock     func() time.Time
	newID     func() string
	log       *slog.Logger
	wake      chan struct{}
}

// New returns a Service with defaults filled in.
func New(o Options) *Service {
	s := &Service{store: o.Store, sender: o.Sender, document: o.Document, pdf: o.PDF, notify: o.Notify, workers: o.Workers,
		retryBase: o.RetryBase, lease: o.Lease, idle: o.Idle, clock: o.Now, newID: o.NewID, log: o.Logger,
		wake: make(chan struct{}, 1)}
	if s.notify == nil {
		s.notify = func() {}
	}
	if s.workers <= 0 {
		s.workers = 1
	}
	if s.retryBase <= 0 {
		s.retryBase = 30 * time.Second
	}
	if s.lease <= 0 {
		s.lease = 2 * time.Minute
	}
	if s.idle <= 0 {
		s.idle = time.Second
	}
	if s.clock == nil {
		s.clock = time.Now
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	return s
}

// HasSender reports whether a mail server is configured.
func (s *Service) HasSender() bool { return s.sender != nil }

func (s *Service) now() time.Time { return s.clock().UTC().Truncate(time.Microsecond) }

// WakeMail wakes one idle sending worker of this process: a message was
// just written.
func (s *Service) WakeMail() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}
