package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/einvoice/einvoice/internal/einvoice"
	"github.com/einvoice/einvoice/internal/money"
)

// receiptColumns are the columns a receipt is read from.
const receiptColumns = `id, tenant_id, receipt_number, issued_at, month, status, token, invoice_id, consolidation_id,
	consolidated_document_id, excluded_reason, body, deleted_at, created_at, updated_at`

// insertReceiptSQL inserts one receipt, or nothing when its receipt number
// (or token) is taken: the caller reads the rows affected.
const insertReceiptSQL = `INSERT INTO receipts (id, tenant_id, receipt_number, receipt_number_lower, issued_at, month, status, token,
	invoice_id, consolidation_id, consolidated_document_id, excluded_reason, body, deleted_at, created_at, updated_at)
	VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,NULL,$14,$15) ON CONFLICT DO NOTHING`

// receiptBody is what the body column holds: the sale and its amounts.
// The columns hold the rest.
type receiptBody struct {
	CurrencyCode string            `json:"currencyCode"`
	ExchangeRate *money.Number     `json:"exchangeRate,omitempty"`
	Lines        []einvoice.Line   `json:"invoiceLines"`
	Payment      *einvoice.Payment `json:"payment"`
	einvoice.Totals
}

func receiptArgs(r *einvoice.Receipt) ([]any, error) {
	body, err := json.Marshal(receiptBody{CurrencyCode: r.CurrencyCode, ExchangeRate: r.ExchangeRate, Lines: r.Lines,
		Payment: r.Payment, Totals: r.Totals})
	if err != nil {
		return nil, fmt.Errorf("encode receipt: %w", err)
	}
	return []any{r.ID, r.TenantID, r.ReceiptNumber, strings.ToLower(r.ReceiptNumber), micros(r.IssuedAt), r.Month,
		string(r.Status), r.Token, r.InvoiceID, r.ConsolidationID, r.ConsolidatedDocumentID, r.ExcludedReason,
		string(body), micros(r.CreatedAt), micros(r.UpdatedAt)}, nil
}

func scanReceipt(row interface{ Scan(...any) error }) (*einvoice.Receipt, error) {
	var r einvoice.Receipt
	var issued, created, updated int64
	var status, body string
	var deleted sql.NullInt64
	err := row.Scan(&r.ID, &r.TenantID, &r.ReceiptNumber, &issued, &r.Month, &status, &r.Token, &r.InvoiceID,
		&r.ConsolidationID, &r.ConsolidatedDocumentID, &r.ExcludedReason, &body, &deleted, &created, &updated)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, einvoice.ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	var b receiptBody
	if err := json.Unmarshal([]byte(body), &b); err != nil {
		return &r, fmt.Errorf("%w: receipt %s: %w", einvoice.ErrUnreadable, r.ID, err)
	}
	r.CurrencyCode, r.ExchangeRate, r.Lines, r.Payment, r.Totals = b.CurrencyCode, b.ExchangeRate, b.Lines, b.Payment, b.Totals
	r.Status = einvoice.ReceiptStatus(status)
	r.IssuedAt, r.CreatedAt, r.UpdatedAt = fromMicros(issued), fromMicros(created), fromMicros(updated)
	r.DeletedAt = microsPtr(deleted)
	return &r, nil
}

// CreateReceipt inserts r; einvoice.ErrConflict when its number is taken.
func (s *Store) CreateReceipt(ctx context.Context, r *einvoice.Receipt) error {
	args, err := receiptArgs(r)
	if err != nil {
		return err
	}
	res, err := s.ws.ExecContext(ctx, insertReceiptSQL, args...)
	if err != nil {
		return fmt.Errorf("insert receipt: %w", classify(err))
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("insert receipt: %w", err)
	} else if n == 0 {
		return fmt.Errorf("receipt number %q: %w", r.ReceiptNumber, einvoice.ErrConflict)
	}
	return nil
}

// CreateReceipts inserts rs in one transaction (on SQLite, one savepoint of
// a group commit), skipping those whose number is taken.
func (s *Store) CreateReceipts(ctx context.Context, rs []*einvoice.Receipt) ([]bool, error) {
	all := make([][]any, len(rs))
	for i, r := range rs {
		args, err := receiptArgs(r)
		if err != nil {
			return nil, err
		}
		all[i] = args
	}
	taken := make([]bool, len(rs))
	err := s.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		clear(taken) // a failed group runs this again
		st, err := tx.PrepareContext(ctx, insertReceiptSQL)
		if err != nil {
			return fmt.Errorf("prepare receipt insert: %w", err)
		}
		defer st.Close()
		for i, args := range all {
			res, err := st.ExecContext(ctx, args...)
			if err != nil {
				return fmt.Errorf("insert receipt %d: %w", i, classify(err))
			}
			n, err := res.RowsAffected()
			if err != nil {
				return fmt.Errorf("insert receipt %d: %w", i, err)
			}
			taken[i] = n == 0
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return taken, nil
}

// GetReceipt returns a receipt of the tenant that is not deleted.
func (s *Store) GetReceipt(ctx context.Context, tenantID, id string) (*einvoice.Receipt, error) {
	if !einvoice.ValidID(id) || !einvoice.ValidID(tenantID) {
		return nil, einvoice.ErrNotFound
	}
	return scanReceipt(s.rs.QueryRowContext(ctx, `SELECT `+receiptColumns+` FROM receipts
		WHERE id = $1 AND tenant_id = $2 AND deleted_at IS NULL`, id, tenantID))
}

// ReceiptByToken returns the receipt of a request token, deleted or not.
func (s *Store) ReceiptByToken(ctx context.Context, token string) (*einvoice.Receipt, error) {
	if token == "" || len(token) > 200 {
		return nil, einvoice.ErrNotFound
	}
	return scanReceipt(s.rs.QueryRowContext(ctx, `SELECT `+receiptColumns+` FROM receipts WHERE token = $1`, token))
}

// ListReceipts returns one page of the tenant's receipts that are not
// deleted, newest issued first.
func (s *Store) ListReceipts(ctx context.Context, tenantID string, f einvoice.ReceiptFilter) (einvoice.Page[*einvoice.Receipt], error) {
	page := einvoice.Page[*einvoice.Receipt]{PageRequest: f.PageRequest}
	if !einvoice.ValidID(tenantID) {
		return page, nil
	}
	cond := "tenant_id = $1 AND deleted_at IS NULL"
	args := []any{tenantID}
	if f.Month != "" {
		args = append(args, f.Month)
		cond += fmt.Sprintf(" AND month = $%d", len(args))
	}
	if f.Status != "" {
		args = append(args, string(f.Status))
		cond += fmt.Sprintf(" AND status = $%d", len(args))
	}
	if f.Search != "" {
		// A case-insensitive prefix of the receipt number: an index range.
		prefix := strings.ToLower(f.Search)
		args = append(args, prefix, prefix+searchUpper)
		cond += fmt.Sprintf(" AND receipt_number_lower >= $%d AND receipt_number_lower < $%d", len(args)-1, len(args))
	}
	if err := s.rs.QueryRowContext(ctx, `SELECT COUNT(*) FROM receipts WHERE `+cond, args...).Scan(&page.Total); err != nil {
		return page, fmt.Errorf("count receipts: %w", err)
	}
	if page.Total == 0 || f.Offset() >= page.Total {
		return page, nil
	}
	n := len(args)
	rows, err := s.rs.QueryContext(ctx, fmt.Sprintf(`SELECT %s FROM receipts WHERE %s
		ORDER BY issued_at DESC, receipt_number DESC, id DESC LIMIT $%d OFFSET $%d`, receiptColumns, cond, n+1, n+2),
		append(args, f.PerPage, f.Offset())...)
	if err != nil {
		return page, fmt.Errorf("list receipts: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		r, err := scanReceipt(rows)
		if errors.Is(err, einvoice.ErrUnreadable) {
			page.Unreadable = append(page.Unreadable, einvoice.Unreadable{ID: r.ID, Err: err})
			continue
		}
		if err != nil {
			return page, fmt.Errorf("list receipts: %w", err)
		}
		page.Items = append(page.Items, r)
	}
	return page, rows.Err()
}

// statusList renders statuses as SQL parameters from $first on, and
// returns the placeholders ("$3,$4") and the values.
func statusList(first int, from []einvoice.ReceiptStatus) (string, []any) {
	ph := make([]string, len(from))
	vals := make([]any, len(from))
	for i, st := range from {
		ph[i] = fmt.Sprintf("$%d", first+i)
		vals[i] = string(st)
	}
	return strings.Join(ph, ","), vals
}

// receiptState tells why a conditional write of a receipt changed nothing:
// ErrNotFound when it is absent or deleted, else ErrWrongState.
func receiptState(ctx context.Context, q interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}, tenantID, id string) error {
	var one int
	err := q.QueryRowContext(ctx, `SELECT 1 FROM receipts WHERE id = $1 AND tenant_id = $2 AND deleted_at IS NULL`, id, tenantID).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return einvoice.ErrNotFound
	}
	if err != nil {
		return fmt.Errorf("read receipt: %w", err)
	}
	return einvoice.ErrWrongState
}

// DeleteReceipt makes the receipt a tombstone when its status is in from.
func (s *Store) DeleteReceipt(ctx context.Context, tenantID, id string, from []einvoice.ReceiptStatus, at time.Time) error {
	if !einvoice.ValidID(id) || !einvoice.ValidID(tenantID) || len(from) == 0 {
		return einvoice.ErrNotFound
	}
	return s.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		ph, vals := statusList(4, from)
		res, err := tx.ExecContext(ctx, `UPDATE receipts SET deleted_at = $3, updated_at = $3
			WHERE id = $1 AND tenant_id = $2 AND deleted_at IS NULL AND status IN (`+ph+`)`,
			append([]any{id, tenantID, micros(at)}, vals...)...)
		if err != nil {
			return fmt.Errorf("delete receipt: %w", err)
		}
		if n, err := res.RowsAffected(); err != nil {
			return fmt.Errorf("delete receipt: %w", err)
		} else if n == 0 {
			return receiptState(ctx, tx, tenantID, id)
		}
		return nil
	})
}

// transitionSQL is the update of TransitionReceipt(s): $1 to $6 the new
// values, $7 the tenant, then the ids, then the statuses.
const transitionSQL = `UPDATE receipts SET status = $1, invoice_id = $2, consolidation_id = $3,
	consolidated_document_id = $4, excluded_reason = $5, updated_at = $6
	WHERE tenant_id = $7 AND deleted_at IS NULL AND id IN (%s) AND status IN (%s)`

func transitionArgs(tenantID string, ids []string, t einvoice.ReceiptTransition) (string, []any) {
	args := []any{string(t.To), t.InvoiceID, t.ConsolidationID, t.ConsolidatedDocumentID, t.ExcludedReason, micros(t.At), tenantID}
	idPh := make([]string, len(ids))
	for i, id := range ids {
		args = append(args, id)
		idPh[i] = fmt.Sprintf("$%d", len(args))
	}
	stPh, vals := statusList(len(args)+1, t.From)
	return fmt.Sprintf(transitionSQL, strings.Join(idPh, ","), stPh), append(args, vals...)
}

// TransitionReceipt applies t to one receipt.
func (s *Store) TransitionReceipt(ctx context.Context, tenantID, id string, t einvoice.ReceiptTransition) error {
	if !einvoice.ValidID(id) || !einvoice.ValidID(tenantID) {
		return einvoice.ErrNotFound
	}
	if len(t.From) == 0 {
		return fmt.Errorf("receipt transition to %s: no status to move from", t.To)
	}
	return s.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		q, args := transitionArgs(tenantID, []string{id}, t)
		res, err := tx.ExecContext(ctx, q, args...)
		if err != nil {
			return fmt.Errorf("receipt transition: %w", err)
		}
		if n, err := res.RowsAffected(); err != nil {
			return fmt.Errorf("receipt transition: %w", err)
		} else if n == 0 {
			return receiptState(ctx, tx, tenantID, id)
		}
		return nil
	})
}

// transitionChunk bounds the ids of one UPDATE (SQLite allows 32,766
// parameters; PostgreSQL 65,535).
const transitionChunk = 500

// TransitionReceipts applies t to each of ids it can, in one transaction.
func (s *Store) TransitionReceipts(ctx context.Context, tenantID string, ids []string, t einvoice.ReceiptTransition) (int, error) {
	if len(t.From) == 0 {
		return 0, fmt.Errorf("receipts transition to %s: no status to move from", t.To)
	}
	valid := make([]string, 0, len(ids))
	for _, id := range ids {
		if einvoice.ValidID(id) {
			valid = append(valid, id)
		}
	}
	if len(valid) == 0 || !einvoice.ValidID(tenantID) {
		return 0, nil
	}
	total := 0
	err := s.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		total = 0 // a failed group runs this again
		for start := 0; start < len(valid); start += transitionChunk {
			q, args := transitionArgs(tenantID, valid[start:min(start+transitionChunk, len(valid))], t)
			res, err := tx.ExecContext(ctx, q, args...)
			if err != nil {
				return fmt.Errorf("receipts transition: %w", err)
			}
			n, err := res.RowsAffected()
			if err != nil {
				return fmt.Errorf("receipts transition: %w", err)
			}
			total += int(n)
		}
		return nil
	})
	return total, err
}
