package sqlstore_test

import (
	"errors"
	"testing"
	"time"

	"github.com/einvoice/einvoice/internal/einvoice"
)

// TestPasskeyChallenges: a passkey ceremony is taken once, never after it
// expires, and housekeeping removes the expired ones; on every engine.
func TestPasskeyChallenges(t *testing.T) {
	t.Parallel()
	for _, e := range schemaEngines {
		t.Run(e.name, func(t *testing.T) {
			t.Parallel()
			s := open(t, e.dsn(t))
			ctx := t.Context()
			now := time.Date(2026, 11, 28, 3, 0, 0, 0, time.UTC)
			put := func(hash string, userID string, expires time.Time) {
				t.Helper()
				c := &einvoice.PasskeyChallenge{Hash: []byte(hash), UserID: userID, Data: []byte(`{"challenge":"` + hash + `"}`), ExpiresAt: expires}
				if err := s.CreatePasskeyChallenge(ctx, c); err != nil {
					t.Fatalf("CreatePasskeyChallenge(%s): %v", hash, err)
				}
			}
			put("live", "", now.Add(5*time.Minute))
			put("registration", "01890000-0000-7000-8000-000000000001", now.Add(5*time.Minute))
			put("expired", "", now.Add(-time.Second))
			put("old", "", now.Add(-2*time.Hour))

			c, err := s.TakePasskeyChallenge(ctx, []byte("live"), now)
			if err != nil || c.UserID != "" || string(c.Data) != `{"challenge":"live"}` || !c.ExpiresAt.Equal(now.Add(5*time.Minute)) {
				t.Fatalf("TakePasskeyChallenge(live) = %+v, %v", c, err)
			}
			if _, err := s.TakePasskeyChallenge(ctx, []byte("live"), now); !errors.Is(err, einvoice.ErrNotFound) {
				t.Errorf("TakePasskeyChallenge(live) again: %v, want ErrNotFound", err)
			}
			if c, err := s.TakePasskeyChallenge(ctx, []byte("registration"), now); err != nil || c.UserID != "01890000-0000-7000-8000-000000000001" {
				t.Errorf("TakePasskeyChallenge(registration) = %+v, %v", c, err)
			}
			for _, h := range []string{"expired", "unknown"} {
				if _, err := s.TakePasskeyChallenge(ctx, []byte(h), now); !errors.Is(err, einvoice.ErrNotFound) {
					t.Errorf("TakePasskeyChallenge(%s): %v, want ErrNotFound", h, err)
				}
			}
			if n, err := s.DeleteOldSignInData(ctx, now.Add(-time.Hour)); err != nil || n != 1 {
				t.Errorf("DeleteOldSignInData = %d, %v; want the old ceremony removed", n, err)
			}
			if _, err := s.TakePasskeyChallenge(ctx, []byte("old"), now.Add(-3*time.Hour)); !errors.Is(err, einvoice.ErrNotFound) {
				t.Errorf("TakePasskeyChallenge(old) after housekeeping: %v, want ErrNotFound", err)
			}
		})
	}
}
