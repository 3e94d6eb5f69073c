package access_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/einvoice/einvoice/internal/einvoice"
	"github.com/einvoice/einvoice/internal/invoicing/access"
	"github.com/einvoice/einvoice/internal/secretbox"
	"github.com/einvoice/einvoice/internal/sqlstore"
)

// newService returns a service on a fresh SQLite file, its store, and its
// clock; keyCacheTTL as the service's KeyCacheTTL.
func newService(t *testing.T, keyCacheTTL time.Duration) (*access.Service, *sqlstore.Store, *time.Time) {
	t.Helper()
	box, _ := secretbox.New(make([]byte, secretbox.KeySize))
	store, err := sqlstore.Open(context.Background(), filepath.Join(t.TempDir(), "e.db"), box)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	if err := store.Migrate(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 22, 8, 0, 0, 0, time.UTC)
	svc := access.New(access.Options{Store: store, Now: func() time.Time { return now },
		NewID: func() string { return uuid.Must(uuid.NewV7()).String() }, KeyCacheTTL: keyCacheTTL})
	return svc, store, &now
}

func TestAuthenticate(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	svc, store, now := newService(t, 5*time.Second)
	tn, err := svc.CreateTenant(ctx, einvoice.DemoProfile())
	if err != nil {
		t.Fatal(err)
	}
	k, key, err := svc.CreateAPIKey(ctx, tn.ID, einvoice.PermRead)
	if err != nil {
		t.Fatal(err)
	}
	for _, header := range []string{"", "Bearer", "Bearer ", "Basic " + key, "Bearer x" + key, "Bearer " + key + "x", "Token " + key} {
		if _, err := svc.Authenticate(ctx, header); einvoice.ErrorCode(err) != einvoice.CodeUnauthorized {
			t.Errorf("Authenticate(%q) error = %v, want UNAUTHORIZED", header, err)
		}
	}
	got, err := svc.Authenticate(ctx, "bearer  "+key)
	if err != nil || got.ID != k.ID || got.Permission != einvoice.PermRead {
		t.Fatalf("Authenticate = %+v, %v", got, err)
	}
	// Revoked: still trusted from the cache until the TTL passes, then refused.
	if err := store.RevokeAPIKey(ctx, k.ID, *now); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Authenticate(ctx, "Bearer "+key); err != nil {
		t.Errorf("within the cache TTL: %v, want the cached key", err)
	}
	*now = now.Add(5 * time.Second)
	if _, err := svc.Authenticate(ctx, "Bearer "+key); einvoice.ErrorCode(err) != einvoice.CodeUnauthorized {
		t.Errorf("after the cache TTL: %v, want UNAUTHORIZED", err)
	}
	if _, _, err := svc.CreateAPIKey(ctx, uuid.NewString(), einvoice.PermRead); einvoice.ErrorCode(err) != einvoice.CodeNotFound {
		t.Errorf("CreateAPIKey(unknown tenant) = %v, want NOT_FOUND", err)
	}
}

// TestAuthenticateRecordsLastUse: a key's last use is stored when it
// authenticates, at most once a minute (a write a minute, not one a
// request).
func TestAuthenticateRecordsLastUse(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	svc, store, now := newService(t, 0)
	tn, err := svc.CreateTenant(ctx, einvoice.DemoProfile())
	if err != nil {
		t.Fatal(err)
	}
	k, key, err := svc.CreateAPIKey(ctx, tn.ID, einvoice.PermReadWrite)
	if err != nil {
		t.Fatal(err)
	}
	lastUsed := func() *time.Time {
		t.Helper()
		got, err := store.APIKeyByHash(ctx, k.Hash)
		if err != nil {
			t.Fatal(err)
		}
		return got.LastUsedAt
	}
	if at := lastUsed(); at != nil {
		t.Fatalf("a new key was last used at %v, want never", at)
	}
	first := *now
	for _, step := range []time.Duration{0, 30 * time.Second, 29 * time.Second} {
		*now = now.Add(step)
		got, err := svc.Authenticate(ctx, "Bearer "+key)
		if err != nil {
			t.Fatalf("Authenticate: %v", err)
		}
		if got.LastUsedAt == nil || !got.LastUsedAt.Equal(first) {
			t.Errorf("Authenticate at %v: the key's LastUsedAt = %v, want %v", *now, got.LastUsedAt, first)
		}
		if at := lastUsed(); at == nil || !at.Equal(first) {
			t.Errorf("Authenticate at %v: stored last use %v, want %v (at most a write a minute)", *now, at, first)
		}
	}
	*now = first.Add(time.Minute)
	if _, err := svc.Authenticate(ctx, "Bearer "+key); err != nil {
		t.Fatal(err)
	}
	if at := lastUsed(); at == nil || !at.Equal(*now) {
		t.Errorf("a minute after the recorded use: stored last use %v, want %v", at, *now)
	}
	// A failed authentication records nothing.
	*now = now.Add(time.Hour)
	if _, err := svc.Authenticate(ctx, "Bearer "+key+"x"); einvoice.ErrorCode(err) != einvoice.CodeUnauthorized {
		t.Fatalf("Authenticate(wrong key) = %v", err)
	}
	if at := lastUsed(); at == nil || !at.Equal(first.Add(time.Minute)) {
		t.Errorf("after a failed authentication: stored last use %v, want %v", at, first.Add(time.Minute))
	}
}
