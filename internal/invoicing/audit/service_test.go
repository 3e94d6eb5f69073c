package audit_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/einvoice/einvoice/internal/einvoice"
	"github.com/einvoice/einvoice/internal/invoicing/audit"
	"github.com/einvoice/einvoice/internal/secretbox"
	"github.com/einvoice/einvoice/internal/sqlstore"
	"github.com/einvoice/einvoice/internal/testdb/migrated"
)

func openStore(t *testing.T) *sqlstore.Store {
	t.Helper()
	box, _ := secretbox.New(make([]byte, secretbox.KeySize))
	s, err := sqlstore.Open(t.Context(), migrated.SQLite(t), box)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if err := s.Migrate(t.Context(), nil); err != nil {
		t.Fatal(err)
	}
	return s
}

// TestRecordAndVerify: entries recorded at once by many requests while the
// writer runs are listed after a flush, cleaned (a NUL, invalid UTF-8, an
// over-long user agent), and make one intact chain; an entry recorded once
// the writer stopped is appended by its caller; the writer writes every
// queued entry before it stops.
func TestRecordAndVerify(t *testing.T) {
	t.Parallel()
	svc := audit.New(audit.Options{Store: openStore(t), Linger: time.Hour}) // only a flush or the stop ends a batch
	ctx, stop := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() { defer close(done); svc.Run(ctx) }()
	actor := einvoice.Actor{Kind: einvoice.ActorUser, ID: "u1", Name: "Ana", Email: "Ana@Example.com", TenantID: "t1",
		Address: "192.0.2.7", UserAgent: "agent\x00\xff" + string(make([]byte, 400))}
	var wg sync.WaitGroup
	for i := range 50 {
		wg.Go(func() {
			svc.RecordAudit(t.Context(), actor, einvoice.AuditEntry{Action: "POST /x", ResourceType: "document", ResourceID: fmt.Sprint(i)})
		})
	}
	wg.Wait()
	page, err := svc.ListAudit(t.Context(), "t1", einvoice.AuditFilter{Actor: "ana@example.com", PageRequest: einvoice.PageRequest{Page: 1, PerPage: 100}})
	if err != nil {
		t.Fatal(err)
	}
	if page.Total != 50 {
		t.Fatalf("listed %d entries after the flush, want 50", page.Total)
	}
	if e := page.Items[0]; len(e.UserAgent) > einvoice.MaxAuditAgent || !strings.HasPrefix(e.UserAgent, "agent \uFFFD ") || e.At.IsZero() ||
		e.Outcome != einvoice.AuditOK {
		t.Errorf("entry %+v", e)
	}
	for range 5 {
		svc.RecordAudit(t.Context(), actor, einvoice.AuditEntry{Action: "POST /y"})
	}
	stop()
	<-done
	svc.RecordAudit(t.Context(), actor, einvoice.AuditEntry{Action: "POST /after"})
	v, err := svc.VerifyAudit(t.Context())
	if err != nil || v.Broken != nil || v.Entries != 56 {
		t.Fatalf("VerifyAudit = %+v, %v; want 56 entries intact", v, err)
	}
}
