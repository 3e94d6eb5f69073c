package sqlstore_test

import (
	"context"
	"crypto/sha256"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/einvoice/einvoice/internal/einvoice"
)

// testSessions: the dashboard's sessions are found by id with their key as
// it is now (revoked or not), touched, revoked, and purged when expired or
// revoked; a session of a missing key is refused.
func testSessions(t *testing.T, dsn string) {
	ctx := context.Background()
	s := open(t, dsn)
	tn := mustCreateTenant(t, s, "Sessions")
	k := &einvoice.APIKey{ID: newID(), TenantID: tn.ID, Name: "Aisyah", Prefix: "eik_sessions", Hash: einvoice.HashAPIKey("eik_sessions"),
		Permission: einvoice.PermReadWrite, CreatedAt: t0}
	if err := s.CreateAPIKey(ctx, k); err != nil {
		t.Fatal(err)
	}
	id := func(token string) []byte { sum := sha256.Sum256([]byte(token)); return sum[:] }
	se := &einvoice.Session{ID: id("one"), TenantID: tn.ID, KeyID: k.ID, CreatedAt: t0, ExpiresAt: t0.Add(time.Hour)}
	if err := s.CreateSession(ctx, se); err != nil {
		t.Fatalf("CreateSession: %v", err)
	}
	got, gotKey, err := s.SessionByID(ctx, se.ID)
	if err != nil {
		t.Fatalf("SessionByID: %v", err)
	}
	if diff := cmp.Diff(se, got); diff != "" {
		t.Errorf("SessionByID (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(k, gotKey); diff != "" {
		t.Errorf("SessionByID's key (-want +got):\n%s", diff)
	}
	if _, _, err := s.SessionByID(ctx, id("unknown")); !errors.Is(err, einvoice.ErrNotFound) {
		t.Errorf("SessionByID(unknown) = %v, want ErrNotFound", err)
	}
	orphan := &einvoice.Session{ID: id("orphan"), TenantID: tn.ID, KeyID: newID(), CreatedAt: t0, ExpiresAt: t0.Add(time.Hour)}
	if err := s.CreateSession(ctx, orphan); !errors.Is(err, einvoice.ErrNotFound) {
		t.Errorf("CreateSession(unknown key) = %v, want ErrNotFound", err)
	}

	if err := s.TouchSession(ctx, se.ID, t0.Add(2*time.Hour)); err != nil {
		t.Fatalf("TouchSession: %v", err)
	}
	if got, _, _ := s.SessionByID(ctx, se.ID); !got.ExpiresAt.Equal(t0.Add(2 * time.Hour)) {
		t.Errorf("after TouchSession expires %v, want %v", got.ExpiresAt, t0.Add(2*time.Hour))
	}
	if err := s.RevokeAPIKey(ctx, k.ID, t0.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if _, key, _ := s.SessionByID(ctx, se.ID); key.RevokedAt == nil {
		t.Error("SessionByID after its key was revoked: the key is not revoked")
	}

	other := &einvoice.Session{ID: id("two"), TenantID: tn.ID, KeyID: k.ID, CreatedAt: t0, ExpiresAt: t0.Add(10 * time.Hour)}
	expired := &einvoice.Session{ID: id("three"), TenantID: tn.ID, KeyID: k.ID, CreatedAt: t0, ExpiresAt: t0.Add(time.Minute)}
	for _, x := range []*einvoice.Session{other, expired} {
		if err := s.CreateSession(ctx, x); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.RevokeSession(ctx, se.ID); err != nil {
		t.Fatalf("RevokeSession: %v", err)
	}
	if got, _, _ := s.SessionByID(ctx, se.ID); !got.Revoked {
		t.Error("after RevokeSession: not revoked")
	}
	if err := s.TouchSession(ctx, se.ID, t0.Add(5*time.Hour)); !errors.Is(err, einvoice.ErrNotFound) {
		t.Errorf("TouchSession(revoked) = %v, want ErrNotFound", err)
	}
	if err := s.RevokeSession(ctx, id("unknown")); !errors.Is(err, einvoice.ErrNotFound) {
		t.Errorf("RevokeSession(unknown) = %v, want ErrNotFound", err)
	}
	n, err := s.DeleteExpiredSessions(ctx, t0.Add(time.Hour))
	if err != nil || n != 2 {
		t.Fatalf("DeleteExpiredSessions = %d, %v; want 2 (the revoked and the expired)", n, err)
	}
	if _, _, err := s.SessionByID(ctx, other.ID); err != nil {
		t.Errorf("the live session after the purge: %v", err)
	}
}
