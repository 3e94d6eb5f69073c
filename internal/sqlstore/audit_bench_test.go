package sqlstore_test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/einvoice/einvoice/internal/einvoice"
	"github.com/einvoice/einvoice/internal/sqlstore"
	"github.com/einvoice/einvoice/internal/testdb"
)

// auditSeedSize is how many entries BenchmarkAuditList seeds.
const auditSeedSize = 1_000_000

// BenchmarkAuditList reads pages of a tenant's audit log among 1,000,000
// entries (seeded in bulk, the chain computed as appends compute it): the
// newest page, a page by keyset deep in the log, and pages filtered by
// actor, action, resource and period; each reports its p99 in ms. The
// target: under 50 ms p99. Seeding takes a while: it runs only as a
// benchmark, never under -short.
//
//	EINVOICE_TEST_POSTGRES_URL=... go test -run '^$' -bench AuditList -benchtime 200x ./internal/sqlstore/
func BenchmarkAuditList(b *testing.B) {
	if testing.Short() {
		b.Skip("-short: seeding 1,000,000 audit entries takes a while")
	}
	for _, e := range []struct {
		name string
		dsn  func(b *testing.B) string
	}{
		{"sqlite", func(b *testing.B) string { return testdb.SQLite(b) }},
		{"postgres", func(b *testing.B) string { return testdb.Postgres(b, os.Getenv) }},
	} {
		b.Run(e.name, func(b *testing.B) {
			s := open(b, e.dsn(b))
			tenantID := newID()
			start := time.Now()
			seedAudit(b, s, tenantID, auditSeedSize)
			b.Logf("%s: seeded %d entries in %s", e.name, auditSeedSize, time.Since(start).Round(time.Millisecond))
			page := einvoice.PageRequest{Page: 1, PerPage: 50}
			for _, c := range []struct {
				name string
				f    einvoice.AuditFilter
			}{
				{"newest", einvoice.AuditFilter{PageRequest: page}},
				{"page-3", einvoice.AuditFilter{PageRequest: einvoice.PageRequest{Page: 3, PerPage: 50}}},
				{"before-deep", einvoice.AuditFilter{Before: auditSeedSize / 3, PageRequest: page}},
				{"after-deep", einvoice.AuditFilter{After: auditSeedSize / 2, PageRequest: page}},
				{"actor", einvoice.AuditFilter{Actor: "key-7", PageRequest: page}},
				{"action", einvoice.AuditFilter{Action: "POST /api/v1/documents/{id}/submit", PageRequest: page}},
				{"resource", einvoice.AuditFilter{ResourceType: "document", ResourceID: "doc-12345", PageRequest: page}},
				{"period", einvoice.AuditFilter{From: t0.Add(100 * time.Hour), To: t0.Add(101 * time.Hour), PageRequest: page}},
			} {
				b.Run(c.name, func(b *testing.B) {
					var took []time.Duration
					for b.Loop() {
						t := time.Now()
						p, err := s.ListAudit(context.Background(), tenantID, c.f)
						took = append(took, time.Since(t))
						if err != nil || len(p.Items) == 0 {
							b.Fatalf("ListAudit: %d items, %v", len(p.Items), err)
						}
					}
					slices.Sort(took)
					b.ReportMetric(float64(took[len(took)*99/100].Microseconds())/1000, "p99-ms")
				})
			}
		})
	}
}

// seedAudit writes n entries of one tenant at the end of the chain, in
// multi-row inserts of one transaction per 10,000, as AppendAudit chains
// them: 10 keys, 10 actions, a document per 10 entries, one a second.
func seedAudit(b *testing.B, s *sqlstore.Store, tenantID string, n int) {
	b.Helper()
	ctx := context.Background()
	actions := []string{"POST /api/v1/invoices", "PUT /api/v1/invoices/{id}", "POST /api/v1/documents/{id}/validate",
		"POST /api/v1/documents/{id}/submit", "document.valid", "POST /api/v1/documents/{id}/cancel", "DELETE /api/v1/invoices/{id}",
		"POST /api/v1/buyers", "PUT /api/v1/buyers/{id}", "POST /api/v1/receipts"}
	seq, hash, err := s.AuditHead(ctx)
	if err != nil {
		b.Fatal(err)
	}
	const rows, perTx = 1000, 10_000
	for i := 0; i < n; i += perTx {
		tx, err := s.DB().BeginTx(ctx, nil)
		if err != nil {
			b.Fatal(err)
		}
		for j := i; j < min(i+perTx, n); j += rows {
			var q strings.Builder
			q.WriteString(`INSERT INTO audit_log (seq, at, tenant_id, actor_kind, actor_id, actor_name, actor_email, address, user_agent,
				action, resource_type, resource_id, outcome, status, detail, prev_hash, hash) VALUES `)
			args := make([]any, 0, rows*17)
			for k := j; k < min(j+rows, n); k++ {
				e := &einvoice.AuditEntry{At: t0.Add(time.Duration(k) * time.Second), TenantID: tenantID, ActorKind: einvoice.ActorKey,
					ActorID: fmt.Sprintf("key-%d", k%10), ActorName: "ci", Address: "192.0.2.1", UserAgent: "bench/1",
					Action: actions[k%len(actions)], ResourceType: "document", ResourceID: fmt.Sprintf("doc-%d", k/10),
					Outcome: einvoice.AuditOK, Status: 201}
				e.Chain(seq, hash)
				seq, hash = e.Seq, e.Hash
				if k > j {
					q.WriteByte(',')
				}
				q.WriteByte('(')
				for c := range 17 {
					if c > 0 {
						q.WriteByte(',')
					}
					fmt.Fprintf(&q, "$%d", len(args)+c+1)
				}
				q.WriteByte(')')
				args = append(args, e.Seq, e.At.UnixMicro(), e.TenantID, string(e.ActorKind), e.ActorID, e.ActorName, e.ActorEmail,
					e.Address, e.UserAgent, e.Action, e.ResourceType, e.ResourceID, string(e.Outcome), e.Status, e.Detail, e.PrevHash, e.Hash)
			}
			if _, err := tx.ExecContext(ctx, q.String(), args...); err != nil {
				b.Fatal(err)
			}
		}
		if _, err := tx.ExecContext(ctx, `UPDATE audit_head SET seq = $1, hash = $2 WHERE id = 1`, seq, hash); err != nil {
			b.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			b.Fatal(err)
		}
	}
	if s.Engine() == sqlstore.Postgres {
		if _, err := s.DB().ExecContext(ctx, `VACUUM ANALYZE audit_log`); err != nil {
			b.Fatal(err)
		}
	} else if _, err := s.DB().ExecContext(ctx, `ANALYZE`); err != nil {
		b.Fatal(err)
	}
}
