package people_test

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/pquerna/otp"

	"github.com/einvoice/einvoice/internal/einvoice"
	"github.com/einvoice/einvoice/internal/invoicing/people"
)

// TestCheckPassword: at least 12 characters (runes, not bytes), at most
// 256 bytes, UTF-8, not the e-mail, not a common password (in any case).
func TestCheckPassword(t *testing.T) {
	t.Parallel()
	random := make([]byte, 48)
	if _, err := rand.Read(random); err != nil {
		t.Fatal(err)
	}
	const email = "Aisyah.Ahmad@example.com"
	for _, c := range []struct {
		password string
		ok       bool
		problem  string // a word of the message
	}{
		{"zq8#Lm2!vR4", false, "12"},
		{"zq8#Lm2!vR4t", true, ""},
		{"ääääääääääää", true, ""},
		{"äääääääääää", false, "12"},
		{email, false, "e-mail"},
		{"  aisyah.ahmad@EXAMPLE.com ", false, "e-mail"},
		{"1qaz2wsx3edc", false, "common"},
		{"1QAZ2WSX3EDC", false, "common"},
		{"123qweasdzxc", false, "common"},
		{"bad utf-8 \xff\xfe here", false, "UTF-8"},
		{strings.Repeat("x", 257), false, "256"},
		{strings.Repeat("ab", 128), true, ""},
		{base64.RawURLEncoding.EncodeToString(random), true, ""},
		{password, true, ""},
	} {
		err := people.CheckPassword(c.password, email)
		if c.ok {
			if err != nil {
				t.Errorf("CheckPassword(%.20q) = %v, want it accepted", c.password, err)
			}
			continue
		}
		if einvoice.ErrorCode(err) != einvoice.CodeValidationFailed || !strings.Contains(messageOf(err), c.problem) {
			t.Errorf("CheckPassword(%.20q) = %v, want VALIDATION_FAILED naming %q", c.password, err, c.problem)
			continue
		}
		if e := err.(*einvoice.Error); len(e.Fields["password"]) == 0 {
			t.Errorf("CheckPassword(%.20q): no problem on field password: %v", c.password, err)
		}
	}
}

// TestSignIn: a good password opens a full session in the user's tenant
// (e-mail in any case); a wrong password and an unknown e-mail get the
// same answer.
func TestSignIn(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	h := newHarness(t)
	tn := h.tenant("Sign-in Sdn. Bhd.")
	u, _ := h.member(tn.ID, "Aisyah@Example.com", einvoice.RoleAccountant)
	res, err := h.svc.SignIn(ctx, " aisyah@EXAMPLE.com", password, h.addr())
	if err != nil {
		t.Fatalf("SignIn: %v", err)
	}
	if res.NeedsSecondFactor || res.User.ID != u.ID || res.TenantID != tn.ID || !strings.HasPrefix(res.Token, "eis_") {
		t.Errorf("SignIn = %+v, want a full session of the user in its tenant", res)
	}
	su := h.session(res.Token)
	if su.User.ID != u.ID || su.Role != einvoice.RoleAccountant || su.TenantName != "Sign-in Sdn. Bhd." || su.Session.Stage != einvoice.StageFull {
		t.Errorf("Session = %+v, want the accountant's full session", su)
	}
	wrong, err1 := h.svc.SignIn(ctx, "aisyah@example.com", password+"x", h.addr())
	unknown, err2 := h.svc.SignIn(ctx, "nobody@example.com", password, h.addr())
	if wrong != nil || unknown != nil {
		t.Fatalf("SignIn with a wrong password or an unknown e-mail opened a session: %+v, %+v", wrong, unknown)
	}
	wantCode(t, "SignIn(wrong password)", err1, einvoice.CodeUnauthorized)
	if err1 == nil || err2 == nil || err1.Error() != err2.Error() {
		t.Errorf("a wrong password and an unknown e-mail are told apart: %v / %v", err1, err2)
	}
	for _, email := range []string{"", strings.Repeat("a", 300) + "@example.com"} {
		if _, err := h.svc.SignIn(ctx, email, password, h.addr()); err == nil || err.Error() != err1.Error() {
			t.Errorf("SignIn(%.20q) = %v, want %v", email, err, err1)
		}
	}
	// A user of no tenant cannot sign in.
	if err := h.store.RemoveMembership(ctx, tn.ID, u.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := h.svc.Session(ctx, res.Token); einvoice.ErrorCode(err) != einvoice.CodeUnauthorized {
		t.Errorf("Session after the user left the tenant = %v, want UNAUTHORIZED", err)
	}
	_, err = h.svc.SignIn(ctx, "aisyah@example.com", password, h.addr())
	wantCode(t, "SignIn(user of no tenant)", err, einvoice.CodeForbidden)
}

// TestLockout: 5 failures for one e-mail within 15 minutes lock it for 15
// minutes, the good password included, whether or not it has an account;
// the lock ends after; a successful sign-in forgets the failures.
func TestLockout(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	h := newHarness(t)
	tn := h.tenant("Lockout")
	h.member(tn.ID, "lock@example.com", einvoice.RoleViewer)
	failures := func(email string) int {
		t.Helper()
		n, err := h.store.SignInFailures(ctx, email, h.clock.Now().Add(-time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		return n
	}

	// 4 failures, then the good password: signed in, the failures forgotten;
	// 4 more failures do not lock.
	for range 4 {
		_, err := h.svc.SignIn(ctx, "lock@example.com", "wrong password!", h.addr())
		wantCode(t, "SignIn(wrong)", err, einvoice.CodeUnauthorized)
	}
	if _, err := h.svc.SignIn(ctx, "LOCK@example.com", password, h.addr()); err != nil {
		t.Fatalf("SignIn after 4 failures: %v", err)
	}
	if n := failures("lock@example.com"); n != 0 {
		t.Errorf("%d failures after a successful sign-in, want 0", n)
	}
	for range 4 {
		h.clock.Advance(time.Minute)
		_, err := h.svc.SignIn(ctx, "lock@example.com", "wrong password!", h.addr())
		wantCode(t, "SignIn(wrong)", err, einvoice.CodeUnauthorized)
	}
	if _, err := h.svc.SignIn(ctx, "lock@example.com", password, h.addr()); err != nil {
		t.Fatalf("SignIn after 4 failures since the last success: %v", err)
	}

	// 5 failures (the e-mail in any case): locked, the good password too,
	// for 15 minutes.
	for i := range 5 {
		_, err := h.svc.SignIn(ctx, []string{"lock@example.com", "Lock@Example.com"}[i%2], "wrong password!", h.addr())
		wantCode(t, "SignIn(wrong)", err, einvoice.CodeUnauthorized)
	}
	locked := func(when string) {
		t.Helper()
		_, err := h.svc.SignIn(ctx, "lock@example.com", password, h.addr())
		wantCode(t, "SignIn "+when, err, einvoice.CodeRateLimitExceeded)
		if !strings.Contains(messageOf(err), "locked") {
			t.Errorf("SignIn %s: %q, want the lockout's message", when, messageOf(err))
		}
	}
	locked("after 5 failures")
	h.clock.Advance(14 * time.Minute)
	locked("14 minutes after 5 failures")
	if n := failures("lock@example.com"); n != 5 {
		t.Errorf("%d failures recorded, want 5 (attempts while locked do not count)", n)
	}
	h.clock.Advance(time.Minute + time.Second)
	if _, err := h.svc.SignIn(ctx, "lock@example.com", password, h.addr()); err != nil {
		t.Errorf("SignIn once the lock ended: %v", err)
	}

	// An e-mail without an account locks alike.
	for range 5 {
		_, err := h.svc.SignIn(ctx, "ghost@example.com", password, h.addr())
		wantCode(t, "SignIn(unknown)", err, einvoice.CodeUnauthorized)
	}
	_, err := h.svc.SignIn(ctx, "ghost@example.com", password, h.addr())
	wantCode(t, "SignIn(unknown e-mail after 5 failures)", err, einvoice.CodeRateLimitExceeded)
}

// TestAddressLimit: 30 sign-in attempts a minute from one client address;
// the 31st is refused whatever the e-mail; other addresses are not
// affected; the next minute the address may try again.
func TestAddressLimit(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	h := newHarness(t)
	tn := h.tenant("Limits")
	h.member(tn.ID, "limit@example.com", einvoice.RoleViewer)
	const address = "198.51.100.77"
	for i := range 30 {
		// Each a different e-mail: no lockout on the way.
		_, err := h.svc.SignIn(ctx, fmt.Sprintf("guess%d@example.com", i), password, address)
		wantCode(t, fmt.Sprintf("attempt %d", i+1), err, einvoice.CodeUnauthorized)
	}
	for _, try := range []func() error{
		func() error { _, err := h.svc.SignIn(ctx, "limit@example.com", password, address); return err },
		func() error { return h.svc.RequestReset(ctx, "limit@example.com", address) },
		func() error { _, err := h.svc.UseLink(ctx, "whatever", "", password, address); return err },
		func() error { _, err := h.svc.SecondFactor(ctx, "eis_whatever", "123456", address); return err },
	} {
		err := try()
		wantCode(t, "the 31st attempt of the minute", err, einvoice.CodeRateLimitExceeded)
		if !strings.Contains(messageOf(err), "address") {
			t.Errorf("the 31st attempt: %q, want the address limit's message", messageOf(err))
		}
	}
	if _, err := h.svc.SignIn(ctx, "limit@example.com", password, "198.51.100.78"); err != nil {
		t.Errorf("SignIn from another address: %v", err)
	}
	h.clock.Advance(time.Minute)
	if _, err := h.svc.SignIn(ctx, "limit@example.com", password, address); err != nil {
		t.Errorf("SignIn from the address a minute later: %v", err)
	}
}

// wrongTOTP returns a six-digit code that is not the secret's at any time
// the service accepts now (one step either side).
func wrongTOTP(t *testing.T, secret string, now time.Time) string {
	t.Helper()
	valid := map[string]bool{}
	for _, d := range []time.Duration{-30 * time.Second, 0, 30 * time.Second} {
		c, err := people.TOTPAt(secret, now.Add(d))
		if err != nil {
			t.Fatal(err)
		}
		valid[c] = true
	}
	for i := 0; ; i++ {
		if c := fmt.Sprintf("%06d", i*7919%1000000); !valid[c] {
			return c
		}
	}
}

// TestSecondFactor: TOTP is enabled with a code of its secret; a sign-in
// then waits for a code (the pending session opens nothing), the code
// opens a full session under a new token; a recovery code works once; a
// wrong code counts towards the lockout.
func TestSecondFactor(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	h := newHarness(t)
	tn := h.tenant("Two factors")
	_, token := h.member(tn.ID, "totp@example.com", einvoice.RoleAdmin)
	u := h.session(token).User
	enr, err := h.svc.NewTOTP(u)
	if err != nil || enr.Secret == "" || !strings.HasPrefix(enr.URL, "otpauth://totp/") {
		t.Fatalf("NewTOTP = %+v, %v", enr, err)
	}
	_, err = h.svc.EnableTOTP(ctx, u, enr.Secret, wrongTOTP(t, enr.Secret, h.clock.Now()))
	wantCode(t, "EnableTOTP(wrong code)", err, einvoice.CodeValidationFailed)
	if got, _ := h.store.GetUser(ctx, u.ID); got.TOTPEnabled {
		t.Fatal("a wrong code turned the second factor on")
	}
	code, err := people.TOTPAt(enr.Secret, h.clock.Now())
	if err != nil {
		t.Fatal(err)
	}
	codes, err := h.svc.EnableTOTP(ctx, u, enr.Secret, code)
	if err != nil || len(codes) != 10 {
		t.Fatalf("EnableTOTP = %d codes, %v; want 10", len(codes), err)
	}
	stored, err := h.store.GetUser(ctx, u.ID)
	if err != nil || !stored.TOTPEnabled || stored.TOTPSecret != enr.Secret || len(stored.RecoveryCodes) != 10 {
		t.Fatalf("the user after EnableTOTP: %+v, %v", stored, err)
	}
	for _, c := range codes {
		for _, h := range stored.RecoveryCodes {
			if strings.Contains(h, strings.ReplaceAll(c, "-", "")) {
				t.Fatalf("recovery code %s is stored as it is", c)
			}
		}
	}

	// The password alone opens a pending session, which opens nothing but
	// the second factor.
	signIn := func() string {
		t.Helper()
		res, err := h.svc.SignIn(ctx, "totp@example.com", password, h.addr())
		if err != nil || !res.NeedsSecondFactor {
			t.Fatalf("SignIn with TOTP on = %+v, %v; want a session waiting for the second factor", res, err)
		}
		return res.Token
	}
	pending := signIn()
	if _, err := h.svc.Session(ctx, pending); einvoice.ErrorCode(err) != einvoice.CodeUnauthorized {
		t.Errorf("Session(pending) = %v, want UNAUTHORIZED", err)
	}
	if _, err := h.svc.PendingSession(ctx, pending); err != nil {
		t.Errorf("PendingSession: %v", err)
	}
	if _, err := h.svc.PendingSession(ctx, token); einvoice.ErrorCode(err) != einvoice.CodeUnauthorized {
		t.Errorf("PendingSession(a full session) = %v, want UNAUTHORIZED", err)
	}
	h.clock.Advance(40 * time.Second)
	code, _ = people.TOTPAt(enr.Secret, h.clock.Now())
	full, err := h.svc.SecondFactor(ctx, pending, code, h.addr())
	if err != nil || full.NeedsSecondFactor {
		t.Fatalf("SecondFactor = %+v, %v; want a full session", full, err)
	}
	if full.Token == pending {
		t.Error("the full session kept the pending session's token")
	}
	if su := h.session(full.Token); su.User.ID != u.ID || su.Role != einvoice.RoleAdmin || su.Session.TenantID != tn.ID {
		t.Errorf("the full session = %+v", su)
	}
	if _, err := h.svc.PendingSession(ctx, pending); einvoice.ErrorCode(err) != einvoice.CodeUnauthorized {
		t.Errorf("the pending session after the second factor = %v, want it ended", err)
	}
	_, err = h.svc.SecondFactor(ctx, pending, code, h.addr())
	wantCode(t, "SecondFactor(the pending session again)", err, einvoice.CodeUnauthorized)

	// A recovery code, once; typed in capitals without its dash too.
	pending = signIn()
	if _, err := h.svc.SecondFactor(ctx, pending, codes[0], h.addr()); err != nil {
		t.Fatalf("SecondFactor(recovery code): %v", err)
	}
	pending = signIn()
	if _, err := h.svc.SecondFactor(ctx, pending, strings.ToUpper(strings.ReplaceAll(codes[1], "-", "")), h.addr()); err != nil {
		t.Errorf("SecondFactor(recovery code in capitals, no dash): %v", err)
	}
	if stored, _ := h.store.GetUser(ctx, u.ID); len(stored.RecoveryCodes) != 8 {
		t.Errorf("%d recovery codes left after two were used, want 8", len(stored.RecoveryCodes))
	}
	pending = signIn()
	_, err = h.svc.SecondFactor(ctx, pending, codes[0], h.addr())
	wantCode(t, "SecondFactor(a used recovery code)", err, einvoice.CodeValidationFailed)

	// Wrong codes count towards the lockout: the used recovery code and 4
	// wrong TOTP codes lock the e-mail, the right code included.
	for range 4 {
		_, err = h.svc.SecondFactor(ctx, pending, wrongTOTP(t, enr.Secret, h.clock.Now()), h.addr())
		wantCode(t, "SecondFactor(wrong code)", err, einvoice.CodeValidationFailed)
	}
	code, _ = people.TOTPAt(enr.Secret, h.clock.Now())
	_, err = h.svc.SecondFactor(ctx, pending, code, h.addr())
	wantCode(t, "SecondFactor after 5 wrong codes", err, einvoice.CodeRateLimitExceeded)
	_, err = h.svc.SignIn(ctx, "totp@example.com", password, h.addr())
	wantCode(t, "SignIn after 5 wrong codes", err, einvoice.CodeRateLimitExceeded)
	h.clock.Advance(16 * time.Minute)
	pending = signIn()
	code, _ = people.TOTPAt(enr.Secret, h.clock.Now())
	if _, err := h.svc.SecondFactor(ctx, pending, code, h.addr()); err != nil {
		t.Errorf("SecondFactor once the lock ended: %v", err)
	}
	// A pending session waits 5 minutes, no more.
	pending = signIn()
	h.clock.Advance(5 * time.Minute)
	code, _ = people.TOTPAt(enr.Secret, h.clock.Now())
	_, err = h.svc.SecondFactor(ctx, pending, code, h.addr())
	wantCode(t, "SecondFactor 5 minutes after the password", err, einvoice.CodeUnauthorized)

	// Turned off with the password: the password alone signs in again.
	u = h.session(full.Token).User
	err = h.svc.DisableTOTP(ctx, u, "not the password")
	wantCode(t, "DisableTOTP(wrong password)", err, einvoice.CodeValidationFailed)
	if err := h.svc.DisableTOTP(ctx, u, password); err != nil {
		t.Fatalf("DisableTOTP: %v", err)
	}
	if res, err := h.svc.SignIn(ctx, "totp@example.com", password, h.addr()); err != nil || res.NeedsSecondFactor {
		t.Errorf("SignIn after DisableTOTP = %+v, %v; want a full session", res, err)
	}
}

// TestSessions: sign-out, twice; the idle and absolute expiry; sign out
// everywhere; a password change ends the other sessions; a session moves
// only to a tenant of its user.
func TestSessions(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	h := newHarness(t)
	home, other, foreign := h.tenant("Home"), h.tenant("Other"), h.tenant("Foreign")
	u, first := h.member(home.ID, "s@example.com", einvoice.RoleOwner)
	if _, _, err := h.svc.AddUser(ctx, other.ID, "s@example.com", "", einvoice.RoleViewer); err != nil {
		t.Fatal(err)
	}
	signIn := func() string {
		t.Helper()
		res, err := h.svc.SignIn(ctx, "s@example.com", password, h.addr())
		if err != nil {
			t.Fatalf("SignIn: %v", err)
		}
		return res.Token
	}
	alive := func(token string) bool {
		_, err := h.svc.Session(ctx, token)
		if err != nil && einvoice.ErrorCode(err) != einvoice.CodeUnauthorized {
			t.Fatalf("Session: %v", err)
		}
		return err == nil
	}
	for _, bad := range []string{"", first + "x", strings.Repeat("x", 500)} {
		if alive(bad) {
			t.Errorf("Session(%.10q) is alive", bad)
		}
	}

	// Switch tenant: to a tenant of the user, not to another.
	su := h.session(first)
	if err := h.svc.SwitchTenant(ctx, su, other.ID); err != nil {
		t.Fatalf("SwitchTenant: %v", err)
	}
	if su := h.session(first); su.Session.TenantID != other.ID || su.Role != einvoice.RoleViewer || su.TenantName != "Other" {
		t.Errorf("after SwitchTenant: %+v, want the viewer in Other", su)
	}
	for _, id := range []string{foreign.ID, "not-a-tenant"} {
		wantCode(t, "SwitchTenant(not a member)", h.svc.SwitchTenant(ctx, su, id), einvoice.CodeForbidden)
	}
	if su := h.session(first); su.Session.TenantID != other.ID {
		t.Errorf("a refused switch moved the session to %s", su.Session.TenantID)
	}

	// Idle: used every 90 minutes it lasts; 2 hours unused, it ends.
	token := signIn()
	for range 3 {
		h.clock.Advance(90 * time.Minute)
		if !alive(token) {
			t.Fatal("a session used every 90 minutes ended")
		}
	}
	h.clock.Advance(people.SessionIdle)
	if alive(token) {
		t.Error("a session unused for the idle timeout is alive")
	}
	// Absolute: used every hour, it still ends after its lifetime.
	token = signIn()
	for i := 1; i <= 13; i++ {
		h.clock.Advance(time.Hour)
		if want := time.Duration(i)*time.Hour < people.SessionLifetime; alive(token) != want {
			t.Errorf("after %d busy hours alive = %v, want %v", i, !want, want)
		}
	}

	// Sign-out, twice.
	token = signIn()
	if err := h.svc.SignOut(ctx, token); err != nil {
		t.Fatal(err)
	}
	if err := h.svc.SignOut(ctx, token); err != nil {
		t.Errorf("SignOut twice: %v", err)
	}
	if alive(token) {
		t.Error("a signed-out session is alive")
	}

	// A password change keeps the session that made it and ends the others.
	a, b := signIn(), signIn()
	suA := h.session(a)
	err := h.svc.ChangePassword(ctx, suA, "not the password", "a brand new passphrase")
	wantCode(t, "ChangePassword(wrong current)", err, einvoice.CodeValidationFailed)
	err = h.svc.ChangePassword(ctx, suA, password, "short")
	wantCode(t, "ChangePassword(short new)", err, einvoice.CodeValidationFailed)
	if !alive(b) {
		t.Fatal("a refused password change ended a session")
	}
	if err := h.svc.ChangePassword(ctx, suA, password, "a brand new passphrase"); err != nil {
		t.Fatalf("ChangePassword: %v", err)
	}
	if !alive(a) || alive(b) {
		t.Errorf("after ChangePassword: the changing session alive = %v (want true), the other = %v (want false)", alive(a), alive(b))
	}
	_, err = h.svc.SignIn(ctx, "s@example.com", password, h.addr())
	wantCode(t, "SignIn(old password)", err, einvoice.CodeUnauthorized)
	if _, err := h.svc.SignIn(ctx, "s@example.com", "a brand new passphrase", h.addr()); err != nil {
		t.Errorf("SignIn(new password): %v", err)
	}

	// Sign out everywhere: this session too.
	if err := h.svc.SignOutEverywhere(ctx, u.ID); err != nil {
		t.Fatal(err)
	}
	if alive(a) {
		t.Error("a session survived SignOutEverywhere")
	}
	if n, err := h.svc.PurgeSessions(ctx); err != nil || n == 0 {
		t.Errorf("PurgeSessions = %d, %v; want the ended sessions gone", n, err)
	}
}

// TestTOTPURL: the enrolment link an authenticator app reads names the
// e-mail and the secret, escaped.
func TestTOTPURL(t *testing.T) {
	t.Parallel()
	k, err := otp.NewKeyFromURL(people.TOTPURL("a+b c@example.com", "JBSWY3DPEHPK3PXP"))
	if err != nil {
		t.Fatal(err)
	}
	if k.Type() != "totp" || k.AccountName() != "a+b c@example.com" || k.Issuer() != "einvoice" || k.Secret() != "JBSWY3DPEHPK3PXP" || k.Period() != 30 {
		t.Errorf("TOTPURL = %s: account %q, issuer %q, secret %q, period %d", k.URL(), k.AccountName(), k.Issuer(), k.Secret(), k.Period())
	}
}
