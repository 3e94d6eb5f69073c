package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/einvoice/einvoice/internal/einvoice"
)

// Passkeys: the WebAuthn credentials of users (einvoice.UserStore).

const passkeyColumns = `id, user_id, name, credential, created_at, last_used_at`

// CreatePasskey inserts p; einvoice.ErrConflict when its id is known.
func (s *Store) CreatePasskey(ctx context.Context, p *einvoice.Passkey) error {
	if !einvoice.ValidID(p.UserID) {
		return einvoice.ErrNotFound
	}
	_, err := s.ws.ExecContext(ctx, `INSERT INTO passkeys (`+passkeyColumns+`) VALUES ($1,$2,$3,$4,$5,$6)`,
		p.ID, p.UserID, p.Name, p.Credential, micros(p.CreatedAt), nullMicros(p.LastUsedAt))
	err = classify(err)
	if errors.Is(err, errForeignKey) {
		return einvoice.ErrNotFound
	}
	if err != nil {
		return fmt.Errorf("insert passkey: %w", err)
	}
	return nil
}

func scanPasskey(row interface{ Scan(...any) error }) (*einvoice.Passkey, error) {
	var p einvoice.Passkey
	var created int64
	var used sql.NullInt64
	err := row.Scan(&p.ID, &p.UserID, &p.Name, &p.Credential, &created, &used)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, einvoice.ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("passkey: %w", err)
	}
	p.CreatedAt = fromMicros(created)
	if used.Valid {
		at := fromMicros(used.Int64)
		p.LastUsedAt = &at
	}
	return &p, nil
}

// Passkeys returns the user's passkeys, oldest first.
func (s *Store) Passkeys(ctx context.Context, userID string) ([]*einvoice.Passkey, error) {
	if !einvoice.ValidID(userID) {
		return nil, nil
	}
	rows, err := s.rs.QueryContext(ctx, `SELECT `+passkeyColumns+` FROM passkeys WHERE user_id = $1 ORDER BY created_at, id`, userID)
	if err != nil {
		return nil, fmt.Errorf("passkeys: %w", err)
	}
	defer rows.Close()
	var out []*einvoice.Passkey
	for rows.Next() {
		p, err := scanPasskey(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// PasskeyByID returns the passkey of a credential id, or einvoice.ErrNotFound.
func (s *Store) PasskeyByID(ctx context.Context, id []byte) (*einvoice.Passkey, error) {
	return scanPasskey(s.rs.QueryRowContext(ctx, `SELECT `+passkeyColumns+` FROM passkeys WHERE id = $1`, id))
}

// UsePasskey stores the credential record after a sign-in and its time.
func (s *Store) UsePasskey(ctx context.Context, id, credential []byte, at time.Time) error {
	res, err := s.ws.ExecContext(ctx, `UPDATE passkeys SET credential = $2, last_used_at = $3 WHERE id = $1`, id, credential, micros(at))
	if err != nil {
		return fmt.Errorf("use passkey: %w", err)
	}
	return mustAffect(res)
}

// DeletePasskey removes the user's passkey.
func (s *Store) DeletePasskey(ctx context.Context, userID string, id []byte) error {
	if !einvoice.ValidID(userID) {
		return einvoice.ErrNotFound
	}
	res, err := s.ws.ExecContext(ctx, `DELETE FROM passkeys WHERE user_id = $1 AND id = $2`, userID, id)
	if err != nil {
		return fmt.Errorf("delete passkey: %w", err)
	}
	return mustAffect(res)
}

// CreatePasskeyChallenge inserts a passkey ceremony begun.
func (s *Store) CreatePasskeyChallenge(ctx context.Context, c *einvoice.PasskeyChallenge) error {
	_, err := s.ws.ExecContext(ctx, `INSERT INTO passkey_challenges (hash, user_id, data, expires_at) VALUES ($1,$2,$3,$4)`,
		c.Hash, c.UserID, c.Data, micros(c.ExpiresAt))
	if err != nil {
		return fmt.Errorf("insert passkey challenge: %w", err)
	}
	return nil
}

// TakePasskeyChallenge removes and returns the ceremony of a challenge's
// hash, once (one statement: of two replicas finishing it at once, one
// gets it); einvoice.ErrNotFound when it is unknown, used or expired.
func (s *Store) TakePasskeyChallenge(ctx context.Context, hash []byte, now time.Time) (*einvoice.PasskeyChallenge, error) {
	c := einvoice.PasskeyChallenge{Hash: hash}
	var expires int64
	err := s.ws.QueryRowContext(ctx, `DELETE FROM passkey_challenges WHERE hash = $1 RETURNING user_id, data, expires_at`, hash).
		Scan(&c.UserID, &c.Data, &expires)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, einvoice.ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("take passkey challenge: %w", err)
	}
	c.ExpiresAt = fromMicros(expires)
	if !c.ExpiresAt.After(now) {
		return nil, einvoice.ErrNotFound
	}
	return &c, nil
}
