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

// Users, their memberships and one-time links (einvoice.UserStore).

const userColumns = `id, email, name, password_hash, totp_secret, totp_enabled, recovery_codes, created_at, updated_at`

func (s *Store) userArgs(u *einvoice.User) ([]any, error) {
	secret := ""
	if u.TOTPSecret != "" {
		v, err := s.secrets.Seal([]byte(u.TOTPSecret))
		if err != nil {
			return nil, fmt.Errorf("seal totp secret: %w", err)
		}
		secret = v
	}
	codes, err := json.Marshal(nonNilStrings(u.RecoveryCodes))
	if err != nil {
		return nil, err
	}
	return []any{u.ID, u.Email, u.Name, u.PasswordHash, secret, u.TOTPEnabled, string(codes), micros(u.CreatedAt), micros(u.UpdatedAt)}, nil
}

func nonNilStrings(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func (s *Store) scanUser(row interface{ Scan(...any) error }) (*einvoice.User, error) {
	var u einvoice.User
	var secret, codes string
	var created, updated int64
	err := row.Scan(&u.ID, &u.Email, &u.Name, &u.PasswordHash, &secret, &u.TOTPEnabled, &codes, &created, &updated)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, einvoice.ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	if secret != "" {
		plain, err := s.secrets.Open(secret)
		if err != nil {
			return nil, fmt.Errorf("open totp secret of user %s (is EINVOICE_SECRET_KEY the one it was stored with?): %w", u.ID, err)
		}
		u.TOTPSecret = string(plain)
	}
	if err := json.Unmarshal([]byte(codes), &u.RecoveryCodes); err != nil {
		return nil, fmt.Errorf("recovery codes of user %s: %w", u.ID, err)
	}
	u.CreatedAt, u.UpdatedAt = fromMicros(created), fromMicros(updated)
	return &u, nil
}

func (s *Store) insertUser(ctx context.Context, q execer, u *einvoice.User) error {
	args, err := s.userArgs(u)
	if err != nil {
		return err
	}
	_, err = q.ExecContext(ctx, `INSERT INTO users (`+userColumns+`, email_key) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10)`,
		append(args, einvoice.NormalizeEmail(u.Email))...)
	if err = classify(err); err != nil {
		return fmt.Errorf("insert user: %w", err)
	}
	return nil
}

// CreateUser inserts u; einvoice.ErrConflict when the e-mail is taken.
func (s *Store) CreateUser(ctx context.Context, u *einvoice.User) error {
	return s.insertUser(ctx, s.ws, u)
}

// GetUser returns the user, or einvoice.ErrNotFound.
func (s *Store) GetUser(ctx context.Context, id string) (*einvoice.User, error) {
	if !einvoice.ValidID(id) {
		return nil, einvoice.ErrNotFound
	}
	return s.scanUser(s.rs.QueryRowContext(ctx, `SELECT `+userColumns+` FROM users WHERE id = $1`, id))
}

// UserByEmail returns the user of the e-mail (any case), or einvoice.ErrNotFound.
func (s *Store) UserByEmail(ctx context.Context, email string) (*einvoice.User, error) {
	return s.scanUser(s.rs.QueryRowContext(ctx, `SELECT `+userColumns+` FROM users WHERE email_key = $1`, einvoice.NormalizeEmail(email)))
}

// UpdateUser stores the name, TOTP and recovery codes of u.
func (s *Store) UpdateUser(ctx context.Context, u *einvoice.User) error {
	args, err := s.userArgs(u)
	if err != nil {
		return err
	}
	res, err := s.ws.ExecContext(ctx, `UPDATE users SET name = $2, totp_secret = $3, totp_enabled = $4, recovery_codes = $5, updated_at = $6 WHERE id = $1`,
		u.ID, u.Name, args[4], u.TOTPEnabled, args[6], micros(u.UpdatedAt))
	if err != nil {
		return fmt.Errorf("update user: %w", err)
	}
	return mustAffect(res)
}

// UseTOTPStep records the TOTP time step a sign-in used, once.
func (s *Store) UseTOTPStep(ctx context.Context, userID string, step int64) (bool, error) {
	if !einvoice.ValidID(userID) {
		return false, einvoice.ErrNotFound
	}
	res, err := s.ws.ExecContext(ctx, `UPDATE users SET totp_last_step = $2 WHERE id = $1 AND totp_last_step < $2`, userID, step)
	if err != nil {
		return false, fmt.Errorf("use totp step: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, fmt.Errorf("use totp step: %w", err)
	}
	return n == 1, nil
}

// SetPassword stores a new password hash and ends the user's other sessions.
func (s *Store) SetPassword(ctx context.Context, userID, hash string, at time.Time, keep []byte) error {
	if !einvoice.ValidID(userID) {
		return einvoice.ErrNotFound
	}
	return s.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE users SET password_hash = $2, updated_at = $3 WHERE id = $1`, userID, hash, micros(at))
		if err != nil {
			return fmt.Errorf("set password: %w", err)
		}
		if err := mustAffect(res); err != nil {
			return err
		}
		return revokeUserSessions(ctx, tx, userID, keep)
	})
}

// Memberships returns the user's tenants, by name.
func (s *Store) Memberships(ctx context.Context, userID string) ([]einvoice.Membership, error) {
	if !einvoice.ValidID(userID) {
		return nil, nil
	}
	rows, err := s.rs.QueryContext(ctx, `SELECT m.tenant_id, t.name, m.user_id, m.role, m.created_at
		FROM memberships m JOIN tenants t ON t.id = m.tenant_id WHERE m.user_id = $1 ORDER BY t.name, m.tenant_id`, userID)
	if err != nil {
		return nil, fmt.Errorf("memberships: %w", err)
	}
	defer rows.Close()
	var out []einvoice.Membership
	for rows.Next() {
		var m einvoice.Membership
		var role string
		var created int64
		if err := rows.Scan(&m.TenantID, &m.TenantName, &m.UserID, &role, &created); err != nil {
			return nil, fmt.Errorf("memberships: %w", err)
		}
		m.Role, m.CreatedAt = einvoice.Role(role), fromMicros(created)
		out = append(out, m)
	}
	return out, rows.Err()
}

// userColumnsOf is userColumns of the table aliased u.
var userColumnsOf = prefixColumns("u.", userColumns)

// Members returns the tenant's users, by e-mail.
func (s *Store) Members(ctx context.Context, tenantID string) ([]einvoice.Member, error) {
	if !einvoice.ValidID(tenantID) {
		return nil, nil
	}
	rows, err := s.rs.QueryContext(ctx, `SELECT m.role, m.created_at, `+userColumnsOf+`
		FROM memberships m JOIN users u ON u.id = m.user_id WHERE m.tenant_id = $1 ORDER BY u.email_key`, tenantID)
	if err != nil {
		return nil, fmt.Errorf("members: %w", err)
	}
	defer rows.Close()
	var out []einvoice.Member
	for rows.Next() {
		var role string
		var since int64
		u, err := s.scanUser(prefixScanner{rows, []any{&role, &since}})
		if err != nil {
			return nil, fmt.Errorf("members: %w", err)
		}
		out = append(out, einvoice.Member{User: u, Role: einvoice.Role(role), Since: fromMicros(since)})
	}
	return out, rows.Err()
}

// ownersLeft counts the tenant's owners but the user, under a lock of the
// tenant's row on PostgreSQL (so that two changes of owners are one after
// the other); SQLite has one writer.
func (s *Store) ownersLeft(ctx context.Context, tx *sql.Tx, tenantID, userID string) (int, error) {
	if s.engine == Postgres {
		if _, err := tx.ExecContext(ctx, `SELECT id FROM tenants WHERE id = $1 FOR UPDATE`, tenantID); err != nil {
			return 0, fmt.Errorf("lock tenant: %w", err)
		}
	}
	var n int
	err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM memberships WHERE tenant_id = $1 AND role = 'owner' AND user_id <> $2`,
		tenantID, userID).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("count owners: %w", err)
	}
	return n, nil
}

// PutMembership gives the user the role in the tenant.
func (s *Store) PutMembership(ctx context.Context, m *einvoice.Membership) error {
	if !einvoice.ValidID(m.TenantID) || !einvoice.ValidID(m.UserID) {
		return einvoice.ErrNotFound
	}
	return s.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		if m.Role != einvoice.RoleOwner {
			n, err := s.ownersLeft(ctx, tx, m.TenantID, m.UserID)
			if err != nil {
				return err
			}
			var was string
			err = tx.QueryRowContext(ctx, `SELECT role FROM memberships WHERE tenant_id = $1 AND user_id = $2`, m.TenantID, m.UserID).Scan(&was)
			if err != nil && !errors.Is(err, sql.ErrNoRows) {
				return fmt.Errorf("membership: %w", err)
			}
			if was == string(einvoice.RoleOwner) && n == 0 {
				return einvoice.ErrLastOwner
			}
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO memberships (tenant_id, user_id, role, created_at) VALUES ($1,$2,$3,$4)
			ON CONFLICT (tenant_id, user_id) DO UPDATE SET role = excluded.role`, m.TenantID, m.UserID, string(m.Role), micros(m.CreatedAt))
		err = classify(err)
		if errors.Is(err, errForeignKey) {
			return einvoice.ErrNotFound
		}
		if err != nil {
			return fmt.Errorf("put membership: %w", err)
		}
		return nil
	})
}

// RemoveMembership takes the user out of the tenant and ends its sessions there.
func (s *Store) RemoveMembership(ctx context.Context, tenantID, userID string) error {
	if !einvoice.ValidID(tenantID) || !einvoice.ValidID(userID) {
		return einvoice.ErrNotFound
	}
	return s.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		n, err := s.ownersLeft(ctx, tx, tenantID, userID)
		if err != nil {
			return err
		}
		var role string
		err = tx.QueryRowContext(ctx, `SELECT role FROM memberships WHERE tenant_id = $1 AND user_id = $2`, tenantID, userID).Scan(&role)
		if errors.Is(err, sql.ErrNoRows) {
			return einvoice.ErrNotFound
		}
		if err != nil {
			return fmt.Errorf("membership: %w", err)
		}
		if role == string(einvoice.RoleOwner) && n == 0 {
			return einvoice.ErrLastOwner
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM memberships WHERE tenant_id = $1 AND user_id = $2`, tenantID, userID); err != nil {
			return fmt.Errorf("remove membership: %w", err)
		}
		_, err = tx.ExecContext(ctx, `UPDATE dashboard_sessions SET revoked = TRUE WHERE user_id = $1 AND tenant_id = $2`, userID, tenantID)
		if err != nil {
			return fmt.Errorf("end sessions: %w", err)
		}
		return nil
	})
}

const userTokenColumns = `hash, kind, email, user_id, tenant_id, role, created_by, created_at, expires_at, used_at`

// CreateUserToken inserts a one-time link.
func (s *Store) CreateUserToken(ctx context.Context, t *einvoice.UserToken) error {
	return insertUserToken(ctx, s.ws, t)
}

func insertUserToken(ctx context.Context, q execer, t *einvoice.UserToken) error {
	_, err := q.ExecContext(ctx, `INSERT INTO user_tokens (`+userTokenColumns+`) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10)`,
		t.Hash, string(t.Kind), t.Email, t.UserID, t.TenantID, string(t.Role), t.CreatedBy, micros(t.CreatedAt), micros(t.ExpiresAt), nullMicros(t.UsedAt))
	if err = classify(err); err != nil {
		return fmt.Errorf("insert user token: %w", err)
	}
	return nil
}

func scanUserToken(row interface{ Scan(...any) error }) (*einvoice.UserToken, error) {
	var t einvoice.UserToken
	var kind, role string
	var created, expires int64
	var used sql.NullInt64
	err := row.Scan(&t.Hash, &kind, &t.Email, &t.UserID, &t.TenantID, &role, &t.CreatedBy, &created, &expires, &used)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, einvoice.ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("user token: %w", err)
	}
	t.Kind, t.Role, t.CreatedAt, t.ExpiresAt = einvoice.TokenKind(kind), einvoice.Role(role), fromMicros(created), fromMicros(expires)
	if used.Valid {
		at := fromMicros(used.Int64)
		t.UsedAt = &at
	}
	return &t, nil
}

// UserToken returns an unused, unexpired link, or einvoice.ErrNotFound.
func (s *Store) UserToken(ctx context.Context, hash []byte, now time.Time) (*einvoice.UserToken, error) {
	return scanUserToken(s.rs.QueryRowContext(ctx, `SELECT `+userTokenColumns+` FROM user_tokens
		WHERE hash = $1 AND used_at IS NULL AND expires_at > $2`, hash, micros(now)))
}

// UseUserToken marks the link used, once.
func (s *Store) UseUserToken(ctx context.Context, hash []byte, now time.Time) (*einvoice.UserToken, error) {
	return scanUserToken(s.ws.QueryRowContext(ctx, `UPDATE user_tokens SET used_at = $2
		WHERE hash = $1 AND used_at IS NULL AND expires_at > $2 RETURNING `+userTokenColumns, hash, micros(now)))
}

// AddSignInFailure records a failed sign-in of the e-mail.
func (s *Store) AddSignInFailure(ctx context.Context, email string, at time.Time) error {
	if _, err := s.ws.ExecContext(ctx, `INSERT INTO sign_in_failures (email_key, at) VALUES ($1, $2)`,
		einvoice.NormalizeEmail(email), micros(at)); err != nil {
		return fmt.Errorf("record sign-in failure: %w", err)
	}
	return nil
}

// SignInFailures counts the e-mail's failures since the time.
func (s *Store) SignInFailures(ctx context.Context, email string, since time.Time) (int, error) {
	var n int
	err := s.rs.QueryRowContext(ctx, `SELECT COUNT(*) FROM sign_in_failures WHERE email_key = $1 AND at >= $2`,
		einvoice.NormalizeEmail(email), micros(since)).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("count sign-in failures: %w", err)
	}
	return n, nil
}

// ClearSignInFailures forgets the e-mail's failures.
func (s *Store) ClearSignInFailures(ctx context.Context, email string) error {
	if _, err := s.ws.ExecContext(ctx, `DELETE FROM sign_in_failures WHERE email_key = $1`, einvoice.NormalizeEmail(email)); err != nil {
		return fmt.Errorf("clear sign-in failures: %w", err)
	}
	return nil
}

// DeleteOldSignInData removes sign-in failures, one-time links and passkey
// ceremonies older than the time, and reports how many.
func (s *Store) DeleteOldSignInData(ctx context.Context, before time.Time) (int64, error) {
	var total int64
	for _, q := range []string{`DELETE FROM sign_in_failures WHERE at < $1`, `DELETE FROM user_tokens WHERE expires_at < $1`,
		`DELETE FROM passkey_challenges WHERE expires_at < $1`} {
		res, err := s.ws.ExecContext(ctx, q, micros(before))
		if err != nil {
			return total, fmt.Errorf("purge sign-in data: %w", err)
		}
		n, _ := res.RowsAffected()
		total += n
	}
	return total, nil
}

// prefixColumns qualifies each of a list of columns with the prefix.
func prefixColumns(prefix, columns string) string {
	return prefix + strings.ReplaceAll(columns, ", ", ", "+prefix)
}
