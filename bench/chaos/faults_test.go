package main

import (
	"math"
	"testing"
	"time"
)

// TestChain: each kind affects its share of all calls, although the
// sandbox tries its faults in turn.
func TestChain(t *testing.T) {
	s := faultShares{fail: 0.20, throttle: 0.08, delay: 0.07, drop: 0.065, dropBefore: 0.03, late: 0.05, delayFor: 4 * time.Second}
	chain := s.chain()
	want := map[string]float64{"fail": 0.20, "throttle": 0.08, "delay": 0.07, "drop": 0.065, "drop-before": 0.03, "late": 0.05}
	if len(chain) != len(want) {
		t.Fatalf("chain %v, want %d faults", chain, len(want))
	}
	left := 1.0
	for _, f := range chain {
		got := left * f.Share // the share of all calls this fault affects
		if math.Abs(got-want[f.Kind]) > 1e-9 || f.Endpoint != "submit" {
			t.Errorf("%s on %s: %.4f of all calls, want %.4f", f.Kind, f.Endpoint, got, want[f.Kind])
		}
		left -= got
	}
	if chain[2].Kind != "delay" || chain[2].Delay != "4s" || chain[1].RetryAfter != 1 || chain[5].Kind != "late" || chain[5].Delay != "4s" {
		t.Errorf("delay %q, retryAfter %d, late %q: want 4s, 1 and 4s", chain[2].Delay, chain[1].RetryAfter, chain[5].Delay)
	}
	if got := (faultShares{fail: 0.5}).chain(); len(got) != 1 || got[0].Share != 0.5 {
		t.Errorf("one kind: %v", got)
	}
	if (faultShares{fail: 0.6, drop: 0.5}).check() == nil {
		t.Error("shares adding up to 1.1 accepted")
	}
}
