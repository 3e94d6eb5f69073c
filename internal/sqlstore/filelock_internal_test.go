package sqlstore

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
)

// TestLockFile: a held lock makes the next locker wait until its context
// ends, and once released it is taken again.
func TestLockFile(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "einvoice.db.lock")
	unlock, err := lockFile(t.Context(), path)
	if err != nil {
		t.Fatalf("first lock: %v", err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := lockFile(ctx, path); !errors.Is(err, context.Canceled) {
		t.Errorf("lock while held, context cancelled = %v, want context.Canceled", err)
	}
	unlock()
	unlock, err = lockFile(t.Context(), path)
	if err != nil {
		t.Fatalf("lock after release: %v", err)
	}
	unlock()
}
