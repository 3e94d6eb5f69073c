package webhooks

import (
	"testing"
	"time"
)

// TestRetryDelay: the first retry comes within the base (5 s by default,
// so within 10 s), each later one after about twice the one before, with
// jitter, never beyond an hour.
func TestRetryDelay(t *testing.T) {
	s := New(Options{})
	for range 200 {
		if d := s.retryDelay(1); d < 2500*time.Millisecond || d > 5*time.Second {
			t.Fatalf("first retry after %s, want 2.5 s to 5 s", d)
		}
		if d := s.retryDelay(4); d < 20*time.Second || d > 40*time.Second {
			t.Fatalf("fourth retry after %s, want 20 s to 40 s", d)
		}
		if d := s.retryDelay(40); d < 30*time.Minute || d > time.Hour {
			t.Fatalf("fortieth retry after %s, want 30 min to 1 h", d)
		}
	}
	// Over three days, at most an hour apart: about 80 attempts.
	var total time.Duration
	n := 0
	for total < 72*time.Hour {
		n++
		total += s.retryDelay(n)
	}
	if n < 20 || n > 200 {
		t.Errorf("%d attempts in 3 days", n)
	}
}

// TestSign: one v1 entry per secret, over "<t>.<body>".
func TestSign(t *testing.T) {
	at := time.Unix(1_800_000_000, 0)
	got := Sign([]string{"a", "b"}, at, []byte(`{}`))
	// HMAC-SHA256("a", "1800000000.{}") and under "b".
	if want := "t=1800000000,v1="; len(got) != len(want)+64+4+64 || got[:len(want)] != want {
		t.Errorf("Sign = %q", got)
	}
}
