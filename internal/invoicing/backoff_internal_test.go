package invoicing

import (
	"testing"
	"time"
)

// TestBackoff: exponential from 2 s with jitter (half to all of it), capped
// at 5 minutes, never before the authority's Retry-After.
func TestBackoff(t *testing.T) {
	for _, tc := range []struct {
		attempts   int
		retryAfter time.Duration
		lo, hi     time.Duration
	}{
		{attempts: 0, lo: time.Second, hi: 2 * time.Second},
		{attempts: 1, lo: time.Second, hi: 2 * time.Second},
		{attempts: 2, lo: 2 * time.Second, hi: 4 * time.Second},
		{attempts: 5, lo: 16 * time.Second, hi: 32 * time.Second},
		{attempts: 9, lo: 150 * time.Second, hi: 5 * time.Minute},
		{attempts: 50, lo: 150 * time.Second, hi: 5 * time.Minute},
		{attempts: 1, retryAfter: time.Minute, lo: time.Minute, hi: time.Minute},
		{attempts: 50, retryAfter: 10 * time.Minute, lo: 10 * time.Minute, hi: 10 * time.Minute},
	} {
		for range 200 {
			if d := backoff(tc.attempts, tc.retryAfter); d < tc.lo || d > tc.hi {
				t.Fatalf("backoff(%d, %v) = %v, want %v to %v", tc.attempts, tc.retryAfter, d, tc.lo, tc.hi)
			}
		}
	}
}
