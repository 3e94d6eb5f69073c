// Package migrated gives tests databases with the schema already in place:
// copies of a template migrated once, so that a test starting a service
// does not parse and apply every migration again (under the race detector
// that was a third of an end-to-end package's CPU). Tests of migrations
// themselves, and of a first start, use package testdb's empty databases.
package migrated

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/einvoice/einvoice/internal/secretbox"
	"github.com/einvoice/einvoice/internal/sqlstore"
	"github.com/einvoice/einvoice/internal/testdb"
)

// SQLite returns the path of a new SQLite file holding the current schema,
// removed after the test.
func SQLite(t testing.TB) string {
	t.Helper()
	tmpl, err := sqliteTemplate()
	if err != nil {
		t.Fatalf("the migrated SQLite template: %v", err)
	}
	path := testdb.SQLite(t)
	if err := os.WriteFile(path, tmpl, 0o600); err != nil {
		t.Fatalf("copy the migrated SQLite template: %v", err)
	}
	return path
}

var sqliteOnce struct {
	sync.Once
	file []byte
	err  error
}

// sqliteTemplate is the bytes of a SQLite file migrated once per process
// (written by VACUUM INTO: one file, no write-ahead log beside it).
func sqliteTemplate() ([]byte, error) {
	sqliteOnce.Do(func() {
		sqliteOnce.file, sqliteOnce.err = buildSQLite()
	})
	return sqliteOnce.file, sqliteOnce.err
}

func buildSQLite() ([]byte, error) {
	dir, err := os.MkdirTemp("", "einvoice-template-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	ctx := context.Background()
	if err := migrate(ctx, filepath.Join(dir, "build.db")); err != nil {
		return nil, err
	}
	out := filepath.Join(dir, "template.db")
	db, err := sql.Open("sqlite", filepath.Join(dir, "build.db"))
	if err != nil {
		return nil, err
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, `VACUUM INTO '`+out+`'`); err != nil {
		return nil, fmt.Errorf("vacuum into the template: %w", err)
	}
	return os.ReadFile(out)
}

// migrate applies every migration to the database at dsn.
func migrate(ctx context.Context, dsn string) error {
	box, err := secretbox.New(make([]byte, secretbox.KeySize))
	if err != nil {
		return err
	}
	store, err := sqlstore.Open(ctx, dsn, box)
	if err != nil {
		return err
	}
	if err := store.Migrate(ctx, nil); err != nil {
		store.Close()
		return err
	}
	return store.Close()
}

// Postgres returns the URL of a new database on the test server holding
// the current schema (CREATE DATABASE ... TEMPLATE), dropped after the
// test; skipped as testdb.Postgres is.
func Postgres(t testing.TB, getenv func(string) string) string {
	t.Helper()
	base := getenv(testdb.EnvPostgres)
	name, err := postgresTemplate(base)
	if err != nil {
		t.Fatalf("the migrated PostgreSQL template: %v", err)
	}
	return testdb.PostgresFrom(t, getenv, name)
}

var pgOnce struct {
	sync.Once
	name string
	err  error
}

// postgresTemplate is the name of the template database of the current
// schema on the server at base, made once by whichever test process comes
// first (others wait on an advisory lock) and kept for the next runs: its
// name holds the schema's fingerprint.
func postgresTemplate(base string) (string, error) {
	pgOnce.Do(func() { pgOnce.name, pgOnce.err = buildPostgres(base) })
	return pgOnce.name, pgOnce.err
}

// templateLock is the advisory lock id under which templates are made.
const templateLock = 0x65696e74706c // "eintpl"

func buildPostgres(base string) (string, error) {
	if base == "" || testing.Short() {
		return "", nil // testdb.PostgresFrom skips
	}
	fp, err := sqlstore.SchemaFingerprint(sqlstore.Postgres)
	if err != nil {
		return "", err
	}
	name := "einvoice_template_" + fp[:16]
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	admin, err := sql.Open("pgx", base)
	if err != nil {
		return "", err
	}
	defer admin.Close()
	conn, err := admin.Conn(ctx)
	if err != nil {
		return "", fmt.Errorf("connect to %s: %w", testdb.EnvPostgres, err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `SELECT pg_advisory_lock($1)`, templateLock); err != nil {
		return "", fmt.Errorf("lock the templates: %w", err)
	}
	defer conn.ExecContext(context.Background(), `SELECT pg_advisory_unlock($1)`, templateLock) //nolint:errcheck // the session ends anyway
	var exists bool
	if err := conn.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)`, name).Scan(&exists); err != nil {
		return "", fmt.Errorf("look for the template: %w", err)
	}
	if exists {
		return name, nil
	}
	// Templates of older schemas go: their names hold other fingerprints.
	rows, err := conn.QueryContext(ctx, `SELECT datname FROM pg_database WHERE datname LIKE 'einvoice\_template\_%'`)
	if err != nil {
		return "", fmt.Errorf("list the templates: %w", err)
	}
	var old []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			rows.Close()
			return "", err
		}
		old = append(old, n)
	}
	rows.Close()
	for _, n := range old {
		if _, err := conn.ExecContext(ctx, `ALTER DATABASE `+n+` IS_TEMPLATE false`); err != nil {
			return "", fmt.Errorf("retire the template %s: %w", n, err)
		}
		if _, err := conn.ExecContext(ctx, `DROP DATABASE IF EXISTS `+n+` WITH (FORCE)`); err != nil {
			return "", fmt.Errorf("drop the template %s: %w", n, err)
		}
	}
	building := name + "_building"
	if _, err := conn.ExecContext(ctx, `DROP DATABASE IF EXISTS `+building+` WITH (FORCE)`); err != nil {
		return "", fmt.Errorf("drop a half-built template: %w", err)
	}
	if _, err := conn.ExecContext(ctx, `CREATE DATABASE `+building); err != nil {
		return "", fmt.Errorf("create the template: %w", err)
	}
	u, err := url.Parse(base)
	if err != nil {
		return "", err
	}
	u.Path = "/" + building
	if err := migrate(ctx, u.String()); err != nil {
		return "", fmt.Errorf("migrate the template: %w", err)
	}
	// Renamed once whole, and only then: a process that finds the name
	// finds a complete schema.
	if _, err := conn.ExecContext(ctx, `ALTER DATABASE `+building+` RENAME TO `+name); err != nil {
		return "", fmt.Errorf("name the template: %w", err)
	}
	if _, err := conn.ExecContext(ctx, `ALTER DATABASE `+name+` IS_TEMPLATE true`); err != nil {
		return "", fmt.Errorf("mark the template: %w", err)
	}
	return name, nil
}
