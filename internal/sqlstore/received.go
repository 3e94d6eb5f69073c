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
)

var _ einvoice.ReceivedStore = (*Store)(nil)

const receivedColumns = `id, tenant_id, uuid, submission_uid, long_id, type_code, type_name, type_version, number,
	issuer_tin, issuer_name, issuer_name_lower, receiver_tin, receiver_name, issued_at, submitted_at, validated_at, status,
	cancelled_at, rejection_requested_at, status_reason, currency, total_excluding_tax, total_tax, total_including_tax,
	total_payable, lines, parsed, parse_error, created_at, updated_at`

func receivedArgs(d *einvoice.ReceivedDocument) ([]any, error) {
	lines, err := json.Marshal(d.Lines)
	if err != nil {
		return nil, fmt.Errorf("encode received lines: %w", err)
	}
	return []any{d.ID, d.TenantID, d.UUID, d.SubmissionUID, d.LongID, d.TypeCode, d.TypeName, d.TypeVersion, d.Number,
		d.IssuerTIN, d.IssuerName, strings.ToLower(d.IssuerName), d.ReceiverTIN, d.ReceiverName, micros(d.IssuedAt),
		micros(d.SubmittedAt), nullMicros(d.ValidatedAt), d.Status, nullMicros(d.CancelledAt), nullMicros(d.RejectionRequestedAt),
		d.StatusReason, d.Currency, d.TotalExcludingTax, d.TotalTax, d.TotalIncludingTax, d.TotalPayableAmount, string(lines),
		d.Parsed, d.ParseError, micros(d.CreatedAt), micros(d.UpdatedAt)}, nil
}

func scanReceived(row interface{ Scan(...any) error }) (*einvoice.ReceivedDocument, error) {
	var d einvoice.ReceivedDocument
	var lower, lines string
	var issued, submitted, created, updated int64
	var validated, cancelled, rejected sql.NullInt64
	err := row.Scan(&d.ID, &d.TenantID, &d.UUID, &d.SubmissionUID, &d.LongID, &d.TypeCode, &d.TypeName, &d.TypeVersion, &d.Number,
		&d.IssuerTIN, &d.IssuerName, &lower, &d.ReceiverTIN, &d.ReceiverName, &issued, &submitted, &validated, &d.Status,
		&cancelled, &rejected, &d.StatusReason, &d.Currency, &d.TotalExcludingTax, &d.TotalTax, &d.TotalIncludingTax,
		&d.TotalPayableAmount, &lines, &d.Parsed, &d.ParseError, &created, &updated)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, einvoice.ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("scan received document: %w", err)
	}
	if err := json.Unmarshal([]byte(lines), &d.Lines); err != nil {
		return nil, fmt.Errorf("received document %s lines: %w", d.ID, err)
	}
	d.IssuedAt, d.SubmittedAt, d.CreatedAt, d.UpdatedAt = fromMicros(issued), fromMicros(submitted), fromMicros(created), fromMicros(updated)
	d.ValidatedAt, d.CancelledAt, d.RejectionRequestedAt = microsPtr(validated), microsPtr(cancelled), microsPtr(rejected)
	return &d, nil
}

func microsPtr(v sql.NullInt64) *time.Time {
	if !v.Valid {
		return nil
	}
	t := fromMicros(v.Int64)
	return &t
}

// SaveReceived inserts a received document new to its tenant, with its raw
// document and events; a uuid already stored is left as it is.
func (s *Store) SaveReceived(ctx context.Context, w einvoice.ReceivedWrite) (bool, error) {
	args, err := receivedArgs(w.Doc)
	if err != nil {
		return false, err
	}
	marks := make([]string, len(args))
	for i := range marks {
		marks[i] = fmt.Sprintf("$%d", i+1)
	}
	created := false
	err = s.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		created = false
		res, err := tx.ExecContext(ctx, `INSERT INTO received_documents (`+receivedColumns+`) VALUES (`+strings.Join(marks, ",")+`)
			ON CONFLICT (tenant_id, uuid) DO NOTHING`, args...)
		if err != nil {
			return fmt.Errorf("insert received document: %w", classify(err))
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return err
		}
		created = true
		if _, err := tx.ExecContext(ctx, `INSERT INTO received_raw (received_id, tenant_id, body) VALUES ($1,$2,$3)`,
			w.Doc.ID, w.Doc.TenantID, w.Raw); err != nil {
			return fmt.Errorf("store received raw: %w", err)
		}
		for _, e := range w.Notify {
			if _, err := s.insertAPIEvent(ctx, tx, e, ""); err != nil {
				return err
			}
		}
		return nil
	})
	return created, err
}

// UpdateReceived writes a received document's status fields and the events
// of the change.
func (s *Store) UpdateReceived(ctx context.Context, w einvoice.ReceivedWrite) error {
	d := w.Doc
	return s.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE received_documents SET status = $1, cancelled_at = $2, rejection_requested_at = $3,
			status_reason = $4, validated_at = $5, long_id = $6, updated_at = $7 WHERE id = $8 AND tenant_id = $9`,
			d.Status, nullMicros(d.CancelledAt), nullMicros(d.RejectionRequestedAt), d.StatusReason, nullMicros(d.ValidatedAt),
			d.LongID, micros(d.UpdatedAt), d.ID, d.TenantID)
		if err != nil {
			return fmt.Errorf("update received document: %w", err)
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return cmpErr(err, einvoice.ErrNotFound)
		}
		for _, e := range w.Notify {
			if _, err := s.insertAPIEvent(ctx, tx, e, ""); err != nil {
				return err
			}
		}
		return nil
	})
}

func cmpErr(err, otherwise error) error {
	if err != nil {
		return err
	}
	return otherwise
}

// ReceivedUUIDs returns the stored status of each of the uuids the tenant has.
func (s *Store) ReceivedUUIDs(ctx context.Context, tenantID string, uuids []string) (map[string]string, error) {
	out := make(map[string]string, len(uuids))
	if len(uuids) == 0 || !einvoice.ValidID(tenantID) {
		return out, nil
	}
	args := []any{tenantID}
	marks := make([]string, len(uuids))
	for i, u := range uuids {
		args = append(args, u)
		marks[i] = fmt.Sprintf("$%d", i+2)
	}
	rows, err := s.r.QueryContext(ctx, `SELECT uuid, status FROM received_documents WHERE tenant_id = $1 AND uuid IN (`+
		strings.Join(marks, ",")+`)`, args...)
	if err != nil {
		return nil, fmt.Errorf("find received documents: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var u, st string
		if err := rows.Scan(&u, &st); err != nil {
			return nil, fmt.Errorf("scan received uuid: %w", err)
		}
		out[u] = st
	}
	return out, rows.Err()
}

// GetReceived returns one received document by id or by authority uuid.
func (s *Store) GetReceived(ctx context.Context, tenantID, id string) (*einvoice.ReceivedDocument, error) {
	if !einvoice.ValidID(tenantID) {
		return nil, einvoice.ErrNotFound
	}
	if einvoice.ValidID(id) {
		return scanReceived(s.rs.QueryRowContext(ctx, `SELECT `+receivedColumns+` FROM received_documents WHERE id = $1 AND tenant_id = $2`, id, tenantID))
	}
	return scanReceived(s.rs.QueryRowContext(ctx, `SELECT `+receivedColumns+` FROM received_documents WHERE uuid = $1 AND tenant_id = $2`, id, tenantID))
}

// GetReceivedRaw returns a received document's raw document.
func (s *Store) GetReceivedRaw(ctx context.Context, tenantID, id string) ([]byte, error) {
	if !einvoice.ValidID(id) || !einvoice.ValidID(tenantID) {
		return nil, einvoice.ErrNotFound
	}
	var body []byte
	err := s.rs.QueryRowContext(ctx, `SELECT body FROM received_raw WHERE received_id = $1 AND tenant_id = $2`, id, tenantID).Scan(&body)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, einvoice.ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("get received raw: %w", err)
	}
	return body, nil
}

// ListReceived returns one page of a tenant's received documents, newest
// issued first.
func (s *Store) ListReceived(ctx context.Context, tenantID string, f einvoice.ReceivedFilter) (einvoice.Page[*einvoice.ReceivedDocument], error) {
	page := einvoice.Page[*einvoice.ReceivedDocument]{PageRequest: f.PageRequest}
	if !einvoice.ValidID(tenantID) {
		return page, nil
	}
	where := "tenant_id = $1"
	args := []any{tenantID}
	add := func(cond string, v any) {
		args = append(args, v)
		where += " AND " + strings.ReplaceAll(cond, "?", fmt.Sprintf("$%d", len(args)))
	}
	if f.Status != "" {
		add("status = ?", f.Status)
	}
	if f.From != nil {
		add("issued_at >= ?", micros(*f.From))
	}
	if f.To != nil {
		add("issued_at < ?", micros(*f.To))
	}
	if f.Search != "" {
		args = append(args, f.Search, "%"+likeEscaper.Replace(strings.ToLower(f.Search))+"%")
		n := len(args)
		where += fmt.Sprintf(` AND (issuer_tin = $%d OR number = $%d OR uuid = $%d OR issuer_name_lower LIKE $%d ESCAPE '\')`, n-1, n-1, n-1, n)
	}
	if err := s.rs.QueryRowContext(ctx, `SELECT COUNT(*) FROM received_documents WHERE `+where, args...).Scan(&page.Total); err != nil {
		return page, fmt.Errorf("count received documents: %w", err)
	}
	if page.Total == 0 || f.Offset() >= page.Total {
		return page, nil
	}
	n := len(args)
	rows, err := s.rs.QueryContext(ctx, fmt.Sprintf(`SELECT %s FROM received_documents WHERE %s
		ORDER BY issued_at DESC, id DESC LIMIT $%d OFFSET $%d`, receivedColumns, where, n+1, n+2), append(args, f.PerPage, f.Offset())...)
	if err != nil {
		return page, fmt.Errorf("list received documents: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		d, err := scanReceived(rows)
		if err != nil {
			return page, err
		}
		page.Items = append(page.Items, d)
	}
	return page, rows.Err()
}

// ClaimReceivedPoll takes the tenant's poller lease when the pass is due
// and no live lease holds it.
func (s *Store) ClaimReceivedPoll(ctx context.Context, tenantID, owner string, start, now, leaseUntil time.Time) (einvoice.ReceivedPoll, bool, error) {
	p := einvoice.ReceivedPoll{TenantID: tenantID}
	ok := false
	err := s.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		ok = false
		if _, err := tx.ExecContext(ctx, `INSERT INTO received_pollers (tenant_id, cursor_at, failures, next_at, lease_owner, lease_until)
			VALUES ($1,$2,0,0,'',0) ON CONFLICT (tenant_id) DO NOTHING`, tenantID, micros(start)); err != nil {
			return fmt.Errorf("make received poller: %w", err)
		}
		var cursor int64
		err := tx.QueryRowContext(ctx, `UPDATE received_pollers SET lease_owner = $1, lease_until = $2
			WHERE tenant_id = $3 AND lease_until <= $4 AND next_at <= $4 RETURNING cursor_at, failures`,
			owner, micros(leaseUntil), tenantID, micros(now)).Scan(&cursor, &p.Failures)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("claim received poller: %w", err)
		}
		p.Cursor, ok = fromMicros(cursor), true
		return nil
	})
	return p, ok, err
}

// FinishReceivedPoll records the poller's progress and frees its lease.
func (s *Store) FinishReceivedPoll(ctx context.Context, p einvoice.ReceivedPoll, owner string, next time.Time) error {
	return s.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE received_pollers SET cursor_at = $1, failures = $2, next_at = $3, lease_owner = '', lease_until = 0
			WHERE tenant_id = $4 AND lease_owner = $5`, micros(p.Cursor), p.Failures, micros(next), p.TenantID, owner)
		if err != nil {
			return fmt.Errorf("finish received poll: %w", err)
		}
		return nil
	})
}
