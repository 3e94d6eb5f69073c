package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Soak is the outcome of -soak: mixed load for a long time, with the
// server's memory and goroutines after the warm-up and at the end.
type Soak struct {
	DurationS    float64  `json:"duration_s"`
	Requests     int64    `json:"requests"`
	Errors       int      `json:"errors"`
	Throughput   float64  `json:"throughput_rps"`
	Scenarios    []string `json:"scenarios"`
	WarmHeapMB   float64  `json:"warm_heap_mb"`
	EndHeapMB    float64  `json:"end_heap_mb"`
	WarmRSSMB    float64  `json:"warm_rss_mb"`
	EndRSSMB     float64  `json:"end_rss_mb"`
	WarmGoroutes float64  `json:"warm_goroutines"`
	EndGoroutes  float64  `json:"end_goroutines"`
	ErrorSamples []string `json:"error_samples,omitempty"`
}

// serverLevels reads the server's live heap, resident memory and goroutines
// from /metrics, as the mean of n samples a second apart (a single sample
// catches the heap at an arbitrary point of its GC cycle). A failed read or
// a missing metric is an error: counting it as 0 would skew the comparison.
func (b *bench) serverLevels(n int) (heap, rss, goroutines float64, err error) {
	names := [...]string{"go_memstats_heap_inuse_bytes", "process_resident_memory_bytes", "go_goroutines"}
	var sum [len(names)]float64
	for i := range n {
		if i > 0 {
			time.Sleep(time.Second)
		}
		text, err := fetchMetrics(context.Background(), b.metrics)
		if err != nil {
			return 0, 0, 0, err
		}
		for j, name := range names {
			v, ok := metricValue(strings.NewReader(text), name)
			if !ok {
				return 0, 0, 0, fmt.Errorf("%s/metrics has no sample of %s", b.base, name)
			}
			sum[j] += v
		}
	}
	return sum[0] / float64(n) / (1 << 20), sum[1] / float64(n) / (1 << 20), sum[2] / float64(n), nil
}

// runSoak runs the scenarios mixed (each worker takes them in turn) for d
// after a warm-up of warm, and compares the server's levels at both ends.
func (b *bench) runSoak(list []scenario, warm, d time.Duration) (Soak, error) {
	s := Soak{}
	for _, sc := range list {
		s.Scenarios = append(s.Scenarios, sc.name)
		if sc.prepare != nil {
			if err := sc.prepare(b); err != nil {
				return s, err
			}
		}
	}
	errs := &errorLog{limit: 5}
	var count atomic.Int64
	mix := func(until time.Time) {
		var wg sync.WaitGroup
		var seq atomic.Int64
		ctx := context.Background()
		for range b.c {
			wg.Go(func() {
				for time.Now().Before(until) {
					i := seq.Add(1)
					sc := list[int(i)%len(list)]
					if err := sc.call(ctx, b, i); err != nil {
						errs.add(sc.name + ": " + describe(err))
					}
					count.Add(1)
				}
			})
		}
		wg.Wait()
	}
	mix(time.Now().Add(warm))
	time.Sleep(2 * time.Second) // let in-flight work settle, as at the end
	var err error
	if s.WarmHeapMB, s.WarmRSSMB, s.WarmGoroutes, err = b.serverLevels(5); err != nil {
		return s, fmt.Errorf("server levels after the warm-up: %w", err)
	}
	count.Store(0)
	errs = &errorLog{limit: 5}
	start := time.Now()
	mix(start.Add(d))
	s.DurationS = time.Since(start).Seconds()
	s.Requests = count.Load()
	s.Throughput = float64(s.Requests) / s.DurationS
	time.Sleep(2 * time.Second) // let in-flight work settle, as after the warm-up
	if s.EndHeapMB, s.EndRSSMB, s.EndGoroutes, err = b.serverLevels(5); err != nil {
		return s, fmt.Errorf("server levels at the end: %w", err)
	}
	s.Errors, s.ErrorSamples = errs.count, errs.samples
	return s, nil
}

// printSoak writes the soak's figures.
func printSoak(w io.Writer, s Soak) {
	pct := func(end, warm float64) string {
		if warm == 0 {
			return "n/a"
		}
		return fmt.Sprintf("%+.1f %%", 100*(end-warm)/warm)
	}
	fmt.Fprintf(w, "soak: %s for %.0f s: %d requests (%.0f/s), %d errors\n", strings.Join(s.Scenarios, ","), s.DurationS, s.Requests, s.Throughput, s.Errors)
	fmt.Fprintf(w, "  heap in use: %.1f MB after warm-up, %.1f MB at the end (%s)\n", s.WarmHeapMB, s.EndHeapMB, pct(s.EndHeapMB, s.WarmHeapMB))
	fmt.Fprintf(w, "  resident:    %.1f MB after warm-up, %.1f MB at the end (%s)\n", s.WarmRSSMB, s.EndRSSMB, pct(s.EndRSSMB, s.WarmRSSMB))
	fmt.Fprintf(w, "  goroutines:  %.0f after warm-up, %.0f at the end (%s)\n", s.WarmGoroutes, s.EndGoroutes, pct(s.EndGoroutes, s.WarmGoroutes))
}
