package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/einvoice/einvoice/internal/einvoice"
)

// On SQLite the service runs as one process (docs/deployment.md, "SQLite";
// the rate limiter is in memory there too), so the unfinished claims of
// idempotency keys are held by the process, and the table holds only the
// kept responses: a key costs one write, the kept response, and a read.
// The write joins the next group commit while the answer goes out, with
// the responses of the other requests that finished
// meanwhile (one transaction for them all): until it is on disk the process
// holds the response and replays it from memory, so no request waits a
// second fsync, and Close waits for the writes. (A claim row
// and a completion, each waited for, cost SQLite's creation of an invoice
// some 45 % more CPU and time.) A claim whose process died dies with it: a
// retry after the restart runs the operation, as it does on PostgreSQL when
// the process died between the operation and its completion.

// claimKey names a key of a tenant.
type claimKey struct{ tenantID, key string }

// processClaim is a claim of this process, with its response once the
// request finished (being written).
type processClaim struct {
	einvoice.IdempotencyClaim
	resp *einvoice.IdempotentResponse
}

// processClaims are the claims of this process not yet written (and the
// responses whose write failed).
type processClaims struct {
	mu sync.Mutex
	m  map[claimKey]processClaim
	// queue holds the kept responses to write; flushing says a goroutine
	// is writing them, a batch per group commit.
	queue    []keptWrite
	flushing bool
	// writing counts the kept responses queued or being written.
	writing sync.WaitGroup
}

// keptWrite is a kept response to write.
type keptWrite struct {
	claim   einvoice.IdempotencyClaim
	resp    einvoice.IdempotentResponse
	headers string
}

// keptInsert writes a kept response, over an expired one.
const keptInsert = `INSERT INTO idempotency_keys
	(tenant_id, key, fingerprint, token, lease_until, expires_at, status, headers, body)
	VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
	ON CONFLICT (tenant_id, key) DO UPDATE SET
		fingerprint = excluded.fingerprint, token = excluded.token,
		lease_until = excluded.lease_until, expires_at = excluded.expires_at,
		status = excluded.status, headers = excluded.headers, body = excluded.body`

// take makes c the key's claim unless another claim holds it: one whose
// response is being written, or an unfinished one with its lease running
// at now. It returns that claim then.
func (p *processClaims) take(c einvoice.IdempotencyClaim, now time.Time) (processClaim, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	k := claimKey{c.TenantID, c.Key}
	if held, ok := p.m[k]; ok && held.ExpiresAt.After(now) && (held.resp != nil || held.LeaseUntil.After(now)) {
		return held, false
	}
	if p.m == nil {
		p.m = map[claimKey]processClaim{}
	}
	p.m[k] = processClaim{IdempotencyClaim: c}
	return p.m[k], true
}

// finish records the response of the key's unfinished claim if token
// holds it, and returns the claim.
func (p *processClaims) finish(tenantID, key, token string, resp einvoice.IdempotentResponse) (einvoice.IdempotencyClaim, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	k := claimKey{tenantID, key}
	c, ok := p.m[k]
	if !ok || c.Token != token || c.resp != nil {
		return einvoice.IdempotencyClaim{}, false
	}
	c.resp = &resp
	p.m[k] = c
	p.writing.Add(1)
	return c.IdempotencyClaim, true
}

// drop ends the key's claim if token holds it.
func (p *processClaims) drop(tenantID, key, token string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	k := claimKey{tenantID, key}
	if c, ok := p.m[k]; ok && c.Token == token {
		delete(p.m, k)
	}
}

// wait returns once the kept responses being written are.
func (p *processClaims) wait() { p.writing.Wait() }

// claimInProcess takes the key in the process first, then reads the kept
// response: a first request lets go of its key only once its response is
// written, so a claim taken after that finds the response.
func (s *Store) claimInProcess(ctx context.Context, c einvoice.IdempotencyClaim, now time.Time) (*einvoice.IdempotencyRecord, error) {
	if held, ok := s.claims.take(c, now); !ok {
		return &einvoice.IdempotencyRecord{Fingerprint: held.Fingerprint, Token: held.Token,
			LeaseUntil: held.LeaseUntil, ExpiresAt: held.ExpiresAt, Response: held.resp}, nil
	}
	rec, err := s.idempotencyRecord(ctx, c.TenantID, c.Key)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return nil, nil
	case err != nil:
		s.claims.drop(c.TenantID, c.Key, c.Token)
		return nil, fmt.Errorf("read idempotency key: %w", err)
	case rec.Response != nil && rec.ExpiresAt.After(now):
		s.claims.drop(c.TenantID, c.Key, c.Token)
		return rec, nil
	}
	return nil, nil // an expired response: the key is this claim's now
}

// completeInProcess keeps the response in the process at once and queues
// its write; the key is let go of once it is written. The responses that
// pile up while one batch is written are written together, in one
// transaction of the group commit. When a write fails the process keeps
// the response, and replays it until it expires or the process ends.
func (s *Store) completeInProcess(ctx context.Context, tenantID, key, token string, resp einvoice.IdempotentResponse) error {
	headers, err := json.Marshal(resp.Header)
	if err != nil {
		return fmt.Errorf("complete idempotency key: %w", err)
	}
	if resp.Body == nil {
		resp.Body = []byte{}
	}
	c, ok := s.claims.finish(tenantID, key, token, resp)
	if !ok {
		return nil
	}
	p := &s.claims
	p.mu.Lock()
	p.queue = append(p.queue, keptWrite{claim: c, resp: resp, headers: string(headers)})
	start := !p.flushing
	p.flushing = true
	p.mu.Unlock()
	if start {
		go s.writeKept(context.WithoutCancel(ctx))
	}
	return nil
}

// writeKept writes the queued kept responses, batch by batch, until none
// is left.
func (s *Store) writeKept(ctx context.Context) {
	p := &s.claims
	for {
		p.mu.Lock()
		batch := p.queue
		p.queue = nil
		if len(batch) == 0 {
			p.flushing = false
			p.mu.Unlock()
			return
		}
		p.mu.Unlock()
		err := s.idemWrite(ctx, keptInsert, func(ctx context.Context, st idemStmt) error {
			for _, w := range batch {
				c := w.claim
				if _, err := st.ExecContext(ctx, c.TenantID, c.Key, c.Fingerprint, c.Token, micros(c.LeaseUntil),
					micros(c.ExpiresAt), w.resp.Status, w.headers, w.resp.Body); err != nil {
					return err
				}
			}
			return nil
		})
		for _, w := range batch {
			if err == nil {
				p.drop(w.claim.TenantID, w.claim.Key, w.claim.Token)
			}
			p.writing.Done()
		}
	}
}
