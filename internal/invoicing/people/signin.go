package people

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/einvoice/einvoice/internal/einvoice"
)

// The lockout (DECISIONS 20): 5 failures for one e-mail within 15 minutes
// lock it for 15 minutes, whether or not it has an account.
const (
	maxFailures   = 5
	failureWindow = 15 * time.Minute
)

// SignInResult is an opened session: its token (for the browser only) and
// whether it still needs the second factor.
type SignInResult struct {
	Token string
	// NeedsSecondFactor: the session opens only the second factor's page.
	NeedsSecondFactor bool
	User              *einvoice.User
	TenantID          string
}

// wrongCredentials is the one answer of an unknown e-mail and of a wrong
// password.
func wrongCredentials() error {
	return &einvoice.Error{Code: einvoice.CodeUnauthorized, Message: "The e-mail or the password is wrong."}
}

func tooManyFromAddress() error {
	return &einvoice.Error{Code: einvoice.CodeRateLimitExceeded, Message: "Too many attempts from your address: wait a minute and try again."}
}

func lockedOut() error {
	return &einvoice.Error{Code: einvoice.CodeRateLimitExceeded,
		Message: "Too many failed sign-ins for this e-mail: it is locked for 15 minutes. A password reset ends the lock."}
}

// SignIn checks an e-mail and password, from a client address, and opens a
// session: a full one, or one that waits for the second factor. An unknown
// e-mail and a wrong password get the same error after the same work (a
// hash); the e-mail's failures count towards its lockout either way.
func (s *Service) SignIn(ctx context.Context, email, password, address string) (*SignInResult, error) {
	now := s.now()
	if !s.limiter.allow(address, now) {
		return nil, tooManyFromAddress()
	}
	key := einvoice.NormalizeEmail(email)
	if key == "" || len(key) > maxEmail {
		s.matches(password, "")
		return nil, wrongCredentials()
	}
	if locked, err := s.locked(ctx, key, now); err != nil {
		return nil, err
	} else if locked {
		return nil, lockedOut()
	}
	u, err := s.store.UserByEmail(ctx, key)
	if err != nil && !errors.Is(err, einvoice.ErrNotFound) {
		return nil, fmt.Errorf("sign in: %w", err)
	}
	hash := ""
	if u != nil {
		hash = u.PasswordHash
	}
	if !s.matches(password, hash) {
		if err := s.store.AddSignInFailure(ctx, key, now); err != nil {
			return nil, fmt.Errorf("sign in: %w", err)
		}
		return nil, wrongCredentials()
	}
	if err := s.store.ClearSignInFailures(ctx, key); err != nil {
		return nil, fmt.Errorf("sign in: %w", err)
	}
	stage := einvoice.StageFull
	if u.TOTPEnabled {
		stage = einvoice.StageSecondFactor
	}
	return s.openSession(ctx, u, "", stage)
}

// locked reports whether the e-mail has had too many failures lately.
func (s *Service) locked(ctx context.Context, key string, now time.Time) (bool, error) {
	n, err := s.store.SignInFailures(ctx, key, now.Add(-failureWindow))
	if err != nil {
		return false, fmt.Errorf("sign in: %w", err)
	}
	return n >= maxFailures, nil
}

// SignInPasskey opens a full session for a user a passkey proved (the
// passkey's own checks are the caller's): a passkey alone signs in.
func (s *Service) SignInPasskey(ctx context.Context, userID string) (*SignInResult, error) {
	u, err := s.store.GetUser(ctx, userID)
	if errors.Is(err, einvoice.ErrNotFound) {
		return nil, unauthenticated()
	}
	if err != nil {
		return nil, fmt.Errorf("sign in: %w", err)
	}
	return s.openSession(ctx, u, "", einvoice.StageFull)
}

// openSession opens a session of the user in tenantID, or in its first
// tenant when "". A user of no tenant cannot sign in.
func (s *Service) openSession(ctx context.Context, u *einvoice.User, tenantID string, stage einvoice.SessionStage) (*SignInResult, error) {
	if tenantID == "" {
		ms, err := s.store.Memberships(ctx, u.ID)
		if err != nil {
			return nil, fmt.Errorf("sign in: %w", err)
		}
		if len(ms) == 0 {
			return nil, &einvoice.Error{Code: einvoice.CodeForbidden, Message: "Your account belongs to no tenant any more: ask an owner to invite you again."}
		}
		tenantID = ms[0].TenantID
	}
	token := "eis_" + randomToken(32)
	now := s.now()
	life := SessionIdle
	if stage != einvoice.StageFull {
		life = secondFactorWait
	}
	se := &einvoice.Session{ID: SessionID(token), UserID: u.ID, TenantID: tenantID, Stage: stage, CreatedAt: now, ExpiresAt: now.Add(life)}
	if err := s.store.CreateSession(ctx, se); errors.Is(err, einvoice.ErrNotFound) {
		return nil, unauthenticated()
	} else if err != nil {
		return nil, fmt.Errorf("sign in: %w", err)
	}
	return &SignInResult{Token: token, NeedsSecondFactor: stage != einvoice.StageFull, User: u, TenantID: tenantID}, nil
}
