package sqlstore

import (
	"context"
	"fmt"
	"os"
	"strings"
)

// SQLitePath returns the file of a SQLite database URL: the path without a
// "file:" prefix and without its query.
func SQLitePath(dsn string) string {
	path := strings.TrimPrefix(dsn, "file:")
	if i := strings.IndexByte(path, '?'); i >= 0 {
		path = path[:i]
	}
	return path
}

// lockFile blocks until this process holds the exclusive OS lock on the file
// at path (created if missing, never removed: removing a lock file lets two
// processes lock two different files) and returns its release. The
// operating system drops the lock when the process dies, so a crashed
// migrator never leaves it held. When ctx ends first, lockFile returns its
// error and the lock, if it comes later, is released at once.
func lockFile(ctx context.Context, path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open lock file: %w", err)
	}
	got := make(chan error, 1)
	go func() { got <- lockExclusive(f) }()
	select {
	case err := <-got:
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		return func() { f.Close() }, nil // closing the file releases its lock
	case <-ctx.Done():
		go func() {
			<-got
			f.Close()
		}()
		return nil, fmt.Errorf("wait for lock %s: %w", path, ctx.Err())
	}
}
