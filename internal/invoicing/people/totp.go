package people

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/pquerna/otp"
	"github.com/pquerna/otp/totp"

	"github.com/einvoice/einvoice/internal/einvoice"
)

// The second factor: TOTP (RFC 6238: 30-second steps, 6 digits, SHA-1, as
// every authenticator app reads them) with 10 single-use recovery codes.
const (
	totpIssuer    = "einvoice"
	recoveryCodes = 10
)

var totpOptions = totp.ValidateOpts{Period: 30, Skew: 1, Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1}

// TOTPEnrolment is a new secret to show: as an otpauth:// URL (for a QR
// code) and as text to type.
type TOTPEnrolment struct {
	Secret string
	URL    string
}

// NewTOTP returns a new secret for the user to enrol; nothing is stored
// until EnableTOTP.
func (s *Service) NewTOTP(u *einvoice.User) (*TOTPEnrolment, error) {
	key, err := totp.Generate(totp.GenerateOpts{Issuer: totpIssuer, AccountName: u.Email, Period: 30, Digits: otp.DigitsSix,
		Algorithm: otp.AlgorithmSHA1})
	if err != nil {
		return nil, fmt.Errorf("new totp secret: %w", err)
	}
	return &TOTPEnrolment{Secret: key.Secret(), URL: TOTPURL(u.Email, key.Secret())}, nil
}

// TOTPURL is the otpauth:// link of a secret for an e-mail (what an
// authenticator app reads from the QR code), its parts escaped.
func TOTPURL(email, secret string) string {
	q := url.Values{"secret": {secret}, "issuer": {totpIssuer}, "algorithm": {"SHA1"}, "digits": {"6"}, "period": {"30"}}
	return (&url.URL{Scheme: "otpauth", Host: "totp", Path: "/" + totpIssuer + ":" + email, RawQuery: q.Encode()}).String()
}

func badCode() error {
	return &einvoice.Error{Code: einvoice.CodeValidationFailed, Message: "The code is wrong or too old: type the one your app shows now.",
		Fields: einvoice.FieldErrors{"code": {"The code is wrong or too old."}}}
}

// validTOTP reports whether the code is the secret's now (one step either
// side).
func (s *Service) validTOTP(secret, code string) bool { return s.totpStep(secret, code) > 0 }

// totpStep is the time step (30-second periods since 1970) of the secret
// whose code the code is, now or one step either side; 0 when none.
func (s *Service) totpStep(secret, code string) int64 {
	code = strings.ReplaceAll(strings.TrimSpace(code), " ", "")
	if len(code) != 6 || secret == "" {
		return 0
	}
	now := s.clock().UTC()
	for _, k := range []int64{0, -1, 1} {
		at := now.Add(time.Duration(k) * 30 * time.Second)
		want, err := totp.GenerateCodeCustom(secret, at, totpOptions)
		if err == nil && subtle.ConstantTimeCompare([]byte(want), []byte(code)) == 1 {
			return at.Unix() / 30
		}
	}
	return 0
}

// EnableTOTP turns the second factor on with the secret NewTOTP gave, once
// the user typed a code of it, and returns the recovery codes (shown once).
func (s *Service) EnableTOTP(ctx context.Context, u *einvoice.User, secret, code string) ([]string, error) {
	if !s.validTOTP(secret, code) {
		return nil, badCode()
	}
	codes, hashes := newRecoveryCodes()
	u.TOTPSecret, u.TOTPEnabled, u.RecoveryCodes, u.UpdatedAt = secret, true, hashes, s.now()
	if err := s.store.UpdateUser(ctx, u); err != nil {
		return nil, fmt.Errorf("enable totp: %w", err)
	}
	return codes, nil
}

// DisableTOTP turns the second factor off, after the user's password.
func (s *Service) DisableTOTP(ctx context.Context, u *einvoice.User, password string) error {
	if !s.matches(password, u.PasswordHash) {
		return &einvoice.Error{Code: einvoice.CodeValidationFailed, Message: "The password is wrong.",
			Fields: einvoice.FieldErrors{"password": {"The password is wrong."}}}
	}
	u.TOTPSecret, u.TOTPEnabled, u.RecoveryCodes, u.UpdatedAt = "", false, nil, s.now()
	if err := s.store.UpdateUser(ctx, u); err != nil {
		return fmt.Errorf("disable totp: %w", err)
	}
	return nil
}

// SecondFactor completes a sign-in that waits for its second factor with a
// TOTP code or a recovery code (used up): the waiting session ends and a
// new, full one opens (a new token: the session id changes at sign-in).
// A wrong code counts towards the e-mail's lockout.
func (s *Service) SecondFactor(ctx context.Context, pendingToken, code, address string) (*SignInResult, error) {
	now := s.now()
	if !s.limiter.allow(address, now) {
		return nil, tooManyFromAddress()
	}
	su, err := s.PendingSession(ctx, pendingToken)
	if err != nil {
		return nil, err
	}
	u := su.User
	key := einvoice.NormalizeEmail(u.Email)
	if locked, err := s.locked(ctx, key, now); err != nil {
		return nil, err
	} else if locked {
		return nil, lockedOut()
	}
	ok := false
	if step := s.totpStep(u.TOTPSecret, code); step > 0 {
		// A code is accepted once (RFC 6238 section 5.2): the step is
		// recorded, and a step used before is refused.
		if ok, err = s.store.UseTOTPStep(ctx, u.ID, step); err != nil {
			return nil, fmt.Errorf("second factor: %w", err)
		}
	}
	if !ok {
		if i := matchRecoveryCode(u.RecoveryCodes, code); i >= 0 {
			u.RecoveryCodes = append(u.RecoveryCodes[:i:i], u.RecoveryCodes[i+1:]...)
			u.UpdatedAt = now
			if err := s.store.UpdateUser(ctx, u); err != nil {
				return nil, fmt.Errorf("use recovery code: %w", err)
			}
			ok = true
		}
	}
	if !ok {
		if err := s.store.AddSignInFailure(ctx, key, now); err != nil {
			return nil, fmt.Errorf("second factor: %w", err)
		}
		return nil, badCode()
	}
	if err := s.store.ClearSignInFailures(ctx, key); err != nil {
		return nil, fmt.Errorf("second factor: %w", err)
	}
	if err := s.store.RevokeSession(ctx, su.Session.ID); err != nil && !errors.Is(err, einvoice.ErrNotFound) {
		return nil, fmt.Errorf("second factor: %w", err)
	}
	return s.openSession(ctx, u, su.Session.TenantID, einvoice.StageFull)
}

// NewRecoveryCodes replaces the user's recovery codes and returns the new
// ones (shown once).
func (s *Service) NewRecoveryCodes(ctx context.Context, u *einvoice.User) ([]string, error) {
	if !u.TOTPEnabled {
		return nil, einvoice.Errorf(einvoice.CodeValidationFailed, "Turn on the second factor first.")
	}
	codes, hashes := newRecoveryCodes()
	u.RecoveryCodes, u.UpdatedAt = hashes, s.now()
	if err := s.store.UpdateUser(ctx, u); err != nil {
		return nil, fmt.Errorf("new recovery codes: %w", err)
	}
	return codes, nil
}

// newRecoveryCodes returns 10 codes (xxxxx-xxxxx, 50 random bits each) and
// their stored form.
func newRecoveryCodes() (codes, hashes []string) {
	const alphabet = "abcdefghjkmnpqrstuvwxyz23456789" // no 0/o, 1/l/i
	for range recoveryCodes {
		raw := []byte(randomToken(16))
		var b strings.Builder
		for i := 0; i < 10; i++ {
			if i == 5 {
				b.WriteByte('-')
			}
			b.WriteByte(alphabet[int(raw[i])%len(alphabet)])
		}
		codes = append(codes, b.String())
		hashes = append(hashes, hashRecoveryCode(b.String()))
	}
	return codes, hashes
}

func hashRecoveryCode(code string) string {
	code = strings.ToLower(strings.ReplaceAll(strings.ReplaceAll(strings.TrimSpace(code), "-", ""), " ", ""))
	sum := sha256.Sum256([]byte(code))
	return hex.EncodeToString(sum[:])
}

// matchRecoveryCode returns the index of the code's hash, or -1.
func matchRecoveryCode(hashes []string, code string) int {
	if len(code) > 64 {
		return -1
	}
	h := hashRecoveryCode(code)
	found := -1
	for i, v := range hashes {
		if subtle.ConstantTimeCompare([]byte(v), []byte(h)) == 1 {
			found = i
		}
	}
	return found
}

// TOTPAt returns the code of a secret at a time (for tests and the
// enrolment page's check).
func TOTPAt(secret string, at time.Time) (string, error) {
	return totp.GenerateCodeCustom(secret, at, totp.ValidateOpts{Period: 30, Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1})
}
