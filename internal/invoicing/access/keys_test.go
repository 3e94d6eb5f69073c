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

func TestBootstrapOnce(t *testing.T) {
	ctx := context.Background()
	svc, _, _ := newService(t, 0)
	tn, key, err := svc.Bootstrap(ctx)
	if err != nil || tn == nil || key == "" {
		t.Fatalf("first Bootstrap = %v, %q, %v", tn, key, err)
	}
	if _, err := svc.Authenticate(ctx, "Bearer "+key); err != nil {
		t.Errorf("demo key: %v", err)
	}
	if tn.Authority.Environment != einvoice.EnvSandbox || tn.Authority.ClientID == "" || tn.Authority.ClientSecret == "" {
		t.Errorf("demo tenant authority = %+v, want sandbox with generated credentials", tn.Authority)
	}
	if tn2, key2, err := svc.Bootstrap(ctx); err != nil || tn2 != nil || key2 != "" {
		t.Errorf("second Bootstrap = %v, %q, %v; want nothing", tn2, key2, err)
	}
}
