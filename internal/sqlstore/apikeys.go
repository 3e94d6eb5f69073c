package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/einvoice/einvoice/internal/einvoice"
)

const apiKeyColumns = `id, tenant_id, prefix, hash, permission, created_at, revoked_at, name, last_used_at`

func insertAPIKey(ctx context.Context, q execer, k *einvoice.APIKey) error {
	_, err := q.ExecContext(ctx, `INSERT INTO api_keys (`+apiKeyColumns+`) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9)`,
		k.ID, k.TenantID, k.Prefix, k.Hash, string(k.Permission), micros(k.CreatedAt), nullMicros(k.RevokedAt), k.Name, nullMicros(k.LastUsedAt))
	err = classify(err)
	if errors.Is(err, errForeignKey) {
		return einvoice.ErrNotFound
	}
	if err != nil {
		return fmt.Errorf("insert api key: %w", err)
	}
	return nil
}

func scanAPIKey(row interface{ Scan(...any) error }) (*einvoice.APIKey, error) {
	var k einvoice.APIKey
	var perm string
	var created int64
	var revoked, used sql.NullInt64
	err := row.Scan(&k.ID, &k.TenantID, &k.Prefix, &k.Hash, &perm, &created, &revoked, &k.Name, &used)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, einvoice.ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	k.Permission, k.CreatedAt = einvoice.Permission(perm), fromMicros(created)
	if revoked.Valid {
		t := fromMicros(revoked.Int64)
		k.RevokedAt = &t
	}
	if used.Valid {
		t := fromMicros(used.Int64)
		k.LastUsedAt = &t
	}
	return &k, nil
}

// CreateAPIKey inserts k; einvoice.ErrNotFound when its tenant does not exist.
func (s *Store) CreateAPIKey(ctx context.Context, k *einvoice.APIKey) error {
	if !einvoice.ValidID(k.TenantID) {
		return einvoice.ErrNotFound
	}
	return insertAPIKey(ctx, s.ws, k)
}

// APIKeyByHash returns the key with that hash, or einvoice.ErrNotFound.
func (s *Store) APIKeyByHash(ctx context.Context, hash []byte) (*einvoice.APIKey, error) {
	return scanAPIKey(s.rs.QueryRowContext(ctx, `SELECT `+apiKeyColumns+` FROM api_keys WHERE hash = $1`, hash))
}

// ListAPIKeys returns the keys of a tenant, oldest first.
func (s *Store) ListAPIKeys(ctx context.Context, tenantID string) ([]*einvoice.APIKey, error) {
	if !einvoice.ValidID(tenantID) {
		return nil, nil
	}
	rows, err := s.rs.QueryContext(ctx, `SELECT `+apiKeyColumns+` FROM api_keys WHERE tenant_id = $1 ORDER BY created_at, id`, tenantID)
	if err != nil {
		return nil, fmt.Errorf("list api keys: %w", err)
	}
	defer rows.Close()
	var out []*einvoice.APIKey
	for rows.Next() {
		k, err := scanAPIKey(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, k)
	}
	return out, rows.Err()
}

// RevokeAPIKey marks the key revoked, keeping an earlier revocation time.
func (s *Store) RevokeAPIKey(ctx context.Context, id string, at time.Time) error {
	if !einvoice.ValidID(id) {
		return einvoice.ErrNotFound
	}
	res, err := s.ws.ExecContext(ctx, `UPDATE api_keys SET revoked_at = COALESCE(revoked_at, $2) WHERE id = $1`, id, micros(at))
	if err != nil {
		return fmt.Errorf("revoke api key: %w", err)
	}
	return mustAffect(res)
}

// TouchAPIKey records when the key was last used.
func (s *Store) TouchAPIKey(ctx context.Context, id string, at time.Time) error {
	if !einvoice.ValidID(id) {
		return einvoice.ErrNotFound
	}
	res, err := s.ws.ExecContext(ctx, `UPDATE api_keys SET last_used_at = $2 WHERE id = $1`, id, micros(at))
	if err != nil {
		return fmt.Errorf("touch api key: %w", err)
	}
	return mustAffect(res)
}
