package sqlstore

import (
	"context"
	"database/sql"
	"os"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/einvoice/einvoice/internal/einvoice"
	"github.com/einvoice/einvoice/internal/testdb"
)

// TestEventsCommitInSeqOrder: on PostgreSQL a transaction that has written
// a tenant's event holds the tenant's event lock until it ends, so a second
// transaction's event of the same tenant gets its seq only after the first
// committed (a client reading with after= never passes over an event that
// commits later with a lower seq); another tenant's events do not wait.
// SQLite has one writer, which orders them already.
func TestEventsCommitInSeqOrder(t *testing.T) {
	t.Parallel()
	dsn := testdb.Postgres(t, os.Getenv)
	ctx := context.Background()
	s, err := Open(ctx, dsn, plainSealer{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if err := s.Migrate(ctx, nil); err != nil {
		t.Fatal(err)
	}
	tenants := make([]*einvoice.Tenant, 2)
	for i := range tenants {
		tenants[i] = &einvoice.Tenant{ID: uuid.NewString(), Profile: einvoice.DemoProfile(), Authority: einvoice.Authority{
			Environment: einvoice.EnvSandbox, Mode: einvoice.ModeTaxpayer, ClientID: "c-" + uuid.NewString(), ClientSecret: "s3cret-client-secret"},
			CreatedAt: time.Now(), UpdatedAt: time.Now()}
		if err := s.CreateTenant(ctx, tenants[i]); err != nil {
			t.Fatal(err)
		}
	}
	event := func(tn *einvoice.Tenant) *einvoice.APIEvent {
		e, err := einvoice.NewAPIEvent(uuid.NewString(), tn.ID, einvoice.EventDocumentValid, uuid.NewString(), time.Now(), map[string]string{})
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	tryLock := func(tx *sql.Tx, tn *einvoice.Tenant) bool {
		var got bool
		if err := tx.QueryRowContext(ctx, `SELECT pg_try_advisory_xact_lock(hashtextextended($1, 0))`, "einvoice.events:"+tn.ID).Scan(&got); err != nil {
			t.Fatal(err)
		}
		return got
	}

	first, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer first.Rollback()
	e1 := event(tenants[0])
	if _, err := s.insertAPIEvent(ctx, first, e1, ""); err != nil {
		t.Fatal(err)
	}
	second, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer second.Rollback()
	if tryLock(second, tenants[0]) {
		t.Fatal("a second transaction took the tenant's event lock while the first holds it")
	}
	if !tryLock(second, tenants[1]) {
		t.Error("another tenant's event lock is held")
	}
	if err := first.Commit(); err != nil {
		t.Fatal(err)
	}
	e2 := event(tenants[0])
	if _, err := s.insertAPIEvent(ctx, second, e2, ""); err != nil {
		t.Fatal(err)
	}
	if err := second.Commit(); err != nil {
		t.Fatal(err)
	}
	if e2.Seq <= e1.Seq {
		t.Errorf("seq %d after %d", e2.Seq, e1.Seq)
	}
}
