package webhooks

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/einvoice/einvoice/internal/einvoice"
)

// Store is what the webhooks keep: the events and the webhooks with their
// deliveries.
type Store interface {
	einvoice.EventStore
	einvoice.WebhookStore
}

// Options are the dependencies and settings of a Service.
type Options struct {
	// Store keeps the events, webhooks and deliveries.
	Store Store
	// Sender delivers webhook requests; when nil, events are recorded and
	// queued but Run delivers none.
	Sender einvoice.WebhookSender
	// AllowPrivate lets webhook URLs name loopback and private addresses
	// (tests, private networks).
	AllowPrivate bool
	// Workers is the number of delivery workers Run starts (4).
	Workers int
	// RetryBase is the first retry delay of a failed delivery (5 s, with
	// jitter); it doubles per attempt up to an hour.
	RetryBase time.Duration
	// OnDelivery, when set, is told the outcome of every delivery attempt
	// (delivered, failed, gave_up) and its duration.
	OnDelivery func(outcome string, d time.Duration)
	// Now is the clock (time.Now when nil).
	Now func() time.Time
	// NewID makes a new sortable id (UUID v7).
	NewID  func() string
	Logger *slog.Logger
}

// Service manages the tenants' webhooks, lists their events and delivers
// the events to the webhooks. It is made once, by New, and not changed
// after.
type Service struct {
	store        Store
	sender       einvoice.WebhookSender
	allowPrivate bool
	workers      int
	retryBase    time.Duration
	onDelivery   func(outcome string, d time.Duration)
	clock        func() time.Time
	newID        func() string
	log          *slog.Logger
	// wake tells a delivery worker of this process that an event was
	// just written.
	wake chan struct{}
}

// New returns a Service with defaults filled in.
func New(o Options) *Service {
	s := &Service{store: o.Store, sender: o.Sender, allowPrivate: o.AllowPrivate, workers: o.Workers,
		retryBase: o.RetryBase, onDelivery: o.OnDelivery, clock: o.Now, newID: o.NewID, log: o.Logger,
		wake: make(chan struct{}, 1)}
	if s.workers <= 0 {
		s.workers = 4
	}
	if s.retryBase <= 0 {
		s.retryBase = 5 * time.Second
	}
	if s.onDelivery == nil {
		s.onDelivery = func(string, time.Duration) {}
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

// ListEvents returns one page of the tenant's events.
func (s *Service) ListEvents(ctx context.Context, tenantID string, f einvoice.EventFilter) (einvoice.Page[*einvoice.APIEvent], error) {
	if f.Type != "" && !einvoice.KnownEventType(f.Type) {
		return einvoice.Page[*einvoice.APIEvent]{}, einvoice.FieldErrors{"type": {"is not an event type"}}.Err()
	}
	p, err := s.store.ListEvents(ctx, tenantID, f)
	if errors.Is(err, einvoice.ErrNotFound) {
		return p, einvoice.FieldErrors{"after": {"is not the id of an event of yours (events are kept 30 days)"}}.Err()
	}
	if err != nil {
		return p, fmt.Errorf("list events: %w", err)
	}
	return p, nil
}

// PurgeEvents deletes the events older than their retention (30 days), with
// their deliveries.
func (s *Service) PurgeEvents(ctx context.Context) (int, error) {
	n, err := s.store.PurgeEvents(ctx, s.now().Add(-einvoice.EventRetention))
	if err != nil {
		return 0, fmt.Errorf("purge events: %w", err)
	}
	if n > 0 {
		s.log.InfoContext(ctx, "old events purged", "events", n)
	}
	return n, nil
}
