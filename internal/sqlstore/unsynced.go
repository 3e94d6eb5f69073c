package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"sync"
)

// unsyncedConns and hooksConns are the sizes of the PostgreSQL pools of
// unsynced writes and of webhook deliveries.
const (
	unsyncedConns = 8
	hooksConns    = 4
)

// unsyncedDB returns the pool for the small, frequent writes that may be
// lost in a crash without harm (rate-limit windows, the authority's
// budgets): on PostgreSQL a pool of its own with synchronous_commit off,
// opened on first use and closed with the store, so that none of them waits
// for a WAL flush; on SQLite the write pool.
func (s *Store) unsyncedDB() (*sql.DB, error) {
	if s.engine != Postgres {
		return s.w, nil
	}
	return s.unsynced.open(s.dsn, unsyncedConns)
}

// lazyPool is a PostgreSQL pool with synchronous_commit off, opened on
// first use.
type lazyPool struct {
	once sync.Once
	db   *sql.DB
	err  error
}

func (p *lazyPool) open(dsn string, conns int) (*sql.DB, error) {
	p.once.Do(func() {
		u, err := url.Parse(dsn)
		if err != nil {
			p.err = fmt.Errorf("unsynced pool: %w", err)
			return
		}
		q := u.Query()
		q.Set("synchronous_commit", "off")
		u.RawQuery = q.Encode()
		db, err := sql.Open("pgx", u.String())
		if err != nil {
			p.err = fmt.Errorf("unsynced pool: %w", err)
			return
		}
		db.SetMaxOpenConns(conns)
		db.SetMaxIdleConns(conns)
		p.db = db
	})
	return p.db, p.err
}

// hooksTx is tx through an unsynced pool of its own on PostgreSQL (tx itself on
// SQLite): for the writes whose loss in a crash costs only a repetition,
// such as a webhook delivery's lease and attempt (a delivery whose record
// is lost is delivered again: at least once).
func (s *Store) hooksTx(ctx context.Context, fn txFunc) error {
	if s.engine != Postgres {
		return s.tx(ctx, fn)
	}
	db, err := s.hooks.open(s.dsn, hooksConns)
	if err != nil {
		return err
	}
	return retryTx(ctx, db, fn)
}
