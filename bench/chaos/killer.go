package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sort"
	"time"
)

// kill is one SIGKILL of a service process.
type kill struct {
	// At is the moment of the kill, from the start of the chaos.
	At      time.Duration `json:"at_ns"`
	Replica int           `json:"replica"`
	// Down is how long the replica was gone: from the kill to its restart
	// answering on /readyz.
	Down time.Duration `json:"down_ns"`
}

// killTimes returns n moments spread at random over the window (after its
// first tenth), in order.
func killTimes(n int, window time.Duration, rng *rand.Rand) []time.Duration {
	out := make([]time.Duration, n)
	lo := int64(window) / 10
	for i := range out {
		out[i] = time.Duration(lo + rng.Int64N(int64(window)-lo+1))
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// runKiller kills a random replica at each moment of times (from start)
// with SIGKILL, waits a random 0.2 to 2 s, and restarts it with the same
// command line; one at a time, so with two replicas one always runs. A
// moment that passes during a restart comes right after it.
func runKiller(ctx context.Context, c *cluster, start time.Time, times []time.Duration, rng *rand.Rand, logf func(string, ...any)) ([]kill, error) {
	var kills []kill
	for _, at := range times {
		select {
		case <-ctx.Done():
			return kills, nil
		case <-time.After(time.Until(start.Add(at))):
		}
		i := rng.IntN(len(c.replicas))
		k := kill{At: time.Since(start), Replica: i + 1}
		if err := c.replicas[i].kill(); err != nil {
			return kills, err
		}
		killedAt := time.Now()
		time.Sleep(200*time.Millisecond + time.Duration(rng.Int64N(int64(1800*time.Millisecond))))
		// The restart completes even if the chaos stops meanwhile: the
		// replica is needed for the rest.
		if err := c.restart(context.WithoutCancel(ctx), i); err != nil {
			return kills, fmt.Errorf("restart after kill %d: %w", len(kills)+1, err)
		}
		k.Down = time.Since(killedAt)
		kills = append(kills, k)
		logf("%s: kill %d of %d: replica %d at %s, back after %s", c.engine, len(kills), len(times), k.Replica,
			k.At.Round(100*time.Millisecond), k.Down.Round(100*time.Millisecond))
	}
	return kills, nil
}
