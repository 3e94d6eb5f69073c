package sqlstore

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/einvoice/einvoice/internal/einvoice"
)

// The dashboard's sessions (einvoice.SessionStore), found by the SHA-256 of
// their token and read together with their key, so that a revoked key ends
// its sessions at once.

// CreateSession inserts s; einvoice.ErrNotFound when its key is gone.
func (s *Store) CreateSession(ctx context.Context, se *einvoice.Session) error {
	if !einvoice.ValidID(se.TenantID) || !einvoice.ValidID(se.KeyID) {
		return einvoice.ErrNotFound
	}
	_, err := s.ws.ExecContext(ctx, `INSERT INTO dashboard_sessions (id, tenant_id, key_id, created_at, expires_at, revoked)
		VALUES ($1,$2,$3,$4,$5,$6)`, se.ID, se.TenantID, se.KeyID, micros(se.CreatedAt), micros(se.ExpiresAt), se.Revoked)
	err = classify(err)
	if errors.Is(err, errForeignKey) {
		return einvoice.ErrNotFound
	}
	if err != nil {
		return fmt.Errorf("insert session: %w", err)
	}
	return nil
}

// keyColumnsOf is apiKeyColumns of the table aliased k.
var keyColumnsOf = "k." + strings.ReplaceAll(apiKeyColumns, ", ", ", k.")

// SessionByID returns the session and its key, or einvoice.ErrNotFound.
func (s *Store) SessionByID(ctx context.Context, id []byte) (*einvoice.Session, *einvoice.APIKey, error) {
	row := s.rs.QueryRowContext(ctx, `SELECT d.id, d.tenant_id, d.key_id, d.created_at, d.expires_at, d.revoked, `+keyColumnsOf+`
		FROM dashboard_sessions d JOIN api_keys k ON k.id = d.key_id WHERE d.id = $1`, id)
	var se einvoice.Session
	var created, expires int64
	k, err := scanAPIKey(prefixScanner{row, []any{&se.ID, &se.TenantID, &se.KeyID, &created, &expires, &se.Revoked}})
	if errors.Is(err, einvoice.ErrNotFound) {
		return nil, nil, err
	}
	if err != nil {
		return nil, nil, fmt.Errorf("session: %w", err)
	}
	se.CreatedAt, se.ExpiresAt = fromMicros(created), fromMicros(expires)
	return &se, k, nil
}

// prefixScanner scans its own destinations before the caller's: a row of
// more than one record read by the scanner of the last.
type prefixScanner struct {
	row    interface{ Scan(...any) error }
	before []any
}

func (p prefixScanner) Scan(dest ...any) error {
	return p.row.Scan(append(append([]any{}, p.before...), dest...)...)
}

// TouchSession moves the expiry of an unrevoked session.
func (s *Store) TouchSession(ctx context.Context, id []byte, expires time.Time) error {
	res, err := s.ws.ExecContext(ctx, `UPDATE dashboard_sessions SET expires_at = $2 WHERE id = $1 AND NOT revoked`, id, micros(expires))
	if err != nil {
		return fmt.Errorf("touch session: %w", err)
	}
	return mustAffect(res)
}

// RevokeSession marks the session revoked.
func (s *Store) RevokeSession(ctx context.Context, id []byte) error {
	res, err := s.ws.ExecContext(ctx, `UPDATE dashboard_sessions SET revoked = TRUE WHERE id = $1`, id)
	if err != nil {
		return fmt.Errorf("revoke session: %w", err)
	}
	return mustAffect(res)
}

// DeleteExpiredSessions removes expired and revoked sessions.
func (s *Store) DeleteExpiredSessions(ctx context.Context, now time.Time) (int64, error) {
	res, err := s.ws.ExecContext(ctx, `DELETE FROM dashboard_sessions WHERE expires_at < $1 OR revoked`, micros(now))
	if err != nil {
		return 0, fmt.Errorf("delete expired sessions: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, fmt.Errorf("delete expired sessions: %w", err)
	}
	return n, nil
}
