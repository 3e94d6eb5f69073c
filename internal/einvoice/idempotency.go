package einvoice

import (
	"context"
	"time"
)

// Codes of idempotency keys (DECISIONS 15).
const (
	// CodeIdempotencyKeyInUse: the key's first request is still running.
	CodeIdempotencyKeyInUse Code = "IDEMPOTENCY_KEY_IN_USE"
	// CodeIdempotencyKeyReused: the key came with another method, path or body.
	CodeIdempotencyKeyReused Code = "IDEMPOTENCY_KEY_REUSED"
)

// IdempotencyClaim is one request's claim on a tenant's Idempotency-Key,
// written before its operation runs.
type IdempotencyClaim struct {
	TenantID string
	Key      string
	// Fingerprint identifies the request: a hash of its method, path and
	// body.
	Fingerprint string
	// Token is this request's own random token: only the claim holding it
	// may complete or release the key.
	Token string
	// LeaseUntil is when another request may take the key over if the
	// claim has neither completed nor released it (its process died).
	LeaseUntil time.Time
	// ExpiresAt is when the key, and the response kept under it, is
	// forgotten.
	ExpiresAt time.Time
}

// IdempotentResponse is a response kept under a key, replayed to the
// key's retries.
type IdempotentResponse struct {
	Status int
	// Header holds the headers that matter (Content-Type, Location).
	Header map[string]string
	Body   []byte
}

// IdempotencyRecord is what a key holds: the claim that took it and, once
// its request finished, the response kept.
type IdempotencyRecord struct {
	Fingerprint string
	Token       string
	LeaseUntil  time.Time
	ExpiresAt   time.Time
	// Response is nil while the claim's request runs.
	Response *IdempotentResponse
}

// IdempotencyStore keeps idempotency keys in the database, per tenant and
// key, so that they hold across replicas and restarts. (An engine that one
// process serves alone, SQLite, may hold the unfinished claims in that
// process and write only the kept responses.)
type IdempotencyStore interface {
	// ClaimIdempotencyKey takes the key for c if it is free: never used,
	// expired at now, or held by an unfinished claim whose lease ended at
	// now. It returns nil when c holds the key, or else the record that
	// holds it.
	ClaimIdempotencyKey(ctx context.Context, c IdempotencyClaim, now time.Time) (*IdempotencyRecord, error)
	// CompleteIdempotencyKey keeps resp under the key if the claim of token
	// still holds it (otherwise it does nothing).
	CompleteIdempotencyKey(ctx context.Context, tenantID, key, token string, resp IdempotentResponse) error
	// ReleaseIdempotencyKey frees the key if the claim of token still holds
	// it unfinished, so that a retry runs the operation.
	ReleaseIdempotencyKey(ctx context.Context, tenantID, key, token string) error
	// PurgeIdempotencyKeys deletes the keys expired at now and returns how
	// many.
	PurgeIdempotencyKeys(ctx context.Context, now time.Time) (int64, error)
}
