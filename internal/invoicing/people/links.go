package people

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"net/mail"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/einvoice/einvoice/internal/einvoice"
)

// One-time links (DECISIONS 20): 256 random bits, single use, stored by
// their SHA-256. Invitations and first passwords last 7 days, resets an
// hour.
const (
	inviteLife = 7 * 24 * time.Hour
	resetLife  = time.Hour
	maxName    = 100
)

// linkPath is where a link's page is, under the dashboard.
const linkPath = "/app/link/"

func linkHash(secret string) []byte {
	sum := sha256.Sum256([]byte(secret))
	return sum[:]
}

// URL is the address of a link's secret.
func (s *Service) URL(secret string) string { return s.baseURL + linkPath + secret }

// newLink returns a new link of the kind, not yet stored, and its secret.
func (s *Service) newLink(kind einvoice.TokenKind, email, userID, tenantID string, role einvoice.Role, by string) (*einvoice.UserToken, string) {
	secret := randomToken(32)
	now := s.now()
	life := inviteLife
	if kind == einvoice.TokenReset {
		life = resetLife
	}
	return &einvoice.UserToken{Hash: linkHash(secret), Kind: kind, Email: email, UserID: userID, TenantID: tenantID, Role: role,
		CreatedBy: by, CreatedAt: now, ExpiresAt: now.Add(life)}, secret
}

// NewOwner returns the first owner of a new database (no password yet) and
// the one-time link that sets it, not yet stored (Bootstrap stores them
// with the demo tenant).
func (s *Service) NewOwner(email string) (*einvoice.User, *einvoice.UserToken, string) {
	now := s.now()
	u := &einvoice.User{ID: s.newID(), Email: email, Name: "Owner", CreatedAt: now, UpdatedAt: now}
	t, secret := s.newLink(einvoice.TokenSetup, email, u.ID, "", "", "service")
	return u, t, secret
}

// CheckEmail refuses what is not one plain e-mail address.
func CheckEmail(email string) error {
	bad := func(msg string) error {
		return &einvoice.Error{Code: einvoice.CodeValidationFailed, Message: msg, Fields: einvoice.FieldErrors{"email": {msg}}}
	}
	email = strings.TrimSpace(email)
	if email == "" {
		return bad("Enter an e-mail address.")
	}
	a, err := mail.ParseAddress(email)
	if err != nil || a.Address != email || len(email) > maxEmail || strings.ContainsAny(email, "\r\n<>\"") {
		return bad("This is not an e-mail address (name@example.com).")
	}
	return nil
}

// checkName refuses a name that is empty, long or has control characters.
func checkName(name string) error {
	if name == "" || utf8.RuneCountInString(name) > maxName || !utf8.ValidString(name) || strings.ContainsFunc(name, unicode.IsControl) {
		msg := fmt.Sprintf("Enter your name: at most %d characters, without control characters.", maxName)
		return &einvoice.Error{Code: einvoice.CodeValidationFailed, Message: msg, Fields: einvoice.FieldErrors{"name": {msg}}}
	}
	return nil
}

// Invitation is an invitation made: the link, and whether it was mailed
// (else the inviting admin copies it).
type Invitation struct {
	URL    string
	Mailed bool
}

// Invite invites an e-mail into the tenant with the role. The inviter
// needs the settings right, and the owners right to invite an owner.
func (s *Service) Invite(ctx context.Context, inviter einvoice.Role, by, tenantID, email string, role einvoice.Role) (*Invitation, error) {
	if !inviter.Can(einvoice.RightSettings) || (role == einvoice.RoleOwner && !inviter.Can(einvoice.RightOwners)) {
		return nil, forbidden("Only owners and admins invite people, and only owners invite owners.")
	}
	email = strings.TrimSpace(email)
	if err := CheckEmail(email); err != nil {
		return nil, err
	}
	if !role.Valid() {
		return nil, &einvoice.Error{Code: einvoice.CodeValidationFailed, Message: "Choose a role.",
			Fields: einvoice.FieldErrors{"role": {"Choose owner, admin, accountant or viewer."}}}
	}
	t, err := s.store.GetTenant(ctx, tenantID)
	if err != nil {
		return nil, fmt.Errorf("invite: %w", err)
	}
	link, secret := s.newLink(einvoice.TokenInvite, email, "", tenantID, role, by)
	if err := s.store.CreateUserToken(ctx, link); err != nil {
		return nil, fmt.Errorf("invite: %w", err)
	}
	inv := &Invitation{URL: s.URL(secret)}
	subject := fmt.Sprintf("You are invited to %s on einvoice", t.Profile.Name)
	body := fmt.Sprintf("%s invites you to work on the e-invoices of %s as %s.\n\nAccept within 7 days, once, at:\n%s\n\nIf you did not expect this, ignore this message.\n",
		by, t.Profile.Name, role, inv.URL)
	if s.notify != nil {
		if err := s.notify(ctx, tenantID, []string{email}, subject, body); err != nil {
			return nil, fmt.Errorf("invite: %w", err)
		}
		inv.Mailed = s.mailConfigured
	}
	return inv, nil
}

// Link is a one-time link's page: what it does, for whom.
type Link struct {
	Token *einvoice.UserToken
	// User is the account of the link's e-mail, nil when there is none
	// (an invitation of a new person).
	User *einvoice.User
	// TenantName is the tenant an invitation joins.
	TenantName string
}

func badLink() error {
	return &einvoice.Error{Code: einvoice.CodeNotFound, Message: "This link is unknown, used or expired: ask for a new one."}
}

// Link returns a live link's page; NOT_FOUND when it is unknown, used or
// expired.
func (s *Service) Link(ctx context.Context, secret string) (*Link, error) {
	if secret == "" || len(secret) > 100 {
		return nil, badLink()
	}
	t, err := s.store.UserToken(ctx, linkHash(secret), s.now())
	if errors.Is(err, einvoice.ErrNotFound) {
		return nil, badLink()
	}
	if err != nil {
		return nil, fmt.Errorf("link: %w", err)
	}
	l := &Link{Token: t}
	u, err := s.store.UserByEmail(ctx, t.Email)
	if err != nil && !errors.Is(err, einvoice.ErrNotFound) {
		return nil, fmt.Errorf("link: %w", err)
	}
	l.User = u
	if t.TenantID != "" {
		tn, err := s.store.GetTenant(ctx, t.TenantID)
		if err != nil {
			return nil, fmt.Errorf("link: %w", err)
		}
		l.TenantName = tn.Profile.Name
	}
	return l, nil
}

// UseLink does what a link is for and opens a session: an invitation
// makes the account (name and password) or, when the e-mail has one, takes
// its password, and joins the tenant; a reset or first-password link sets
// the password (ending the user's other sessions). The link is used once:
// a second use, or a use racing this one, is NOT_FOUND.
func (s *Service) UseLink(ctx context.Context, secret, name, password, address string) (*SignInResult, error) {
	now := s.now()
	if !s.limiter.allow(address, now) {
		return nil, tooManyFromAddress()
	}
	l, err := s.Link(ctx, secret)
	if err != nil {
		return nil, err
	}
	t, u := l.Token, l.User
	existing := t.Kind == einvoice.TokenInvite && u != nil && u.PasswordHash != ""
	if existing {
		// The account's password is checked as a sign-in checks it: a
		// locked e-mail is not checked at all (else an invitation would
		// let its holder guess the password past the lockout).
		key := einvoice.NormalizeEmail(u.Email)
		if locked, err := s.locked(ctx, key, now); err != nil {
			return nil, err
		} else if locked {
			return nil, lockedOut()
		}
		if !s.matches(password, u.PasswordHash) {
			if err := s.store.AddSignInFailure(ctx, key, now); err != nil {
				return nil, fmt.Errorf("use link: %w", err)
			}
			return nil, &einvoice.Error{Code: einvoice.CodeValidationFailed, Message: "The password is wrong.",
				Fields: einvoice.FieldErrors{"password": {"Type the password of your account."}}}
		}
	} else {
		if err := CheckPassword(password, t.Email); err != nil {
			return nil, err
		}
		if u == nil {
			name = strings.TrimSpace(name)
			if err := checkName(name); err != nil {
				return nil, err
			}
		}
	}
	hash := ""
	if !existing {
		if hash, err = s.hash(password); err != nil {
			return nil, err
		}
	}
	if _, err := s.store.UseUserToken(ctx, t.Hash, now); errors.Is(err, einvoice.ErrNotFound) {
		return nil, badLink()
	} else if err != nil {
		return nil, fmt.Errorf("use link: %w", err)
	}
	if u == nil {
		u = &einvoice.User{ID: s.newID(), Email: t.Email, Name: name, PasswordHash: hash, CreatedAt: now, UpdatedAt: now}
		if err := s.store.CreateUser(ctx, u); err != nil {
			return nil, fmt.Errorf("use link: %w", err)
		}
	} else if !existing {
		if err := s.store.SetPassword(ctx, u.ID, hash, now, nil); err != nil {
			return nil, fmt.Errorf("use link: %w", err)
		}
		u.PasswordHash = hash
	}
	if err := s.store.ClearSignInFailures(ctx, einvoice.NormalizeEmail(u.Email)); err != nil {
		return nil, fmt.Errorf("use link: %w", err)
	}
	if t.Kind == einvoice.TokenInvite {
		err := s.store.PutMembership(ctx, &einvoice.Membership{TenantID: t.TenantID, UserID: u.ID, Role: t.Role, CreatedAt: now})
		if errors.Is(err, einvoice.ErrLastOwner) {
			return nil, lastOwner() // an invitation of the last owner with another role: it stays the owner
		}
		if err != nil {
			return nil, fmt.Errorf("join tenant: %w", err)
		}
	}
	stage := einvoice.StageFull
	if u.TOTPEnabled {
		stage = einvoice.StageSecondFactor
	}
	return s.openSession(ctx, u, t.TenantID, stage)
}

// RequestReset mails a password-reset link to the e-mail when it has an
// account, and does nothing visible otherwise: the answer is the same.
func (s *Service) RequestReset(ctx context.Context, email, address string) error {
	now := s.now()
	if !s.limiter.allow(address, now) {
		return tooManyFromAddress()
	}
	if CheckEmail(strings.TrimSpace(email)) != nil {
		return nil
	}
	u, err := s.store.UserByEmail(ctx, email)
	if errors.Is(err, einvoice.ErrNotFound) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("reset: %w", err)
	}
	ms, err := s.store.Memberships(ctx, u.ID)
	if err != nil || len(ms) == 0 || s.notify == nil {
		return err
	}
	link, secret := s.newLink(einvoice.TokenReset, u.Email, u.ID, "", "", u.Email)
	if err := s.store.CreateUserToken(ctx, link); err != nil {
		return fmt.Errorf("reset: %w", err)
	}
	body := fmt.Sprintf("Someone asked to set a new password for %s on einvoice.\n\nSet it within an hour, once, at:\n%s\n\nIf it was not you, ignore this message: your password stays as it is.\n",
		u.Email, s.URL(secret))
	if err := s.notify(ctx, ms[0].TenantID, []string{u.Email}, "Set a new einvoice password", body); err != nil {
		return fmt.Errorf("reset: %w", err)
	}
	return nil
}

// ResetLink makes a password-reset link of a member for an admin to hand
// over (without a mail server); the same rights as changing the member.
func (s *Service) ResetLink(ctx context.Context, actor einvoice.Role, by, tenantID, userID string) (string, error) {
	m, err := s.member(ctx, tenantID, userID)
	if err != nil {
		return "", err
	}
	if err := canManage(actor, m.Role, m.Role); err != nil {
		return "", err
	}
	link, secret := s.newLink(einvoice.TokenReset, m.User.Email, m.User.ID, "", "", by)
	if err := s.store.CreateUserToken(ctx, link); err != nil {
		return "", fmt.Errorf("reset link: %w", err)
	}
	return s.URL(secret), nil
}
