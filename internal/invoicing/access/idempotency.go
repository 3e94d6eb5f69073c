package access

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"time"

	"github.com/einvoice/einvoice/internal/einvoice"
)

// Idempotency keys (DECISIONS 15).
const (
	// IdempotencyHeader is the request header that carries the key.
	IdempotencyHeader = "Idempotency-Key"
	// IdempotencyTTL is how long a key and its response are kept.
	IdempotencyTTL = 24 * time.Hour
	// IdempotencyLease is how long a claim blocks its key while its request
	// runs: after it, a retry may take the key over (the claim's process
	// died). It exceeds every request's bounded wait.
	IdempotencyLease = time.Minute
	// maxIdempotencyKey is the longest key, in bytes.
	maxIdempotencyKey = 255
	// idempotencyPurgeEvery is how often a process deletes expired keys.
	idempotencyPurgeEvery = time.Minute
)

// IdempotentCall is a request under an Idempotency-Key, begun by
// BeginIdempotent and ended by EndIdempotent.
type IdempotentCall struct {
	// Replay, when set, is the kept response of the key's first request:
	// answer it (with Idempotent-Replayed: true) and run nothing.
	Replay *einvoice.IdempotentResponse
	// claim is this request's claim on the key (zero when there is nothing
	// to end).
	claim einvoice.IdempotencyClaim
}

// CheckIdempotencyKey refuses a key that is empty, longer than 255
// characters or not printable ASCII: a 422 naming the header.
func CheckIdempotencyKey(key string) error {
	var problem string
	switch {
	case key == "":
		problem = "must not be empty"
	case len(key) > maxIdempotencyKey:
		problem = fmt.Sprintf("must be at most %d characters", maxIdempotencyKey)
	default:
		for i := 0; i < len(key); i++ {
			if key[i] < 0x20 || key[i] > 0x7e {
				problem = "must be printable ASCII characters only"
				break
			}
		}
	}
	if problem == "" {
		return nil
	}
	return &einvoice.Error{Code: einvoice.CodeValidationFailed, Message: "The given data was invalid.",
		Fields: einvoice.FieldErrors{IdempotencyHeader: {problem}}}
}

// KeepsResponse reports whether a response of this status is kept under
// its key: one of a request that ran its operation (2xx, or the
// operation's own 400, 404, 409 or 422). One that never ran it (401, 403,
// 413, 415, 429, 5xx) is not, so a retry runs it.
func KeepsResponse(status int) bool {
	switch {
	case status >= 200 && status < 300:
		return true
	case status == 400, status == 404, status == 409, status == 422:
		return true
	}
	return false
}

// BeginIdempotent claims the tenant's key for a request (method, path and
// body) before its operation runs. It answers the kept response to replay
// when the key's first request with the same method, path and body has
// finished; a 409 IDEMPOTENCY_KEY_IN_USE while it runs; a 422
// IDEMPOTENCY_KEY_REUSED when the key came with another method, path or
// body; a 422 VALIDATION_FAILED for a bad key (nothing stored).
func (s *Service) BeginIdempotent(ctx context.Context, tenantID, key, method, path string, body []byte) (*IdempotentCall, error) {
	if err := CheckIdempotencyKey(key); err != nil {
		return nil, err
	}
	st, ok := s.store.(einvoice.IdempotencyStore)
	if !ok {
		return &IdempotentCall{}, nil // a store without keys: run as without one
	}
	now := s.now()
	s.purgeIdempotencyKeys(ctx, st, now)
	h := sha256.New()
	h.Write([]byte(method))
	h.Write([]byte{0})
	h.Write([]byte(path))
	h.Write([]byte{0})
	h.Write(body)
	c := einvoice.IdempotencyClaim{TenantID: tenantID, Key: key, Fingerprint: hex.EncodeToString(h.Sum(nil)),
		Token: rand.Text(), LeaseUntil: now.Add(IdempotencyLease), ExpiresAt: now.Add(IdempotencyTTL)}
	rec, err := st.ClaimIdempotencyKey(ctx, c, now)
	switch {
	case err != nil:
		return nil, err
	case rec == nil:
		return &IdempotentCall{claim: c}, nil
	case rec.Fingerprint != c.Fingerprint:
		return nil, &einvoice.Error{Code: einvoice.CodeIdempotencyKeyReused,
			Message: "This Idempotency-Key was used with another request (method, path or body): use a new key for a new request.",
			Fields:  einvoice.FieldErrors{IdempotencyHeader: {"was used with another request"}}}
	case rec.Response == nil:
		return nil, einvoice.Errorf(einvoice.CodeIdempotencyKeyInUse,
			"The first request with this Idempotency-Key is still running: retry in a moment.")
	}
	return &IdempotentCall{Replay: rec.Response}, nil
}

// EndIdempotent ends the request of call with its response: kept under the
// key when KeepsResponse says so, the key freed otherwise.
func (s *Service) EndIdempotent(ctx context.Context, call *IdempotentCall, resp einvoice.IdempotentResponse) error {
	c := call.claim
	if c.Token == "" {
		return nil
	}
	st := s.store.(einvoice.IdempotencyStore)
	if KeepsResponse(resp.Status) {
		return st.CompleteIdempotencyKey(ctx, c.TenantID, c.Key, c.Token, resp)
	}
	return st.ReleaseIdempotencyKey(ctx, c.TenantID, c.Key, c.Token)
}

// purgeIdempotencyKeys deletes the expired keys, at most once a minute per
// process (whichever request comes first after that); a failure is logged
// and left to the next.
func (s *Service) purgeIdempotencyKeys(ctx context.Context, st einvoice.IdempotencyStore, now time.Time) {
	last := s.idemPurged.Load()
	if now.UnixNano()-last < int64(idempotencyPurgeEvery) || !s.idemPurged.CompareAndSwap(last, now.UnixNano()) {
		return
	}
	if n, err := st.PurgeIdempotencyKeys(ctx, now); err != nil {
		s.log.WarnContext(ctx, "purge idempotency keys", "error", err)
	} else if n > 0 {
		s.log.InfoContext(ctx, "purged expired idempotency keys", "count", n)
	}
}
