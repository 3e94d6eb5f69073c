package sqlstore

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/pressly/goose/v3"

	"github.com/einvoice/einvoice/internal/einvoice"
	"github.com/einvoice/einvoice/internal/testdb"
)

// plainSealer keeps secrets as they are (this test stores none).
type plainSealer struct{}

func (plainSealer) Seal(p []byte) (string, error) { return string(p), nil }
func (plainSealer) Open(s string) ([]byte, error) { return []byte(s), nil }

// TestIssueDateBackfill: migration 00008 fills in the issue date of the
// documents stored before it from their body and created_at, as
// Document.IssueDate computes it for the new writes: erpIssuedAt in UTC,
// else authority.issuedAt, else the creation; a body that is not JSON, or
// a time that does not read, falls back to the next rule. Its Down undoes
// it and Up applies again.
func TestIssueDateBackfill(t *testing.T) {
	t.Parallel()
	for _, e := range []struct {
		name string
		dsn  func(t *testing.T) string
	}{
		{"sqlite", func(t *testing.T) string { return testdb.SQLite(t) }},
		{"postgres", func(t *testing.T) string { return testdb.Postgres(t, os.Getenv) }},
	} {
		t.Run(e.name, func(t *testing.T) { testIssueDateBackfill(t, e.dsn(t)) })
	}
}

func testIssueDateBackfill(t *testing.T, dsn string) {
	ctx := context.Background()
	s, err := Open(ctx, dsn, plainSealer{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	sub, err := fs.Sub(migrations, "migrations/"+string(s.engine))
	if err != nil {
		t.Fatal(err)
	}
	dialect := goose.DialectSQLite3
	if s.engine == Postgres {
		dialect = goose.DialectPostgres
	}
	p, err := goose.NewProvider(dialect, s.w, sub, goose.WithDisableGlobalRegistry(true))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.UpTo(ctx, 7); err != nil {
		t.Fatalf("migrate to 7: %v", err)
	}
	// The tenant as version 7 stores it: the columns of later migrations
	// (00009's auth_intermediary_tin and 00016's
	// consolidation_relaxed_until, the last two) left out.
	tn := &einvoice.Tenant{ID: uuid.NewString(), Profile: einvoice.DemoProfile(), CreatedAt: time.Now(), UpdatedAt: time.Now()}
	args, err := s.tenantArgs(tn)
	if err != nil {
		t.Fatal(err)
	}
	cols := strings.TrimSuffix(tenantColumns, ", auth_intermediary_tin, consolidation_relaxed_until")
	marks := make([]string, strings.Count(cols, ",")+1)
	for i := range marks {
		marks[i] = fmt.Sprintf("$%d", i+1)
	}
	if _, err := s.ws.ExecContext(ctx, `INSERT INTO tenants (`+cols+`) VALUES (`+strings.Join(marks, ",")+`)`, args[:len(marks)]...); err != nil {
		t.Fatal(err)
	}

	myt := time.FixedZone("MYT", 8*3600)
	est := time.FixedZone("EST", -5*3600)
	ptr := func(t time.Time) *time.Time { return &t }
	march := func(d, h, m, s, ns int) time.Time { return time.Date(2026, 3, d, h, m, s, ns, time.UTC) }
	type row struct {
		name string
		doc  *einvoice.Document
		body string // instead of the document's JSON, when set
		want string
	}
	doc := func(created time.Time, edit func(d *einvoice.Document)) *einvoice.Document {
		d := &einvoice.Document{ID: uuid.NewString(), TenantID: tn.ID, Kind: einvoice.KindInvoice, TypeCode: "01",
			Status: einvoice.StatusDraft, CurrencyCode: "MYR", CreatedAt: created, UpdatedAt: created}
		if edit != nil {
			edit(d)
		}
		return d
	}
	rows := []row{
		{"erpIssuedAt a tenth of a microsecond before midnight", doc(march(1, 9, 0, 0, 0), func(d *einvoice.Document) {
			d.ErpIssuedAt = ptr(march(10, 23, 59, 59, 999999900))
		}), "", "2026-03-10"},
		{"erpIssuedAt at +08:00", doc(march(1, 9, 0, 0, 0), func(d *einvoice.Document) {
			d.ErpIssuedAt = ptr(time.Date(2026, 3, 11, 7, 0, 0, 0, myt))
		}), "", "2026-03-10"},
		{"erpIssuedAt at -05:00 with a fraction", doc(march(1, 9, 0, 0, 0), func(d *einvoice.Document) {
			d.ErpIssuedAt = ptr(time.Date(2026, 3, 10, 20, 0, 0, 500000000, est))
		}), "", "2026-03-11"},
		{"sent: the authority's issue time", doc(march(20, 8, 0, 0, 0), func(d *einvoice.Document) {
			d.Status = einvoice.StatusValid
			d.Authority = &einvoice.AuthorityRecord{DocumentUUID: "ABCDEFGHIJKLMNOPQRSTUVWXYZ", IssuedAt: ptr(march(12, 10, 0, 0, 0))}
		}), "", "2026-03-12"},
		{"erpIssuedAt before the authority's", doc(march(20, 8, 0, 0, 0), func(d *einvoice.Document) {
			d.ErpIssuedAt = ptr(march(5, 12, 0, 0, 0))
			d.Authority = &einvoice.AuthorityRecord{IssuedAt: ptr(march(7, 12, 0, 0, 0))}
		}), "", "2026-03-05"},
		{"draft: its creation", doc(march(9, 23, 59, 59, 999999000), nil), "", "2026-03-09"},
		{"an authority record without an issue time", doc(march(18, 1, 0, 0, 0), func(d *einvoice.Document) {
			d.Authority = &einvoice.AuthorityRecord{Errors: []einvoice.AuthorityError{{Code: "X"}}}
		}), "", "2026-03-18"},
		{"a body that is not JSON", doc(march(14, 1, 0, 0, 0), nil), `{"erpIssuedAt":"2026-01-01T00:00:00Z","invoiceLines":[`, "2026-03-14"},
		{"an erpIssuedAt that is not a time", doc(march(13, 1, 0, 0, 0), nil), `{"erpIssuedAt":"yesterday","authority":{"issuedAt":"2026-03-02T00:00:00Z"}}`, "2026-03-02"},
		{"a body that is not an object", doc(march(17, 1, 0, 0, 0), nil), `[1,2]`, "2026-03-17"},
	}
	for _, r := range rows {
		args, err := documentArgs(r.doc)
		if err != nil {
			t.Fatal(err)
		}
		if r.body != "" {
			args[docBodyArg] = r.body
		} else if got := dateText(r.doc.IssueDate()); got != r.want {
			t.Fatalf("%s: IssueDate = %s, want %s", r.name, got, r.want)
		}
		if _, err := s.w.ExecContext(ctx, `INSERT INTO documents (id, tenant_id, kind, type_code, status, buyer_id, seller_id, serial, serial_lower, body, created_at, updated_at)
			VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12)`, args[:12]...); err != nil {
			t.Fatalf("%s: insert at version 7: %v", r.name, err)
		}
	}
	check := func(when string) {
		t.Helper()
		for _, r := range rows {
			var got string
			if err := s.w.QueryRowContext(ctx, `SELECT issue_date FROM documents WHERE id = $1`, r.doc.ID).Scan(&got); err != nil {
				t.Fatalf("%s: %v", when, err)
			}
			if got != r.want {
				t.Errorf("%s: %s: issue_date = %q, want %q", when, r.name, got, r.want)
			}
		}
	}
	if _, err := p.UpTo(ctx, 8); err != nil {
		t.Fatalf("migrate to 8: %v", err)
	}
	check("after 00008")
	if _, err := p.DownTo(ctx, 7); err != nil {
		t.Fatalf("migrate down to 7: %v", err)
	}
	if _, err := s.w.ExecContext(ctx, `SELECT issue_date FROM documents`); err == nil {
		t.Errorf("issue_date is still there after the Down of 00008")
	}
	if err := s.Migrate(ctx, nil); err != nil {
		t.Fatalf("migrate again: %v", err)
	}
	check("after 00008 again")
	// The list reads the filled-in column.
	page, err := s.ListDocuments(ctx, tn.ID, einvoice.DocumentFilter{From: time.Date(2026, 3, 10, 0, 0, 0, 0, time.UTC),
		To: time.Date(2026, 3, 12, 0, 0, 0, 0, time.UTC), PageRequest: einvoice.PageRequest{Page: 1, PerPage: 50}})
	if err != nil || page.Total != 4 || len(page.Items) != 4 {
		t.Errorf("ListDocuments 03-10..03-12 = total %d, %d items, %v; want the 4 documents", page.Total, len(page.Items), err)
	}
}
