package einvoice

import (
	"context"
	"errors"
	"strings"
	"time"
)

// People (DECISIONS 20): the dashboard signs in users; a user has a role in
// each tenant it belongs to. API keys are for programs.

// Role is what a user may do in one tenant.
type Role string

// The roles, most rights first.
const (
	RoleOwner      Role = "owner"
	RoleAdmin      Role = "admin"
	RoleAccountant Role = "accountant"
	RoleViewer     Role = "viewer"
)

// Roles lists the roles, most rights first.
var Roles = []Role{RoleOwner, RoleAdmin, RoleAccountant, RoleViewer}

// Valid reports whether r is one of the roles.
func (r Role) Valid() bool {
	switch r {
	case RoleOwner, RoleAdmin, RoleAccountant, RoleViewer:
		return true
	}
	return false
}

// Right is a kind of action; each route of the API and the dashboard
// needs one.
type Right string

// The rights.
const (
	// RightRead reads anything of the tenant.
	RightRead Right = "read"
	// RightWork changes the tenant's business records: documents, parties,
	// receipts, received documents, consolidations, imports, deliveries.
	RightWork Right = "work"
	// RightSettings changes the tenant's settings: profile, tax authority,
	// certificate, mail, webhooks, API keys, and the users that are not
	// owners.
	RightSettings Right = "settings"
	// RightOwners makes, changes and removes owners.
	RightOwners Right = "owners"
)

// Can reports whether the role has the right.
func (r Role) Can(x Right) bool {
	switch x {
	case RightRead:
		return r.Valid()
	case RightWork:
		return r == RoleOwner || r == RoleAdmin || r == RoleAccountant
	case RightSettings:
		return r == RoleOwner || r == RoleAdmin
	case RightOwners:
		return r == RoleOwner
	}
	return false
}

// Can reports whether a key of the permission has the right: a read key
// reads, a read-write key does what an admin does (it manages no users).
func (p Permission) Can(x Right) bool {
	switch p {
	case PermRead:
		return x == RightRead
	case PermReadWrite:
		return x != RightOwners
	}
	return false
}

// NormalizeEmail is the form an e-mail is compared in: trimmed, lower case.
func NormalizeEmail(s string) string { return strings.ToLower(strings.TrimSpace(s)) }

// User is a person who signs in to the dashboard.
type User struct {
	ID    string
	Email string // as given; unique in NormalizeEmail form
	Name  string
	// PasswordHash is the argon2id hash in its PHC string form; "" until the
	// user sets a password (an invited user, or one made by `user add`).
	PasswordHash string
	// TOTPSecret is the base32 secret of the second factor, encrypted at rest;
	// the factor is on when TOTPEnabled.
	TOTPSecret  string
	TOTPEnabled bool
	// RecoveryCodes are the SHA-256 (hex) of the unused recovery codes.
	RecoveryCodes []string
	CreatedAt     time.Time
	UpdatedAt     time.Time
}

// Membership is a user's role in a tenant.
type Membership struct {
	TenantID   string
	TenantName string // read with it
	UserID     string
	Role       Role
	CreatedAt  time.Time
}

// Member is a tenant's user with its role, for the users page.
type Member struct {
	User *User
	Role Role
	// Since is when the user joined the tenant.
	Since time.Time
}

// TokenKind is what a one-time link does.
type TokenKind string

// The kinds of one-time links.
const (
	// TokenInvite lets its e-mail join a tenant with a role (7 days).
	TokenInvite TokenKind = "invite"
	// TokenReset lets a user set a new password (1 hour).
	TokenReset TokenKind = "reset"
	// TokenSetup lets a user made by the CLI or the first start set its
	// first password (7 days).
	TokenSetup TokenKind = "setup"
)

// UserToken is a one-time link, stored by the SHA-256 of its secret.
type UserToken struct {
	Hash      []byte
	Kind      TokenKind
	Email     string // the invited e-mail, or the user's
	UserID    string // "" for an invitation of a new e-mail
	TenantID  string // invitations: the tenant to join
	Role      Role   // invitations: the role in it
	CreatedBy string // who made it (for the audit log)
	CreatedAt time.Time
	ExpiresAt time.Time
	UsedAt    *time.Time
}

// Passkey is a WebAuthn credential of a user.
type Passkey struct {
	ID     []byte // the credential id
	UserID string
	Name   string
	// Credential is the library's credential record (JSON): public key,
	// sign count, flags, transports.
	Credential []byte
	CreatedAt  time.Time
	LastUsedAt *time.Time
}

// PasskeyChallenge is a WebAuthn ceremony begun and not yet finished (a
// passkey's registration or a sign-in with one), kept in the database so
// that any replica finishes it: found by the SHA-256 of its challenge, used
// once, until it expires.
type PasskeyChallenge struct {
	Hash []byte
	// UserID is the registering user; "" for a sign-in.
	UserID string
	// Data is the library's session data (JSON).
	Data      []byte
	ExpiresAt time.Time
}

// SessionStage tells what a session may do.
type SessionStage string

// The stages of a session.
const (
	// StageFull is a signed-in session.
	StageFull SessionStage = "full"
	// StageSecondFactor has passed the password and waits for a TOTP or
	// recovery code; it opens nothing else.
	StageSecondFactor SessionStage = "totp"
)

// UserStore keeps users, their memberships, one-time links, passkeys and
// sign-in failures.
type UserStore interface {
	// CreateUser inserts u; a *Error CONFLICT on field email when the
	// e-mail is taken.
	CreateUser(ctx context.Context, u *User) error
	// GetUser returns the user, or ErrNotFound.
	GetUser(ctx context.Context, id string) (*User, error)
	// UserByEmail returns the user of the e-mail (any case), or ErrNotFound.
	UserByEmail(ctx context.Context, email string) (*User, error)
	// UpdateUser stores u's name, TOTP and recovery codes (not the password).
	UpdateUser(ctx context.Context, u *User) error
	// UseTOTPStep records that a sign-in used the user's TOTP time step,
	// once: false when that step or a later one was used before.
	UseTOTPStep(ctx context.Context, userID string, step int64) (bool, error)
	// SetPassword stores a new password hash and ends the user's sessions
	// but keep (nil: all of them), in one transaction.
	SetPassword(ctx context.Context, userID, hash string, at time.Time, keep []byte) error
	// Memberships returns the user's tenants, by tenant name.
	Memberships(ctx context.Context, userID string) ([]Membership, error)
	// Members returns the tenant's users, by e-mail.
	Members(ctx context.Context, tenantID string) ([]Member, error)
	// PutMembership gives the user the role in the tenant (joining it, or
	// changing the role). A *Error CONFLICT when it would leave the tenant
	// without an owner; ErrNotFound when the user or tenant is gone.
	PutMembership(ctx context.Context, m *Membership) error
	// RemoveMembership takes the user out of the tenant and ends its
	// sessions there. A *Error CONFLICT when it is the last owner;
	// ErrNotFound when it is not a member.
	RemoveMembership(ctx context.Context, tenantID, userID string) error
	// CreateUserToken inserts a one-time link.
	CreateUserToken(ctx context.Context, t *UserToken) error
	// UserToken returns an unused, unexpired link, or ErrNotFound.
	UserToken(ctx context.Context, hash []byte, now time.Time) (*UserToken, error)
	// UseUserToken marks the link used, once: ErrNotFound when it is used,
	// expired or unknown.
	UseUserToken(ctx context.Context, hash []byte, now time.Time) (*UserToken, error)
	// AddSignInFailure records a failed sign-in of the e-mail (normalised).
	AddSignInFailure(ctx context.Context, email string, at time.Time) error
	// SignInFailures counts the e-mail's failures since the time.
	SignInFailures(ctx context.Context, email string, since time.Time) (int, error)
	// ClearSignInFailures forgets the e-mail's failures.
	ClearSignInFailures(ctx context.Context, email string) error
	// CreatePasskey inserts p; a *Error CONFLICT when its id is known.
	CreatePasskey(ctx context.Context, p *Passkey) error
	// Passkeys returns the user's passkeys, oldest first.
	Passkeys(ctx context.Context, userID string) ([]*Passkey, error)
	// PasskeyByID returns the passkey of a credential id, or ErrNotFound.
	PasskeyByID(ctx context.Context, id []byte) (*Passkey, error)
	// UsePasskey stores the credential record after a sign-in and its time.
	UsePasskey(ctx context.Context, id, credential []byte, at time.Time) error
	// DeletePasskey removes the user's passkey, or returns ErrNotFound.
	DeletePasskey(ctx context.Context, userID string, id []byte) error
	// CreatePasskeyChallenge inserts a ceremony begun.
	CreatePasskeyChallenge(ctx context.Context, c *PasskeyChallenge) error
	// TakePasskeyChallenge removes and returns the ceremony of a challenge's
	// hash, once: ErrNotFound when it is unknown, used or expired.
	TakePasskeyChallenge(ctx context.Context, hash []byte, now time.Time) (*PasskeyChallenge, error)
	// DeleteOldSignInData removes sign-in failures, one-time links and
	// passkey ceremonies older than the time, and reports how many.
	DeleteOldSignInData(ctx context.Context, before time.Time) (int64, error)
}

// ErrLastOwner: the change would leave a tenant without an owner.
var ErrLastOwner = errors.New("a tenant keeps at least one owner")
