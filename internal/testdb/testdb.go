// Package testdb gives tests real databases: a SQLite file in a temporary
// folder, and a fresh PostgreSQL database on the server named by
// EINVOICE_TEST_POSTGRES_URL (skipped with a message when it is unset; a
// failure when it is set but unreachable).
package testdb

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"net/url"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" driver
)

// EnvPostgres names the variable holding the PostgreSQL server URL for tests.
const EnvPostgres = "EINVOICE_TEST_POSTGRES_URL"

// SQLite returns the path of a new SQLite file, removed after the test.
func SQLite(t testing.TB) string {
	t.Helper()
	return filepath.Join(t.TempDir(), "einvoice.db")
}

// Postgres returns the URL of a new, empty database on the test server,
// dropped after the test. Under -short (the inner loop) the test is
// skipped.
func Postgres(t testing.TB, getenv func(string) string) string {
	t.Helper()
	return PostgresFrom(t, getenv, "")
}

// PostgresFrom is Postgres with the new database a copy of the template
// database named (CREATE DATABASE ... TEMPLATE), or empty when template is
// "".
func PostgresFrom(t testing.TB, getenv func(string) string, template string) string {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: no PostgreSQL")
	}
	base := getenv(EnvPostgres)
	if base == "" {
		t.Skipf("PostgreSQL tests skipped: set %s (e.g. postgres://postgres@127.0.0.1:5432/test?sslmode=disable) to run them", EnvPostgres)
	}
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("%s=%q: %v", EnvPostgres, base, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	admin, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatalf("open %s: %v", EnvPostgres, err)
	}
	defer admin.Close()
	if err := admin.PingContext(ctx); err != nil {
		t.Fatalf("%s is set but the server is unreachable: %v", EnvPostgres, err)
	}
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	name := "einvoice_test_" + hex.EncodeToString(b)
	create := "CREATE DATABASE " + name
	if template != "" {
		create += " TEMPLATE " + template
	}
	if _, err := admin.ExecContext(ctx, create); err != nil {
		t.Fatalf("create test database: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		admin, err := sql.Open("pgx", base)
		if err != nil {
			t.Errorf("drop test database: %v", err)
			return
		}
		defer admin.Close()
		if _, err := admin.ExecContext(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			t.Errorf("drop test database %s: %v", name, err)
		}
	})
	u.Path = "/" + name
	// Each process of a test (in-process services and replicas of the
	// binary) opens at most TestPoolMaxConns connections, so that the
	// passes of the suite, run at once, stay under the server's 100.
	q := u.Query()
	q.Set("pool_max_conns", strconv.Itoa(TestPoolMaxConns))
	u.RawQuery = q.Encode()
	return u.String()
}

// ServerURL is a test database's URL as the server takes it, without the
// store's pool_max_conns: for a test that opens the database itself.
func ServerURL(dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil {
		return dsn
	}
	q := u.Query()
	q.Del("pool_max_conns")
	u.RawQuery = q.Encode()
	return u.String()
}

// TestPoolMaxConns is the pool_max_conns of the test databases' URLs (the
// store's bound on one process's connections; half its default).
const TestPoolMaxConns = 16
