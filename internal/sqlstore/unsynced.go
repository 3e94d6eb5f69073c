package sqlstore

import (
	"database/sql"
	"fmt"
	"net/url"
)

// unsyncedConns is the size of the PostgreSQL pool of unsynced writes.
const unsyncedConns = 8

// unsyncedDB returns the pool for the small, frequent writes that may be
// lost in a crash without harm (rate-limit windows, the authority's
// budgets): on PostgreSQL a pool of its own with synchronous_commit off,
// opened on first use and closed with the store, so that none of them waits
// for a WAL flush; on SQLite the write pool.
func (s *Store) unsyncedDB() (*sql.DB, error) {
	if s.engine != Postgres {
		return s.w, nil
	}
	s.unsynced.once.Do(func() {
		u, err := url.Parse(s.dsn)
		if err != nil {
			s.unsynced.err = fmt.Errorf("unsynced pool: %w", err)
			return
		}
		q := u.Query()
		q.Set("synchronous_commit", "off")
		u.RawQuery = q.Encode()
		db, err := sql.Open("pgx", u.String())
		if err != nil {
			s.unsynced.err = fmt.Errorf("unsynced pool: %w", err)
			return
		}
		db.SetMaxOpenConns(unsyncedConns)
		db.SetMaxIdleConns(unsyncedConns)
		s.unsynced.db = db
	})
	return s.unsynced.db, s.unsynced.err
}
