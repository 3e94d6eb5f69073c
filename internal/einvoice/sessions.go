package einvoice

import (
	"context"
	"time"
)

// Session is a signed-in browser of the web dashboard (DECISIONS 18 and
// 20): a user's session in one tenant (the one its pages show; the user
// switches it), found by the SHA-256 of its token (the token itself is never
// stored). ExpiresAt moves with use (the idle timeout) but never past
// CreatedAt plus the absolute lifetime.
type Session struct {
	ID        []byte // SHA-256 of the token
	UserID    string
	TenantID  string
	Stage     SessionStage
	CreatedAt time.Time
	ExpiresAt time.Time
	Revoked   bool
}

// SessionUser is a session with its user and the user's role in the
// session's tenant, as they are now.
type SessionUser struct {
	Session *Session
	User    *User
	// Role is the user's role in the session's tenant; "" when the user is
	// no longer a member of it (the session then opens nothing).
	Role Role
	// TenantName is the name of the session's tenant.
	TenantName string
}

// SessionStore keeps the dashboard's sessions, so that replicas share them.
type SessionStore interface {
	// CreateSession inserts s; ErrNotFound when its user is gone.
	CreateSession(ctx context.Context, s *Session) error
	// SessionByID returns the session with its user and role, or
	// ErrNotFound.
	SessionByID(ctx context.Context, id []byte) (*SessionUser, error)
	// TouchSession moves the expiry of an unrevoked session to expires;
	// ErrNotFound when there is none.
	TouchSession(ctx context.Context, id []byte, expires time.Time) error
	// SetSessionTenant moves an unrevoked session to another tenant;
	// ErrNotFound when there is none.
	SetSessionTenant(ctx context.Context, id []byte, tenantID string) error
	// RevokeSession marks the session revoked; ErrNotFound when there is
	// none.
	RevokeSession(ctx context.Context, id []byte) error
	// RevokeUserSessions ends every session of the user but keep (nil: all).
	RevokeUserSessions(ctx context.Context, userID string, keep []byte) error
	// DeleteExpiredSessions removes the sessions expired before now, and
	// the revoked ones, and reports how many.
	DeleteExpiredSessions(ctx context.Context, now time.Time) (int64, error)
}
