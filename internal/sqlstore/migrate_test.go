package sqlstore_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/einvoice/einvoice/internal/secretbox"
	"github.com/einvoice/einvoice/internal/sqlstore"
)

// TestMigrateTogether: stores opened at once on a new database all migrate
// it without error, and each migration is applied and recorded once
// (SQLite failed one process in five with "table meta already exists"
// before its migrations took turns).
func TestMigrateTogether(t *testing.T) {
	t.Parallel()
	const racers = 6
	for _, e := range engines {
		t.Run(e.name, func(t *testing.T) {
			rounds := 10
			if e.name == "postgres" {
				rounds = 3 // a new database each round costs more; its lock is also tested by cli's TestReplicas
			}
			files, err := filepath.Glob(filepath.Join("migrations", e.name, "*.sql"))
			if err != nil || len(files) == 0 {
				t.Fatalf("migrations of %s: %v %v", e.name, files, err)
			}
			for round := range rounds {
				dsn := e.dsn(t)
				errs := make([]error, racers)
				stores := make([]*sqlstore.Store, racers)
				var start, done sync.WaitGroup
				start.Add(1)
				for i := range racers {
					done.Go(func() {
						start.Wait()
						stores[i], errs[i] = openAndMigrate(dsn)
					})
				}
				start.Done()
				done.Wait()
				for i, err := range errs {
					if err != nil {
						t.Fatalf("round %d, store %d: %v", round, i, err)
					}
					t.Cleanup(func() { stores[i].Close() })
				}
				checkMigratedOnce(t, stores[0].DB(), files)
			}
		})
	}
}

// openAndMigrate opens dsn and migrates it, as every command does at start.
func openAndMigrate(dsn string) (*sqlstore.Store, error) {
	box, err := secretbox.New(testKey)
	if err != nil {
		return nil, err
	}
	ctx := context.Background()
	s, err := sqlstore.Open(ctx, dsn, box)
	if err != nil {
		return nil, err
	}
	if err := s.Migrate(ctx, nil); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// checkMigratedOnce checks that goose recorded each of the want versions
// exactly once.
func checkMigratedOnce(t *testing.T, db *sql.DB, files []string) {
	t.Helper()
	// The highest version is the last file's (numbers may have gaps while
	// parts of the work are merged).
	want, high := len(files), 0
	for _, f := range files {
		n, err := strconv.Atoi(strings.SplitN(filepath.Base(f), "_", 2)[0])
		if err != nil {
			t.Fatalf("migration %s: %v", f, err)
		}
		high = max(high, n)
	}
	var versions, rows, highest int
	err := db.QueryRow(`SELECT COUNT(DISTINCT version_id), COUNT(*), MAX(version_id) FROM goose_db_version WHERE version_id > 0`).
		Scan(&versions, &rows, &highest)
	if err != nil {
		t.Fatalf("goose table: %v", err)
	}
	if versions != want || rows != want || highest != high {
		t.Errorf("goose_db_version: %d versions in %d rows, highest %d; want %d, once each, highest %d", versions, rows, highest, want, high)
	}
}
