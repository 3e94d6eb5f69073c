package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/einvoice/einvoice/internal/einvoice"
)

var _ einvoice.EventStore = (*Store)(nil)

// insertAPIEvent writes e in tx and queues a delivery of it for every
// enabled webhook of its tenant subscribed to its type, or, when only is
// set, for that webhook alone. It returns the deliveries' ids.
//
// On PostgreSQL it first takes the tenant's event lock for the rest of the
// transaction, so that a tenant's events commit in the order of their seq:
// otherwise two transactions could commit out of sequence order, and a
// client catching up with after= could pass over the one committed last.
// Every row the transaction changes is locked before its events are
// written, so the lock is always the last one taken (no deadlock).
func (s *Store) insertAPIEvent(ctx context.Context, tx *sql.Tx, e *einvoice.APIEvent, only string) ([]string, error) {
	if s.engine == Postgres {
		if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, "einvoice.events:"+e.TenantID); err != nil {
			return nil, fmt.Errorf("take the tenant's event lock: %w", classify(err))
		}
	}
	err := tx.QueryRowContext(ctx, `INSERT INTO events (id, tenant_id, type, resource_id, created_at, body) VALUES ($1,$2,$3,$4,$5,$6)
		RETURNING seq`, e.ID, e.TenantID, string(e.Type), e.ResourceID, micros(e.CreatedAt), string(e.Body)).Scan(&e.Seq)
	if err != nil {
		return nil, fmt.Errorf("insert event: %w", classify(err))
	}
	var rows *sql.Rows
	if only != "" {
		rows, err = tx.QueryContext(ctx, `SELECT id FROM webhooks WHERE id = $1 AND tenant_id = $2`, only, e.TenantID)
	} else {
		rows, err = tx.QueryContext(ctx, `SELECT id FROM webhooks WHERE tenant_id = $1 AND enabled AND events LIKE $2 ESCAPE '\'`,
			e.TenantID, "%,"+likeEscaper.Replace(string(e.Type))+",%")
	}
	if err != nil {
		return nil, fmt.Errorf("find the event's webhooks: %w", err)
	}
	var hooks []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return nil, fmt.Errorf("scan webhook id: %w", err)
		}
		hooks = append(hooks, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("find the event's webhooks: %w", err)
	}
	ids := make([]string, 0, len(hooks))
	for _, h := range hooks {
		id := newDeliveryID()
		if _, err := tx.ExecContext(ctx, `INSERT INTO webhook_deliveries (id, tenant_id, webhook_id, event_seq, resource_id, state,
			attempts, next_attempt_at, lease_owner, lease_until, created_at) VALUES ($1,$2,$3,$4,$5,'pending',0,$6,'',0,$6)`,
			id, e.TenantID, h, e.Seq, e.ResourceID, micros(e.CreatedAt)); err != nil {
			return nil, fmt.Errorf("queue delivery: %w", err)
		}
		ids = append(ids, id)
	}
	return ids, nil
}

// ListEvents returns one page of a tenant's events (webhook tests left out).
func (s *Store) ListEvents(ctx context.Context, tenantID string, f einvoice.EventFilter) (einvoice.Page[*einvoice.APIEvent], error) {
	page := einvoice.Page[*einvoice.APIEvent]{PageRequest: f.PageRequest}
	where := `tenant_id = $1 AND type <> '` + string(einvoice.EventWebhookTest) + `'`
	args := []any{tenantID}
	order := "DESC"
	if f.Type != "" {
		args = append(args, string(f.Type))
		where += fmt.Sprintf(" AND type = $%d", len(args))
	}
	if f.After != "" {
		if !einvoice.ValidID(f.After) {
			return page, einvoice.ErrNotFound
		}
		var seq int64
		err := s.rs.QueryRowContext(ctx, `SELECT seq FROM events WHERE id = $1 AND tenant_id = $2`, f.After, tenantID).Scan(&seq)
		if errors.Is(err, sql.ErrNoRows) {
			return page, einvoice.ErrNotFound
		}
		if err != nil {
			return page, fmt.Errorf("find event: %w", err)
		}
		args = append(args, seq)
		where += fmt.Sprintf(" AND seq > $%d", len(args))
		order = "ASC"
	}
	if err := s.rs.QueryRowContext(ctx, `SELECT COUNT(*) FROM events WHERE `+where, args...).Scan(&page.Total); err != nil {
		return page, fmt.Errorf("count events: %w", err)
	}
	if page.Total == 0 || f.Offset() >= page.Total {
		return page, nil
	}
	n := len(args)
	rows, err := s.rs.QueryContext(ctx, fmt.Sprintf(`SELECT seq, id, type, resource_id, created_at, body FROM events WHERE %s
		ORDER BY seq %s LIMIT $%d OFFSET $%d`, where, order, n+1, n+2), append(args, f.PerPage, f.Offset())...)
	if err != nil {
		return page, fmt.Errorf("list events: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		e := &einvoice.APIEvent{TenantID: tenantID}
		var typ, body string
		var at int64
		if err := rows.Scan(&e.Seq, &e.ID, &typ, &e.ResourceID, &at, &body); err != nil {
			return page, fmt.Errorf("scan event: %w", err)
		}
		e.Type, e.CreatedAt, e.Body = einvoice.EventType(typ), fromMicros(at), []byte(body)
		page.Items = append(page.Items, e)
	}
	return page, rows.Err()
}

// PurgeEvents deletes the events created before the time, with their
// deliveries and attempts.
func (s *Store) PurgeEvents(ctx context.Context, before time.Time) (int, error) {
	var n int64
	err := s.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM events WHERE created_at < $1`, micros(before))
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("purge events: %w", err)
	}
	return int(n), nil
}

// newDeliveryID makes the id of a delivery queued by the store.
func newDeliveryID() string { return uuid.Must(uuid.NewV7()).String() }
