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

var _ einvoice.MailStore = (*Store)(nil)

const mailColumns = `id, tenant_id, kind, document_id, language, from_name, reply_to, recipients, subject, body, attach_pdf,
	state, attempts, next_attempt_at, lease_owner, lease_until, in_flight, unconfirmed, last_error, sent_at, created_at, updated_at`

// mailRecipients is the recipients column.
type mailRecipients struct {
	To  []string `json:"to"`
	Bcc []string `json:"bcc"`
}

func mailArgs(m *einvoice.MailMessage) ([]any, error) {
	rcpt, err := json.Marshal(mailRecipients{To: m.To, Bcc: m.Bcc})
	if err != nil {
		return nil, fmt.Errorf("encode recipients: %w", err)
	}
	return []any{m.ID, m.TenantID, string(m.Kind), m.DocumentID, m.Language, m.FromName, m.ReplyTo, string(rcpt), m.Subject, m.Body,
		m.AttachPDF, string(m.State), m.Attempts, micros(m.NextAttemptAt), m.LeaseOwner, micros(m.LeaseUntil), m.InFlight,
		m.Unconfirmed, m.LastError, nullMicros(m.SentAt), micros(m.CreatedAt), micros(m.UpdatedAt)}, nil
}

func scanMail(row interface{ Scan(...any) error }) (*einvoice.MailMessage, error) {
	var m einvoice.MailMessage
	var kind, state, rcpt string
	var next, lease, created, updated int64
	var sent sql.NullInt64
	err := row.Scan(&m.ID, &m.TenantID, &kind, &m.DocumentID, &m.Language, &m.FromName, &m.ReplyTo, &rcpt, &m.Subject, &m.Body,
		&m.AttachPDF, &state, &m.Attempts, &next, &m.LeaseOwner, &lease, &m.InFlight, &m.Unconfirmed, &m.LastError, &sent,
		&created, &updated)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, einvoice.ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("scan mail: %w", err)
	}
	var r mailRecipients
	if err := json.Unmarshal([]byte(rcpt), &r); err != nil {
		return nil, fmt.Errorf("mail %s: recipients: %w", m.ID, err)
	}
	m.To, m.Bcc = r.To, r.Bcc
	m.Kind, m.State = einvoice.MailKind(kind), einvoice.MailState(state)
	m.NextAttemptAt, m.LeaseUntil = fromMicros(next), fromMicros(lease)
	m.CreatedAt, m.UpdatedAt, m.SentAt = fromMicros(created), fromMicros(updated), timePtr(sent)
	return &m, nil
}

// insertMail writes m into the outbox in tx.
func insertMail(ctx context.Context, tx *sql.Tx, m *einvoice.MailMessage) error {
	a, err := mailArgs(m)
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO mail_messages (`+mailColumns+`) VALUES
		($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15,$16,$17,$18,$19,$20,$21,$22)`, a...); err != nil {
		return fmt.Errorf("queue mail: %w", classify(err))
	}
	return nil
}

// EnqueueMail writes messages into the outbox in one transaction.
func (s *Store) EnqueueMail(ctx context.Context, ms ...*einvoice.MailMessage) error {
	return s.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		for _, m := range ms {
			if err := insertMail(ctx, tx, m); err != nil {
				return err
			}
		}
		return nil
	})
}

// ClaimMail leases due pending messages whose lease has expired.
func (s *Store) ClaimMail(ctx context.Context, owner string, now, leaseUntil time.Time, limit int) ([]*einvoice.MailMessage, error) {
	// Idle workers poll: a read first, so that an empty outbox costs no
	// write transaction (on SQLite, no turn of the one writer).
	var due bool
	if err := s.rs.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM mail_messages
		WHERE state = 'pending' AND next_attempt_at <= $1 AND lease_until <= $1)`, micros(now)).Scan(&due); err != nil {
		return nil, fmt.Errorf("claim mail: %w", err)
	}
	if !due {
		return nil, nil
	}
	pick := `SELECT id FROM mail_messages WHERE state = 'pending' AND next_attempt_at <= $3 AND lease_until <= $3
		ORDER BY next_attempt_at, id LIMIT $4`
	if s.engine == Postgres {
		pick += ` FOR UPDATE SKIP LOCKED`
	}
	var out []*einvoice.MailMessage
	err := s.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		out = out[:0]
		rows, err := tx.QueryContext(ctx, `UPDATE mail_messages SET lease_owner = $1, lease_until = $2 WHERE id IN (`+pick+`)
			RETURNING `+mailColumns, owner, micros(leaseUntil), micros(now), limit)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			m, err := scanMail(rows)
			if err != nil {
				return err
			}
			out = append(out, m)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("claim mail: %w", err)
	}
	return out, nil
}

// MarkMailInFlight sets in_flight on a message owner holds.
func (s *Store) MarkMailInFlight(ctx context.Context, owner, id string, at time.Time) error {
	return s.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE mail_messages SET in_flight = $3, updated_at = $4
			WHERE id = $1 AND lease_owner = $2 AND state = 'pending'`, id, owner, true, micros(at))
		if err != nil {
			return fmt.Errorf("mark mail in flight: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return fmt.Errorf("mail %s: lease lost: %w", id, einvoice.ErrWrongState)
		}
		return nil
	})
}

// RecordMail writes the outcome of an attempt and its events.
func (s *Store) RecordMail(ctx context.Context, owner string, r einvoice.MailResult) error {
	m := r.Message
	return s.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE mail_messages SET state = $3, attempts = $4, next_attempt_at = $5, lease_owner = '',
			lease_until = 0, in_flight = $6, unconfirmed = $7, last_error = $8, sent_at = $9, updated_at = $10
			WHERE id = $1 AND lease_owner = $2 AND state = 'pending'`,
			m.ID, owner, string(m.State), m.Attempts, micros(m.NextAttemptAt), m.InFlight, m.Unconfirmed, m.LastError,
			nullMicros(m.SentAt), micros(m.UpdatedAt))
		if err != nil {
			return fmt.Errorf("record mail: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return fmt.Errorf("mail %s: lease lost: %w", m.ID, einvoice.ErrWrongState)
		}
		for _, e := range r.Notify {
			if _, err := s.insertAPIEvent(ctx, tx, e, ""); err != nil {
				return err
			}
		}
		return nil
	})
}

// GetMail returns one of a tenant's messages.
func (s *Store) GetMail(ctx context.Context, tenantID, id string) (*einvoice.MailMessage, error) {
	if !einvoice.ValidID(id) {
		return nil, einvoice.ErrNotFound
	}
	return scanMail(s.rs.QueryRowContext(ctx, `SELECT `+mailColumns+` FROM mail_messages WHERE id = $1 AND tenant_id = $2`, id, tenantID))
}

// LatestDocumentMail returns the newest message sharing a document.
func (s *Store) LatestDocumentMail(ctx context.Context, tenantID, documentID string) (*einvoice.MailMessage, error) {
	return scanMail(s.rs.QueryRowContext(ctx, `SELECT `+mailColumns+` FROM mail_messages
		WHERE tenant_id = $1 AND document_id = $2 AND kind = $3 ORDER BY created_at DESC, id DESC LIMIT 1`,
		tenantID, documentID, string(einvoice.MailDocument)))
}

// ListMail returns one page of a tenant's messages, newest first.
func (s *Store) ListMail(ctx context.Context, tenantID string, f einvoice.MailFilter) (einvoice.Page[*einvoice.MailMessage], error) {
	page := einvoice.Page[*einvoice.MailMessage]{PageRequest: f.PageRequest}
	where, args := `tenant_id = $1`, []any{tenantID}
	if f.DocumentID != "" {
		args = append(args, f.DocumentID)
		where += fmt.Sprintf(` AND document_id = $%d`, len(args))
	}
	if f.State != "" {
		args = append(args, string(f.State))
		where += fmt.Sprintf(` AND state = $%d`, len(args))
	}
	if err := s.rs.QueryRowContext(ctx, `SELECT COUNT(*) FROM mail_messages WHERE `+where, args...).Scan(&page.Total); err != nil {
		return page, fmt.Errorf("count mail: %w", err)
	}
	if page.Total == 0 || f.Offset() >= page.Total {
		return page, nil
	}
	rows, err := s.rs.QueryContext(ctx, fmt.Sprintf(`SELECT `+mailColumns+` FROM mail_messages WHERE `+where+`
		ORDER BY created_at DESC, id DESC LIMIT $%d OFFSET $%d`, len(args)+1, len(args)+2), append(args, f.PerPage, f.Offset())...)
	if err != nil {
		return page, fmt.Errorf("list mail: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		m, err := scanMail(rows)
		if err != nil {
			return page, err
		}
		page.Items = append(page.Items, m)
	}
	return page, rows.Err()
}

// GetMailSettings returns a tenant's mail settings.
func (s *Store) GetMailSettings(ctx context.Context, tenantID string) (*einvoice.MailSettings, error) {
	var body string
	err := s.rs.QueryRowContext(ctx, `SELECT body FROM mail_settings WHERE tenant_id = $1`, tenantID).Scan(&body)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, einvoice.ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("read mail settings: %w", err)
	}
	var ms einvoice.MailSettings
	if err := json.Unmarshal([]byte(body), &ms); err != nil {
		return nil, fmt.Errorf("mail settings of %s: %w", tenantID, err)
	}
	return &ms, nil
}

// PutMailSettings saves a tenant's mail settings.
func (s *Store) PutMailSettings(ctx context.Context, tenantID string, ms *einvoice.MailSettings, at time.Time) error {
	body, err := json.Marshal(ms)
	if err != nil {
		return fmt.Errorf("encode mail settings: %w", err)
	}
	_, err = s.ws.ExecContext(ctx, `INSERT INTO mail_settings (tenant_id, body, updated_at) VALUES ($1, $2, $3)
		ON CONFLICT (tenant_id) DO UPDATE SET body = excluded.body, updated_at = excluded.updated_at`, tenantID, string(body), micros(at))
	if err != nil {
		return fmt.Errorf("save mail settings: %w", classify(err))
	}
	return nil
}
