package einvoice

import (
	"context"
	"time"
)

// Session is a signed-in browser of the web dashboard (DECISIONS 18): an API
// key's session, found by the SHA-256 of its token (the token itself is
// never stored). ExpiresAt moves with use (the idle timeout) but never past
// CreatedAt plus the absolute lifetime.
type Session struct {
	ID        []byte // SHA-256 of the token
	TenantID  string
	KeyID     string
	CreatedAt time.Time
	ExpiresAt time.Time
	Revoked   bool
}

// SessionStore keeps the dashboard's sessions, so that replicas share them.
type SessionStore interface {
	// CreateSession inserts s; ErrNotFound when its key is gone.
	CreateSession(ctx context.Context, s *Session) error
	// SessionByID returns the session and its API key (as it is now,
	// revoked or not), or ErrNotFound.
	SessionByID(ctx context.Context, id []byte) (*Session, *APIKey, error)
	// TouchSession moves the expiry of an unrevoked session to expires;
	// ErrNotFound when there is none.
	TouchSession(ctx context.Context, id []byte, expires time.Time) error
	// RevokeSession marks the session revoked; ErrNotFound when there is
	// none.
	RevokeSession(ctx context.Context, id []byte) error
	// DeleteExpiredSessions removes the sessions expired before now, and
	// the revoked ones, and reports how many.
	DeleteExpiredSessions(ctx context.Context, now time.Time) (int64, error)
}
