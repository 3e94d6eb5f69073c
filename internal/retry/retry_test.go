package retry_test

import (
	"math"
	"testing"
	"time"

	"github.com/einvoice/einvoice/internal/retry"
)

// TestCeiling: exponential from Base by Factor (2 unless set), capped at
// Max, an attempt below 1 counted as 1.
func TestCeiling(t *testing.T) {
	const s, m = time.Second, time.Minute
	for _, tc := range []struct {
		name    string
		p       retry.Policy
		attempt int
		want    time.Duration
	}{
		{"zero policy", retry.Policy{}, 3, 0},
		{"negative base", retry.Policy{Base: -s, Max: m}, 3, 0},
		{"attempt 0 is 1", retry.Policy{Base: 2 * s, Max: 5 * m}, 0, 2 * s},
		{"negative attempt is 1", retry.Policy{Base: 2 * s, Max: 5 * m}, -7, 2 * s},
		{"first", retry.Policy{Base: 2 * s, Max: 5 * m}, 1, 2 * s},
		{"doubled", retry.Policy{Base: 2 * s, Max: 5 * m}, 2, 4 * s},
		{"fifth", retry.Policy{Base: 2 * s, Max: 5 * m}, 5, 32 * s},
		{"capped", retry.Policy{Base: 2 * s, Max: 5 * m}, 9, 5 * m},
		{"huge attempt", retry.Policy{Base: 2 * s, Max: 5 * m}, math.MaxInt, 5 * m},
		{"max below base", retry.Policy{Base: m, Max: s}, 1, s},
		{"no max", retry.Policy{Base: s}, 4, 8 * s},
		{"no max, huge attempt", retry.Policy{Base: s}, math.MaxInt, math.MaxInt64},
		{"factor 1.5", retry.Policy{Base: 3 * s, Max: m, Factor: 1.5}, 3, 6750 * time.Millisecond},
		{"factor 1.5 capped", retry.Policy{Base: 3 * s, Max: m, Factor: 1.5}, 9, m},
		{"factor 1 does not grow", retry.Policy{Base: 3 * s, Max: m, Factor: 1}, 9, 3 * s},
		{"factor NaN does not grow", retry.Policy{Base: 3 * s, Max: m, Factor: math.NaN()}, 9, 3 * s},
		{"factor +Inf jumps to the cap", retry.Policy{Base: 3 * s, Max: m, Factor: math.Inf(1)}, 2, m},
		{"max base", retry.Policy{Base: math.MaxInt64, Max: math.MaxInt64}, 2, math.MaxInt64},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.p.Ceiling(tc.attempt); got != tc.want {
				t.Errorf("Ceiling(%d) = %v, want %v", tc.attempt, got, tc.want)
			}
		})
	}
}

// TestDelay: Ceiling less a random share of up to Jitter of it, the share
// from Rand (fixed here at its lowest and highest).
func TestDelay(t *testing.T) {
	lowest := func(int64) int64 { return 0 }
	highest := func(n int64) int64 { return n - 1 }
	wild := func(n int64) int64 { return 10 * n } // out of its range: clamped
	const s = time.Second
	for _, tc := range []struct {
		name    string
		p       retry.Policy
		attempt int
		want    time.Duration
	}{
		{"no jitter", retry.Policy{Base: 2 * s, Max: 5 * time.Minute, Rand: lowest}, 2, 4 * s},
		{"equal jitter, lowest", retry.Policy{Base: 2 * s, Max: 5 * time.Minute, Jitter: retry.EqualJitter, Rand: lowest}, 2, 2 * s},
		{"equal jitter, highest", retry.Policy{Base: 2 * s, Max: 5 * time.Minute, Jitter: retry.EqualJitter, Rand: highest}, 2, 4 * s},
		{"full jitter, lowest", retry.Policy{Base: 2 * s, Max: 5 * time.Minute, Jitter: retry.FullJitter, Rand: lowest}, 2, 0},
		{"jitter above 1 is full", retry.Policy{Base: 2 * s, Max: time.Minute, Jitter: 7, Rand: lowest}, 1, 0},
		{"negative jitter is none", retry.Policy{Base: 2 * s, Max: time.Minute, Jitter: -1, Rand: lowest}, 1, 2 * s},
		{"NaN jitter is none", retry.Policy{Base: 2 * s, Max: time.Minute, Jitter: math.NaN(), Rand: lowest}, 1, 2 * s},
		{"a wild Rand is clamped", retry.Policy{Base: 2 * s, Max: time.Minute, Jitter: retry.EqualJitter, Rand: wild}, 1, 2 * s},
		{"capped, lowest", retry.Policy{Base: 2 * s, Max: 5 * time.Minute, Jitter: retry.EqualJitter, Rand: lowest}, 50, 150 * s},
		{"around, lowest", withRand(retry.Around(s), lowest), 1, s / 2},
		{"around, highest", withRand(retry.Around(s), highest), 9, 3 * s / 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.p.Delay(tc.attempt); got != tc.want {
				t.Errorf("Delay(%d) = %v, want %v", tc.attempt, got, tc.want)
			}
		})
	}
}

func withRand(p retry.Policy, r func(int64) int64) retry.Policy {
	p.Rand = r
	return p
}

// TestDelayRandom: with the real randomness every delay stays within its
// attempt's range, and the range is used (not always one end).
func TestDelayRandom(t *testing.T) {
	p := retry.Policy{Base: 5 * time.Second, Max: time.Hour, Jitter: retry.EqualJitter}
	seen := map[time.Duration]bool{}
	for range 200 {
		d := p.Delay(1)
		if d < 2500*time.Millisecond || d > 5*time.Second {
			t.Fatalf("Delay(1) = %v, want 2.5 s to 5 s", d)
		}
		seen[d] = true
	}
	if len(seen) < 100 {
		t.Errorf("%d distinct delays in 200", len(seen))
	}
}

// FuzzDelay: a delay is never negative nor above Max (when set), lies
// within its attempt's envelope, and the envelope never moves back as the
// attempts grow.
func FuzzDelay(f *testing.F) {
	f.Add(int64(2*time.Second), int64(5*time.Minute), 0.0, 0.5, 3, uint64(1))
	f.Add(int64(5*time.Second), int64(time.Hour), 0.0, 0.5, 1<<40, uint64(7))
	f.Add(int64(3*time.Second), int64(time.Minute), 1.5, 0.0, 9, uint64(0))
	f.Add(int64(math.MaxInt64), int64(0), 3.0, 1.0, math.MaxInt, uint64(42))
	f.Add(int64(1), int64(-1), 1.0000001, 2.0/3, -5, uint64(3))
	f.Fuzz(func(t *testing.T, base, maxd int64, factor, jitter float64, attempt int, seed uint64) {
		r := seed
		p := retry.Policy{Base: time.Duration(base), Max: time.Duration(maxd), Factor: factor, Jitter: jitter,
			Rand: func(n int64) int64 { r = r*6364136223846793005 + 1442695040888963407; return int64(r>>1) % n }}
		d := p.Delay(attempt)
		c := p.Ceiling(attempt)
		if d < 0 || c < 0 {
			t.Fatalf("%+v: Delay(%d) = %v, Ceiling %v: negative", p, attempt, d, c)
		}
		if p.Max > 0 && (d > p.Max || c > p.Max) {
			t.Fatalf("%+v: Delay(%d) = %v, Ceiling %v: above Max", p, attempt, d, c)
		}
		if d > c {
			t.Fatalf("%+v: Delay(%d) = %v above its ceiling %v", p, attempt, d, c)
		}
		j := min(max(jitter, 0), 1)
		if math.IsNaN(jitter) {
			j = 0
		}
		if floor := float64(c) * (1 - j); float64(d) < floor-1 {
			t.Fatalf("%+v: Delay(%d) = %v below its floor %v", p, attempt, d, floor)
		}
		if attempt < math.MaxInt {
			if next := p.Ceiling(attempt + 1); next < c {
				t.Fatalf("%+v: Ceiling(%d) = %v below Ceiling(%d) = %v", p, attempt+1, next, attempt, c)
			}
		}
	})
}
