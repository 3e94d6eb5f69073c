package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/einvoice/einvoice/internal/einvoice"
)

// AuthorityBudget is an einvoice.AuthorityBudget in the database
// (authority_budgets), so that every replica on it keeps one budget per
// endpoint of a client of the tax authority, as the authority counts it.
//
// A key's row holds its last `limit` send times, ascending, as 16-digit
// unix microseconds in one text (a ring), its block (after a 429) and the
// last answer. A reservation is one upsert: the statement reads the ring of
// the row it has locked, computes the send time (the latest of now, the
// block, the last send, and a window after the limit-th last), appends it
// when it is no later than the caller's bound, and returns it. One
// statement on one row is atomic on both engines (SQLite has one writer;
// PostgreSQL evaluates an upsert's SET on the row version it locked), so
// replicas reserving at once never put more than limit sends in a window.
//
// Durability: on PostgreSQL the statements go through the store's unsynced
// pool (synchronous_commit off) and never wait for a WAL flush; on SQLite
// they join the group commit and share its fsync. Either way a reservation
// lost in a crash only makes the budget more generous by that one slot, and
// a 429 that may follow is honoured like any other.
//
// Times are the caller's (the replica's clock, as for the rate limiter):
// waits run on that clock, and the one second by which the client's window
// exceeds the authority's minute absorbs the skew between replicas.
type AuthorityBudget struct {
	s  *Store
	db *sql.DB
}

var _ einvoice.AuthorityBudget = (*AuthorityBudget)(nil)

// NewAuthorityBudget returns the budgets kept in the store's database. It
// needs no closing: its pools are the store's.
func NewAuthorityBudget(s *Store) (*AuthorityBudget, error) {
	db, err := s.unsyncedDB()
	if err != nil {
		return nil, fmt.Errorf("authority budget: %w", err)
	}
	return &AuthorityBudget{s: s, db: db}, nil
}

// reserveSQL is one reservation. $1 key, $2 now, $3 window, $4 limit (all
// microseconds but the limit), $5 the latest send time the caller takes,
// $6 now as 16 digits (a new key's ring). In the ring, send i (from 0) is
// the 16 characters from i*16+1; n = length(sends)/16.
const reserveSQL = `INSERT INTO authority_budgets AS b (key, sends, blocked, answer) VALUES ($1, $6, 0, CAST($2 AS BIGINT))
	ON CONFLICT (key) DO UPDATE SET (sends, answer) = (
		SELECT CASE WHEN x.s <= $5
				THEN substr(b.sends || substr('0000000000000000' || CAST(x.s AS TEXT), length(CAST(x.s AS TEXT)) + 1),
					CASE WHEN length(b.sends) / 16 >= $4 THEN (length(b.sends) / 16 + 1 - $4) * 16 + 1 ELSE 1 END)
				ELSE b.sends END,
			x.s
		FROM (SELECT max(column1) AS s FROM (VALUES
			(CAST($2 AS BIGINT)),
			(b.blocked),
			(CASE WHEN b.sends = '' THEN 0 ELSE CAST(substr(b.sends, length(b.sends) - 15) AS BIGINT) END),
			(CASE WHEN length(b.sends) / 16 >= $4
				THEN CAST(substr(b.sends, (length(b.sends) / 16 - $4) * 16 + 1, 16) AS BIGINT) + $3 ELSE 0 END)
		) AS v) AS x)
	RETURNING answer`

// blockSQL moves a key's block forward. $1 key, $2 until (microseconds).
const blockSQL = `INSERT INTO authority_budgets AS b (key, sends, blocked, answer) VALUES ($1, '', $2, 0)
	ON CONFLICT (key) DO UPDATE SET blocked = CASE WHEN b.blocked < $2 THEN $2 ELSE b.blocked END
	RETURNING blocked`

// Reserve takes the next send time of key when it is no later than latest
// (see einvoice.AuthorityBudget).
func (b *AuthorityBudget) Reserve(ctx context.Context, key string, limit int, window time.Duration, now, latest time.Time) (time.Time, bool, error) {
	if limit < 1 {
		return time.Time{}, false, fmt.Errorf("authority budget %s: limit %d is not positive", key, limit)
	}
	if latest.Before(now) {
		return now, false, nil
	}
	nowUS := micros(now)
	var answer int64
	err := b.write(ctx, reserveSQL, []any{key, nowUS, window.Microseconds(), limit, micros(latest), fmt.Sprintf("%016d", nowUS)}, &answer)
	if err != nil {
		return time.Time{}, false, fmt.Errorf("authority budget %s: reserve: %w", key, err)
	}
	return fromMicros(answer), answer <= micros(latest), nil
}

// Block makes key send nothing before until.
func (b *AuthorityBudget) Block(ctx context.Context, key string, until time.Time) error {
	var blocked int64
	if err := b.write(ctx, blockSQL, []any{key, micros(until)}, &blocked); err != nil {
		return fmt.Errorf("authority budget %s: block: %w", key, err)
	}
	return nil
}

// write runs one statement and scans the row it returns into dest: on
// SQLite in the next group commit, through its prepared statement; on
// PostgreSQL on the unsynced pool, as a transaction of its own.
func (b *AuthorityBudget) write(ctx context.Context, query string, args []any, dest ...any) error {
	if b.s.group == nil {
		return b.db.QueryRowContext(ctx, query, args...).Scan(dest...)
	}
	st, err := b.s.ws.stmt(ctx, query)
	if err != nil {
		return err
	}
	return b.s.group.do(ctx, func(ctx context.Context, tx *sql.Tx) error {
		return tx.StmtContext(ctx, st).QueryRowContext(ctx, args...).Scan(dest...)
	})
}
