package sandbox

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// tx runs fn in a transaction, retrying PostgreSQL serialization failures
// and deadlocks a few times. fn must use only the transaction (on SQLite the
// write pool has one connection) and must not call out.
func (s *Server) tx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	for attempt := 0; ; attempt++ {
		err := s.tx1(ctx, fn)
		var pg *pgconn.PgError
		if attempt < 4 && errors.As(err, &pg) && (pg.Code == "40001" || pg.Code == "40P01") {
			continue
		}
		return err
	}
}

func (s *Server) tx1(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	if err := fn(tx); err != nil {
		_ = tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

// forUpdate is the row-lock suffix of a SELECT on engines that have one
// (SQLite serializes writers instead).
func (s *Server) forUpdate() string {
	if s.postgres {
		return " FOR UPDATE"
	}
	return ""
}

// sweepEvery is how often expired tokens, payload hashes and duplicate keys
// are removed.
const sweepEvery = time.Minute

// sweep removes expired rows, at most once per sweepEvery per Server. A
// failure is logged only: the rows are removed on a later sweep.
func (s *Server) sweep(r *http.Request, now time.Time) {
	last := s.swept.Load()
	if micros(now)-last < sweepEvery.Microseconds() || !s.swept.CompareAndSwap(last, micros(now)) {
		return
	}
	ctx := r.Context()
	for _, q := range []struct {
		sql    string
		before time.Time
	}{
		{`DELETE FROM sandbox_tokens WHERE expires_at < $1`, now.Add(-time.Hour)},
		{`DELETE FROM sandbox_payloads WHERE received_at < $1`, now.Add(-duplicatePayloadWindow)},
		{`DELETE FROM sandbox_duplicate_keys WHERE received_at < $1`, now.Add(-duplicateDocumentWindow)},
		{`DELETE FROM sandbox_rate_windows WHERE window_start < $1`, now.Add(-time.Hour)},
	} {
		if _, err := s.db.ExecContext(ctx, q.sql, micros(q.before)); err != nil {
			s.log.Warn("sandbox: sweep", "err", err)
			return
		}
	}
}

// micros and fromMicros convert times to and from the stored unix
// microseconds.
func micros(t time.Time) int64 { return t.UnixMicro() }

func fromMicros(us int64) time.Time { return time.UnixMicro(us).UTC() }

func nullMicros(n sql.NullInt64) *time.Time {
	if !n.Valid {
		return nil
	}
	t := fromMicros(n.Int64)
	return &t
}

// formatTime writes a time as the authority does: RFC 3339 in UTC.
func formatTime(t time.Time) string { return t.UTC().Format(time.RFC3339) }

func formatTimePtr(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := formatTime(*t)
	return &s
}
