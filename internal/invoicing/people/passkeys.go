package people

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/go-webauthn/webauthn/protocol"
	"github.com/go-webauthn/webauthn/webauthn"

	"github.com/einvoice/einvoice/internal/einvoice"
)

// Passkeys (DECISIONS 20): WebAuthn credentials, several per user, each
// discoverable and verifying its user (a PIN, a fingerprint), so that a
// passkey alone signs in. A ceremony (a registration, a sign-in) is begun
// and finished in two requests, maybe on two replicas: its challenge is
// kept in the database, found by its SHA-256 (the browser's answer names
// it), taken once, for passkeyWait. The relying party is the origin the
// browser shows: its host name is the RP ID, so passkeys need a host name
// (localhost, or the public one), never an IP address, and https anywhere
// but on localhost.
const (
	passkeyWait      = 5 * time.Minute
	maxPasskeyName   = 100
	maxPasskeys      = 20
	rpDisplayName    = "einvoice"
	passkeyUserLimit = 64 // WebAuthn's user handle is at most 64 bytes
)

// Passkeys returns the user's passkeys, oldest first.
func (s *Service) Passkeys(ctx context.Context, userID string) ([]*einvoice.Passkey, error) {
	ps, err := s.store.Passkeys(ctx, userID)
	if err != nil {
		return nil, fmt.Errorf("passkeys: %w", err)
	}
	return ps, nil
}

// relyingParty is the WebAuthn relying party of the origin the browser
// shows ("https://einvoice.example.com", "http://localhost:8080").
func relyingParty(origin string) (*webauthn.WebAuthn, error) {
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") || u.Path != "" || u.User != nil {
		return nil, einvoice.Errorf(einvoice.CodeValidationFailed, "Passkeys need the page's origin: reload the page and try again.")
	}
	host := strings.ToLower(u.Hostname())
	if net.ParseIP(host) != nil {
		return nil, einvoice.Errorf(einvoice.CodeValidationFailed,
			"Passkeys need the dashboard at a host name, not an IP address: open it at localhost or at its public name.")
	}
	local := host == "localhost" || strings.HasSuffix(host, ".localhost")
	if u.Scheme != "https" && !local {
		return nil, einvoice.Errorf(einvoice.CodeValidationFailed, "Passkeys need the dashboard over https.")
	}
	w, err := webauthn.New(&webauthn.Config{
		RPID:          host,
		RPDisplayName: rpDisplayName,
		RPOrigins:     []string{u.Scheme + "://" + strings.ToLower(u.Host)},
		AuthenticatorSelection: protocol.AuthenticatorSelection{
			ResidentKey:        protocol.ResidentKeyRequirementRequired,
			RequireResidentKey: protocol.ResidentKeyRequired(),
			UserVerification:   protocol.VerificationRequired,
		},
		AttestationPreference: protocol.PreferNoAttestation,
		Timeouts: webauthn.TimeoutsConfig{
			Login:        webauthn.TimeoutConfig{Timeout: passkeyWait, TimeoutUVD: passkeyWait},
			Registration: webauthn.TimeoutConfig{Timeout: passkeyWait, TimeoutUVD: passkeyWait},
		},
	})
	if err != nil {
		return nil, einvoice.Errorf(einvoice.CodeValidationFailed, "Passkeys do not work at this address: %s.", host)
	}
	return w, nil
}

// passkeyUser is a user as the WebAuthn library sees it: its user handle is
// the user's id (a UUID, no personal data).
type passkeyUser struct {
	u     *einvoice.User
	creds []webauthn.Credential
}

func (p *passkeyUser) WebAuthnID() []byte   { return []byte(p.u.ID) }
func (p *passkeyUser) WebAuthnName() string { return p.u.Email }
func (p *passkeyUser) WebAuthnDisplayName() string {
	if p.u.Name != "" {
		return p.u.Name
	}
	return p.u.Email
}
func (p *passkeyUser) WebAuthnCredentials() []webauthn.Credential { return p.creds }

// loadPasskeyUser returns the user with its credentials.
func (s *Service) loadPasskeyUser(ctx context.Context, u *einvoice.User) (*passkeyUser, error) {
	keys, err := s.store.Passkeys(ctx, u.ID)
	if err != nil {
		return nil, fmt.Errorf("passkeys: %w", err)
	}
	pu := &passkeyUser{u: u}
	for _, k := range keys {
		var c webauthn.Credential
		if err := json.Unmarshal(k.Credential, &c); err != nil {
			return nil, fmt.Errorf("passkey of user %s: %w", u.ID, err)
		}
		pu.creds = append(pu.creds, c)
	}
	return pu, nil
}

// challengeHash is how a ceremony is found: the SHA-256 of its challenge
// (base64url, as the browser's client data carries it).
func challengeHash(challenge string) []byte {
	sum := sha256.Sum256([]byte(challenge))
	return sum[:]
}

// keepCeremony stores a ceremony begun, for passkeyWait.
func (s *Service) keepCeremony(ctx context.Context, userID string, session *webauthn.SessionData) error {
	data, err := json.Marshal(session)
	if err != nil {
		return fmt.Errorf("passkey ceremony: %w", err)
	}
	c := &einvoice.PasskeyChallenge{Hash: challengeHash(session.Challenge), UserID: userID, Data: data, ExpiresAt: s.now().Add(passkeyWait)}
	if err := s.store.CreatePasskeyChallenge(ctx, c); err != nil {
		return fmt.Errorf("passkey ceremony: %w", err)
	}
	return nil
}

// takeCeremony takes the ceremony of a challenge, once: registrations of
// userID, or sign-ins when userID is "".
func (s *Service) takeCeremony(ctx context.Context, challenge, userID string) (*webauthn.SessionData, error) {
	if challenge == "" || len(challenge) > 200 {
		return nil, ceremonyGone()
	}
	c, err := s.store.TakePasskeyChallenge(ctx, challengeHash(challenge), s.now())
	if errors.Is(err, einvoice.ErrNotFound) {
		return nil, ceremonyGone()
	}
	if err != nil {
		return nil, fmt.Errorf("passkey ceremony: %w", err)
	}
	if c.UserID != userID {
		return nil, ceremonyGone()
	}
	var session webauthn.SessionData
	if err := json.Unmarshal(c.Data, &session); err != nil {
		return nil, fmt.Errorf("passkey ceremony: %w", err)
	}
	return &session, nil
}

func ceremonyGone() error {
	return einvoice.Errorf(einvoice.CodeValidationFailed, "This passkey request has expired or was already used: try again.")
}

func passkeyNotVerified() error {
	return einvoice.Errorf(einvoice.CodeValidationFailed, "The passkey could not be verified: try again.")
}

// BeginPasskeyRegistration begins adding a passkey to the user, at the
// origin the browser shows: the options for navigator.credentials.create
// ({"publicKey": ...}, JSON).
func (s *Service) BeginPasskeyRegistration(ctx context.Context, u *einvoice.User, origin string) ([]byte, error) {
	rp, err := relyingParty(origin)
	if err != nil {
		return nil, err
	}
	if len(u.ID) > passkeyUserLimit {
		return nil, fmt.Errorf("passkey: user id %q too long for a user handle", u.ID)
	}
	pu, err := s.loadPasskeyUser(ctx, u)
	if err != nil {
		return nil, err
	}
	if len(pu.creds) >= maxPasskeys {
		return nil, einvoice.Errorf(einvoice.CodeValidationFailed, "You have %d passkeys, the most there can be: remove one first.", maxPasskeys)
	}
	exclude := make([]protocol.CredentialDescriptor, 0, len(pu.creds))
	for _, c := range pu.creds {
		exclude = append(exclude, c.Descriptor())
	}
	creation, session, err := rp.BeginRegistration(pu, webauthn.WithExclusions(exclude), webauthn.WithRegistrationOrigin(origin))
	if err != nil {
		return nil, fmt.Errorf("begin passkey registration: %w", err)
	}
	if err := s.keepCeremony(ctx, u.ID, session); err != nil {
		return nil, err
	}
	return json.Marshal(creation)
}

// FinishPasskeyRegistration checks the browser's answer (the JSON of the
// PublicKeyCredential navigator.credentials.create made) to the user's
// ceremony and keeps the passkey with the name typed.
func (s *Service) FinishPasskeyRegistration(ctx context.Context, u *einvoice.User, name string, answer []byte) (*einvoice.Passkey, error) {
	name = strings.TrimSpace(name)
	if msg := passkeyNameProblem(name); msg != "" {
		return nil, &einvoice.Error{Code: einvoice.CodeValidationFailed, Message: msg, Fields: einvoice.FieldErrors{"name": {msg}}}
	}
	parsed, err := protocol.ParseCredentialCreationResponseBytes(answer)
	if err != nil {
		s.log.DebugContext(ctx, "passkey registration: unreadable answer", "error", err)
		return nil, passkeyNotVerified()
	}
	session, err := s.takeCeremony(ctx, parsed.Response.CollectedClientData.Challenge, u.ID)
	if err != nil {
		return nil, err
	}
	rp, err := relyingParty(session.Origin)
	if err != nil {
		return nil, err
	}
	pu, err := s.loadPasskeyUser(ctx, u)
	if err != nil {
		return nil, err
	}
	cred, err := rp.CreateCredential(pu, *session, parsed)
	if err != nil {
		s.log.InfoContext(ctx, "passkey registration refused", "user", u.ID, "error", err)
		return nil, passkeyNotVerified()
	}
	record, err := json.Marshal(cred)
	if err != nil {
		return nil, fmt.Errorf("passkey: %w", err)
	}
	p := &einvoice.Passkey{ID: cred.ID, UserID: u.ID, Name: name, Credential: record, CreatedAt: s.now()}
	if err := s.store.CreatePasskey(ctx, p); err != nil {
		if errors.Is(err, einvoice.ErrConflict) {
			return nil, einvoice.Errorf(einvoice.CodeValidationFailed, "This passkey is already added.")
		}
		return nil, fmt.Errorf("add passkey: %w", err)
	}
	return p, nil
}

// passkeyNameProblem is what is wrong with a passkey's name, or "".
func passkeyNameProblem(name string) string {
	switch {
	case name == "":
		return "Name the passkey (where it is: laptop, phone)."
	case !utf8.ValidString(name) || utf8.RuneCountInString(name) > maxPasskeyName:
		return fmt.Sprintf("Name the passkey in at most %d characters.", maxPasskeyName)
	}
	return ""
}

// DeletePasskey removes one of the user's passkeys; it no longer signs in.
func (s *Service) DeletePasskey(ctx context.Context, userID string, id []byte) error {
	err := s.store.DeletePasskey(ctx, userID, id)
	if errors.Is(err, einvoice.ErrNotFound) {
		return einvoice.Errorf(einvoice.CodeNotFound, "You have no such passkey.")
	}
	if err != nil {
		return fmt.Errorf("remove passkey: %w", err)
	}
	return nil
}

// wrongPasskey is the one answer of a passkey sign-in that fails.
func wrongPasskey() error {
	return &einvoice.Error{Code: einvoice.CodeUnauthorized, Message: "This passkey is not one of this site's, or it could not be verified."}
}

// BeginPasskeySignIn begins a sign-in with a passkey alone (a
// discoverable credential: no e-mail asked), from a client address: the
// options for navigator.credentials.get ({"publicKey": ...}, JSON).
func (s *Service) BeginPasskeySignIn(ctx context.Context, origin, address string) ([]byte, error) {
	if !s.limiter.allow(address, s.now()) {
		return nil, tooManyFromAddress()
	}
	rp, err := relyingParty(origin)
	if err != nil {
		return nil, err
	}
	assertion, session, err := rp.BeginDiscoverableLogin(webauthn.WithLoginOrigin(origin), webauthn.WithUserVerification(protocol.VerificationRequired))
	if err != nil {
		return nil, fmt.Errorf("begin passkey sign-in: %w", err)
	}
	if err := s.keepCeremony(ctx, "", session); err != nil {
		return nil, err
	}
	return json.Marshal(assertion)
}

// FinishPasskeySignIn checks the browser's answer (the JSON of the
// PublicKeyCredential navigator.credentials.get made) and opens a full
// session of the passkey's user; the passkey's sign count and last use
// are kept.
func (s *Service) FinishPasskeySignIn(ctx context.Context, answer []byte, address string) (*SignInResult, error) {
	if !s.limiter.allow(address, s.now()) {
		return nil, tooManyFromAddress()
	}
	parsed, err := protocol.ParseCredentialRequestResponseBytes(answer)
	if err != nil {
		s.log.DebugContext(ctx, "passkey sign-in: unreadable answer", "error", err)
		return nil, wrongPasskey()
	}
	session, err := s.takeCeremony(ctx, parsed.Response.CollectedClientData.Challenge, "")
	if err != nil {
		return nil, err
	}
	rp, err := relyingParty(session.Origin)
	if err != nil {
		return nil, err
	}
	var lookupErr error // a failure of the database, not of the passkey
	owner := func(rawID, userHandle []byte) (webauthn.User, error) {
		p, err := s.store.PasskeyByID(ctx, rawID)
		if err != nil {
			if !errors.Is(err, einvoice.ErrNotFound) {
				lookupErr = err
			}
			return nil, errors.New("unknown passkey")
		}
		if !bytes.Equal([]byte(p.UserID), userHandle) {
			return nil, errors.New("the passkey is not its user handle's")
		}
		u, err := s.store.GetUser(ctx, p.UserID)
		if err != nil {
			if !errors.Is(err, einvoice.ErrNotFound) {
				lookupErr = err
			}
			return nil, errors.New("unknown user")
		}
		pu, err := s.loadPasskeyUser(ctx, u)
		if err != nil {
			lookupErr = err
			return nil, err
		}
		return pu, nil
	}
	user, cred, err := rp.ValidatePasskeyLogin(owner, *session, parsed)
	if lookupErr != nil {
		return nil, fmt.Errorf("passkey sign-in: %w", lookupErr)
	}
	if err != nil {
		s.log.InfoContext(ctx, "passkey sign-in refused", "error", err)
		return nil, wrongPasskey()
	}
	if cred.Authenticator.CloneWarning {
		// The sign count went back: two copies of one authenticator.
		s.log.WarnContext(ctx, "passkey sign-in refused: the sign count went back (a cloned authenticator?)", "user", string(user.WebAuthnID()))
		return nil, wrongPasskey()
	}
	record, err := json.Marshal(cred)
	if err != nil {
		return nil, fmt.Errorf("passkey: %w", err)
	}
	if err := s.store.UsePasskey(ctx, cred.ID, record, s.now()); err != nil {
		if errors.Is(err, einvoice.ErrNotFound) { // removed meanwhile
			return nil, wrongPasskey()
		}
		return nil, fmt.Errorf("passkey sign-in: %w", err)
	}
	return s.SignInPasskey(ctx, string(user.WebAuthnID()))
}
