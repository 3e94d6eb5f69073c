package sqlstore_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/einvoice/einvoice/internal/einvoice"
	"github.com/einvoice/einvoice/internal/sqlstore"
)

// user returns a new user of the e-mail, not stored.
func user(email string) *einvoice.User {
	return &einvoice.User{ID: newID(), Email: email, Name: "Name of " + email, PasswordHash: "$argon2id$v=19$m=1024,t=1,p=1$c2FsdA$aGFzaA",
		CreatedAt: t0, UpdatedAt: t0}
}

func mustCreateUser(t *testing.T, s *sqlstore.Store, email string) *einvoice.User {
	t.Helper()
	u := user(email)
	if err := s.CreateUser(context.Background(), u); err != nil {
		t.Fatalf("CreateUser(%s): %v", email, err)
	}
	return u
}

func mustPutMembership(t *testing.T, s *sqlstore.Store, tenantID, userID string, role einvoice.Role) {
	t.Helper()
	if err := s.PutMembership(context.Background(), &einvoice.Membership{TenantID: tenantID, UserID: userID, Role: role, CreatedAt: t0}); err != nil {
		t.Fatalf("PutMembership(%s): %v", role, err)
	}
}

// roleOf returns the user's role in the tenant, "" when it is no member.
func roleOf(t *testing.T, s *sqlstore.Store, tenantID, userID string) einvoice.Role {
	t.Helper()
	ms, err := s.Memberships(context.Background(), userID)
	if err != nil {
		t.Fatalf("Memberships: %v", err)
	}
	for _, m := range ms {
		if m.TenantID == tenantID {
			return m.Role
		}
	}
	return ""
}

// testUsers: a user is created, read by id and by e-mail in any case,
// its e-mail unique whatever its case; its name, TOTP secret (encrypted at
// rest) and recovery codes are updated, its password not by UpdateUser.
func testUsers(t *testing.T, dsn string) {
	ctx := context.Background()
	s := open(t, dsn)
	const secret = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP"
	u := user("Aisyah.Ahmad@Example.COM")
	u.TOTPSecret, u.TOTPEnabled, u.RecoveryCodes = secret, true, []string{"c0de1", "c0de2"}
	if err := s.CreateUser(ctx, u); err != nil {
		t.Fatalf("CreateUser: %v", err)
	}
	got, err := s.GetUser(ctx, u.ID)
	if err != nil {
		t.Fatalf("GetUser: %v", err)
	}
	if diff := cmp.Diff(u, got); diff != "" {
		t.Errorf("GetUser (-want +got):\n%s", diff)
	}
	for _, email := range []string{"Aisyah.Ahmad@Example.COM", "aisyah.ahmad@example.com", "  AISYAH.AHMAD@EXAMPLE.COM "} {
		got, err := s.UserByEmail(ctx, email)
		if err != nil || got.ID != u.ID || got.Email != u.Email {
			t.Errorf("UserByEmail(%q) = %+v, %v; want the user, its e-mail as given", email, got, err)
		}
	}
	for _, email := range []string{"aisyah.ahmad@example.com", " AISYAH.Ahmad@example.com"} {
		dup := user(email)
		if err := s.CreateUser(ctx, dup); !errors.Is(err, einvoice.ErrConflict) {
			t.Errorf("CreateUser(%q, taken in another case) = %v, want ErrConflict", email, err)
		}
	}
	if _, err := s.GetUser(ctx, newID()); !errors.Is(err, einvoice.ErrNotFound) {
		t.Errorf("GetUser(unknown) = %v, want ErrNotFound", err)
	}
	if _, err := s.GetUser(ctx, "not an id"); !errors.Is(err, einvoice.ErrNotFound) {
		t.Errorf("GetUser(malformed) = %v, want ErrNotFound", err)
	}
	if _, err := s.UserByEmail(ctx, "nobody@example.com"); !errors.Is(err, einvoice.ErrNotFound) {
		t.Errorf("UserByEmail(unknown) = %v, want ErrNotFound", err)
	}

	rawSecret := func() string {
		t.Helper()
		var v string
		if err := s.DB().QueryRowContext(ctx, `SELECT totp_secret FROM users WHERE id = $1`, u.ID).Scan(&v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	if raw := rawSecret(); raw == "" || strings.Contains(raw, secret) || strings.Contains(strings.ToLower(raw), strings.ToLower(secret[:16])) {
		t.Errorf("totp_secret column = %q: want it encrypted (not holding %s)", raw, secret)
	}

	// UpdateUser: name, TOTP and recovery codes; not the password.
	const secret2 = "KRSXG5CTMVRXEZLUKRSXG5CTMVRXEZLU"
	upd := *got
	upd.Name, upd.TOTPSecret, upd.RecoveryCodes, upd.UpdatedAt = "Aisyah binti Ahmad", secret2, []string{"c0de2"}, t0.Add(time.Hour)
	upd.PasswordHash = "changed behind SetPassword's back"
	if err := s.UpdateUser(ctx, &upd); err != nil {
		t.Fatalf("UpdateUser: %v", err)
	}
	got, err = s.GetUser(ctx, u.ID)
	if err != nil {
		t.Fatal(err)
	}
	want := upd
	want.PasswordHash = u.PasswordHash
	if diff := cmp.Diff(&want, got); diff != "" {
		t.Errorf("GetUser after UpdateUser (-want +got):\n%s", diff)
	}
	if raw := rawSecret(); raw == "" || strings.Contains(raw, secret2) {
		t.Errorf("totp_secret column after the update = %q: want it encrypted", raw)
	}
	// The second factor off: no secret, no codes.
	upd.TOTPSecret, upd.TOTPEnabled, upd.RecoveryCodes = "", false, nil
	if err := s.UpdateUser(ctx, &upd); err != nil {
		t.Fatal(err)
	}
	got, err = s.GetUser(ctx, u.ID)
	if err != nil || got.TOTPSecret != "" || got.TOTPEnabled || len(got.RecoveryCodes) != 0 {
		t.Errorf("after the second factor was turned off: %+v, %v", got, err)
	}
	if raw := rawSecret(); raw != "" {
		t.Errorf("totp_secret column of a user without the factor = %q, want empty", raw)
	}
	ghost := user("ghost@example.com")
	if err := s.UpdateUser(ctx, ghost); !errors.Is(err, einvoice.ErrNotFound) {
		t.Errorf("UpdateUser(unknown) = %v, want ErrNotFound", err)
	}
}

// testSetPassword: a new password hash is stored and every session of the
// user but the kept one ends; other users' sessions stay.
func testSetPassword(t *testing.T, dsn string) {
	ctx := context.Background()
	s := open(t, dsn)
	tn := mustCreateTenant(t, s, "Passwords")
	u, v := mustCreateUser(t, s, "u@example.com"), mustCreateUser(t, s, "v@example.com")
	mustPutMembership(t, s, tn.ID, u.ID, einvoice.RoleOwner)
	mustPutMembership(t, s, tn.ID, v.ID, einvoice.RoleViewer)
	for _, token := range []string{"u1", "u2", "u3"} {
		mustCreateSession(t, s, token, u.ID, tn.ID)
	}
	mustCreateSession(t, s, "v1", v.ID, tn.ID)
	at := t0.Add(time.Hour)
	if err := s.SetPassword(ctx, u.ID, "new hash", at, sessionID("u2")); err != nil {
		t.Fatalf("SetPassword: %v", err)
	}
	got, err := s.GetUser(ctx, u.ID)
	if err != nil || got.PasswordHash != "new hash" || !got.UpdatedAt.Equal(at) {
		t.Errorf("after SetPassword: %+v, %v; want the new hash, updated at %v", got, err, at)
	}
	for token, want := range map[string]bool{"u1": true, "u2": false, "u3": true, "v1": false} {
		if got := revoked(t, s, token); got != want {
			t.Errorf("after SetPassword(keep u2): session %s revoked = %v, want %v", token, got, want)
		}
	}
	if err := s.SetPassword(ctx, u.ID, "newer hash", at, nil); err != nil {
		t.Fatalf("SetPassword(keep nil): %v", err)
	}
	if !revoked(t, s, "u2") || revoked(t, s, "v1") {
		t.Error("SetPassword(keep nil) did not end every session of the user, and only them")
	}
	for _, id := range []string{newID(), "nope"} {
		if err := s.SetPassword(ctx, id, "x", at, nil); !errors.Is(err, einvoice.ErrNotFound) {
			t.Errorf("SetPassword(%s) = %v, want ErrNotFound", id, err)
		}
	}
}

// testMemberships: a user joins tenants with a role, the role changes,
// the user's tenants are read with their names (by name) and a tenant's
// users with their roles (by e-mail); a membership of a missing user or
// tenant is refused.
func testMemberships(t *testing.T, dsn string) {
	ctx := context.Background()
	s := open(t, dsn)
	beta, alpha := mustCreateTenant(t, s, "Beta Sdn. Bhd."), mustCreateTenant(t, s, "Alpha Sdn. Bhd.")
	a, b := mustCreateUser(t, s, "Zed@example.com"), mustCreateUser(t, s, "anna@example.com")
	mustPutMembership(t, s, beta.ID, a.ID, einvoice.RoleOwner)
	mustPutMembership(t, s, alpha.ID, a.ID, einvoice.RoleViewer)
	if err := s.PutMembership(ctx, &einvoice.Membership{TenantID: beta.ID, UserID: b.ID, Role: einvoice.RoleAccountant, CreatedAt: t0.Add(time.Minute)}); err != nil {
		t.Fatal(err)
	}
	ms, err := s.Memberships(ctx, a.ID)
	if err != nil {
		t.Fatalf("Memberships: %v", err)
	}
	want := []einvoice.Membership{
		{TenantID: alpha.ID, TenantName: "Alpha Sdn. Bhd.", UserID: a.ID, Role: einvoice.RoleViewer, CreatedAt: t0},
		{TenantID: beta.ID, TenantName: "Beta Sdn. Bhd.", UserID: a.ID, Role: einvoice.RoleOwner, CreatedAt: t0},
	}
	if diff := cmp.Diff(want, ms); diff != "" {
		t.Errorf("Memberships (-want +got):\n%s", diff)
	}
	// A new role; the membership keeps its date.
	if err := s.PutMembership(ctx, &einvoice.Membership{TenantID: alpha.ID, UserID: a.ID, Role: einvoice.RoleAdmin, CreatedAt: t0.Add(time.Hour)}); err != nil {
		t.Fatalf("PutMembership(new role): %v", err)
	}
	ms, err = s.Memberships(ctx, a.ID)
	want[0].Role = einvoice.RoleAdmin
	if diff := cmp.Diff(want, ms); err != nil || diff != "" {
		t.Errorf("Memberships after a new role (-want +got):\n%s%v", diff, err)
	}
	members, err := s.Members(ctx, beta.ID)
	if err != nil {
		t.Fatalf("Members: %v", err)
	}
	wantMembers := []einvoice.Member{{User: b, Role: einvoice.RoleAccountant, Since: t0.Add(time.Minute)}, {User: a, Role: einvoice.RoleOwner, Since: t0}}
	if diff := cmp.Diff(wantMembers, members, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("Members (-want +got):\n%s", diff)
	}
	if ms, err := s.Memberships(ctx, newID()); err != nil || len(ms) != 0 {
		t.Errorf("Memberships(unknown user) = %v, %v; want none", ms, err)
	}
	if ms, err := s.Members(ctx, newID()); err != nil || len(ms) != 0 {
		t.Errorf("Members(unknown tenant) = %v, %v; want none", ms, err)
	}
	for name, m := range map[string]*einvoice.Membership{
		"unknown user":   {TenantID: beta.ID, UserID: newID(), Role: einvoice.RoleViewer, CreatedAt: t0},
		"unknown tenant": {TenantID: newID(), UserID: a.ID, Role: einvoice.RoleViewer, CreatedAt: t0},
		"malformed ids":  {TenantID: "x", UserID: "y", Role: einvoice.RoleViewer, CreatedAt: t0},
	} {
		if err := s.PutMembership(ctx, m); !errors.Is(err, einvoice.ErrNotFound) {
			t.Errorf("PutMembership(%s) = %v, want ErrNotFound", name, err)
		}
	}
	if err := s.RemoveMembership(ctx, alpha.ID, b.ID); !errors.Is(err, einvoice.ErrNotFound) {
		t.Errorf("RemoveMembership(not a member) = %v, want ErrNotFound", err)
	}
	if err := s.RemoveMembership(ctx, beta.ID, b.ID); err != nil {
		t.Fatalf("RemoveMembership: %v", err)
	}
	if members, err := s.Members(ctx, beta.ID); err != nil || len(members) != 1 || members[0].User.ID != a.ID {
		t.Errorf("Members after the removal = %+v, %v; want the owner alone", members, err)
	}
}

// testLastOwner: a tenant keeps at least one owner: the last owner is
// neither demoted nor removed (ErrLastOwner); with two owners either goes.
func testLastOwner(t *testing.T, dsn string) {
	ctx := context.Background()
	s := open(t, dsn)
	tn := mustCreateTenant(t, s, "Owners")
	a, b := mustCreateUser(t, s, "a@example.com"), mustCreateUser(t, s, "b@example.com")
	mustPutMembership(t, s, tn.ID, a.ID, einvoice.RoleOwner)
	mustPutMembership(t, s, tn.ID, b.ID, einvoice.RoleAdmin)
	for _, role := range []einvoice.Role{einvoice.RoleAdmin, einvoice.RoleViewer} {
		if err := s.PutMembership(ctx, &einvoice.Membership{TenantID: tn.ID, UserID: a.ID, Role: role, CreatedAt: t0}); !errors.Is(err, einvoice.ErrLastOwner) {
			t.Errorf("PutMembership(last owner -> %s) = %v, want ErrLastOwner", role, err)
		}
	}
	if err := s.RemoveMembership(ctx, tn.ID, a.ID); !errors.Is(err, einvoice.ErrLastOwner) {
		t.Errorf("RemoveMembership(last owner) = %v, want ErrLastOwner", err)
	}
	if got := roleOf(t, s, tn.ID, a.ID); got != einvoice.RoleOwner {
		t.Fatalf("after the refused changes the last owner is %q, want owner", got)
	}
	// The last owner may stay an owner (PutMembership of the same role).
	mustPutMembership(t, s, tn.ID, a.ID, einvoice.RoleOwner)
	// Two owners: one is demoted, then the other is the last.
	mustPutMembership(t, s, tn.ID, b.ID, einvoice.RoleOwner)
	mustPutMembership(t, s, tn.ID, a.ID, einvoice.RoleAccountant)
	if err := s.RemoveMembership(ctx, tn.ID, b.ID); !errors.Is(err, einvoice.ErrLastOwner) {
		t.Errorf("RemoveMembership(the other, now last, owner) = %v, want ErrLastOwner", err)
	}
	// Two owners again: one is removed.
	mustPutMembership(t, s, tn.ID, a.ID, einvoice.RoleOwner)
	if err := s.RemoveMembership(ctx, tn.ID, b.ID); err != nil {
		t.Errorf("RemoveMembership(one of two owners) = %v", err)
	}
	if got := roleOf(t, s, tn.ID, b.ID); got != "" {
		t.Errorf("the removed owner is still %q", got)
	}
	// The owners of another tenant do not count.
	other := mustCreateTenant(t, s, "Other")
	mustPutMembership(t, s, other.ID, b.ID, einvoice.RoleOwner)
	if err := s.RemoveMembership(ctx, tn.ID, a.ID); !errors.Is(err, einvoice.ErrLastOwner) {
		t.Errorf("RemoveMembership(last owner, owners elsewhere) = %v, want ErrLastOwner", err)
	}
}

// testConcurrentDemotions: two owners demoted at once, each through its
// own store (two replicas): exactly one demotion passes, the tenant keeps
// an owner.
func testConcurrentDemotions(t *testing.T, dsn string) {
	ctx := context.Background()
	s1, s2 := open(t, dsn), open(t, dsn)
	for round := range 10 {
		tn := mustCreateTenant(t, s1, fmt.Sprintf("Race %d", round))
		a := mustCreateUser(t, s1, fmt.Sprintf("a%d@example.com", round))
		b := mustCreateUser(t, s1, fmt.Sprintf("b%d@example.com", round))
		mustPutMembership(t, s1, tn.ID, a.ID, einvoice.RoleOwner)
		mustPutMembership(t, s1, tn.ID, b.ID, einvoice.RoleOwner)
		start := make(chan struct{})
		errs := make([]error, 2)
		var wg sync.WaitGroup
		for i, c := range []struct {
			s    *sqlstore.Store
			user string
		}{{s1, a.ID}, {s2, b.ID}} {
			wg.Go(func() {
				<-start
				if round%2 == 0 {
					errs[i] = c.s.PutMembership(ctx, &einvoice.Membership{TenantID: tn.ID, UserID: c.user, Role: einvoice.RoleAdmin, CreatedAt: t0})
				} else {
					errs[i] = c.s.RemoveMembership(ctx, tn.ID, c.user)
				}
			})
		}
		close(start)
		wg.Wait()
		passed := 0
		for _, err := range errs {
			switch {
			case err == nil:
				passed++
			case !errors.Is(err, einvoice.ErrLastOwner):
				t.Errorf("round %d: a concurrent demotion failed with %v, want nil or ErrLastOwner", round, err)
			}
		}
		owners := 0
		members, err := s1.Members(ctx, tn.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range members {
			if m.Role == einvoice.RoleOwner {
				owners++
			}
		}
		if passed != 1 || owners != 1 {
			t.Errorf("round %d: %d of 2 concurrent demotions passed and %d owners are left (%v); want 1 and 1", round, passed, owners, errs)
		}
	}
}

// testRemoveMembershipSessions: a user removed from a tenant loses its
// sessions there, not its sessions in its other tenants.
func testRemoveMembershipSessions(t *testing.T, dsn string) {
	ctx := context.Background()
	s := open(t, dsn)
	t1, t2 := mustCreateTenant(t, s, "One"), mustCreateTenant(t, s, "Two")
	owner, u := mustCreateUser(t, s, "owner@example.com"), mustCreateUser(t, s, "u@example.com")
	mustPutMembership(t, s, t1.ID, owner.ID, einvoice.RoleOwner)
	mustPutMembership(t, s, t1.ID, u.ID, einvoice.RoleAccountant)
	mustPutMembership(t, s, t2.ID, u.ID, einvoice.RoleOwner)
	mustCreateSession(t, s, "u-in-1", u.ID, t1.ID)
	mustCreateSession(t, s, "u-in-2", u.ID, t2.ID)
	mustCreateSession(t, s, "owner-in-1", owner.ID, t1.ID)
	if err := s.RemoveMembership(ctx, t1.ID, u.ID); err != nil {
		t.Fatalf("RemoveMembership: %v", err)
	}
	for token, want := range map[string]bool{"u-in-1": true, "u-in-2": false, "owner-in-1": false} {
		if got := revoked(t, s, token); got != want {
			t.Errorf("after the removal from tenant One: session %s revoked = %v, want %v", token, got, want)
		}
	}
	if su, err := s.SessionByID(ctx, sessionID("u-in-1")); err != nil || su.Role != "" {
		t.Errorf("the session in the tenant left: %+v, %v; want no role", su, err)
	}
}

// testUserTokens: a one-time link is live while unused and unexpired, and
// is used once: a second use, or all but one of concurrent uses (from two
// replicas), is ErrNotFound.
func testUserTokens(t *testing.T, dsn string) {
	ctx := context.Background()
	s1, s2 := open(t, dsn), open(t, dsn)
	tn := mustCreateTenant(t, s1, "Links")
	tok := &einvoice.UserToken{Hash: sessionID("invite"), Kind: einvoice.TokenInvite, Email: "New@Example.com", TenantID: tn.ID,
		Role: einvoice.RoleAccountant, CreatedBy: "owner@example.com", CreatedAt: t0, ExpiresAt: t0.Add(7 * 24 * time.Hour)}
	if err := s1.CreateUserToken(ctx, tok); err != nil {
		t.Fatalf("CreateUserToken: %v", err)
	}
	dup := *tok
	if err := s1.CreateUserToken(ctx, &dup); !errors.Is(err, einvoice.ErrConflict) {
		t.Errorf("CreateUserToken(same hash) = %v, want ErrConflict", err)
	}
	got, err := s2.UserToken(ctx, tok.Hash, t0.Add(time.Hour))
	if err != nil {
		t.Fatalf("UserToken: %v", err)
	}
	if diff := cmp.Diff(tok, got); diff != "" {
		t.Errorf("UserToken (-want +got):\n%s", diff)
	}
	if _, err := s1.UserToken(ctx, tok.Hash, tok.ExpiresAt); !errors.Is(err, einvoice.ErrNotFound) {
		t.Errorf("UserToken(at its expiry) = %v, want ErrNotFound", err)
	}
	if _, err := s1.UseUserToken(ctx, tok.Hash, tok.ExpiresAt.Add(time.Second)); !errors.Is(err, einvoice.ErrNotFound) {
		t.Errorf("UseUserToken(expired) = %v, want ErrNotFound", err)
	}
	if _, err := s1.UserToken(ctx, sessionID("unknown"), t0); !errors.Is(err, einvoice.ErrNotFound) {
		t.Errorf("UserToken(unknown) = %v, want ErrNotFound", err)
	}
	if _, err := s1.UseUserToken(ctx, sessionID("unknown"), t0); !errors.Is(err, einvoice.ErrNotFound) {
		t.Errorf("UseUserToken(unknown) = %v, want ErrNotFound", err)
	}
	usedAt := t0.Add(2 * time.Hour)
	used, err := s1.UseUserToken(ctx, tok.Hash, usedAt)
	if err != nil {
		t.Fatalf("UseUserToken: %v", err)
	}
	want := *tok
	want.UsedAt = &usedAt
	if diff := cmp.Diff(&want, used); diff != "" {
		t.Errorf("UseUserToken (-want +got):\n%s", diff)
	}
	if _, err := s2.UseUserToken(ctx, tok.Hash, usedAt.Add(time.Minute)); !errors.Is(err, einvoice.ErrNotFound) {
		t.Errorf("UseUserToken a second time = %v, want ErrNotFound", err)
	}
	if _, err := s2.UserToken(ctx, tok.Hash, usedAt.Add(time.Minute)); !errors.Is(err, einvoice.ErrNotFound) {
		t.Errorf("UserToken(used) = %v, want ErrNotFound", err)
	}

	// Concurrent uses, from two replicas: exactly one wins.
	for round := range 5 {
		race := &einvoice.UserToken{Hash: sessionID(fmt.Sprint("race", round)), Kind: einvoice.TokenReset, Email: "u@example.com",
			UserID: newID(), CreatedBy: "u@example.com", CreatedAt: t0, ExpiresAt: t0.Add(time.Hour)}
		if err := s1.CreateUserToken(ctx, race); err != nil {
			t.Fatal(err)
		}
		var wins atomic.Int32
		start := make(chan struct{})
		var wg sync.WaitGroup
		for i := range 8 {
			s := []*sqlstore.Store{s1, s2}[i%2]
			wg.Go(func() {
				<-start
				_, err := s.UseUserToken(ctx, race.Hash, t0.Add(time.Minute))
				switch {
				case err == nil:
					wins.Add(1)
				case !errors.Is(err, einvoice.ErrNotFound):
					t.Errorf("a concurrent UseUserToken: %v", err)
				}
			})
		}
		close(start)
		wg.Wait()
		if wins.Load() != 1 {
			t.Errorf("round %d: %d of 8 concurrent uses of a link passed, want exactly 1", round, wins.Load())
		}
	}
}

// testSignInFailures: failures are counted per e-mail (any case) since a
// time, and cleared per e-mail.
func testSignInFailures(t *testing.T, dsn string) {
	ctx := context.Background()
	s := open(t, dsn)
	for i, email := range []string{"Someone@Example.com", "someone@example.com", " SOMEONE@example.com"} {
		if err := s.AddSignInFailure(ctx, email, t0.Add(time.Duration(i)*time.Minute)); err != nil {
			t.Fatalf("AddSignInFailure: %v", err)
		}
	}
	if err := s.AddSignInFailure(ctx, "other@example.com", t0); err != nil {
		t.Fatal(err)
	}
	count := func(email string, since time.Time) int {
		t.Helper()
		n, err := s.SignInFailures(ctx, email, since)
		if err != nil {
			t.Fatalf("SignInFailures: %v", err)
		}
		return n
	}
	for since, want := range map[time.Duration]int{-time.Hour: 3, 0: 3, time.Minute: 2, 2 * time.Minute: 1, 3 * time.Minute: 0} {
		if got := count("someone@EXAMPLE.com", t0.Add(since)); got != want {
			t.Errorf("SignInFailures(since t0%+v) = %d, want %d", since, got, want)
		}
	}
	if err := s.ClearSignInFailures(ctx, "SomeOne@example.com"); err != nil {
		t.Fatalf("ClearSignInFailures: %v", err)
	}
	if got := count("someone@example.com", t0.Add(-time.Hour)); got != 0 {
		t.Errorf("after ClearSignInFailures: %d failures, want 0", got)
	}
	if got := count("other@example.com", t0.Add(-time.Hour)); got != 1 {
		t.Errorf("another e-mail's failures after ClearSignInFailures: %d, want 1", got)
	}
}

// testPasskeys: a user's passkeys are created (an id once), listed oldest
// first, found by id, used (credential and time stored) and deleted, only
// by their user.
func testPasskeys(t *testing.T, dsn string) {
	ctx := context.Background()
	s := open(t, dsn)
	a, b := mustCreateUser(t, s, "a@example.com"), mustCreateUser(t, s, "b@example.com")
	p1 := &einvoice.Passkey{ID: []byte{1, 2, 3}, UserID: a.ID, Name: "laptop", Credential: []byte(`{"signCount":0}`), CreatedAt: t0}
	p2 := &einvoice.Passkey{ID: []byte{0, 9}, UserID: a.ID, Name: "phone", Credential: []byte(`{"signCount":7}`), CreatedAt: t0.Add(time.Minute)}
	for _, p := range []*einvoice.Passkey{p2, p1} {
		if err := s.CreatePasskey(ctx, p); err != nil {
			t.Fatalf("CreatePasskey(%s): %v", p.Name, err)
		}
	}
	dup := &einvoice.Passkey{ID: []byte{1, 2, 3}, UserID: b.ID, Name: "stolen", Credential: []byte(`{}`), CreatedAt: t0}
	if err := s.CreatePasskey(ctx, dup); !errors.Is(err, einvoice.ErrConflict) {
		t.Errorf("CreatePasskey(known id) = %v, want ErrConflict", err)
	}
	for name, userID := range map[string]string{"unknown user": newID(), "malformed user id": "x"} {
		orphan := &einvoice.Passkey{ID: []byte(name), UserID: userID, Name: "x", Credential: []byte(`{}`), CreatedAt: t0}
		if err := s.CreatePasskey(ctx, orphan); !errors.Is(err, einvoice.ErrNotFound) {
			t.Errorf("CreatePasskey(%s) = %v, want ErrNotFound", name, err)
		}
	}
	got, err := s.Passkeys(ctx, a.ID)
	if err != nil {
		t.Fatalf("Passkeys: %v", err)
	}
	if diff := cmp.Diff([]*einvoice.Passkey{p1, p2}, got); diff != "" {
		t.Errorf("Passkeys (-want +got):\n%s", diff)
	}
	if got, err := s.Passkeys(ctx, b.ID); err != nil || len(got) != 0 {
		t.Errorf("Passkeys(user without) = %v, %v; want none", got, err)
	}
	p, err := s.PasskeyByID(ctx, []byte{1, 2, 3})
	if err != nil {
		t.Fatalf("PasskeyByID: %v", err)
	}
	if diff := cmp.Diff(p1, p); diff != "" {
		t.Errorf("PasskeyByID (-want +got):\n%s", diff)
	}
	if _, err := s.PasskeyByID(ctx, []byte{1, 2}); !errors.Is(err, einvoice.ErrNotFound) {
		t.Errorf("PasskeyByID(unknown) = %v, want ErrNotFound", err)
	}
	at := t0.Add(time.Hour)
	if err := s.UsePasskey(ctx, p1.ID, []byte(`{"signCount":1}`), at); err != nil {
		t.Fatalf("UsePasskey: %v", err)
	}
	p, err = s.PasskeyByID(ctx, p1.ID)
	if err != nil || !bytes.Equal(p.Credential, []byte(`{"signCount":1}`)) || p.LastUsedAt == nil || !p.LastUsedAt.Equal(at) {
		t.Errorf("after UsePasskey: %+v, %v; want the new credential, used at %v", p, err, at)
	}
	if err := s.UsePasskey(ctx, []byte{4}, []byte(`{}`), at); !errors.Is(err, einvoice.ErrNotFound) {
		t.Errorf("UsePasskey(unknown) = %v, want ErrNotFound", err)
	}
	if err := s.DeletePasskey(ctx, b.ID, p1.ID); !errors.Is(err, einvoice.ErrNotFound) {
		t.Errorf("DeletePasskey(another user's) = %v, want ErrNotFound", err)
	}
	if _, err := s.PasskeyByID(ctx, p1.ID); err != nil {
		t.Errorf("the passkey after another user tried to delete it: %v", err)
	}
	if err := s.DeletePasskey(ctx, a.ID, p1.ID); err != nil {
		t.Fatalf("DeletePasskey: %v", err)
	}
	if err := s.DeletePasskey(ctx, a.ID, p1.ID); !errors.Is(err, einvoice.ErrNotFound) {
		t.Errorf("DeletePasskey twice = %v, want ErrNotFound", err)
	}
	if got, err := s.Passkeys(ctx, a.ID); err != nil || len(got) != 1 || !bytes.Equal(got[0].ID, p2.ID) {
		t.Errorf("Passkeys after the deletion = %+v, %v; want the phone's alone", got, err)
	}
}

// testAPIKeyLastUsed: a key's last use is stored and read back.
func testAPIKeyLastUsed(t *testing.T, dsn string) {
	ctx := context.Background()
	s := open(t, dsn)
	tn := mustCreateTenant(t, s, "Last use")
	k := &einvoice.APIKey{ID: newID(), TenantID: tn.ID, Name: "robot", Prefix: "eik_lastused", Hash: einvoice.HashAPIKey("eik_lastused"),
		Permission: einvoice.PermRead, CreatedAt: t0}
	if err := s.CreateAPIKey(ctx, k); err != nil {
		t.Fatal(err)
	}
	if got, err := s.APIKeyByHash(ctx, k.Hash); err != nil || got.LastUsedAt != nil {
		t.Fatalf("a new key = %+v, %v; want it never used", got, err)
	}
	for _, at := range []time.Time{t0.Add(time.Minute), t0.Add(time.Hour)} {
		if err := s.TouchAPIKey(ctx, k.ID, at); err != nil {
			t.Fatalf("TouchAPIKey: %v", err)
		}
		got, err := s.APIKeyByHash(ctx, k.Hash)
		if err != nil || got.LastUsedAt == nil || !got.LastUsedAt.Equal(at) {
			t.Errorf("APIKeyByHash after TouchAPIKey(%v) = %+v, %v", at, got, err)
		}
		keys, err := s.ListAPIKeys(ctx, tn.ID)
		if err != nil || len(keys) != 1 || keys[0].LastUsedAt == nil || !keys[0].LastUsedAt.Equal(at) {
			t.Errorf("ListAPIKeys after TouchAPIKey(%v) = %+v, %v", at, keys, err)
		}
	}
	for _, id := range []string{newID(), "nope"} {
		if err := s.TouchAPIKey(ctx, id, t0); !errors.Is(err, einvoice.ErrNotFound) {
			t.Errorf("TouchAPIKey(%s) = %v, want ErrNotFound", id, err)
		}
	}
}

// testDeleteOldSignInData: failures and one-time links older than the time
// go (links by their expiry); the newer stay.
func testDeleteOldSignInData(t *testing.T, dsn string) {
	ctx := context.Background()
	s := open(t, dsn)
	for _, at := range []time.Time{t0, t0.Add(2 * time.Hour)} {
		if err := s.AddSignInFailure(ctx, "x@example.com", at); err != nil {
			t.Fatal(err)
		}
	}
	for i, expires := range []time.Time{t0.Add(time.Hour), t0.Add(3 * time.Hour)} {
		tok := &einvoice.UserToken{Hash: sessionID(fmt.Sprint("link", i)), Kind: einvoice.TokenReset, Email: "x@example.com", UserID: newID(),
			CreatedBy: "x@example.com", CreatedAt: t0, ExpiresAt: expires}
		if err := s.CreateUserToken(ctx, tok); err != nil {
			t.Fatal(err)
		}
	}
	n, err := s.DeleteOldSignInData(ctx, t0.Add(90*time.Minute))
	if err != nil || n != 2 {
		t.Fatalf("DeleteOldSignInData = %d, %v; want 2 (the old failure, the expired link)", n, err)
	}
	if got, err := s.SignInFailures(ctx, "x@example.com", t0.Add(-time.Hour)); err != nil || got != 1 {
		t.Errorf("failures after the purge = %d, %v; want 1", got, err)
	}
	if _, err := s.UserToken(ctx, sessionID("link1"), t0); err != nil {
		t.Errorf("the live link after the purge: %v", err)
	}
	var links int
	if err := s.DB().QueryRowContext(ctx, `SELECT COUNT(*) FROM user_tokens`).Scan(&links); err != nil || links != 1 {
		t.Errorf("%d links after the purge (%v), want 1", links, err)
	}
	if n, err := s.DeleteOldSignInData(ctx, t0.Add(90*time.Minute)); err != nil || n != 0 {
		t.Errorf("DeleteOldSignInData again = %d, %v; want 0", n, err)
	}
}

// testTOTPStep: a TOTP time step is used once; an earlier one after a later
// one is refused too; concurrent uses of one step, from two stores, pass
// exactly once.
func testTOTPStep(t *testing.T, dsn string) {
	ctx := context.Background()
	s, s2 := open(t, dsn), open(t, dsn)
	u := mustCreateUser(t, s, "steps@example.com")
	for i, c := range []struct {
		step int64
		want bool
	}{{100, true}, {100, false}, {99, false}, {101, true}} {
		if ok, err := s.UseTOTPStep(ctx, u.ID, c.step); err != nil || ok != c.want {
			t.Errorf("use %d: step %d = %v, %v; want %v", i, c.step, ok, err, c.want)
		}
	}
	var wg sync.WaitGroup
	var passed atomic.Int32
	for i := range 8 {
		st := []*sqlstore.Store{s, s2}[i%2]
		wg.Add(1)
		go func() {
			defer wg.Done()
			ok, err := st.UseTOTPStep(ctx, u.ID, 200)
			if err != nil {
				t.Errorf("UseTOTPStep: %v", err)
			}
			if ok {
				passed.Add(1)
			}
		}()
	}
	wg.Wait()
	if passed.Load() != 1 {
		t.Errorf("%d concurrent uses of one step passed, want 1", passed.Load())
	}
}
