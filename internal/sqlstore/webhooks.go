package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/einvoice/einvoice/internal/einvoice"
)

var _ einvoice.WebhookStore = (*Store)(nil)

const webhookColumns = `id, tenant_id, url, events, description, enabled, secret_enc, previous_enc, previous_until,
	failing_since, disabled_reason, disabled_at, created_at, updated_at`

// eventList is the stored form of a webhook's types: ",a,b," (matched with
// LIKE '%,type,%').
func eventList(types []einvoice.EventType) string {
	var b strings.Builder
	b.WriteString(",")
	for _, t := range types {
		b.WriteString(string(t))
		b.WriteString(",")
	}
	return b.String()
}

func (s *Store) webhookArgs(w *einvoice.Webhook) ([]any, error) {
	secret, err := s.secrets.Seal([]byte(w.Secret))
	if err != nil {
		return nil, fmt.Errorf("seal webhook secret: %w", err)
	}
	prev := ""
	if w.PreviousSecret != "" {
		if prev, err = s.secrets.Seal([]byte(w.PreviousSecret)); err != nil {
			return nil, fmt.Errorf("seal webhook secret: %w", err)
		}
	}
	return []any{w.ID, w.TenantID, w.URL, eventList(w.Events), w.Description, w.Enabled, secret, prev, nullMicros(w.PreviousUntil),
		nullMicros(w.FailingSince), w.DisabledReason, nullMicros(w.DisabledAt), micros(w.CreatedAt), micros(w.UpdatedAt)}, nil
}

func timePtr(n sql.NullInt64) *time.Time {
	if !n.Valid {
		return nil
	}
	t := fromMicros(n.Int64)
	return &t
}

func (s *Store) scanWebhook(row interface{ Scan(...any) error }) (*einvoice.Webhook, error) {
	dests, finish := s.webhookScanner()
	err := row.Scan(dests...)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, einvoice.ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("scan webhook: %w", err)
	}
	return finish()
}

// webhookScanner returns the destinations of webhookColumns and the
// function that makes the webhook of them once scanned.
func (s *Store) webhookScanner() ([]any, func() (*einvoice.Webhook, error)) {
	var w einvoice.Webhook
	var events, secret, prev string
	var prevUntil, failing, disabled sql.NullInt64
	var created, updated int64
	dests := []any{&w.ID, &w.TenantID, &w.URL, &events, &w.Description, &w.Enabled, &secret, &prev, &prevUntil,
		&failing, &w.DisabledReason, &disabled, &created, &updated}
	return dests, func() (*einvoice.Webhook, error) {
		for _, t := range strings.Split(strings.Trim(events, ","), ",") {
			if t != "" {
				w.Events = append(w.Events, einvoice.EventType(t))
			}
		}
		for _, p := range []struct {
			sealed string
			dst    *string
		}{{secret, &w.Secret}, {prev, &w.PreviousSecret}} {
			if p.sealed == "" {
				continue
			}
			plain, err := s.secrets.Open(p.sealed)
			if err != nil {
				return nil, fmt.Errorf("open secret of webhook %s (is EINVOICE_SECRET_KEY the one it was stored with?): %w", w.ID, err)
			}
			*p.dst = string(plain)
		}
		w.PreviousUntil, w.FailingSince, w.DisabledAt = timePtr(prevUntil), timePtr(failing), timePtr(disabled)
		w.CreatedAt, w.UpdatedAt = fromMicros(created), fromMicros(updated)
		return &w, nil
	}
}

// prefixed qualifies every column of a list with prefix.
func prefixed(prefix, columns string) string {
	cols := strings.Split(columns, ",")
	for i, c := range cols {
		cols[i] = prefix + strings.TrimSpace(c)
	}
	return strings.Join(cols, ", ")
}

// CreateWebhook inserts w.
func (s *Store) CreateWebhook(ctx context.Context, w *einvoice.Webhook) error {
	a, err := s.webhookArgs(w)
	if err != nil {
		return err
	}
	if _, err := s.ws.ExecContext(ctx, `INSERT INTO webhooks (`+webhookColumns+`) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14)`, a...); err != nil {
		if errors.Is(classify(err), errForeignKey) {
			return einvoice.ErrNotFound
		}
		return fmt.Errorf("create webhook: %w", classify(err))
	}
	return nil
}

// GetWebhook returns a tenant's webhook.
func (s *Store) GetWebhook(ctx context.Context, tenantID, id string) (*einvoice.Webhook, error) {
	if !einvoice.ValidID(id) || !einvoice.ValidID(tenantID) {
		return nil, einvoice.ErrNotFound
	}
	return s.scanWebhook(s.rs.QueryRowContext(ctx, `SELECT `+webhookColumns+` FROM webhooks WHERE id = $1 AND tenant_id = $2`, id, tenantID))
}

// ListWebhooks returns one page of a tenant's webhooks, newest first.
func (s *Store) ListWebhooks(ctx context.Context, tenantID string, p einvoice.PageRequest) (einvoice.Page[*einvoice.Webhook], error) {
	page := einvoice.Page[*einvoice.Webhook]{PageRequest: p}
	if err := s.rs.QueryRowContext(ctx, `SELECT COUNT(*) FROM webhooks WHERE tenant_id = $1`, tenantID).Scan(&page.Total); err != nil {
		return page, fmt.Errorf("count webhooks: %w", err)
	}
	if page.Total == 0 || p.Offset() >= page.Total {
		return page, nil
	}
	rows, err := s.rs.QueryContext(ctx, `SELECT `+webhookColumns+` FROM webhooks WHERE tenant_id = $1
		ORDER BY created_at DESC, id DESC LIMIT $2 OFFSET $3`, tenantID, p.PerPage, p.Offset())
	if err != nil {
		return page, fmt.Errorf("list webhooks: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		w, err := s.scanWebhook(rows)
		if err != nil {
			return page, err
		}
		page.Items = append(page.Items, w)
	}
	return page, rows.Err()
}

// UpdateWebhook replaces every field of w.
func (s *Store) UpdateWebhook(ctx context.Context, w *einvoice.Webhook) error {
	a, err := s.webhookArgs(w)
	if err != nil {
		return err
	}
	res, err := s.ws.ExecContext(ctx, `UPDATE webhooks SET url=$3, events=$4, description=$5, enabled=$6, secret_enc=$7, previous_enc=$8,
		previous_until=$9, failing_since=$10, disabled_reason=$11, disabled_at=$12, updated_at=$14
		WHERE id=$1 AND tenant_id=$2 AND created_at=$13`, a...)
	if err != nil {
		return fmt.Errorf("update webhook: %w", err)
	}
	return mustAffect(res)
}

// DeleteWebhook removes a webhook and, by cascade, its deliveries.
func (s *Store) DeleteWebhook(ctx context.Context, tenantID, id string) error {
	if !einvoice.ValidID(id) || !einvoice.ValidID(tenantID) {
		return einvoice.ErrNotFound
	}
	res, err := s.ws.ExecContext(ctx, `DELETE FROM webhooks WHERE id = $1 AND tenant_id = $2`, id, tenantID)
	if err != nil {
		return fmt.Errorf("delete webhook: %w", err)
	}
	return mustAffect(res)
}

const deliveryColumns = `d.id, d.webhook_id, d.tenant_id, e.id, e.type, d.resource_id, d.state, d.attempts, d.next_attempt_at,
	d.created_at, d.finished_at`

func scanDelivery(row interface{ Scan(...any) error }, extra ...any) (*einvoice.WebhookDelivery, error) {
	var d einvoice.WebhookDelivery
	var typ, state string
	var next, created int64
	var finished sql.NullInt64
	err := row.Scan(append([]any{&d.ID, &d.WebhookID, &d.TenantID, &d.EventID, &typ, &d.ResourceID, &state, &d.AttemptCount, &next,
		&created, &finished}, extra...)...)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, einvoice.ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("scan delivery: %w", err)
	}
	d.EventType, d.State, d.CreatedAt, d.FinishedAt = einvoice.EventType(typ), einvoice.DeliveryState(state), fromMicros(created), timePtr(finished)
	if d.State == einvoice.DeliveryPending {
		t := fromMicros(next)
		d.NextAttemptAt = &t
	}
	d.Attempts = []einvoice.Attempt{}
	return &d, nil
}

// ListDeliveries returns one page of a webhook's deliveries with their
// attempts, newest first.
func (s *Store) ListDeliveries(ctx context.Context, tenantID, webhookID string, p einvoice.PageRequest) (einvoice.Page[*einvoice.WebhookDelivery], error) {
	page := einvoice.Page[*einvoice.WebhookDelivery]{PageRequest: p}
	if _, err := s.GetWebhook(ctx, tenantID, webhookID); err != nil {
		return page, err
	}
	if err := s.rs.QueryRowContext(ctx, `SELECT COUNT(*) FROM webhook_deliveries WHERE webhook_id = $1`, webhookID).Scan(&page.Total); err != nil {
		return page, fmt.Errorf("count deliveries: %w", err)
	}
	if page.Total == 0 || p.Offset() >= page.Total {
		return page, nil
	}
	rows, err := s.rs.QueryContext(ctx, `SELECT `+deliveryColumns+` FROM webhook_deliveries d JOIN events e ON e.seq = d.event_seq
		WHERE d.webhook_id = $1 ORDER BY d.created_at DESC, d.id DESC LIMIT $2 OFFSET $3`, webhookID, p.PerPage, p.Offset())
	if err != nil {
		return page, fmt.Errorf("list deliveries: %w", err)
	}
	byID := map[string]*einvoice.WebhookDelivery{}
	var ids []any
	for rows.Next() {
		d, err := scanDelivery(rows)
		if err != nil {
			rows.Close()
			return page, err
		}
		page.Items = append(page.Items, d)
		byID[d.ID] = d
		ids = append(ids, d.ID)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return page, fmt.Errorf("list deliveries: %w", err)
	}
	arows, err := s.rs.QueryContext(ctx, `SELECT delivery_id, at, status_code, duration_ms, error FROM webhook_attempts
		WHERE delivery_id IN (`+placeholders(len(ids))+`) ORDER BY n`, ids...)
	if err != nil {
		return page, fmt.Errorf("list attempts: %w", err)
	}
	defer arows.Close()
	for arows.Next() {
		var id string
		var a einvoice.Attempt
		var at int64
		if err := arows.Scan(&id, &at, &a.StatusCode, &a.DurationMS, &a.Error); err != nil {
			return page, fmt.Errorf("scan attempt: %w", err)
		}
		a.At = fromMicros(at)
		byID[id].Attempts = append(byID[id].Attempts, a)
	}
	return page, arows.Err()
}

// getDelivery returns one delivery (without its attempts).
func (s *Store) getDelivery(ctx context.Context, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}, id string) (*einvoice.WebhookDelivery, error) {
	return scanDelivery(q.QueryRowContext(ctx, `SELECT `+deliveryColumns+` FROM webhook_deliveries d JOIN events e ON e.seq = d.event_seq
		WHERE d.id = $1`, id))
}

// Redeliver queues a delivery's event again for its webhook.
func (s *Store) Redeliver(ctx context.Context, tenantID, webhookID, deliveryID string, now time.Time) (*einvoice.WebhookDelivery, error) {
	if !einvoice.ValidID(deliveryID) || !einvoice.ValidID(webhookID) || !einvoice.ValidID(tenantID) {
		return nil, einvoice.ErrNotFound
	}
	newID := newDeliveryID()
	err := s.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `INSERT INTO webhook_deliveries (id, tenant_id, webhook_id, event_seq, resource_id, state,
			attempts, next_attempt_at, lease_owner, lease_until, created_at)
			SELECT $1, tenant_id, webhook_id, event_seq, resource_id, 'pending', 0, $2, '', 0, $2 FROM webhook_deliveries
			WHERE id = $3 AND webhook_id = $4 AND tenant_id = $5`, newID, micros(now), deliveryID, webhookID, tenantID)
		if err != nil {
			return fmt.Errorf("redeliver: %w", err)
		}
		return mustAffect(res)
	})
	if err != nil {
		return nil, err
	}
	return s.getDelivery(ctx, s.w, newID)
}

// SendTest stores the test event and queues it for its webhook alone.
func (s *Store) SendTest(ctx context.Context, webhookID string, e *einvoice.APIEvent) (*einvoice.WebhookDelivery, error) {
	var ids []string
	err := s.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		var err error
		ids, err = s.insertAPIEvent(ctx, tx, e, webhookID)
		if err == nil && len(ids) == 0 {
			err = einvoice.ErrNotFound
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return s.getDelivery(ctx, s.w, ids[0])
}

// ClaimDeliveries leases due deliveries, each the earliest pending one of
// its resource for its webhook. PostgreSQL skips rows others are claiming.
func (s *Store) ClaimDeliveries(ctx context.Context, owner string, now, leaseUntil time.Time, limit int) ([]*einvoice.WebhookDelivery, error) {
	// In the order of the index webhook_deliveries_due, so that the scan
	// stops at the limit rather than sorting every pending delivery.
	pick := `SELECT d.id FROM webhook_deliveries d
		WHERE d.state = 'pending' AND d.next_attempt_at <= $3 AND d.lease_until <= $3
		AND EXISTS (SELECT 1 FROM webhooks w WHERE w.id = d.webhook_id AND w.enabled)
		AND NOT EXISTS (SELECT 1 FROM webhook_deliveries p WHERE p.webhook_id = d.webhook_id AND p.resource_id = d.resource_id
			AND p.state = 'pending' AND p.event_seq < d.event_seq)
		ORDER BY d.next_attempt_at, d.event_seq LIMIT $4`
	if s.engine == Postgres {
		pick += ` FOR UPDATE SKIP LOCKED`
	}
	// Idle workers poll: a read first, so that an empty queue costs no
	// write transaction (on SQLite, no turn of the one writer).
	var due bool
	if err := s.rs.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM webhook_deliveries
		WHERE state = 'pending' AND next_attempt_at <= $1 AND lease_until <= $1)`, micros(now)).Scan(&due); err != nil {
		return nil, fmt.Errorf("claim deliveries: %w", err)
	}
	if !due {
		return nil, nil
	}
	var out []*einvoice.WebhookDelivery
	err := s.hooksTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		out = out[:0]
		idRows, err := tx.QueryContext(ctx, `UPDATE webhook_deliveries SET lease_owner = $1, lease_until = $2 WHERE id IN (`+pick+`) RETURNING id`,
			owner, micros(leaseUntil), micros(now), limit)
		if err != nil {
			return err
		}
		var ids []any
		for idRows.Next() {
			var id string
			if err := idRows.Scan(&id); err != nil {
				idRows.Close()
				return err
			}
			ids = append(ids, id)
		}
		idRows.Close()
		if err := idRows.Err(); err != nil || len(ids) == 0 {
			return err
		}
		rows, err := tx.QueryContext(ctx, `SELECT `+deliveryColumns+`, e.body, `+prefixed("w.", webhookColumns)+`
			FROM webhook_deliveries d JOIN events e ON e.seq = d.event_seq JOIN webhooks w ON w.id = d.webhook_id
			WHERE d.id IN (`+placeholders(len(ids))+`) ORDER BY d.event_seq`, ids...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var body string
			dests, finish := s.webhookScanner()
			d, err := scanDelivery(rows, append([]any{&body}, dests...)...)
			if err != nil {
				return err
			}
			if d.Webhook, err = finish(); err != nil {
				return err
			}
			d.Body = []byte(body)
			out = append(out, d)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("claim deliveries: %w", err)
	}
	return out, nil
}

// RecordAttempt records an attempt of a delivery still leased to owner,
// with the delivery's next state and the webhook's failure run.
func (s *Store) RecordAttempt(ctx context.Context, owner string, r einvoice.AttemptResult) error {
	return s.hooksTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		var finished sql.NullInt64
		if r.State != einvoice.DeliveryPending {
			finished = sql.NullInt64{Int64: micros(r.Attempt.At), Valid: true}
		}
		var n int
		var hook string
		err := tx.QueryRowContext(ctx, `UPDATE webhook_deliveries SET state = $1, attempts = attempts + 1, next_attempt_at = $2,
			lease_owner = '', lease_until = 0, finished_at = $3 WHERE id = $4 AND lease_owner = $5 AND state = 'pending'
			RETURNING attempts, webhook_id`, string(r.State), micros(r.NextAt), finished, r.DeliveryID, owner).Scan(&n, &hook)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("delivery %s: lease lost: %w", r.DeliveryID, einvoice.ErrWrongState)
		}
		if err != nil {
			return fmt.Errorf("record delivery: %w", err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO webhook_attempts (delivery_id, n, at, status_code, duration_ms, error) VALUES ($1,$2,$3,$4,$5,$6)`,
			r.DeliveryID, n, micros(r.Attempt.At), r.Attempt.StatusCode, r.Attempt.DurationMS, r.Attempt.Error); err != nil {
			return fmt.Errorf("record attempt: %w", err)
		}
		var q string
		var args []any
		switch {
		case r.Disable != "":
			q, args = `UPDATE webhooks SET enabled = $2, disabled_reason = $3, disabled_at = $4, updated_at = $4 WHERE id = $1`,
				[]any{hook, false, r.Disable, micros(r.Attempt.At)}
		case r.Delivered:
			q, args = `UPDATE webhooks SET failing_since = NULL WHERE id = $1 AND failing_since IS NOT NULL`, []any{hook}
		default:
			q, args = `UPDATE webhooks SET failing_since = $2 WHERE id = $1 AND failing_since IS NULL`, []any{hook, micros(r.Attempt.At)}
		}
		if _, err := tx.ExecContext(ctx, q, args...); err != nil {
			return fmt.Errorf("record webhook health: %w", err)
		}
		return nil
	})
}

// PendingDeliveries counts the pending deliveries of enabled webhooks and
// returns the creation time of the oldest.
func (s *Store) PendingDeliveries(ctx context.Context) (int, time.Time, error) {
	var n int
	var oldest sql.NullInt64
	err := s.rs.QueryRowContext(ctx, `SELECT COUNT(*), MIN(d.created_at) FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
		WHERE d.state = 'pending' AND w.enabled`).Scan(&n, &oldest)
	if err != nil {
		return 0, time.Time{}, fmt.Errorf("pending deliveries: %w", err)
	}
	if !oldest.Valid {
		return n, time.Time{}, nil
	}
	return n, fromMicros(oldest.Int64), nil
}

// placeholders returns "$1,$2,...,$n".
func placeholders(n int) string {
	marks := make([]string, n)
	for i := range marks {
		marks[i] = fmt.Sprintf("$%d", i+1)
	}
	return strings.Join(marks, ",")
}
