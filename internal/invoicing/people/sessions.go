package people

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"time"

	"github.com/einvoice/einvoice/internal/einvoice"
)

// The dashboard's sessions (DECISIONS 18 and 20): a user signs in and the
// browser holds a session token. Sessions live in the database (replicas
// share them), expire after SessionIdle without use or SessionLifetime after
// sign-in, end on sign-out, on a password change (all but the one that made
// it), on removal from the tenant, and by "sign out everywhere".
const (
	// SessionIdle is how long a session lasts without a request.
	SessionIdle = 2 * time.Hour
	// SessionLifetime is how long a session lasts at most.
	SessionLifetime = 12 * time.Hour
	// secondFactorWait is how long a session waits for its second factor.
	secondFactorWait = 5 * time.Minute
	// sessionTouchEvery bounds the writes of the idle timeout: the expiry
	// is moved at most once a minute per session.
	sessionTouchEvery = time.Minute
	// maxEmail bounds an e-mail (RFC 5321's path length).
	maxEmail = 254
)

// SessionID is the stored form of a session token (its SHA-256).
func SessionID(token string) []byte {
	sum := sha256.Sum256([]byte(token))
	return sum[:]
}

func unauthenticated() error {
	return &einvoice.Error{Code: einvoice.CodeUnauthorized, Message: "Unauthenticated."}
}

// Session returns the signed-in session of a token with its user and role;
// UNAUTHORIZED when there is none, or it expired, was signed out, waits for
// its second factor, or its user left the session's tenant. A session in
// use has its idle expiry moved on.
func (s *Service) Session(ctx context.Context, token string) (*einvoice.SessionUser, error) {
	su, err := s.session(ctx, token)
	if err != nil {
		return nil, err
	}
	if su.Session.Stage != einvoice.StageFull || su.Role == "" {
		return nil, unauthenticated()
	}
	return su, nil
}

// PendingSession returns a session that waits for its second factor;
// UNAUTHORIZED otherwise.
func (s *Service) PendingSession(ctx context.Context, token string) (*einvoice.SessionUser, error) {
	su, err := s.session(ctx, token)
	if err != nil {
		return nil, err
	}
	if su.Session.Stage != einvoice.StageSecondFactor {
		return nil, unauthenticated()
	}
	return su, nil
}

func (s *Service) session(ctx context.Context, token string) (*einvoice.SessionUser, error) {
	if token == "" || len(token) > 200 {
		return nil, unauthenticated()
	}
	su, err := s.store.SessionByID(ctx, SessionID(token))
	if errors.Is(err, einvoice.ErrNotFound) {
		return nil, unauthenticated()
	}
	if err != nil {
		return nil, fmt.Errorf("session: %w", err)
	}
	se, now := su.Session, s.now()
	if se.Revoked || !now.Before(se.ExpiresAt) || !now.Before(se.CreatedAt.Add(SessionLifetime)) {
		return nil, unauthenticated()
	}
	if se.Stage == einvoice.StageFull {
		if next := now.Add(SessionIdle); next.Sub(se.ExpiresAt) >= sessionTouchEvery {
			if end := se.CreatedAt.Add(SessionLifetime); next.After(end) {
				next = end
			}
			if err := s.store.TouchSession(ctx, se.ID, next); err != nil && !errors.Is(err, einvoice.ErrNotFound) {
				return nil, fmt.Errorf("session: %w", err)
			}
			se.ExpiresAt = next
		}
	}
	return su, nil
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

// SignOutEverywhere ends every session of the user, this one included.
func (s *Service) SignOutEverywhere(ctx context.Context, userID string) error {
	if err := s.store.RevokeUserSessions(ctx, userID, nil); err != nil {
		return fmt.Errorf("sign out everywhere: %w", err)
	}
	return nil
}

// SwitchTenant moves the session to another tenant of its user; FORBIDDEN
// when the user is not a member of it.
func (s *Service) SwitchTenant(ctx context.Context, su *einvoice.SessionUser, tenantID string) error {
	ms, err := s.store.Memberships(ctx, su.User.ID)
	if err != nil {
		return fmt.Errorf("switch tenant: %w", err)
	}
	for _, m := range ms {
		if m.TenantID == tenantID {
			if err := s.store.SetSessionTenant(ctx, su.Session.ID, tenantID); err != nil {
				return fmt.Errorf("switch tenant: %w", err)
			}
			return nil
		}
	}
	return &einvoice.Error{Code: einvoice.CodeForbidden, Message: "You are not a member of that tenant."}
}

// Memberships returns the user's tenants with its role in each.
func (s *Service) Memberships(ctx context.Context, userID string) ([]einvoice.Membership, error) {
	ms, err := s.store.Memberships(ctx, userID)
	if err != nil {
		return nil, fmt.Errorf("memberships: %w", err)
	}
	return ms, nil
}

// PurgeSessions deletes expired and revoked sessions, and the sign-in
// failures and one-time links older than a day past their use.
func (s *Service) PurgeSessions(ctx context.Context) (int64, error) {
	n, err := s.store.DeleteExpiredSessions(ctx, s.now().Add(-time.Minute))
	if err != nil {
		return 0, fmt.Errorf("purge sessions: %w", err)
	}
	m, err := s.store.DeleteOldSignInData(ctx, s.now().Add(-24*time.Hour))
	if err != nil {
		return n, fmt.Errorf("purge sign-in data: %w", err)
	}
	return n + m, nil
}
