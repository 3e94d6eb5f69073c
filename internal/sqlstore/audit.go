package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/einvoice/einvoice/internal/einvoice"
)

var _ einvoice.AuditStore = (*Store)(nil)

const auditColumns = `seq, at, tenant_id, actor_kind, actor_id, actor_name, actor_email, address, user_agent, action,
	resource_type, resource_id, outcome, status, detail, prev_hash, hash`

// auditBatch bounds the rows of one INSERT of AppendAudit (18 columns a
// row: well under either engine's limit of parameters).
const auditBatch = 100

// auditInsertColumns are the columns an append writes: the entry's, and
// its rank among its tenant's entries.
const auditInsertColumns = auditColumns + `, tseq`

func auditArgs(e *einvoice.AuditEntry, tseq int64) []any {
	return []any{e.Seq, micros(e.At), e.TenantID, string(e.ActorKind), e.ActorID, e.ActorName, e.ActorEmail, e.Address,
		e.UserAgent, e.Action, e.ResourceType, e.ResourceID, string(e.Outcome), e.Status, e.Detail, e.PrevHash, e.Hash, tseq}
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
// chain; on SQLite the one writer does the same. The tenants' counts
// (their entries' ranks, tseq) move with it, under the same lock.
func (s *Store) AppendAudit(ctx context.Context, entries ...*einvoice.AuditEntry) error {
	if len(entries) == 0 {
		return nil
	}
	head := `SELECT seq, hash FROM audit_head WHERE id = 1`
	if s.engine == Postgres {
		head += ` FOR UPDATE`
	}
	var insert *sql.Stmt // SQLite's, prepared outside the transaction
	if s.engine == SQLite {
		var err error
		if insert, err = s.ws.stmt(ctx, auditInsertOne); err != nil {
			return fmt.Errorf("append to the audit log: %w", err)
		}
	}
	err := s.auditTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		var seq int64
		var hash string
		if err := tx.QueryRowContext(ctx, head).Scan(&seq, &hash); err != nil {
			return fmt.Errorf("read the chain's head: %w", err)
		}
		counts, err := tenantCounts(ctx, tx, entries)
		if err != nil {
			return err
		}
		ranks := make([]int64, len(entries))
		for i, e := range entries {
			e.At = e.At.UTC().Truncate(time.Microsecond) // stored, and hashed, in microseconds
			e.Chain(seq, hash)
			seq, hash = e.Seq, e.Hash
			counts[e.TenantID]++
			ranks[i] = counts[e.TenantID]
		}
		if err := s.insertAudit(ctx, tx, insert, entries, ranks); err != nil {
			return err
		}
		for tenantID, n := range counts {
			if _, err := tx.ExecContext(ctx, `INSERT INTO audit_tenants (tenant_id, entries) VALUES ($1, $2)
				ON CONFLICT (tenant_id) DO UPDATE SET entries = excluded.entries`, tenantID, n); err != nil {
				return fmt.Errorf("count the tenant's audit entries: %w", err)
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

// auditTx runs an append: on SQLite in the group commit of the requests'
// writes; on PostgreSQL through the unsynced pool (synchronous_commit off),
// so that a batch's commit adds no WAL flush of its own to the requests'
// commits: the next synchronous commit (or the WAL writer, within a fraction
// of a second) makes it durable. A crash of the database server may lose
// the last batches, as a crash of the service loses its queued entries
// (docs/audit.md); the chain and its head, written together, stay whole.
func (s *Store) auditTx(ctx context.Context, fn txFunc) error {
	if s.engine != Postgres {
		return s.tx(ctx, fn)
	}
	db, err := s.unsyncedDB()
	if err != nil {
		return err
	}
	return retryTx(ctx, db, fn)
}

// tenantCounts reads the entry counts of the tenants of entries.
func tenantCounts(ctx context.Context, tx *sql.Tx, entries []*einvoice.AuditEntry) (map[string]int64, error) {
	counts := map[string]int64{}
	for _, e := range entries {
		if _, ok := counts[e.TenantID]; ok {
			continue
		}
		var n int64
		err := tx.QueryRowContext(ctx, `SELECT entries FROM audit_tenants WHERE tenant_id = $1`, e.TenantID).Scan(&n)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return nil, fmt.Errorf("read the tenant's audit count: %w", err)
		}
		counts[e.TenantID] = n
	}
	return counts, nil
}

// insertAudit inserts entries with their ranks: on PostgreSQL in
// multi-row statements (one round trip per auditBatch rows); on SQLite
// through one single-row statement prepared once on the writer (in-process,
// a row costs no round trip, and SQLite's parse and $N lookup of a long
// statement cost more than the rows; preparing it per batch cost a tenth
// of an append): insert, prepared by AppendAudit before its transaction
// (inside it, the writer's one connection is the transaction's).
func (s *Store) insertAudit(ctx context.Context, tx *sql.Tx, insert *sql.Stmt, entries []*einvoice.AuditEntry, ranks []int64) error {
	if s.engine == SQLite {
		st := tx.StmtContext(ctx, insert)
		defer st.Close()
		for i, e := range entries {
			if _, err := st.ExecContext(ctx, auditArgs(e, ranks[i])...); err != nil {
				return fmt.Errorf("insert audit entries: %w", classify(err))
			}
		}
		return nil
	}
	for i := 0; i < len(entries); i += auditBatch {
		end := min(i+auditBatch, len(entries))
		args := make([]any, 0, 18*(end-i))
		for j := i; j < end; j++ {
			args = append(args, auditArgs(entries[j], ranks[j])...)
		}
		if _, err := tx.ExecContext(ctx, auditInsert(end-i), args...); err != nil {
			return fmt.Errorf("insert audit entries: %w", classify(err))
		}
	}
	return nil
}

// auditInsertOne is the INSERT of one entry.
var auditInsertOne = auditInsert(1)

// auditInsert is the INSERT of n entries.
func auditInsert(n int) string {
	var q strings.Builder
	q.WriteString(`INSERT INTO audit_log (` + auditInsertColumns + `) VALUES `)
	for i := range n {
		if i > 0 {
			q.WriteByte(',')
		}
		q.WriteByte('(')
		for j := range 18 {
			if j > 0 {
				q.WriteByte(',')
			}
			q.WriteByte('$')
			q.WriteString(strconv.Itoa(i*18 + j + 1))
		}
		q.WriteByte(')')
	}
	return q.String()
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
	total, err := s.auditTotal(ctx, tenantID, f, where, args)
	if err != nil {
		return page, err
	}
	page.Total = total
	if page.Total == 0 || f.Offset() >= page.Total {
		return page, nil
	}
	// A period is read by time (its index), which is the log's order but
	// for entries of one moment appended in another order: ordered by seq,
	// a planner may walk the whole log back to the period.
	by := fmt.Sprintf("seq %s", order)
	if !f.From.IsZero() || !f.To.IsZero() {
		by = fmt.Sprintf("at %s, seq %s", order, order)
	}
	n := len(args)
	rows, err := s.rs.QueryContext(ctx, fmt.Sprintf(`SELECT `+auditColumns+` FROM audit_log WHERE %s ORDER BY %s LIMIT $%d OFFSET $%d`,
		where, by, n+1, n+2), append(args, f.PerPage, f.Offset())...)
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

// auditTotal is how many entries f selects. Without filters but the
// keyset's, it is read from the tenant's count and its entries' ranks (an
// index lookup each), not counted: a long log's first page costs what any
// page costs.
func (s *Store) auditTotal(ctx context.Context, tenantID string, f einvoice.AuditFilter, where string, args []any) (int, error) {
	if f.Actor != "" || f.Action != "" || f.ResourceType != "" || !f.From.IsZero() || !f.To.IsZero() {
		var n int
		if err := s.rs.QueryRowContext(ctx, `SELECT COUNT(*) FROM audit_log WHERE `+where, args...).Scan(&n); err != nil {
			return 0, fmt.Errorf("count audit entries: %w", err)
		}
		return n, nil
	}
	// rank is the tseq of the tenant's last entry before seq (0 for none).
	rank := func(seq int64) (int64, error) {
		var n int64
		err := s.rs.QueryRowContext(ctx, `SELECT tseq FROM audit_log WHERE tenant_id = $1 AND seq < $2 ORDER BY seq DESC LIMIT 1`,
			tenantID, seq).Scan(&n)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return 0, fmt.Errorf("rank an audit entry: %w", err)
		}
		return n, nil
	}
	var hi, lo int64
	err := s.rs.QueryRowContext(ctx, `SELECT entries FROM audit_tenants WHERE tenant_id = $1`, tenantID).Scan(&hi)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return 0, fmt.Errorf("count audit entries: %w", err)
	}
	if f.Before > 0 {
		if hi, err = rank(f.Before); err != nil {
			return 0, err
		}
	}
	if f.After > 0 {
		if lo, err = rank(f.After + 1); err != nil {
			return 0, err
		}
	}
	return int(max(hi-lo, 0)), nil
}
