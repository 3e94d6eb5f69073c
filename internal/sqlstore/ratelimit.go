package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/einvoice/einvoice/internal/einvoice"
)

// RateLimiter is an einvoice.RateLimiter whose windows live in the
// database, so that every replica on it counts against the same limit. One
// upsert per request: it opens a new window when the previous one has
// closed, and counts the request otherwise.
//
// On PostgreSQL it writes through the store's pool of unsynced writes
// (synchronous_commit off): a count lost in a crash costs nothing, and no
// request waits for a WAL flush to be counted.
type RateLimiter struct {
	db     *sql.DB
	limit  int
	window time.Duration
}

var _ einvoice.RateLimiter = (*RateLimiter)(nil)

// NewRateLimiter returns a limiter of limit requests per window on the
// store's database. It needs no closing: its pool is the store's.
func NewRateLimiter(s *Store, limit int, window time.Duration) (*RateLimiter, error) {
	db, err := s.unsyncedDB()
	if err != nil {
		return nil, fmt.Errorf("rate limiter: %w", err)
	}
	return &RateLimiter{db: db, limit: limit, window: window}, nil
}

// Allow counts one request of keyID at now.
func (l *RateLimiter) Allow(ctx context.Context, keyID string, now time.Time) (einvoice.RateDecision, error) {
	var start, hits int64
	nowUS, windowUS := micros(now), l.window.Microseconds()
	err := l.db.QueryRowContext(ctx, `INSERT INTO rate_windows (key_id, window_start, hits) VALUES ($1, $2, 1)
		ON CONFLICT (key_id) DO UPDATE SET
			hits = CASE WHEN rate_windows.window_start + $3 <= $2 THEN 1 ELSE rate_windows.hits + 1 END,
			window_start = CASE WHEN rate_windows.window_start + $3 <= $2 THEN $2 ELSE rate_windows.window_start END
		RETURNING window_start, hits`, keyID, nowUS, windowUS).Scan(&start, &hits)
	if err != nil {
		return einvoice.RateDecision{}, fmt.Errorf("rate limit: %w", err)
	}
	// Replicas' clocks differ (and concurrent first requests race), so a
	// window may have been opened a little after this caller's now: its
	// reset is then never reported as further away than one window.
	return einvoice.RateDecision{
		Allowed:   hits <= int64(l.limit),
		Limit:     l.limit,
		Remaining: max(0, l.limit-int(hits)),
		Reset:     fromMicros(min(start, nowUS) + windowUS),
	}, nil
}
