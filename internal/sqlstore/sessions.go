package sqlstore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/einvoice/einvoice/internal/einvoice"
)

// The dashboard's sessions (einvoice.SessionStore), found by the SHA-256 of
// their token and read together with their user and the user's role in the
// session's tenant, so that a user removed from a tenant loses it at once.

// CreateSession inserts s; einvoice.ErrNotFound when its user or tenant is gone.
func (s *Store) CreateSession(ctx context.Context, se *einvoice.Session) error {
	if !einvoice.ValidID(se.TenantID) || !einvoice.ValidID(se.UserID) {
		return einvoice.ErrNotFound
	}
	_, err := s.ws.ExecContext(ctx, `INSERT INTO dashboard_sessions (id, user_id, tenant_id, stage, created_at, expires_at, revoked)
		VALUES ($1,$2,$3,$4,$5,$6,$7)`, se.ID, se.UserID, se.TenantID, string(se.Stage), micros(se.CreatedAt), micros(se.ExpiresAt), se.Revoked)
	err = classify(err)
	if errors.Is(err, errForeignKey) {
		return einvoice.ErrNotFound
	}
	if err != nil {
		return fmt.Errorf("insert session: %w", err)
	}
	return nil
}

// SessionByID returns the session, its user and role, or einvoice.ErrNotFound.
func (s *Store) SessionByID(ctx context.Context, id []byte) (*einvoice.SessionUser, error) {
	row := s.rs.QueryRowContext(ctx, `SELECT d.id, d.user_id, d.tenant_id, d.stage, d.created_at, d.expires_at, d.revoked,
		COALESCE(m.role, ''), COALESCE(t.name, ''), `+userColumnsOf+`
		FROM dashboard_sessions d JOIN users u ON u.id = d.user_id
		LEFT JOIN memberships m ON m.tenant_id = d.tenant_id AND m.user_id = d.user_id
		LEFT JOIN tenants t ON t.id = d.tenant_id
		WHERE d.id = $1`, id)
	var se einvoice.Session
	var stage, role, tenantName string
	var created, expires int64
	u, err := s.scanUser(prefixScanner{row, []any{&se.ID, &se.UserID, &se.TenantID, &stage, &created, &expires, &se.Revoked, &role, &tenantName}})
	if errors.Is(err, einvoice.ErrNotFound) {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("session: %w", err)
	}
	se.Stage, se.CreatedAt, se.ExpiresAt = einvoice.SessionStage(stage), fromMicros(created), fromMicros(expires)
	return &einvoice.SessionUser{Session: &se, User: u, Role: einvoice.Role(role), TenantName: tenantName}, nil
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

// SetSessionTenant moves an unrevoked session to another tenant.
func (s *Store) SetSessionTenant(ctx context.Context, id []byte, tenantID string) error {
	if !einvoice.ValidID(tenantID) {
		return einvoice.ErrNotFound
	}
	res, err := s.ws.ExecContext(ctx, `UPDATE dashboard_sessions SET tenant_id = $2 WHERE id = $1 AND NOT revoked`, id, tenantID)
	if err = classify(err); errors.Is(err, errForeignKey) {
		return einvoice.ErrNotFound
	} else if err != nil {
		return fmt.Errorf("switch tenant: %w", err)
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

// RevokeUserSessions ends every session of the user but keep.
func (s *Store) RevokeUserSessions(ctx context.Context, userID string, keep []byte) error {
	if !einvoice.ValidID(userID) {
		return nil
	}
	return revokeUserSessions(ctx, s.ws, userID, keep)
}

func revokeUserSessions(ctx context.Context, q execer, userID string, keep []byte) error {
	if keep == nil {
		keep = []byte{}
	}
	if _, err := q.ExecContext(ctx, `UPDATE dashboard_sessions SET revoked = TRUE WHERE user_id = $1 AND id <> $2`, userID, keep); err != nil {
		return fmt.Errorf("end sessions: %w", err)
	}
	return nil
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
