package sqlstore_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/einvoice/einvoice/internal/einvoice"
	"github.com/einvoice/einvoice/internal/sqlstore"
)

// TestIdempotencyStore: the store's side of idempotency keys on both
// engines: one claim wins a key, even among concurrent claims (on
// PostgreSQL from two stores on one database: replicas; SQLite runs as one
// process, which holds its claims); a kept response is read back whole,
// from the other store too; a release frees the key; an unfinished claim is
// taken over after its lease, a finished one only after it expires; only
// the claim's token completes or releases; keys are per tenant; expired
// keys are purged.
func TestIdempotencyStore(t *testing.T) {
	t.Parallel()
	for _, e := range schemaEngines {
		t.Run(e.name, func(t *testing.T) {
			dsn := e.dsn(t)
			s, replica := open(t, dsn), open(t, dsn)
			ctx := context.Background()
			now := time.Now().UTC().Truncate(time.Microsecond)
			claim := func(tenant, key, fp, token string, at time.Time) einvoice.IdempotencyClaim {
				return einvoice.IdempotencyClaim{TenantID: tenant, Key: key, Fingerprint: fp, Token: token,
					LeaseUntil: at.Add(time.Minute), ExpiresAt: at.Add(24 * time.Hour)}
			}

			// Concurrent claims of one key, on two stores: one wins.
			var wg sync.WaitGroup
			var mu sync.Mutex
			won := []string{}
			for i := range 20 {
				st := s
				if i%2 == 1 && e.name == "postgres" {
					st = replica
				}
				token := "t" + string(rune('a'+i))
				wg.Go(func() {
					rec, err := st.ClaimIdempotencyKey(ctx, claim("A", "k1", "fp1", token, now), now)
					if err != nil {
						t.Error(err)
						return
					}
					if rec == nil {
						mu.Lock()
						won = append(won, token)
						mu.Unlock()
					} else if rec.Response != nil || rec.Fingerprint != "fp1" {
						t.Errorf("holder's record = %+v, want the unfinished claim of fp1", rec)
					}
				})
			}
			wg.Wait()
			if len(won) != 1 {
				t.Fatalf("%d claims won the key (%v), want 1", len(won), won)
			}
			holder := won[0]

			// Another token cannot complete it; the holder can.
			resp := einvoice.IdempotentResponse{Status: 201, Header: map[string]string{"Content-Type": "application/json"},
				Body: []byte(`{"success":true,"data":{"id":"x"}}`)}
			if err := s.CompleteIdempotencyKey(ctx, "A", "k1", "intruder", einvoice.IdempotentResponse{Status: 500}); err != nil {
				t.Fatal(err)
			}
			if err := s.CompleteIdempotencyKey(ctx, "A", "k1", holder, resp); err != nil {
				t.Fatal(err)
			}
			// Replayed by the store that kept it (on SQLite from memory
			// while it is written) and, on PostgreSQL, by the other; on
			// SQLite by a store opened after the first one closed (below).
			stores := []*sqlstore.Store{s, replica}
			if e.name == "sqlite" {
				stores = stores[:1]
			}
			for _, st := range stores {
				rec, err := st.ClaimIdempotencyKey(ctx, claim("A", "k1", "fp1", "late", now), now)
				if err != nil || rec == nil || rec.Response == nil {
					t.Fatalf("claim of a finished key = %+v, %v; want its kept response", rec, err)
				}
				if diff := cmp.Diff(&resp, rec.Response); diff != "" {
					t.Errorf("kept response (-want +got):\n%s", diff)
				}
			}
			// Finished: not taken over after the lease, only once expired.
			if rec, _ := s.ClaimIdempotencyKey(ctx, claim("A", "k1", "fp2", "later", now.Add(2*time.Minute)), now.Add(2*time.Minute)); rec == nil {
				t.Error("a finished key was taken over before it expired")
			}
			at := now.Add(24*time.Hour + time.Second)
			if rec, err := s.ClaimIdempotencyKey(ctx, claim("A", "k1", "fp2", "next-day", at), at); rec != nil || err != nil {
				t.Errorf("claim of an expired key = %+v, %v; want it taken", rec, err)
			}

			// Per tenant: B's k1 is its own.
			if rec, err := s.ClaimIdempotencyKey(ctx, claim("B", "k1", "fp1", "b1", now), now); rec != nil || err != nil {
				t.Errorf("tenant B's claim = %+v, %v; want it taken", rec, err)
			}

			// An unfinished claim: released by its token only; taken over
			// after its lease.
			if rec, _ := s.ClaimIdempotencyKey(ctx, claim("A", "k2", "fp", "first", now), now); rec != nil {
				t.Fatal("k2 not claimed")
			}
			if err := s.ReleaseIdempotencyKey(ctx, "A", "k2", "intruder"); err != nil {
				t.Fatal(err)
			}
			if rec, _ := s.ClaimIdempotencyKey(ctx, claim("A", "k2", "fp", "second", now), now); rec == nil {
				t.Error("k2 was freed by another token")
			}
			leaseEnd := now.Add(time.Minute)
			if rec, _ := s.ClaimIdempotencyKey(ctx, claim("A", "k2", "fp", "third", leaseEnd), leaseEnd); rec != nil {
				t.Error("k2 not taken over once its lease ended")
			}
			if err := s.ReleaseIdempotencyKey(ctx, "A", "k2", "third"); err != nil {
				t.Fatal(err)
			}
			if rec, _ := s.ClaimIdempotencyKey(ctx, claim("A", "k2", "fp", "fourth", now), now); rec != nil {
				t.Error("k2 not free after its release")
			}

			// Purge: what expired by then, nothing else. (SQLite writes a
			// kept response after the answer: wait for it.)
			for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
				var n int
				if err := s.DB().QueryRow(`SELECT count(*) FROM idempotency_keys WHERE key = 'k1' AND status > 0`).Scan(&n); err != nil {
					t.Fatal(err)
				}
				if n > 0 {
					break
				}
			}
			n, err := s.PurgeIdempotencyKeys(ctx, now.Add(24*time.Hour))
			if err != nil {
				t.Fatal(err)
			}
			// PostgreSQL: the claims of B's k1 and A's k2 (A's k1 was
			// taken over, to expire a day later); SQLite, whose table holds
			// only kept responses: A's first k1.
			want := map[string]int64{"postgres": 2, "sqlite": 1}[e.name]
			if n != want {
				t.Errorf("purged %d keys, want %d", n, want)
			}

			// SQLite: what a closed store kept is read by the next one.
			if e.name == "sqlite" {
				if err := s.CompleteIdempotencyKey(ctx, "A", "k1", "next-day", resp); err != nil {
					t.Fatal(err)
				}
				s.Close()
				rec, err := open(t, dsn).ClaimIdempotencyKey(ctx, claim("A", "k1", "fp2", "after", at), at)
				if err != nil || rec == nil || rec.Response == nil || rec.Fingerprint != "fp2" {
					t.Fatalf("after a restart, claim of a finished key = %+v, %v; want its kept response", rec, err)
				}
			}
		})
	}
}
