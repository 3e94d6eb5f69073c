package einvoice

import (
	"context"
	"time"
)

// AuthorityBudget hands out the send times of calls to the tax authority so
// that, per key (an endpoint of one client of the authority), no window of
// the given length holds more than limit sends: a sliding window, with
// bursts up to the limit. Send times are handed out in the order of the
// reservations (first come, first served). The in-memory budget of package
// myinvois serves one process; sqlstore's keeps the budgets in the database,
// where every replica on it shares them.
//
// Times come from the caller's clock (the replica's), as for RateLimiter.
type AuthorityBudget interface {
	// Reserve computes the next send time of key at or after now: after
	// every send time handed out before, after any Block, and a window
	// after the limit-th last one. When it is no later than latest the
	// send time is taken (ok); otherwise nothing changes, and sendAt is the
	// time that would have been given. err is a failure of the budget's
	// storage (nothing is known to have been taken).
	Reserve(ctx context.Context, key string, limit int, window time.Duration, now, latest time.Time) (sendAt time.Time, ok bool, err error)
	// Block makes key send nothing before until (after a 429 with
	// Retry-After); an earlier until than the current block changes
	// nothing. err is a failure of the budget's storage.
	Block(ctx context.Context, key string, until time.Time) error
}
