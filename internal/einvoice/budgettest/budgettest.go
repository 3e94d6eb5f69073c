// Package budgettest is the behaviour every einvoice.AuthorityBudget must
// have, run by the tests of each implementation (the in-memory budget of
// package myinvois; sqlstore's, on both engines):
//
//	budgettest.Run(t, func(t *testing.T) (a, b einvoice.AuthorityBudget) { ... })
//
// The function returns two handles on one budget: the same value twice for
// an in-memory budget, two stores on one database (two replicas) for
// sqlstore's. Each test uses keys of its own (prefixed with its name), so
// the handles may be on a budget that other tests use. Times are whole microseconds (what the database keeps)
// and come from the test, never from the clock. Only tests import it.
package budgettest

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/einvoice/einvoice/internal/einvoice"
)

// Opener returns two handles on one budget.
type Opener func(t *testing.T) (a, b einvoice.AuthorityBudget)

// Run runs the suite.
func Run(t *testing.T, open Opener) {
	for name, test := range map[string]func(t *testing.T, a, b einvoice.AuthorityBudget){
		"Slots":       testSlots,
		"Block":       testBlock,
		"Keys":        testKeys,
		"LimitChange": testLimitChange,
		"Concurrent":  testConcurrent,
	} {
		t.Run(name, func(t *testing.T) {
			a, b := open(t)
			test(t, prefixed{a, t.Name()}, prefixed{b, t.Name()})
		})
	}
}

// prefixed puts a test's keys apart from the other tests'.
type prefixed struct {
	einvoice.AuthorityBudget
	prefix string
}

func (p prefixed) Reserve(ctx context.Context, key string, limit int, window time.Duration, now, latest time.Time) (time.Time, bool, error) {
	return p.AuthorityBudget.Reserve(ctx, p.prefix+" "+key, limit, window, now, latest)
}

func (p prefixed) Block(ctx context.Context, key string, until time.Time) error {
	return p.AuthorityBudget.Block(ctx, p.prefix+" "+key, until)
}

// t0 is the tests' epoch: any time will do, as long as it is whole
// microseconds.
var t0 = time.Date(2026, 11, 22, 8, 0, 0, 123456000, time.UTC)

const window = time.Minute

// never is a bound no send time reaches.
var never = t0.Add(1000 * 24 * time.Hour)

// reserve takes a slot that must be given, and returns it relative to t0.
func reserve(t *testing.T, b einvoice.AuthorityBudget, key string, limit int, now time.Duration) time.Duration {
	t.Helper()
	at, ok, err := b.Reserve(context.Background(), key, limit, window, t0.Add(now), never)
	if err != nil || !ok {
		t.Fatalf("Reserve at %v: %v, %v, %v; want a slot", now, at, ok, err)
	}
	return at.Sub(t0)
}

func block(t *testing.T, b einvoice.AuthorityBudget, key string, until time.Duration) {
	t.Helper()
	if err := b.Block(context.Background(), key, t0.Add(until)); err != nil {
		t.Fatalf("Block: %v", err)
	}
}

// testSlots pins the slots handed out, alternating between the handles: no
// window holds more than the limit, first come first served, a block pushes
// every later slot, a slot beyond the caller's bound is not taken.
func testSlots(t *testing.T, a, b einvoice.AuthorityBudget) {
	const key, limit = "cancel_document A", 3
	handle := func(i int) einvoice.AuthorityBudget { return []einvoice.AuthorityBudget{a, b}[i%2] }
	var got []time.Duration
	for i, now := range []time.Duration{0, 0, 0, 0, 10 * time.Second, 0, 0} {
		got = append(got, reserve(t, handle(i), key, limit, now))
	}
	if want := []time.Duration{0, 0, 0, window, window, window, 2 * window}; !slices.Equal(got, want) {
		t.Errorf("slots %v, want %v", got, want)
	}
	// Much later, the budget is whole again.
	if s := reserve(t, a, key, limit, 10*window); s != 10*window {
		t.Errorf("later: slot %v, want %v", s, 10*window)
	}
	// A block pushes the next slots past it.
	block(t, b, key, 11*window)
	if s := reserve(t, a, key, limit, 10*window+time.Second); s != 11*window {
		t.Errorf("blocked: slot %v, want %v", s, 11*window)
	}
	for range 2 { // the 2nd and 3rd of this window
		if s := reserve(t, b, key, limit, 11*window); s != 11*window {
			t.Errorf("slot %v, want %v", s, 11*window)
		}
	}
	// A 4th in the window lies beyond the bound: refused, nothing taken,
	// and the answer is the slot it would have had.
	at, ok, err := a.Reserve(context.Background(), key, limit, window, t0.Add(11*window), t0.Add(11*window+5*time.Second))
	if err != nil || ok || !at.Equal(t0.Add(12*window)) {
		t.Errorf("beyond the bound: %v, %v, %v; want %v, refused", at.Sub(t0), ok, err, 12*window)
	}
	if s := reserve(t, b, key, limit, 11*window); s != 12*window {
		t.Errorf("after a refusal: slot %v, want %v", s, 12*window)
	}
	// A bound already past takes nothing either.
	if _, ok, err := a.Reserve(context.Background(), "other", limit, window, t0, t0.Add(-time.Second)); err != nil || ok {
		t.Errorf("a bound before now: %v, %v; want refused", ok, err)
	}
	if s := reserve(t, a, "other", 1, time.Second); s != time.Second {
		t.Errorf("after a refusal on a new key: slot %v, want 1s", s)
	}
}

// testBlock: a block holds a key back until it ends, on a key never used
// too; an earlier block does not pull a later one back.
func testBlock(t *testing.T, a, b einvoice.AuthorityBudget) {
	block(t, a, "fresh", 30*time.Second)
	if s := reserve(t, b, "fresh", 10, 0); s != 30*time.Second {
		t.Errorf("blocked fresh key: slot %v, want 30s", s)
	}
	block(t, b, "fresh", 90*time.Second)
	block(t, a, "fresh", 60*time.Second)
	if s := reserve(t, a, "fresh", 10, 31*time.Second); s != 90*time.Second {
		t.Errorf("after a later then an earlier block: slot %v, want 90s", s)
	}
	// A block in the past changes nothing.
	block(t, b, "fresh", 0)
	if s := reserve(t, b, "fresh", 10, 100*time.Second); s != 100*time.Second {
		t.Errorf("after a past block: slot %v, want 100s", s)
	}
}

// testKeys: each key has its own budget.
func testKeys(t *testing.T, a, b einvoice.AuthorityBudget) {
	if s := reserve(t, a, "search_documents X", 1, 0); s != 0 {
		t.Errorf("first slot %v", s)
	}
	if s := reserve(t, b, "search_documents X", 1, 0); s != window {
		t.Errorf("second slot of a spent key %v, want %v", s, window)
	}
	if s := reserve(t, b, "search_documents Y", 1, 0); s != 0 {
		t.Errorf("another key: slot %v, want 0", s)
	}
}

// testLimitChange: a key's limit may change between calls (a new release);
// the budget then follows the limit it is given.
func testLimitChange(t *testing.T, a, b einvoice.AuthorityBudget) {
	for range 3 {
		reserve(t, a, "k", 3, 0)
	}
	// Two per window now: the 2nd last of three sends at 0 frees at W.
	if s := reserve(t, b, "k", 2, 0); s != window {
		t.Errorf("limit lowered: slot %v, want %v", s, window)
	}
	// Five per window: only the order holds it back.
	if s := reserve(t, a, "k", 5, 0); s != window {
		t.Errorf("limit raised: slot %v, want %v", s, window)
	}
}

// testConcurrent reserves from many goroutines on both handles at once.
func testConcurrent(t *testing.T, a, b einvoice.AuthorityBudget) {
	const limit, goroutines, each = 5, 8, 6
	// Everyone at the same instant: whatever the interleaving, the slots
	// are exactly limit per window, window after window.
	var (
		mu  sync.Mutex
		all []time.Duration
		wg  sync.WaitGroup
	)
	for g := range goroutines {
		h := []einvoice.AuthorityBudget{a, b}[g%2]
		wg.Go(func() {
			var mine []time.Duration
			for range each {
				at, ok, err := h.Reserve(context.Background(), "burst", limit, window, t0, never)
				if err != nil || !ok {
					t.Errorf("Reserve: %v, %v", ok, err)
					return
				}
				mine = append(mine, at.Sub(t0))
			}
			if !slices.IsSorted(mine) {
				t.Errorf("one caller's slots out of order: %v", mine)
			}
			mu.Lock()
			all = append(all, mine...)
			mu.Unlock()
		})
	}
	wg.Wait()
	slices.Sort(all)
	var want []time.Duration
	for i := range goroutines * each {
		want = append(want, time.Duration(i/limit)*window)
	}
	if !slices.Equal(all, want) {
		t.Errorf("slots of %d simultaneous reservations:\n got %v\nwant %v", len(want), all, want)
	}

	// Callers at different times with a bound: the slots taken never put
	// more than limit sends in a window, each lies between its caller's
	// now and bound, and the refusals lay beyond theirs.
	var taken []time.Time
	for g := range goroutines {
		h := []einvoice.AuthorityBudget{a, b}[g%2]
		wg.Go(func() {
			var mine []time.Time
			for i := range 3 * each {
				now := t0.Add(time.Duration(i)*7*time.Second + time.Duration(g)*time.Millisecond)
				latest := now.Add(20 * time.Second)
				at, ok, err := h.Reserve(context.Background(), "spread", limit, window, now, latest)
				switch {
				case err != nil:
					t.Errorf("Reserve: %v", err)
					return
				case ok && (at.Before(now) || at.After(latest)):
					t.Errorf("slot %v taken outside [%v, %v]", at.Sub(t0), now.Sub(t0), latest.Sub(t0))
				case !ok && !at.After(latest):
					t.Errorf("refused a slot at %v within the bound %v", at.Sub(t0), latest.Sub(t0))
				case ok:
					mine = append(mine, at)
				}
			}
			if !slices.IsSortedFunc(mine, time.Time.Compare) {
				t.Errorf("one caller's slots out of order: %v", mine)
			}
			mu.Lock()
			taken = append(taken, mine...)
			mu.Unlock()
		})
	}
	wg.Wait()
	if err := CheckWindows(taken, limit, window); err != nil {
		t.Error(err)
	}
	if len(taken) < limit {
		t.Errorf("only %d slots taken", len(taken))
	}
}

// CheckWindows reports a window of the given length holding more than
// limit of the send times.
func CheckWindows(sends []time.Time, limit int, window time.Duration) error {
	s := slices.Clone(sends)
	slices.SortFunc(s, time.Time.Compare)
	for i := 0; i+limit < len(s); i++ {
		if s[i+limit].Sub(s[i]) < window {
			return fmt.Errorf("%d sends from %v to %v, within %v: over the limit of %d", limit+1, s[i], s[i+limit], window, limit)
		}
	}
	return nil
}
