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

// seedAudit writes n entries of one tenant at the end of the chain, as
// AppendAudit chains them (10 keys, 10 actions, a document per 10 entries,
// one a second), in bulk: the log's indexes dropped, prepared inserts in
// transactions of 20,000, the indexes made again at the end.
func seedAudit(b *testing.B, s *sqlstore.Store, tenantID string, n int) {
	b.Helper()
	ctx := context.Background()
	db := s.DB()
	indexes := auditIndexes(b, s)
	for name := range indexes {
		if _, err := db.ExecContext(ctx, `DROP INDEX `+name); err != nil {
			b.Fatal(err)
		}
	}
	actions := []string{"POST /api/v1/invoices", "PUT /api/v1/invoices/{id}", "POST /api/v1/documents/{id}/validate",
		"POST /api/v1/documents/{id}/submit", "document.valid", "POST /api/v1/documents/{id}/cancel", "DELETE /api/v1/invoices/{id}",
		"POST /api/v1/buyers", "PUT /api/v1/buyers/{id}", "POST /api/v1/receipts"}
	seq, hash, err := s.AuditHead(ctx)
	if err != nil {
		b.Fatal(err)
	}
	// 1,000 rows a statement on PostgreSQL; one on SQLite, whose driver
	// binds $N parameters by name, in a time that grows with their number.
	rows, perTx := 1000, 20_000
	if s.Engine() == sqlstore.SQLite {
		rows = 1
	}
	stmt := func(k int) string {
		var q strings.Builder
		q.WriteString(`INSERT INTO audit_log (seq, at, tenant_id, actor_kind, actor_id, actor_name, actor_email, address, user_agent,
			action, resource_type, resource_id, outcome, status, detail, prev_hash, hash, tseq) VALUES `)
		for r := range k {
			if r > 0 {
				q.WriteByte(',')
			}
			q.WriteByte('(')
			for c := range 18 {
				if c > 0 {
					q.WriteByte(',')
				}
				fmt.Fprintf(&q, "$%d", r*18+c+1)
			}
			q.WriteByte(')')
		}
		return q.String()
	}
	full := stmt(rows)
	args := make([]any, 0, rows*18)
	for i := 0; i < n; i += perTx {
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			b.Fatal(err)
		}
		insert, err := tx.PrepareContext(ctx, full)
		if err != nil {
			b.Fatal(err)
		}
		for j := i; j < min(i+perTx, n); j += rows {
			args = args[:0]
			for k := j; k < min(j+rows, n); k++ {
				e := &einvoice.AuditEntry{At: t0.Add(time.Duration(k) * time.Second), TenantID: tenantID, ActorKind: einvoice.ActorKey,
					ActorID: fmt.Sprintf("key-%d", k%10), ActorName: "ci", Address: "192.0.2.1", UserAgent: "bench/1",
					Action: actions[k%len(actions)], ResourceType: "document", ResourceID: fmt.Sprintf("doc-%d", k/10),
					Outcome: einvoice.AuditOK, Status: 201}
				e.Chain(seq, hash)
				seq, hash = e.Seq, e.Hash
				args = append(args, e.Seq, e.At.UnixMicro(), e.TenantID, string(e.ActorKind), e.ActorID, e.ActorName, e.ActorEmail,
					e.Address, e.UserAgent, e.Action, e.ResourceType, e.ResourceID, string(e.Outcome), e.Status, e.Detail, e.PrevHash, e.Hash,
					int64(k+1))
			}
			if len(args) < rows*18 {
				_, err = tx.ExecContext(ctx, stmt(len(args)/18), args...)
			} else {
				_, err = insert.ExecContext(ctx, args...)
			}
			if err != nil {
				b.Fatal(err)
			}
		}
		if _, err := tx.ExecContext(ctx, `UPDATE audit_head SET seq = $1, hash = $2 WHERE id = 1`, seq, hash); err != nil {
			b.Fatal(err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO audit_tenants (tenant_id, entries) VALUES ($1, $2)
			ON CONFLICT (tenant_id) DO UPDATE SET entries = excluded.entries`, tenantID, int64(min(i+perTx, n))); err != nil {
			b.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			b.Fatal(err)
		}
	}
	for _, def := range indexes {
		if _, err := db.ExecContext(ctx, def); err != nil {
			b.Fatal(err)
		}
	}
	analyze := `ANALYZE`
	if s.Engine() == sqlstore.Postgres {
		analyze = `VACUUM ANALYZE audit_log`
	}
	if _, err := db.ExecContext(ctx, analyze); err != nil {
		b.Fatal(err)
	}
}

// auditIndexes returns the secondary indexes of audit_log, by name, with
// the statements that make them.
func auditIndexes(b *testing.B, s *sqlstore.Store) map[string]string {
	b.Helper()
	q := `SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'audit_log' AND sql IS NOT NULL`
	if s.Engine() == sqlstore.Postgres {
		q = `SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'audit_log' AND indexname <> 'audit_log_pkey'`
	}
	rows, err := s.DB().QueryContext(context.Background(), q)
	if err != nil {
		b.Fatal(err)
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var name, def string
		if err := rows.Scan(&name, &def); err != nil {
			b.Fatal(err)
		}
		out[name] = def
	}
	if err := rows.Err(); err != nil || len(out) < 4 {
		b.Fatalf("the audit log's indexes: %v, %v", out, err)
	}
	return out
}

// BenchmarkAppendAudit appends batches of 16 entries (what the writer
// appends when a create comes every millisecond or so): ns/op per batch.
//
//	go test -run '^$' -bench AppendAudit ./internal/sqlstore/
func BenchmarkAppendAudit(b *testing.B) {
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
			for b.Loop() {
				batch := make([]*einvoice.AuditEntry, 16)
				for i := range batch {
					batch[i] = &einvoice.AuditEntry{At: time.Now(), TenantID: tenantID, ActorKind: einvoice.ActorKey, ActorID: "key-1",
						ActorName: "ci", Address: "192.0.2.1", UserAgent: "bench/1", Action: "POST /api/v1/invoices", ResourceType: "document",
						ResourceID: newID(), Outcome: einvoice.AuditOK, Status: 201}
				}
				if err := s.AppendAudit(context.Background(), batch...); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
