package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/einvoice/einvoice/internal/einvoice"
)

var _ einvoice.AuditStore = (*Store)(nil)

const auditColumns = `seq, at, tenant_id, actor_kind, actor_id, actor_name, actor_email, address, user_agent, action,
	resource_type, resource_id, outcome, status, detail, prev_hash, hash`

// auditBatch bounds the rows of one INSERT of AppendAudit (17 columns a
// row: well under either engine's limit of parameters).
const auditBatch = 100

func auditArgs(e *einvoice.AuditEntry) []any {
	return []any{e.Seq, micros(e.At), e.TenantID, string(e.ActorKind), e.ActorID, e.ActorName, e.ActorEmail, e.Address,
		e.UserAgent, e.Action, e.ResourceType, e.ResourceID, string(e.Outcome), e.Status, e.Detail, e.PrevHash, e.Hash}
}

func scanAudit(row interface{ Scan(...any) error }) (*einvoice.AuditEntry, error) {
	var e einvoice.AuditEntry
	var at int64
	var kind, outcome string
	err := row.Scan(&e.Seq, &at, &e.TenantID, &kind, &e.ActorID, &e.ActorName, &e.ActorEmail, &e.Address, &e.UserAgent,
		&e.Action, &e.ResourceType, &e.ResourceID, &outcome, &e.Status, &e.Detail, &e.PrevHash, &e.Hash)
	if err != nil {
		return nil, fmt.Errorf("scan audit entry: %w", err)
	}
	e.At, e.ActorKind, e.Outcome = fromMicros(at), einvoice.ActorKind(kind), einvoice.AuditOutcome(outcome)
	return &e, nil
}

// AppendAudit appends entries at the end of the chain in one transaction.
// The chain's head row is read and written in it: on PostgreSQL locked FOR
// UPDATE, so that appends of several replicas queue on it and make one
// chain; on SQLite the one writer does the same.
func (s *Store) AppendAudit(ctx context.Context, entries ...*einvoice.AuditEntry) error {
	if len(entries) == 0 {
		return nil
	}
	head := `SELECT seq, hash FROM audit_head WHERE id = 1`
	if s.engine == Postgres {
		head += ` FOR UPDATE`
	}
	err := s.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		var seq int64
		var hash string
		if err := tx.QueryRowContext(ctx, head).Scan(&seq, &hash); err != nil {
			return fmt.Errorf("read the chain's head: %w", err)
		}
		for _, e := range entries {
			e.At = e.At.UTC().Truncate(time.Microsecond) // stored, and hashed, in microseconds
			e.Chain(seq, hash)
			seq, hash = e.Seq, e.Hash
		}
		for i := 0; i < len(entries); i += auditBatch {
			if err := insertAudit(ctx, tx, entries[i:min(i+auditBatch, len(entries))]); err != nil {
				return err
			}
		}
		if _, err := tx.ExecContext(ctx, `UPDATE audit_head SET seq = $1, hash = $2 WHERE id = 1`, seq, hash); err != nil {
			return fmt.Errorf("move the chain's head: %w", err)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("append to the audit log: %w", err)
	}
	return nil
}

// insertAudit inserts entries in one statement.
func insertAudit(ctx context.Context, tx *sql.Tx, entries []*einvoice.AuditEntry) error {
	var q strings.Builder
	q.WriteString(`INSERT INTO audit_log (` + auditColumns + `) VALUES `)
	args := make([]any, 0, 17*len(entries))
	for i, e := range entries {
		if i > 0 {
			q.WriteByte(',')
		}
		q.WriteByte('(')
		for j := range 17 {
			if j > 0 {
				q.WriteByte(',')
			}
			fmt.Fprintf(&q, "$%d", len(args)+j+1)
		}
		q.WriteByte(')')
		args = append(args, auditArgs(e)...)
	}
	if _, err := tx.ExecContext(ctx, q.String(), args...); err != nil {
		return fmt.Errorf("insert audit entries: %w", classify(err))
	}
	return nil
}

// AuditHead returns the chain's head.
func (s *Store) AuditHead(ctx context.Context) (int64, string, error) {
	var seq int64
	var hash string
	if err := s.rs.QueryRowContext(ctx, `SELECT seq, hash FROM audit_head WHERE id = 1`).Scan(&seq, &hash); err != nil {
		return 0, "", fmt.Errorf("read the audit chain's head: %w", err)
	}
	return seq, hash, nil
}

// walkBatch is how many entries WalkAudit reads per query.
const walkBatch = 5000

// WalkAudit calls fn with every entry up to through by seq, reading them
// in batches (a keyset on seq), so that no read holds a transaction open
// for the whole log.
func (s *Store) WalkAudit(ctx context.Context, through int64, fn func(*einvoice.AuditEntry) error) error {
	var after int64 = -1 << 62
	for {
		rows, err := s.rs.QueryContext(ctx, `SELECT `+auditColumns+` FROM audit_log WHERE seq > $1 AND seq <= $2
			ORDER BY seq LIMIT $3`, after, through, walkBatch)
		if err != nil {
			return fmt.Errorf("read the audit log: %w", err)
		}
		var batch []*einvoice.AuditEntry
		for rows.Next() {
			e, err := scanAudit(rows)
			if err != nil {
				rows.Close()
				return err
			}
			batch = append(batch, e)
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return fmt.Errorf("read the audit log: %w", err)
		}
		for _, e := range batch {
			if err := fn(e); err != nil {
				return err
			}
		}
		if len(batch) < walkBatch {
			return nil
		}
		after = batch[len(batch)-1].Seq
	}
}

// ListAudit returns one page of a tenant's audit log.
func (s *Store) ListAudit(ctx context.Context, tenantID string, f einvoice.AuditFilter) (einvoice.Page[*einvoice.AuditEntry], error) {
	page := einvoice.Page[*einvoice.AuditEntry]{PageRequest: f.PageRequest}
	where, args := auditWhere(tenantID, f)
	order := "DESC"
	if f.After > 0 && f.Before == 0 {
		order = "ASC"
	}
	if err := s.rs.QueryRowContext(ctx, `SELECT COUNT(*) FROM audit_log WHERE `+where, args...).Scan(&page.Total); err != nil {
		return page, fmt.Errorf("count audit entries: %w", err)
	}
	if page.Total == 0 || f.Offset() >= page.Total {
		return page, nil
	}
	n := len(args)
	rows, err := s.rs.QueryContext(ctx, fmt.Sprintf(`SELECT `+auditColumns+` FROM audit_log WHERE %s ORDER BY seq %s LIMIT $%d OFFSET $%d`,
		where, order, n+1, n+2), append(args, f.PerPage, f.Offset())...)
	if err != nil {
		return page, fmt.Errorf("list audit entries: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		e, err := scanAudit(rows)
		if err != nil {
			return page, err
		}
		page.Items = append(page.Items, e)
	}
	if err := rows.Err(); err != nil {
		return page, fmt.Errorf("list audit entries: %w", err)
	}
	return page, nil
}

// auditWhere is the WHERE clause of a filter, and its arguments.
func auditWhere(tenantID string, f einvoice.AuditFilter) (string, []any) {
	where, args := `tenant_id = $1`, []any{tenantID}
	add := func(cond string, v any) {
		args = append(args, v)
		where += fmt.Sprintf(" AND "+cond, len(args))
	}
	switch a := f.Actor; {
	case a == "":
	case strings.Contains(a, "@"):
		add("actor_email = $%d", strings.ToLower(a))
	case isActorKind(a):
		add("actor_kind = $%d", a)
	default:
		add("actor_id = $%d", a)
	}
	if f.Action != "" {
		add("action = $%d", f.Action)
	}
	if f.ResourceType != "" {
		add("resource_type = $%d", f.ResourceType)
		if f.ResourceID != "" {
			add("resource_id = $%d", f.ResourceID)
		}
	}
	if !f.From.IsZero() {
		add("at >= $%d", micros(f.From))
	}
	if !f.To.IsZero() {
		add("at < $%d", micros(f.To))
	}
	if f.Before > 0 {
		add("seq < $%d", f.Before)
	}
	if f.After > 0 {
		add("seq > $%d", f.After)
	}
	return where, args
}

func isActorKind(s string) bool {
	switch einvoice.ActorKind(s) {
	case einvoice.ActorUser, einvoice.ActorKey, einvoice.ActorRequestPage, einvoice.ActorCLI, einvoice.ActorService:
		return true
	}
	return false
}
