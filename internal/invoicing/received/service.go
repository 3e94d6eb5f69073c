package received

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/einvoice/einvoice/internal/einvoice"
)

// Store is what the received documents need of the database: the received
// documents and their pollers, and the tenants they are polled for.
type Store interface {
	einvoice.ReceivedStore
	GetTenant(ctx context.Context, id string) (*einvoice.Tenant, error)
	ListTenants(ctx context.Context) ([]*einvoice.Tenant, error)
}

// Options are the dependencies and settings of a Service.
type Options struct {
	// Store keeps the received documents.
	Store Store
	// Authority is the tax authority's API of received documents; when
	// nil, nothing is polled and nothing can be rejected.
	Authority einvoice.ReceivedAPI
	// Credentials returns a tenant's login at its authority environment.
	Credentials func(t *einvoice.Tenant) (einvoice.Credentials, error)
	// Notify is called after events were written (wakes the webhook
	// delivery workers); nothing when nil.
	Notify func()
	// Interval is how often each tenant's received documents are looked
	// for (a minute; DECISIONS 16).
	Interval time.Duration
	// Wait bounds a call to the authority made within a request (10 s).
	Wait time.Duration
	// Lease is how long a tenant's poller is held by a pass (60 s).
	Lease time.Duration
	// Idle is how long the poller rests when no pass was due (1 s).
	Idle time.Duration
	// Now is the clock (time.Now when nil).
	Now func() time.Time
	// NewID makes a new sortable id (UUID v7).
	NewID  func() string
	Logger *slog.Logger
}

// Service is the received documents: the poller that finds each tenant's
// received documents at the authority, and their list, view, raw form and
// rejection. It is made once, by New, and not changed after.
type Service struct {
	store       Store
	authority   einvoice.ReceivedAPI
	credentials func(t *einvoice.Tenant) (einvoice.Credentials, error)
	notify      func()
	interval    time.Duration
	wait        time.Duration
	lease       time.Duration
	idle        time.Duration
	clock       func() time.Time
	newID       func() string
	log         *slog.Logger
	states      sync.Map // tenant id -> *receivedState
}

// New returns a Service with defaults filled in.
func New(o Options) *Service {
	s := &Service{store: o.Store, authority: o.Authority, credentials: o.Credentials, notify: o.Notify,
		interval: o.Interval, wait: o.Wait, lease: o.Lease, idle: o.Idle, clock: o.Now, newID: o.NewID, log: o.Logger}
	if s.notify == nil {
		s.notify = func() {}
	}
	if s.interval <= 0 {
		s.interval = time.Minute
	}
	if s.wait <= 0 {
		s.wait = 10 * time.Second
	}
	if s.lease <= 0 {
		s.lease = 6 * s.wait
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

func (s *Service) now() time.Time { return s.clock().UTC().Truncate(time.Microsecond) }

// tenant reads a tenant.
func (s *Service) tenant(ctx context.Context, id string) (*einvoice.Tenant, error) {
	t, err := s.store.GetTenant(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("tenant %s: %w", id, err)
	}
	return t, nil
}
