package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/einvoice/einvoice/internal/einvoice"
)

// consolidationColumns are the columns a consolidation is read from.
const consolidationColumns = `id, tenant_id, month, seq, status, body, lease_owner, lease_until, created_at, completed_at`

// consolidationBody is what the body column holds: the progress.
type consolidationBody struct {
	Documents     []einvoice.ConsolidationDocument `json:"documents"`
	ReceiptCount  int                              `json:"receiptCount"`
	ExcludedCount int                              `json:"excludedCount"`
	Excluded      []einvoice.ExcludedReceipt       `json:"excluded"`
}

func consolidationBodyOf(c *einvoice.Consolidation) (string, error) {
	b, err := json.Marshal(consolidationBody{Documents: c.Documents, ReceiptCount: c.ReceiptCount,
		ExcludedCount: c.ExcludedCount, Excluded: c.Excluded})
	if err != nil {
		return "", fmt.Errorf("encode consolidation: %w", err)
	}
	return string(b), nil
}

func scanConsolidation(row interface{ Scan(...any) error }) (*einvoice.Consolidation, error) {
	var c einvoice.Consolidation
	var status, body string
	var lease, created int64
	var completed sql.NullInt64
	err := row.Scan(&c.ID, &c.TenantID, &c.Month, &c.Seq, &status, &body, &c.LeaseOwner, &lease, &created, &completed)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, einvoice.ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	var b consolidationBody
	if err := json.Unmarshal([]byte(body), &b); err != nil {
		return &c, fmt.Errorf("%w: consolidation %s: %w", einvoice.ErrUnreadable, c.ID, err)
	}
	c.Documents, c.ReceiptCount, c.ExcludedCount, c.Excluded = b.Documents, b.ReceiptCount, b.ExcludedCount, b.Excluded
	if c.Documents == nil {
		c.Documents = []einvoice.ConsolidationDocument{}
	}
	if c.Excluded == nil {
		c.Excluded = []einvoice.ExcludedReceipt{}
	}
	c.Status = einvoice.ConsolidationStatus(status)
	c.Supplementary = c.Seq > 1
	c.Deadline = einvoice.ConsolidationDeadline(c.Month)
	c.LeaseUntil, c.CreatedAt = fromMicros(lease), fromMicros(created)
	c.CompletedAt = microsPtr(completed)
	return &c, nil
}

// CreateConsolidation inserts c with the next sequence number of its month;
// einvoice.ErrConflict when the tenant has a running consolidation.
func (s *Store) CreateConsolidation(ctx context.Context, c *einvoice.Consolidation) error {
	body, err := consolidationBodyOf(c)
	if err != nil {
		return err
	}
	return s.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		var seq int
		if err := tx.QueryRowContext(ctx, `SELECT COALESCE(MAX(seq), 0) + 1 FROM consolidations WHERE tenant_id = $1 AND month = $2`,
			c.TenantID, c.Month).Scan(&seq); err != nil {
			return fmt.Errorf("next consolidation number: %w", err)
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO consolidations (id, tenant_id, month, seq, status, body, lease_owner, lease_until, created_at)
			VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9)`, c.ID, c.TenantID, c.Month, seq, string(c.Status), body, c.LeaseOwner,
			micros(c.LeaseUntil), micros(c.CreatedAt))
		if err != nil {
			return fmt.Errorf("insert consolidation: %w", classify(err))
		}
		c.Seq, c.Supplementary, c.Deadline = seq, seq > 1, einvoice.ConsolidationDeadline(c.Month)
		return nil
	})
}

// GetConsolidation returns a consolidation of the tenant.
func (s *Store) GetConsolidation(ctx context.Context, tenantID, id string) (*einvoice.Consolidation, error) {
	if !einvoice.ValidID(id) || !einvoice.ValidID(tenantID) {
		return nil, einvoice.ErrNotFound
	}
	return scanConsolidation(s.rs.QueryRowContext(ctx, `SELECT `+consolidationColumns+` FROM consolidations
		WHERE id = $1 AND tenant_id = $2`, id, tenantID))
}

// ListConsolidations returns one page of the tenant's consolidations,
// newest first.
func (s *Store) ListConsolidations(ctx context.Context, tenantID string, f einvoice.ConsolidationFilter) (einvoice.Page[*einvoice.Consolidation], error) {
	page := einvoice.Page[*einvoice.Consolidation]{PageRequest: f.PageRequest}
	if !einvoice.ValidID(tenantID) {
		return page, nil
	}
	cond, args := "tenant_id = $1", []any{tenantID}
	if f.Month != "" {
		args = append(args, f.Month)
		cond += " AND month = $2"
	}
	if err := s.rs.QueryRowContext(ctx, `SELECT COUNT(*) FROM consolidations WHERE `+cond, args...).Scan(&page.Total); err != nil {
		return page, fmt.Errorf("count consolidations: %w", err)
	}
	if page.Total == 0 || f.Offset() >= page.Total {
		return page, nil
	}
	n := len(args)
	rows, err := s.rs.QueryContext(ctx, fmt.Sprintf(`SELECT %s FROM consolidations WHERE %s
		ORDER BY created_at DESC, id DESC LIMIT $%d OFFSET $%d`, consolidationColumns, cond, n+1, n+2),
		append(args, f.PerPage, f.Offset())...)
	if err != nil {
		return page, fmt.Errorf("list consolidations: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		c, err := scanConsolidation(rows)
		if errors.Is(err, einvoice.ErrUnreadable) {
			page.Unreadable = append(page.Unreadable, einvoice.Unreadable{ID: c.ID, Err: err})
			continue
		}
		if err != nil {
			return page, fmt.Errorf("list consolidations: %w", err)
		}
		page.Items = append(page.Items, c)
	}
	return page, rows.Err()
}

// ClaimConsolidation leases the oldest running consolidation whose lease
// has expired to owner.
func (s *Store) ClaimConsolidation(ctx context.Context, owner string, now, until time.Time) (*einvoice.Consolidation, error) {
	var c *einvoice.Consolidation
	err := s.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		c = nil
		var id string
		err := tx.QueryRowContext(ctx, `SELECT id FROM consolidations WHERE status = 'running' AND lease_until < $1
			ORDER BY created_at LIMIT 1`, micros(now)).Scan(&id)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("find a consolidation to resume: %w", err)
		}
		res, err := tx.ExecContext(ctx, `UPDATE consolidations SET lease_owner = $2, lease_until = $3
			WHERE id = $1 AND status = 'running' AND lease_until < $4`, id, owner, micros(until), micros(now))
		if err != nil {
			return fmt.Errorf("claim consolidation: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return nil // another replica took it
		}
		c, err = scanConsolidation(tx.QueryRowContext(ctx, `SELECT `+consolidationColumns+` FROM consolidations WHERE id = $1`, id))
		return err
	})
	return c, err
}

// SaveConsolidation writes c's progress and renews its lease while
// c.LeaseOwner holds it.
func (s *Store) SaveConsolidation(ctx context.Context, c *einvoice.Consolidation) error {
	body, err := consolidationBodyOf(c)
	if err != nil {
		return err
	}
	return s.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE consolidations SET body = $3, lease_until = $4
			WHERE id = $1 AND lease_owner = $2 AND status = 'running'`, c.ID, c.LeaseOwner, body, micros(c.LeaseUntil))
		if err != nil {
			return fmt.Errorf("save consolidation: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return einvoice.ErrWrongState
		}
		return nil
	})
}

// CompleteConsolidation marks c completed and writes e, in one transaction.
func (s *Store) CompleteConsolidation(ctx context.Context, c *einvoice.Consolidation, e *einvoice.APIEvent) error {
	body, err := consolidationBodyOf(c)
	if err != nil {
		return err
	}
	return s.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE consolidations SET body = $3, status = 'completed', completed_at = $4, lease_until = 0
			WHERE id = $1 AND lease_owner = $2 AND status = 'running'`, c.ID, c.LeaseOwner, body, micros(*c.CompletedAt))
		if err != nil {
			return fmt.Errorf("complete consolidation: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return einvoice.ErrWrongState
		}
		if _, err := s.insertAPIEvent(ctx, tx, e, ""); err != nil {
			return err
		}
		return nil
	})
}

// CreateConsolidatedDocument inserts the document and consolidates its
// receipts in one transaction, or writes nothing when one of them is no
// longer open.
func (s *Store) CreateConsolidatedDocument(ctx context.Context, w einvoice.ConsolidatedDocumentWrite, consolidationID string) error {
	args, err := documentArgs(w.Doc)
	if err != nil {
		return err
	}
	t := einvoice.ReceiptTransition{From: []einvoice.ReceiptStatus{einvoice.ReceiptOpen}, To: einvoice.ReceiptConsolidated,
		ConsolidationID: consolidationID, ConsolidatedDocumentID: w.Doc.ID, At: w.At}
	return s.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, insertDocument, args...); err != nil {
			return docWriteError(err)
		}
		if err := bumpCount(ctx, tx, w.Doc.TenantID, w.Doc.Kind, w.Doc.Status, 1); err != nil {
			return err
		}
		if err := insertEvent(ctx, tx, w.Doc.ID, w.Event); err != nil {
			return err
		}
		// One primary-key update per receipt (a prepared statement): an IN
		// list lets SQLite pick a scan of the tenant's receipts instead.
		st, err := tx.PrepareContext(ctx, `UPDATE receipts SET status = $1, consolidation_id = $2,
			consolidated_document_id = $3, updated_at = $4
			WHERE id = $5 AND tenant_id = $6 AND deleted_at IS NULL AND status = $7`)
		if err != nil {
			return fmt.Errorf("prepare the receipts' transition: %w", err)
		}
		defer st.Close()
		moved := 0
		for _, id := range w.ReceiptIDs {
			res, err := st.ExecContext(ctx, string(t.To), t.ConsolidationID, t.ConsolidatedDocumentID, micros(t.At), id,
				w.Doc.TenantID, string(einvoice.ReceiptOpen))
			if err != nil {
				return fmt.Errorf("consolidate receipt %s: %w", id, err)
			}
			n, err := res.RowsAffected()
			if err != nil {
				return fmt.Errorf("consolidate receipt %s: %w", id, err)
			}
			moved += int(n)
		}
		if moved != len(w.ReceiptIDs) {
			return fmt.Errorf("%d of %d receipts are no longer open: %w", len(w.ReceiptIDs)-moved, len(w.ReceiptIDs), einvoice.ErrWrongState)
		}
		return nil
	})
}

// receiptsWhere reads the receipts of a condition.
func (s *Store) receiptsWhere(ctx context.Context, cond string, args ...any) ([]*einvoice.Receipt, error) {
	rows, err := s.rs.QueryContext(ctx, `SELECT `+receiptColumns+` FROM receipts WHERE `+cond, args...)
	if err != nil {
		return nil, fmt.Errorf("read receipts: %w", err)
	}
	defer rows.Close()
	var out []*einvoice.Receipt
	for rows.Next() {
		r, err := scanReceipt(rows)
		if err != nil {
			return nil, fmt.Errorf("read receipts: %w", err)
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// MonthReceipts returns the tenant's receipts of month in the statuses.
func (s *Store) MonthReceipts(ctx context.Context, tenantID, month string, statuses []einvoice.ReceiptStatus) ([]*einvoice.Receipt, error) {
	if !einvoice.ValidID(tenantID) || len(statuses) == 0 {
		return nil, nil
	}
	ph, vals := statusList(3, statuses)
	return s.receiptsWhere(ctx, `tenant_id = $1 AND month = $2 AND deleted_at IS NULL AND status IN (`+ph+`)`,
		append([]any{tenantID, month}, vals...)...)
}

// ConsolidationCounts counts the receipts of each document of a
// consolidation (no receipt decoded).
func (s *Store) ConsolidationCounts(ctx context.Context, tenantID, consolidationID string) (map[string]int, error) {
	out := map[string]int{}
	if !einvoice.ValidID(tenantID) || !einvoice.ValidID(consolidationID) {
		return out, nil
	}
	rows, err := s.rs.QueryContext(ctx, `SELECT consolidated_document_id, COUNT(*) FROM receipts
		WHERE consolidation_id = $1 AND consolidation_id <> '' AND tenant_id = $2 AND deleted_at IS NULL AND status = 'consolidated'
		GROUP BY consolidated_document_id`, consolidationID, tenantID)
	if err != nil {
		return nil, fmt.Errorf("count the consolidation's receipts: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var n int
		if err := rows.Scan(&id, &n); err != nil {
			return nil, fmt.Errorf("count the consolidation's receipts: %w", err)
		}
		out[id] = n
	}
	return out, rows.Err()
}

// DocumentReceipts returns the receipts a consolidated invoice carries.
func (s *Store) DocumentReceipts(ctx context.Context, tenantID, documentID string) ([]*einvoice.Receipt, error) {
	if !einvoice.ValidID(tenantID) || !einvoice.ValidID(documentID) {
		return nil, nil
	}
	return s.receiptsWhere(ctx, `consolidated_document_id = $1 AND consolidated_document_id <> '' AND tenant_id = $2 AND deleted_at IS NULL`, documentID, tenantID)
}

// ClaimSchedule records the scheduler's consolidation of month for the
// tenant; false when some replica claimed it before.
func (s *Store) ClaimSchedule(ctx context.Context, tenantID, month string, at time.Time) (bool, error) {
	claimed := false
	err := s.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `INSERT INTO consolidation_schedule (tenant_id, month, claimed_at) VALUES ($1,$2,$3)
			ON CONFLICT DO NOTHING`, tenantID, month, micros(at))
		if err != nil {
			return fmt.Errorf("claim the scheduled consolidation: %w", classify(err))
		}
		n, err := res.RowsAffected()
		claimed = n == 1
		return err
	})
	return claimed, err
}
