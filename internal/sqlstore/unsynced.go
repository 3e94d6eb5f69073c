package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"strconv"
	"sync"
)

// DefaultPoolMaxConns is how many PostgreSQL connections one process opens
// at most, over its pools, unless its database URL says otherwise with
// pool_max_conns (the parameter's name in pgxpool): an operator running
// several replicas against one server's max_connections (100 by default)
// bounds each with it.
const DefaultPoolMaxConns = 32

// poolSizes are the sizes of a process's PostgreSQL pools: the main one
// (requests and workers), the unsynced writes', and the webhook
// deliveries'.
type poolSizes struct{ main, unsynced, hooks int }

// postgresPools reads pool_max_conns from a PostgreSQL URL (removing it:
// the server would take it for a setting of its own) and shares it among
// the pools, 5/8, 1/4 and 1/8 (20, 8 and 4 of the default 32); the main
// pool keeps at least 4 connections, the others 1.
func postgresPools(dsn string) (string, poolSizes, error) {
	u, err := url.Parse(dsn)
	if err != nil {
		return "", poolSizes{}, fmt.Errorf("open postgres: the URL: %w", err)
	}
	n := DefaultPoolMaxConns
	q := u.Query()
	if v := q.Get("pool_max_conns"); v != "" {
		if n, err = strconv.Atoi(v); err != nil || n < 6 || n > 1000 {
			return "", poolSizes{}, fmt.Errorf("open postgres: pool_max_conns=%q: want a number from 6 to 1000", v)
		}
		q.Del("pool_max_conns")
		u.RawQuery = q.Encode()
		dsn = u.String()
	}
	return dsn, poolSizes{main: max(4, n*5/8), unsynced: max(1, n/4), hooks: max(1, n/8)}, nil
}

// unsyncedDB returns the pool for the small, frequent writes that may be
// lost in a crash without harm (rate-limit windows, the authority's
// budgets): on PostgreSQL a pool of its own with synchronous_commit off,
// opened on first use and closed with the store, so that none of them waits
// for a WAL flush; on SQLite the write pool.
func (s *Store) unsyncedDB() (*sql.DB, error) {
	if s.engine != Postgres {
		return s.w, nil
	}
	return s.unsynced.open(s.dsn, s.pools.unsynced)
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
	db, err := s.hooks.open(s.dsn, s.pools.hooks)
	if err != nil {
		return err
	}
	return retryTx(ctx, db, fn)
}
