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

var _ einvoice.IdempotencyStore = (*Store)(nil)

// claimTries bounds how often a claim looks again at a key that was freed
// between its insert and its read.
const claimTries = 3

// ClaimIdempotencyKey writes the claim in one upsert that takes the key
// only when it is free (never used, expired, or an unfinished claim whose
// lease ended), and reads the holder's record otherwise. On SQLite the
// claim is held by the process instead (idempotency_sqlite.go).
func (s *Store) ClaimIdempotencyKey(ctx context.Context, c einvoice.IdempotencyClaim, now time.Time) (*einvoice.IdempotencyRecord, error) {
	if s.engine == SQLite {
		return s.claimInProcess(ctx, c, now)
	}
	for try := 0; ; try++ {
		var got string
		err := s.idemWrite(ctx, `INSERT INTO idempotency_keys
				(tenant_id, key, fingerprint, token, lease_until, expires_at, status, headers, body)
				VALUES ($1, $2, $3, $4, $5, $6, 0, '', NULL)
				ON CONFLICT (tenant_id, key) DO UPDATE SET
					fingerprint = excluded.fingerprint, token = excluded.token,
					lease_until = excluded.lease_until, expires_at = excluded.expires_at,
					status = 0, headers = '', body = NULL
				WHERE idempotency_keys.expires_at <= $7
					OR (idempotency_keys.status = 0 AND idempotency_keys.lease_until <= $7)
				RETURNING token`, func(ctx context.Context, st idemStmt) error {
			err := st.QueryRowContext(ctx,
				c.TenantID, c.Key, c.Fingerprint, c.Token, micros(c.LeaseUntil), micros(c.ExpiresAt), micros(now)).Scan(&got)
			if errors.Is(err, sql.ErrNoRows) {
				return nil
			}
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("claim idempotency key: %w", err)
		}
		if got == c.Token {
			return nil, nil
		}
		rec, err := s.idempotencyRecord(ctx, c.TenantID, c.Key)
		if errors.Is(err, sql.ErrNoRows) && try < claimTries {
			continue // released meanwhile: claim it again
		}
		if err != nil {
			return nil, fmt.Errorf("read idempotency key: %w", err)
		}
		return rec, nil
	}
}

// idempotencyRecord reads a key's row (sql.ErrNoRows when absent). The
// claim that refused it has committed: any reader sees the holder's row.
func (s *Store) idempotencyRecord(ctx context.Context, tenantID, key string) (*einvoice.IdempotencyRecord, error) {
	var (
		rec            einvoice.IdempotencyRecord
		lease, expires int64
		status         int
		headers        string
		body           []byte
	)
	err := s.rs.QueryRowContext(ctx, `SELECT fingerprint, token, lease_until, expires_at, status, headers, body
		FROM idempotency_keys WHERE tenant_id = $1 AND key = $2`, tenantID, key).
		Scan(&rec.Fingerprint, &rec.Token, &lease, &expires, &status, &headers, &body)
	if err != nil {
		return nil, err
	}
	rec.LeaseUntil, rec.ExpiresAt = fromMicros(lease), fromMicros(expires)
	if status > 0 {
		resp := &einvoice.IdempotentResponse{Status: status, Body: body}
		if headers != "" {
			if err := json.Unmarshal([]byte(headers), &resp.Header); err != nil {
				return nil, fmt.Errorf("headers of idempotency key: %w", err)
			}
		}
		rec.Response = resp
	}
	return &rec, nil
}

// CompleteIdempotencyKey keeps the response under the key of the claim.
func (s *Store) CompleteIdempotencyKey(ctx context.Context, tenantID, key, token string, resp einvoice.IdempotentResponse) error {
	if s.engine == SQLite {
		return s.completeInProcess(ctx, tenantID, key, token, resp)
	}
	headers, err := json.Marshal(resp.Header)
	if err != nil {
		return fmt.Errorf("complete idempotency key: %w", err)
	}
	if resp.Body == nil {
		resp.Body = []byte{}
	}
	err = s.idemWrite(ctx, `UPDATE idempotency_keys SET status = $4, headers = $5, body = $6
		WHERE tenant_id = $1 AND key = $2 AND token = $3 AND status = 0`, func(ctx context.Context, st idemStmt) error {
		_, err := st.ExecContext(ctx, tenantID, key, token, resp.Status, string(headers), resp.Body)
		return err
	})
	if err != nil {
		return fmt.Errorf("complete idempotency key: %w", err)
	}
	return nil
}

// ReleaseIdempotencyKey deletes the unfinished claim of token.
func (s *Store) ReleaseIdempotencyKey(ctx context.Context, tenantID, key, token string) error {
	if s.engine == SQLite {
		s.claims.drop(tenantID, key, token)
		return nil
	}
	err := s.idemWrite(ctx, `DELETE FROM idempotency_keys
		WHERE tenant_id = $1 AND key = $2 AND token = $3 AND status = 0`, func(ctx context.Context, st idemStmt) error {
		_, err := st.ExecContext(ctx, tenantID, key, token)
		return err
	})
	if err != nil {
		return fmt.Errorf("release idempotency key: %w", err)
	}
	return nil
}

// PurgeIdempotencyKeys deletes the keys expired at now.
func (s *Store) PurgeIdempotencyKeys(ctx context.Context, now time.Time) (int64, error) {
	var n int64
	err := s.idemWrite(ctx, `DELETE FROM idempotency_keys WHERE expires_at <= $1`, func(ctx context.Context, st idemStmt) error {
		res, err := st.ExecContext(ctx, micros(now))
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("purge idempotency keys: %w", err)
	}
	return n, nil
}

// idemStmt is the one statement of a write of idempotency keys.
type idemStmt interface {
	ExecContext(ctx context.Context, args ...any) (sql.Result, error)
	QueryRowContext(ctx context.Context, args ...any) *sql.Row
}

// idemWrite runs one statement of idempotency keys, query, through fn. On
// PostgreSQL it goes through the pool of unsynced writes (synchronous_commit
// off: visible to every replica at once, durable within a fraction of a
// second; a completion lost in a crash of the database server leaves its
// claim, which blocks the key for its lease only). On SQLite it runs its
// prepared statement in the group committer, sharing the commit and fsync
// of the writes around it. (Measured: a commit of its own with
// synchronous=NORMAL on the writer connection cost the same CPU.)
func (s *Store) idemWrite(ctx context.Context, query string, fn func(ctx context.Context, st idemStmt) error) error {
	if s.engine == Postgres {
		db, err := s.unsyncedDB()
		if err != nil {
			return err
		}
		return fn(ctx, pooledStmt{db: db, query: query})
	}
	st, err := s.ws.stmt(ctx, query)
	if err != nil {
		return err
	}
	return s.tx(ctx, func(ctx context.Context, tx *sql.Tx) error { return fn(ctx, tx.StmtContext(ctx, st)) })
}

// pooledStmt runs a query on a pool (pgx keeps the prepared statements).
type pooledStmt struct {
	db    *sql.DB
	query string
}

func (p pooledStmt) ExecContext(ctx context.Context, args ...any) (sql.Result, error) {
	return p.db.ExecContext(ctx, p.query, args...)
}

func (p pooledStmt) QueryRowContext(ctx context.Context, args ...any) *sql.Row {
	return p.db.QueryRowContext(ctx, p.query, args...)
}
