package invoicing

import (
	"context"
	"time"
)

// housekeepingEvery is how often the housekeeping loop purges.
const housekeepingEvery = time.Hour

// HousekeepingOnce purges what has outlived its retention: events older
// than 30 days, the dashboard's ended sessions and expired idempotency
// keys. Each purge is tried whatever became of the others; the errors are
// logged.
func (s *Service) HousekeepingOnce(ctx context.Context) {
	if _, err := s.PurgeEvents(ctx); err != nil && ctx.Err() == nil {
		s.log.WarnContext(ctx, "purge events", "error", err)
	}
	if _, err := s.PurgeSessions(ctx); err != nil && ctx.Err() == nil {
		s.log.WarnContext(ctx, "purge sessions", "error", err)
	}
	s.PurgeIdempotencyKeys(ctx)
}

// housekeepingLoop runs HousekeepingOnce now and hourly until ctx ends,
// whatever other loop is switched off.
func (s *Service) housekeepingLoop(ctx context.Context) {
	for {
		s.HousekeepingOnce(ctx)
		select {
		case <-ctx.Done():
			return
		case <-time.After(housekeepingEvery):
		}
	}
}
