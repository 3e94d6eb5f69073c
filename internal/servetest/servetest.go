// Package servetest runs the einvoice command for tests: `serve` in-process
// on a loopback port (Start), one command line in-process (Run), the real
// binary as processes (Build, StartReplicas), and the database opened as
// the commands open it (Store). The tests of internal/cli (the command) and
// of internal/e2e (the HTTP API end to end) share it. Only tests import it.
package servetest

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/einvoice/einvoice/internal/cli"
	"github.com/einvoice/einvoice/internal/secretbox"
	"github.com/einvoice/einvoice/internal/sqlstore"
)

// SecretKey is the EINVOICE_SECRET_KEY of the tests (PostgreSQL needs one).
const SecretKey = "KioqKioqKioqKioqKioqKioqKioqKioqKioqKioqKio="

// KeyPattern matches an API key, as `serve` prints the demo tenant's and
// `key create` prints a new one.
var KeyPattern = regexp.MustCompile(`eik_[A-Za-z0-9_-]{43}`)

// LinkPattern matches a one-time link of the dashboard, as `serve` prints
// the demo owner's and `user add` prints a new user's.
var LinkPattern = regexp.MustCompile(`https?://[^\s]+/app/link/[A-Za-z0-9_-]{43}`)

// Buffer is a bytes.Buffer safe for a writer and a reader.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *Buffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *Buffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Env returns a Getenv over the given variables only.
func Env(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

// Service is one running `einvoice serve`, in-process.
type Service struct {
	URL     string
	DemoKey string // the demo tenant's key, when this start created it
	// OwnerLink is the demo owner's one-time link that sets its password,
	// when this start created it.
	OwnerLink string
	DSN       string
	Stderr    *Buffer
	cancel    context.CancelFunc
	done      chan int
}

// Start runs serve on a loopback port until the test ends.
func Start(t testing.TB, dsn string, args ...string) *Service {
	t.Helper()
	return StartAt(t, dsn, nil, args...)
}

// StartAt runs serve with the clock now (time.Now when nil).
func StartAt(t testing.TB, dsn string, now func() time.Time, args ...string) *Service {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan string, 1)
	stdout, stderr := &Buffer{}, &Buffer{}
	m := &cli.Main{Stdout: stdout, Stderr: stderr, Ready: ready, Now: now,
		Getenv: Env(map[string]string{"EINVOICE_SECRET_KEY": SecretKey, "EINVOICE_LOG_LEVEL": "warn",
			// The consolidation scheduler would consolidate the previous
			// month's receipts of every test: a test that wants it passes
			// --auto-consolidate.
			"EINVOICE_AUTO_CONSOLIDATE": "false",
			// A password hash of 1 MiB: tests sign in often (the sign-in
			// tests that measure pass --argon2-memory).
			"EINVOICE_ARGON2_MEMORY": "1024"})}
	s := &Service{DSN: dsn, Stderr: stderr, cancel: cancel, done: make(chan int, 1)}
	go func() {
		s.done <- m.Run(ctx, append([]string{"serve", "--addr", "127.0.0.1:0", "--db", dsn}, args...))
	}()
	select {
	case addr := <-ready:
		s.URL = "http://" + addr
	case code := <-s.done:
		cancel()
		t.Fatalf("serve exited with %d before listening:\n%s", code, stderr.String())
	case <-time.After(30 * time.Second):
		cancel()
		t.Fatalf("serve did not listen within 30s:\n%s", stderr.String())
	}
	s.DemoKey = KeyPattern.FindString(stdout.String())
	s.OwnerLink = LinkPattern.FindString(stdout.String())
	t.Cleanup(func() { s.Stop(t) })
	return s
}

// Stop cancels serve (as SIGTERM does) and checks it exits cleanly. It is
// called when the test ends; calling it before is allowed.
func (s *Service) Stop(t testing.TB) {
	t.Helper()
	if s.cancel == nil {
		return
	}
	s.cancel()
	s.cancel = nil
	select {
	case code := <-s.done:
		if code != 0 {
			t.Errorf("serve exited with %d:\n%s", code, s.Stderr.String())
		}
	case <-time.After(30 * time.Second):
		t.Errorf("serve did not stop within 30s")
	}
	if strings.Contains(s.Stderr.String(), "panic") {
		t.Errorf("serve logged a panic:\n%s", s.Stderr.String())
	}
}

// Run runs one command line against dsn (--db is appended) in-process and
// returns its exit code, stdout and stderr.
func Run(t testing.TB, dsn string, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	m := &cli.Main{Stdout: &stdout, Stderr: &stderr, Getenv: Env(map[string]string{"EINVOICE_SECRET_KEY": SecretKey})}
	code := m.Run(context.Background(), append(args, "--db", dsn))
	return code, stdout.String(), stderr.String()
}

// OpenStore opens the database as the commands do (the tests' secret key,
// migrated), beside a running service or after a command, for what the API
// cannot show or do (the authority's statuses, a planted row). The caller
// closes it.
func OpenStore(ctx context.Context, dsn string) (*sqlstore.Store, error) {
	key, err := secretbox.ParseKey(SecretKey)
	if err != nil {
		return nil, err
	}
	box, err := secretbox.New(key)
	if err != nil {
		return nil, err
	}
	store, err := sqlstore.Open(ctx, dsn, box)
	if err != nil {
		return nil, err
	}
	if err := store.Migrate(ctx, slog.New(slog.NewTextHandler(io.Discard, nil))); err != nil {
		store.Close()
		return nil, err
	}
	return store, nil
}

// Store is OpenStore for the rest of the test: it is closed after the test.
func Store(t testing.TB, dsn string) *sqlstore.Store {
	t.Helper()
	store, err := OpenStore(t.Context(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	return store
}
