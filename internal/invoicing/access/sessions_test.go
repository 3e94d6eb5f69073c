package access_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/einvoice/einvoice/internal/einvoice"
	"github.com/einvoice/einvoice/internal/invoicing/access"
)

// TestSessions: a key's name; sign-in with a key; a session's idle and
// absolute expiry; sign-out; a revoked key ends its sessions at once (no
// cache in between).
func TestSessions(t *testing.T) {
	ctx := context.Background()
	svc, store, now := newService(t, time.Minute)
	tn, err := svc.CreateTenant(ctx, einvoice.DemoProfile())
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{strings.Repeat("a", 101), "Ais\nyah", "bad \xff"} {
		if _, _, err := svc.CreateNamedAPIKey(ctx, tn.ID, name, einvoice.PermRead); einvoice.ErrorCode(err) != einvoice.CodeValidationFailed {
			t.Errorf("CreateNamedAPIKey(%q) = %v, want VALIDATION_FAILED", name, err)
		}
	}
	k, key, err := svc.CreateNamedAPIKey(ctx, tn.ID, "  Aisyah  ", einvoice.PermReadWrite)
	if err != nil || k.Name != "Aisyah" {
		t.Fatalf("CreateNamedAPIKey = %+v, %v", k, err)
	}
	if _, _, err := svc.SignIn(ctx, key+"x"); einvoice.ErrorCode(err) != einvoice.CodeUnauthorized {
		t.Errorf("SignIn(wrong key) = %v, want UNAUTHORIZED", err)
	}
	session := func(token string) error {
		_, _, err := svc.Session(ctx, token)
		return err
	}
	token, _, err := svc.SignIn(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	se, got, err := svc.Session(ctx, token)
	if err != nil || got.Name != "Aisyah" || se.TenantID != tn.ID {
		t.Fatalf("Session = %+v %+v %v", se, got, err)
	}
	for _, bad := range []string{"", token + "x", strings.Repeat("x", 500)} {
		if err := session(bad); einvoice.ErrorCode(err) != einvoice.CodeUnauthorized {
			t.Errorf("Session(%.10q) = %v, want UNAUTHORIZED", bad, err)
		}
	}
	// Idle: used every 90 minutes it lasts; 2 hours unused, it ends.
	for range 3 {
		*now = now.Add(90 * time.Minute)
		if err := session(token); err != nil {
			t.Fatalf("after 90 minutes: %v", err)
		}
	}
	*now = now.Add(access.SessionIdle)
	if err := session(token); einvoice.ErrorCode(err) != einvoice.CodeUnauthorized {
		t.Errorf("after the idle timeout: %v, want UNAUTHORIZED", err)
	}
	// Absolute: used every hour, it still ends after its lifetime.
	token, _, _ = svc.SignIn(ctx, key)
	for i := 1; i <= 13; i++ {
		*now = now.Add(time.Hour)
		err := session(token)
		if alive := time.Duration(i)*time.Hour < access.SessionLifetime; alive != (err == nil) {
			t.Errorf("after %d busy hours: %v", i, err)
		}
	}
	// Sign-out, twice.
	token, _, _ = svc.SignIn(ctx, key)
	if err := svc.SignOut(ctx, token); err != nil {
		t.Fatal(err)
	}
	if err := svc.SignOut(ctx, token); err != nil {
		t.Errorf("SignOut twice: %v", err)
	}
	if err := session(token); einvoice.ErrorCode(err) != einvoice.CodeUnauthorized {
		t.Errorf("after sign-out: %v, want UNAUTHORIZED", err)
	}
	// The key revoked: its session ends at once, though the key cache
	// would still trust it for a minute.
	token, _, _ = svc.SignIn(ctx, key)
	if err := store.RevokeAPIKey(ctx, k.ID, *now); err != nil {
		t.Fatal(err)
	}
	if err := session(token); einvoice.ErrorCode(err) != einvoice.CodeUnauthorized {
		t.Errorf("after the key was revoked: %v, want UNAUTHORIZED", err)
	}
	if n, err := svc.PurgeSessions(ctx); err != nil || n == 0 {
		t.Errorf("PurgeSessions = %d, %v; want the ended sessions gone", n, err)
	}
}
