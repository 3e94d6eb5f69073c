// Package sqlstore implements einvoice.Store on SQLite (modernc.org/sqlite,
// pure Go) and on PostgreSQL (pgx through database/sql). Both engines run
// the same hand-written SQL with $N placeholders; the few differences (DDL
// types, error codes, connection pools) live in the dialect and in the
// per-engine migration folders.
package sqlstore

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/url"
	"path/filepath"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" driver
	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/einvoice/einvoice/internal/einvoice"
)

//go:embed migrations
var migrations embed.FS

// Engine names a database engine.
type Engine string

// The engines.
const (
	SQLite   Engine = "sqlite"
	Postgres Engine = "postgres"
)

// SchemaFingerprint identifies the schema that Migrate makes on engine: a
// SHA-256 of its migration files, names and contents. Test harnesses key
// their pre-migrated template databases by it.
func SchemaFingerprint(engine Engine) (string, error) {
	dir := "migrations/" + string(engine)
	entries, err := migrations.ReadDir(dir)
	if err != nil {
		return "", fmt.Errorf("migrations of %s: %w", engine, err)
	}
	h := sha256.New()
	for _, e := range entries { // sorted by name
		b, err := migrations.ReadFile(dir + "/" + e.Name())
		if err != nil {
			return "", fmt.Errorf("migration %s: %w", e.Name(), err)
		}
		fmt.Fprintf(h, "%s %d\n", e.Name(), len(b))
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// Sealer encrypts secrets at rest. Seal and Open must be inverse; "" stays "".
type Sealer interface {
	Seal(plaintext []byte) (string, error)
	Open(sealed string) ([]byte, error)
}

// Store is the einvoice.Store of one database.
type Store struct {
	engine Engine
	dsn    string
	// w takes writes; r takes reads. On SQLite, w has one connection (SQLite
	// has one writer; queueing in Go beats SQLITE_BUSY) and r several; on
	// PostgreSQL both are the same pool.
	w, r *sql.DB
	// ws and rs run the queries of w and r through prepared statements.
	ws, rs *stmtCache
	// group runs SQLite's write transactions (nil on PostgreSQL).
	group   *groupCommitter
	secrets Sealer
	// unsynced is the pool of unsyncedDB (PostgreSQL), opened on first use.
	unsynced lazyPool
	// hooks is the unsynced pool of webhook deliveries (unsyncedTx), apart
	// so that a burst of deliveries never holds up the requests' writes.
	hooks lazyPool
	// pools are the sizes of the PostgreSQL pools.
	pools poolSizes
	// claims are the unfinished idempotency claims of this process on
	// SQLite (idempotency_sqlite.go).
	claims processClaims
}

var _ einvoice.Store = (*Store)(nil)

// EngineOf tells the engine of a database URL: postgres:// or postgresql://
// is PostgreSQL, anything else a SQLite file path (or file: URI).
func EngineOf(dsn string) Engine {
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		return Postgres
	}
	return SQLite
}

// Open connects to the database at dsn. It does not migrate: call Migrate.
func Open(ctx context.Context, dsn string, secrets Sealer) (*Store, error) {
	s := &Store{engine: EngineOf(dsn), dsn: dsn, secrets: secrets}
	var err error
	switch s.engine {
	case Postgres:
		if s.dsn, s.pools, err = postgresPools(dsn); err != nil {
			return nil, err
		}
		s.w, err = sql.Open("pgx", s.dsn)
		if err != nil {
			return nil, fmt.Errorf("open postgres: %w", err)
		}
		s.w.SetMaxOpenConns(s.pools.main)
		s.w.SetMaxIdleConns(s.pools.main)
		s.w.SetConnMaxIdleTime(5 * time.Minute)
		s.r = s.w
	default:
		path := SQLitePath(dsn)
		if s.w, err = sql.Open("sqlite", sqliteDSN(path, true)); err != nil {
			return nil, fmt.Errorf("open sqlite: %w", err)
		}
		s.w.SetMaxOpenConns(1)
		s.w.SetConnMaxIdleTime(0)
		if s.r, err = sql.Open("sqlite", sqliteDSN(path, false)); err != nil {
			return nil, fmt.Errorf("open sqlite: %w", err)
		}
		s.r.SetMaxOpenConns(8)
		s.r.SetMaxIdleConns(8)
		s.group = newGroupCommitter(s.w)
	}
	s.ws, s.rs = newStmtCache(s.w, s.engine == Postgres), newStmtCache(s.r, s.engine == Postgres)
	s.ws.group = s.group
	if err := s.connect(ctx); err != nil {
		s.Close()
		return nil, fmt.Errorf("connect to %s database: %w", s.engine, err)
	}
	return s, nil
}

// connect makes the first connections. On SQLite it holds the turn of
// processes opening one file (the OS lock on <db>.lock, as migrations do):
// the first connection to a new file turns it to WAL, which takes a lock
// SQLite does not wait for (SQLITE_BUSY at once, busy timeout or not, when
// another process is turning it at the same moment).
func (s *Store) connect(ctx context.Context) error {
	if s.engine == SQLite {
		unlock, err := s.fileTurn(ctx)
		if err != nil {
			return err
		}
		defer unlock()
	}
	return s.Ping(ctx)
}

// fileTurn blocks until this process holds the OS lock on the file
// <db>.lock beside a SQLite database, the turn of the processes opening it,
// and returns its release (nothing to hold for an in-memory database).
func (s *Store) fileTurn(ctx context.Context) (func(), error) {
	path := SQLitePath(s.dsn)
	if path == "" || strings.HasPrefix(path, ":memory:") {
		return func() {}, nil // no other process can open it
	}
	return lockFile(ctx, path+".lock")
}

// sqliteDSN sets the pragmas on every pooled connection: WAL, full sync (a
// committed invoice survives a power cut), a busy timeout and foreign keys.
// Writes take the lock at BEGIN (immediate) so that transactions never fail
// on lock upgrade.
func sqliteDSN(path string, writer bool) string {
	q := url.Values{}
	// The busy timeout first: the pragmas run in order, and turning a new
	// file to WAL takes a lock that another process opening it at the
	// same moment may hold (without the timeout: SQLITE_BUSY at once).
	q.Add("_pragma", "busy_timeout(10000)")
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "synchronous(FULL)")
	q.Add("_pragma", "foreign_keys(1)")
	if writer {
		// The savepoints of a group commit journal their pages in memory,
		// not in a temporary file (a write(2) per page otherwise).
		q.Add("_pragma", "temp_store(MEMORY)")
		q.Set("_txlock", "immediate")
	} else {
		q.Add("_pragma", "query_only(1)")
	}
	return "file:" + filepath.ToSlash(path) + "?" + q.Encode()
}

// Engine returns the engine of the store.
func (s *Store) Engine() Engine { return s.engine }

// DB returns the pool for writes (for adapters that keep their own tables in
// the same database, such as the database rate limiter).
func (s *Store) DB() *sql.DB { return s.w }

// Secrets returns the sealer of the store's secrets (for adapters that
// seal their own, such as the sandbox's certificate authority key).
func (s *Store) Secrets() Sealer { return s.secrets }

// ReadDB returns the pool for reads (on SQLite, several read-only
// connections that do not queue behind writes; on PostgreSQL, the same pool
// as DB).
func (s *Store) ReadDB() *sql.DB { return s.r }

// Ping reports whether the database answers.
func (s *Store) Ping(ctx context.Context) error {
	if err := s.w.PingContext(ctx); err != nil {
		return err
	}
	return s.r.PingContext(ctx)
}

// Close closes the pools.
func (s *Store) Close() error {
	s.claims.wait() // the kept responses still being written
	if s.group != nil {
		s.group.close()
	}
	s.ws.close()
	s.rs.close()
	var err error
	if s.w != nil {
		err = s.w.Close()
	}
	if s.r != nil && s.r != s.w {
		err = errors.Join(err, s.r.Close())
	}
	s.hooks.once.Do(func() {})
	if s.hooks.db != nil {
		err = errors.Join(err, s.hooks.db.Close())
	}
	s.unsynced.once.Do(func() {}) // no pool opens after Close
	if s.unsynced.db != nil {
		err = errors.Join(err, s.unsynced.db.Close())
	}
	return err
}

// Migrate applies the pending migrations of the engine. Processes that open
// one database at once take turns (see waitMigrationTurn): each one reads
// the schema's version only once it holds the turn, so a version is applied
// once, by one of them, and the others find it done.
func (s *Store) Migrate(ctx context.Context, logger *slog.Logger) error {
	sub, err := fs.Sub(migrations, "migrations/"+string(s.engine))
	if err != nil {
		return fmt.Errorf("migrations: %w", err)
	}
	opts := []goose.ProviderOption{goose.WithDisableGlobalRegistry(true)}
	dialect := goose.DialectSQLite3
	if s.engine == Postgres {
		dialect = goose.DialectPostgres
		locker, err := lock.NewPostgresSessionLocker()
		if err != nil {
			return fmt.Errorf("migration lock: %w", err)
		}
		opts = append(opts, goose.WithSessionLocker(locker))
	}
	unlock, err := s.waitMigrationTurn(ctx)
	if err != nil {
		return err
	}
	defer unlock()
	p, err := goose.NewProvider(dialect, s.w, sub, opts...)
	if err != nil {
		return fmt.Errorf("migrations: %w", err)
	}
	results, err := p.Up(ctx)
	if err != nil {
		return fmt.Errorf("migrate %s: %w", s.engine, err)
	}
	if logger != nil && len(results) > 0 {
		var took time.Duration
		for _, r := range results {
			logger.Debug("migration applied", "engine", s.engine, "version", r.Source.Version, "duration", r.Duration)
			took += r.Duration
		}
		logger.Info("migrations applied", "engine", s.engine, "count", len(results),
			"from", results[0].Source.Version, "to", results[len(results)-1].Source.Version, "duration", took)
	}
	return nil
}

// migrationTurnLock is the advisory lock id under which einvoice processes
// take turns to migrate ("einvoice" in ASCII); goose's lock has another id.
const migrationTurnLock = 0x65696e766f696365

// waitMigrationTurn blocks until this process holds the migration turn and
// returns its release.
//
// Goose applies each migration in its own transaction, but it reads the
// schema's version before them, outside any: two processes that both read
// version N both apply N+1, and the second fails ("table meta already
// exists"). The turn covers the read and every migration.
//
// On PostgreSQL the turn is an advisory lock of a transaction that does
// nothing else, so it ends with it, or with its session if the connection
// breaks. Replicas queue on it, each going on the moment the one before it
// is done: goose's own lock (kept, for `einvoice migrate` run beside old
// binaries) only retries every 5 s.
//
// On SQLite it is an OS lock on the file <db>.lock beside the database:
// SQLite's own write lock cannot serve, since goose's transactions need it
// while the turn is held.
func (s *Store) waitMigrationTurn(ctx context.Context) (func(), error) {
	if s.engine == SQLite {
		unlock, err := s.fileTurn(ctx)
		if err != nil {
			return nil, fmt.Errorf("migration turn: %w", err)
		}
		return unlock, nil
	}
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("migration turn: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock($1)`, int64(migrationTurnLock)); err != nil {
		_ = tx.Rollback()
		return nil, fmt.Errorf("migration turn: %w", err)
	}
	return func() { _ = tx.Rollback() }, nil
}

// txRetries is how many times tx runs a transaction again after a
// serialization failure or a deadlock (PostgreSQL): the one retry policy of
// the service's writes.
const txRetries = 3

// tx runs fn in a transaction on the write pool: on SQLite through the
// group committer, on PostgreSQL on its own, retrying serialization
// failures and deadlocks up to txRetries times. It is the one transaction
// helper of the store.
func (s *Store) tx(ctx context.Context, fn txFunc) error {
	if s.group != nil {
		return s.group.do(ctx, fn)
	}
	return retryTx(ctx, s.w, fn)
}

// retryTx runs fn in a transaction on db and, after a serialization
// failure or a deadlock, again at once (no wait between runs), up
// to txRetries times: for tx and hooksTx alike.
func retryTx(ctx context.Context, db *sql.DB, fn txFunc) error {
	for attempt := 0; ; attempt++ {
		err := runTx(ctx, db, fn)
		if attempt < txRetries && retryable(err) {
			continue
		}
		return err
	}
}

// retryable reports whether err is a PostgreSQL serialization failure or
// deadlock, which the same transaction may pass when run again.
func retryable(err error) bool {
	var pg *pgconn.PgError
	return errors.As(err, &pg) && (pg.Code == "40001" || pg.Code == "40P01")
}

// classify turns engine-specific constraint errors into the domain's.
func classify(err error) error {
	if err == nil {
		return nil
	}
	var pg *pgconn.PgError
	if errors.As(err, &pg) {
		switch pg.Code {
		case "23505":
			return fmt.Errorf("%w: %s", einvoice.ErrConflict, pg.ConstraintName)
		case "23503":
			return fmt.Errorf("%w: %s", errForeignKey, pg.ConstraintName)
		}
		return err
	}
	var lite *sqlite.Error
	if errors.As(err, &lite) {
		switch lite.Code() {
		case sqlite3.SQLITE_CONSTRAINT_UNIQUE, sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY:
			return fmt.Errorf("%w: %s", einvoice.ErrConflict, lite.Error())
		case sqlite3.SQLITE_CONSTRAINT_FOREIGNKEY:
			return fmt.Errorf("%w: %s", errForeignKey, lite.Error())
		case sqlite3.SQLITE_CONSTRAINT_TRIGGER:
			// An ON DELETE RESTRICT reference is reported as a trigger.
			if strings.Contains(lite.Error(), "FOREIGN KEY") {
				return fmt.Errorf("%w: %s", errForeignKey, lite.Error())
			}
		}
	}
	return err
}

var errForeignKey = errors.New("foreign key violation")

// micros and fromMicros convert times to and from the stored unix microseconds.
func micros(t time.Time) int64 { return t.UnixMicro() }

func fromMicros(us int64) time.Time { return time.UnixMicro(us).UTC() }

func nullMicros(t *time.Time) sql.NullInt64 {
	if t == nil {
		return sql.NullInt64{}
	}
	return sql.NullInt64{Int64: micros(*t), Valid: true}
}
