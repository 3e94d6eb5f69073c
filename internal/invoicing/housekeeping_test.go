package invoicing_test

import (
	"context"
	"testing"
	"time"

	"github.com/einvoice/einvoice/internal/einvoice"
)

// TestHousekeepingRunsAlone: Run purges the dashboard's ended sessions
// though every other loop is switched off: no submission workers, no
// webhook sender.
func TestHousekeepingRunsAlone(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := newWorld(t, sqliteDSN(t))
	svc, store := w.svc, w.store
	token := w.signedIn("house@example.com", einvoice.RoleViewer)
	if err := svc.SignOut(ctx, token); err != nil {
		t.Fatal(err)
	}
	sessions := func() int {
		var n int
		if err := store.DB().QueryRowContext(ctx, "SELECT count(*) FROM dashboard_sessions").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := sessions(); n != 1 {
		t.Fatalf("%d sessions before Run, want the ended one", n)
	}
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); svc.Run(runCtx) }()
	defer func() { stop(); <-done }()
	deadline := time.Now().Add(10 * time.Second)
	for sessions() != 0 {
		if time.Now().After(deadline) {
			t.Fatal("the ended session was not purged within 10 s of Run")
		}
		time.Sleep(20 * time.Millisecond)
	}
}
