package access

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/einvoice/einvoice/internal/einvoice"
)

// Store is what access needs of the database: tenants and their API keys.
// A store that is also an einvoice.IdempotencyStore keeps idempotency keys.
type Store interface {
	einvoice.TenantStore
	einvoice.APIKeyStore
}

// Options are the dependencies and settings of a Service.
type Options struct {
	// Store keeps tenants, keys (and idempotency keys).
	Store Store
	// KeyCacheTTL, when positive, keeps authenticated keys in memory that
	// long, so that most requests cost no key lookup. A revoked key then
	// keeps working for at most that long.
	KeyCacheTTL time.Duration
	// Now is the clock (time.Now when nil).
	Now func() time.Time
	// NewID makes a new sortable id (UUID v7).
	NewID  func() string
	Logger *slog.Logger
}

// Service is who may call: tenants and their API keys, the dashboard's
// sessions, and the idempotency keys of requests. It is made once, by New,
// and not changed after.
type Service struct {
	store       Store
	keyCacheTTL time.Duration
	keyCache    sync.Map // [sha256.Size]byte -> cachedKey
	// idemPurged is when expired idempotency keys were last purged (unix
	// nanoseconds).
	idemPurged atomic.Int64
	clock      func() time.Time
	newID      func() string
	log        *slog.Logger
}

// New returns a Service with defaults filled in.
func New(o Options) *Service {
	s := &Service{store: o.Store, keyCacheTTL: o.KeyCacheTTL, clock: o.Now, newID: o.NewID, log: o.Logger}
	if s.clock == nil {
		s.clock = time.Now
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	return s
}

func (s *Service) now() time.Time { return s.clock().UTC().Truncate(time.Microsecond) }

// PurgeIdempotencyKeys deletes the expired idempotency keys, at most once a
// minute per process; a failure is logged and left to the next.
func (s *Service) PurgeIdempotencyKeys(ctx context.Context) {
	if st, ok := s.store.(einvoice.IdempotencyStore); ok {
		s.purgeIdempotencyKeys(ctx, st, s.now())
	}
}
