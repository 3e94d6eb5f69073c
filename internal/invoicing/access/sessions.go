package access

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"time"

	"github.com/einvoice/einvoice/internal/einvoice"
)

// The web dashboard's sessions (DECISIONS 18): an API key signs in once and
// the browser holds a session token. Sessions live in the database (replicas
// share them), expire after SessionIdle without use or SessionLifetime after
// sign-in, end on sign-out, and end with their key: the key is read with the
// session on every request.
const (
	// SessionIdle is how long a session lasts without a request.
	SessionIdle = 2 * time.Hour
	// SessionLifetime is how long a session lasts at most.
	SessionLifetime = 12 * time.Hour
	// sessionTouchEvery bounds the writes of the idle timeout: the expiry
	// is moved at most once a minute per session.
	sessionTouchEvery = time.Minute
)

// SessionID is the stored form of a session token (its SHA-256).
func SessionID(token string) []byte {
	sum := sha256.Sum256([]byte(token))
	return sum[:]
}

func unauthenticated() error {
	return &einvoice.Error{Code: einvoice.CodeUnauthorized, Message: "Unauthenticated."}
}

// SignIn checks an API key (as the API does) and opens a session for it:
// the session token, shown to the browser only, and the key.
// UNAUTHORIZED when the key is unknown or revoked.
func (s *Service) SignIn(ctx context.Context, key string) (string, *einvoice.APIKey, error) {
	k, err := s.Authenticate(ctx, "Bearer "+key)
	if err != nil {
		return "", nil, err
	}
	token := "eis_" + randomToken(32)
	now := s.now()
	se := &einvoice.Session{ID: SessionID(token), TenantID: k.TenantID, KeyID: k.ID, CreatedAt: now,
		ExpiresAt: now.Add(SessionIdle)}
	if err := s.store.CreateSession(ctx, se); errors.Is(err, einvoice.ErrNotFound) {
		return "", nil, unauthenticated()
	} else if err != nil {
		return "", nil, fmt.Errorf("sign in: %w", err)
	}
	return token, k, nil
}

// Session returns the session of a token and its key; UNAUTHORIZED when
// there is none, or it expired, was signed out, or its key was revoked. A
// session in use has its idle expiry moved on.
func (s *Service) Session(ctx context.Context, token string) (*einvoice.Session, *einvoice.APIKey, error) {
	if token == "" || len(token) > 200 {
		return nil, nil, unauthenticated()
	}
	se, k, err := s.store.SessionByID(ctx, SessionID(token))
	if errors.Is(err, einvoice.ErrNotFound) {
		return nil, nil, unauthenticated()
	}
	if err != nil {
		return nil, nil, fmt.Errorf("session: %w", err)
	}
	now := s.now()
	if se.Revoked || k.RevokedAt != nil || !now.Before(se.ExpiresAt) || !now.Before(se.CreatedAt.Add(SessionLifetime)) ||
		k.TenantID != se.TenantID {
		return nil, nil, unauthenticated()
	}
	if next := now.Add(SessionIdle); next.Sub(se.ExpiresAt) >= sessionTouchEvery {
		if end := se.CreatedAt.Add(SessionLifetime); next.After(end) {
			next = end
		}
		if err := s.store.TouchSession(ctx, se.ID, next); err != nil && !errors.Is(err, einvoice.ErrNotFound) {
			return nil, nil, fmt.Errorf("session: %w", err)
		}
		se.ExpiresAt = next
	}
	return se, k, nil
}

// SignOut ends the session of a token; signing out twice, or with an
// unknown token, is not an error.
func (s *Service) SignOut(ctx context.Context, token string) error {
	if token == "" || len(token) > 200 {
		return nil
	}
	if err := s.store.RevokeSession(ctx, SessionID(token)); err != nil && !errors.Is(err, einvoice.ErrNotFound) {
		return fmt.Errorf("sign out: %w", err)
	}
	return nil
}

// PurgeSessions deletes expired and revoked sessions.
func (s *Service) PurgeSessions(ctx context.Context) (int64, error) {
	n, err := s.store.DeleteExpiredSessions(ctx, s.now().Add(-time.Minute))
	if err != nil {
		return 0, fmt.Errorf("purge sessions: %w", err)
	}
	return n, nil
}
