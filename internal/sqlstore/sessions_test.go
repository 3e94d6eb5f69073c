package sqlstore_test

import (
	"context"
	"crypto/sha256"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/einvoice/einvoice/internal/einvoice"
	"github.com/einvoice/einvoice/internal/sqlstore"
)

// sessionID is the stored id of a session token.
func sessionID(token string) []byte { sum := sha256.Sum256([]byte(token)); return sum[:] }

// mustCreateSession inserts a live session of the user in the tenant.
func mustCreateSession(t *testing.T, s *sqlstore.Store, token, userID, tenantID string) *einvoice.Session {
	t.Helper()
	se := &einvoice.Session{ID: sessionID(token), UserID: userID, TenantID: tenantID, Stage: einvoice.StageFull,
		CreatedAt: t0, ExpiresAt: t0.Add(10 * time.Hour)}
	if err := s.CreateSession(context.Background(), se); err != nil {
		t.Fatalf("CreateSession(%s): %v", token, err)
	}
	return se
}

// revoked reports whether the session of the token is revoked (a test
// failure when it is gone).
func revoked(t *testing.T, s *sqlstore.Store, token string) bool {
	t.Helper()
	su, err := s.SessionByID(context.Background(), sessionID(token))
	if err != nil {
		t.Fatalf("SessionByID(%s): %v", token, err)
	}
	return su.Session.Revoked
}

// testSessions: a session is a user's in one tenant; it is read with its
// user, the user's role in the session's tenant as it is now ("" once the
// membership is gone) and the tenant's name; it is touched, moved to
// another tenant, revoked (one, or all of a user's but one), and purged
// when expired or revoked. A session of a missing user or tenant is
// refused.
func testSessions(t *testing.T, dsn string) {
	ctx := context.Background()
	s := open(t, dsn)
	home := mustCreateTenant(t, s, "Sessions Sdn. Bhd.")
	other := mustCreateTenant(t, s, "Other Sdn. Bhd.")
	u := mustCreateUser(t, s, "Aisyah@Example.com")
	v := mustCreateUser(t, s, "someone.else@example.com")
	mustPutMembership(t, s, home.ID, u.ID, einvoice.RoleOwner)
	mustPutMembership(t, s, other.ID, u.ID, einvoice.RoleViewer)
	mustPutMembership(t, s, home.ID, v.ID, einvoice.RoleAccountant)

	se := &einvoice.Session{ID: sessionID("one"), UserID: u.ID, TenantID: home.ID, Stage: einvoice.StageSecondFactor,
		CreatedAt: t0, ExpiresAt: t0.Add(time.Hour)}
	if err := s.CreateSession(ctx, se); err != nil {
		t.Fatalf("CreateSession: %v", err)
	}
	got, err := s.SessionByID(ctx, se.ID)
	if err != nil {
		t.Fatalf("SessionByID: %v", err)
	}
	want := &einvoice.SessionUser{Session: se, User: u, Role: einvoice.RoleOwner, TenantName: "Sessions Sdn. Bhd."}
	if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("SessionByID (-want +got):\n%s", diff)
	}
	if _, err := s.SessionByID(ctx, sessionID("unknown")); !errors.Is(err, einvoice.ErrNotFound) {
		t.Errorf("SessionByID(unknown) = %v, want ErrNotFound", err)
	}
	for name, orphan := range map[string]*einvoice.Session{
		"unknown user":   {ID: sessionID("orphan-user"), UserID: newID(), TenantID: home.ID, Stage: einvoice.StageFull, CreatedAt: t0, ExpiresAt: t0.Add(time.Hour)},
		"unknown tenant": {ID: sessionID("orphan-tenant"), UserID: u.ID, TenantID: newID(), Stage: einvoice.StageFull, CreatedAt: t0, ExpiresAt: t0.Add(time.Hour)},
		"malformed ids":  {ID: sessionID("orphan-ids"), UserID: "x", TenantID: "y", Stage: einvoice.StageFull, CreatedAt: t0, ExpiresAt: t0.Add(time.Hour)},
	} {
		if err := s.CreateSession(ctx, orphan); !errors.Is(err, einvoice.ErrNotFound) {
			t.Errorf("CreateSession(%s) = %v, want ErrNotFound", name, err)
		}
	}

	// Touched: the expiry moves.
	if err := s.TouchSession(ctx, se.ID, t0.Add(2*time.Hour)); err != nil {
		t.Fatalf("TouchSession: %v", err)
	}
	if got, _ := s.SessionByID(ctx, se.ID); got == nil || !got.Session.ExpiresAt.Equal(t0.Add(2*time.Hour)) {
		t.Errorf("after TouchSession: %+v, want it to expire at %v", got, t0.Add(2*time.Hour))
	}
	if err := s.TouchSession(ctx, sessionID("unknown"), t0); !errors.Is(err, einvoice.ErrNotFound) {
		t.Errorf("TouchSession(unknown) = %v, want ErrNotFound", err)
	}

	// Moved to another tenant of the user: the role and name are that
	// tenant's.
	if err := s.SetSessionTenant(ctx, se.ID, other.ID); err != nil {
		t.Fatalf("SetSessionTenant: %v", err)
	}
	got, err = s.SessionByID(ctx, se.ID)
	if err != nil || got.Session.TenantID != other.ID || got.Role != einvoice.RoleViewer || got.TenantName != "Other Sdn. Bhd." {
		t.Errorf("after SetSessionTenant: %+v, %v; want tenant %s, viewer, Other Sdn. Bhd.", got, err, other.ID)
	}
	for name, tenantID := range map[string]string{"unknown tenant": newID(), "malformed id": "nope"} {
		if err := s.SetSessionTenant(ctx, se.ID, tenantID); !errors.Is(err, einvoice.ErrNotFound) {
			t.Errorf("SetSessionTenant(%s) = %v, want ErrNotFound", name, err)
		}
	}
	if err := s.SetSessionTenant(ctx, sessionID("unknown"), home.ID); !errors.Is(err, einvoice.ErrNotFound) {
		t.Errorf("SetSessionTenant(unknown session) = %v, want ErrNotFound", err)
	}

	// The user leaves the session's tenant: no role there any more (and
	// the session ends with it).
	if err := s.RemoveMembership(ctx, other.ID, u.ID); err != nil {
		t.Fatalf("RemoveMembership: %v", err)
	}
	got, err = s.SessionByID(ctx, se.ID)
	if err != nil || got.Role != "" || got.TenantName != "Other Sdn. Bhd." || !got.Session.Revoked {
		t.Errorf("after the user left the tenant: %+v, %v; want no role, the tenant's name, revoked", got, err)
	}
	if err := s.SetSessionTenant(ctx, se.ID, home.ID); !errors.Is(err, einvoice.ErrNotFound) {
		t.Errorf("SetSessionTenant(revoked) = %v, want ErrNotFound", err)
	}
	if err := s.TouchSession(ctx, se.ID, t0.Add(5*time.Hour)); !errors.Is(err, einvoice.ErrNotFound) {
		t.Errorf("TouchSession(revoked) = %v, want ErrNotFound", err)
	}

	// RevokeSession ends one session; RevokeUserSessions every one of a
	// user but the one kept, and none of another user.
	for _, token := range []string{"a", "b", "c"} {
		mustCreateSession(t, s, token, u.ID, home.ID)
	}
	mustCreateSession(t, s, "v", v.ID, home.ID)
	if err := s.RevokeSession(ctx, sessionID("a")); err != nil {
		t.Fatalf("RevokeSession: %v", err)
	}
	if !revoked(t, s, "a") || revoked(t, s, "b") {
		t.Error("RevokeSession(a) did not revoke a alone")
	}
	if err := s.RevokeSession(ctx, sessionID("unknown")); !errors.Is(err, einvoice.ErrNotFound) {
		t.Errorf("RevokeSession(unknown) = %v, want ErrNotFound", err)
	}
	mustCreateSession(t, s, "d", u.ID, home.ID)
	if err := s.RevokeUserSessions(ctx, u.ID, sessionID("c")); err != nil {
		t.Fatalf("RevokeUserSessions(keep c): %v", err)
	}
	for token, want := range map[string]bool{"b": true, "c": false, "d": true, "v": false} {
		if got := revoked(t, s, token); got != want {
			t.Errorf("after RevokeUserSessions(keep c): session %s revoked = %v, want %v", token, got, want)
		}
	}
	if err := s.RevokeUserSessions(ctx, u.ID, nil); err != nil {
		t.Fatalf("RevokeUserSessions(nil): %v", err)
	}
	if !revoked(t, s, "c") || revoked(t, s, "v") {
		t.Error("RevokeUserSessions(nil) did not end every session of the user, and only them")
	}
	if err := s.RevokeUserSessions(ctx, "nope", nil); err != nil {
		t.Errorf("RevokeUserSessions(malformed id) = %v, want nil", err)
	}

	// The purge: revoked or expired sessions go, live ones stay.
	expired := &einvoice.Session{ID: sessionID("expired"), UserID: v.ID, TenantID: home.ID, Stage: einvoice.StageFull,
		CreatedAt: t0, ExpiresAt: t0.Add(time.Minute)}
	if err := s.CreateSession(ctx, expired); err != nil {
		t.Fatal(err)
	}
	n, err := s.DeleteExpiredSessions(ctx, t0.Add(time.Hour))
	// one, a, b, c, d (revoked) and expired.
	if err != nil || n != 6 {
		t.Fatalf("DeleteExpiredSessions = %d, %v; want 6 (the revoked and the expired)", n, err)
	}
	if _, err := s.SessionByID(ctx, sessionID("v")); err != nil {
		t.Errorf("the live session after the purge: %v", err)
	}
	for _, token := range []string{"one", "a", "c", "expired"} {
		if _, err := s.SessionByID(ctx, sessionID(token)); !errors.Is(err, einvoice.ErrNotFound) {
			t.Errorf("session %s after the purge: %v, want ErrNotFound", token, err)
		}
	}
}
