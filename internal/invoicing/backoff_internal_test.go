package invoicing

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/einvoice/einvoice/internal/einvoice"
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

// TestRetryAttemptsFollowTheAuthority: after a failure of the authority the
// backoff grows with its failures in a row, not with the document's own
// attempts, so a document unlucky among successes is tried again within
// seconds, while an outage still backs every document off to the cap.
func TestRetryAttemptsFollowTheAuthority(t *testing.T) {
	s := &Service{}
	job := &einvoice.Job{Attempts: 6}
	fail := &einvoice.CallError{Status: 500}
	throttled := &einvoice.CallError{Status: 429}
	ours := &einvoice.CallError{Status: 429, NotSent: true} // our own rate budget
	refused := &einvoice.CallError{Status: 400}

	s.submitStreak.Store(1)
	if n := s.retryAttempts(job, fail); n != 1 {
		t.Fatalf("one failure in a row after successes: attempts %d, want 1", n)
	}
	if n := s.retryAttempts(job, throttled); n != 1 {
		t.Fatalf("a throttle after successes: attempts %d, want 1", n)
	}
	if n := s.retryAttempts(job, ours); n != 6 {
		t.Fatalf("held back by our own budget: attempts %d, want the job's 6", n)
	}
	if n := s.retryAttempts(job, refused); n != 6 {
		t.Fatalf("a refusal: attempts %d, want the job's 6", n)
	}
	if n := s.retryAttempts(job, errors.New("no call")); n != 6 {
		t.Fatalf("a failure before any call: attempts %d, want the job's 6", n)
	}
	s.submitStreak.Store(40) // an outage
	if n := s.retryAttempts(job, fail); n != 6 {
		t.Fatalf("an outage: attempts %d, want the job's 6", n)
	}
	s.submitStreak.Store(0)
	if n := s.retryAttempts(job, fmt.Errorf("wrapped: %w", fail)); n != 1 {
		t.Fatalf("no streak recorded: attempts %d, want 1", n)
	}
}
