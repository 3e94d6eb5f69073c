package main

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // PostgreSQL, as sqlstore opens it
	_ "modernc.org/sqlite"             // SQLite, as sqlstore opens it
)

// fsyncCeiling measures the durable-write ceiling that invoice creation is
// compared with: one INSERT of a 3 KB row per transaction, one after the
// other, each committed before the next begins. On SQLite with the
// service's own settings (modernc, WAL, synchronous=FULL) a commit is an
// fsync of the WAL; on PostgreSQL (synchronous_commit on) a WAL flush.
// It prints the transactions a second over d.
func fsyncCeiling(ctx context.Context, driver, dsn string, d time.Duration) (float64, error) {
	db, err := sql.Open(driver, dsn)
	if err != nil {
		return 0, fmt.Errorf("open: %w", err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if _, err := db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS ceiling (id BIGINT PRIMARY KEY, body TEXT NOT NULL)`); err != nil {
		return 0, fmt.Errorf("create table: %w", err)
	}
	body := strings.Repeat(`{"invoiceLines":[{"quantity":"1.5"}]}`, 3072/37)
	var n int64
	start := time.Now()
	for time.Since(start) < d {
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return 0, fmt.Errorf("begin: %w", err)
		}
		n++
		if _, err := tx.ExecContext(ctx, `INSERT INTO ceiling (id, body) VALUES ($1, $2)`, n, body); err != nil {
			_ = tx.Rollback()
			return 0, fmt.Errorf("insert: %w", err)
		}
		if err := tx.Commit(); err != nil {
			return 0, fmt.Errorf("commit: %w", err)
		}
	}
	if driver == "pgx" {
		_, _ = db.ExecContext(ctx, `DROP TABLE ceiling`)
	}
	return float64(n) / time.Since(start).Seconds(), nil
}

// sqliteCeilingDSN is the service's SQLite settings for a file in dir.
func sqliteCeilingDSN(dir string) string {
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(10000)")
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "synchronous(FULL)")
	return "file:" + filepath.Join(dir, "ceiling.db") + "?" + q.Encode()
}
