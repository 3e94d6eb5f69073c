package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
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
// from /metrics, as the mean of a few samples a second apart (a single
// sample catches the heap at an arbitrary point of its GC cycle).
func (b *bench) serverLevels(n int) (heap, rss, goroutines float64, err error) {
	for i := range n {
		if i > 0 {
			time.Sleep(time.Second)
		}
		req, _ := http.NewRequestWithContext(context.Background(), http.MethodGet, b.base+"/metrics", nil)
		resp, err := b.client.Do(req)
		if err != nil {
			return 0, 0, 0, err
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return 0, 0, 0, err
		}
		h, _ := metricValue(bytes.NewReader(body), "go_memstats_heap_inuse_bytes")
		r, _ := metricValue(bytes.NewReader(body), "process_resident_memory_bytes")
		g, _ := metricValue(bytes.NewReader(body), "go_goroutines")
		heap, rss, goroutines = heap+h/float64(n), rss+r/float64(n), goroutines+g/float64(n)
	}
	return heap / (1 << 20), rss / (1 << 20), goroutines, nil
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
		for range b.c {
			wg.Go(func() {
				for time.Now().Before(until) {
					i := seq.Add(1)
					sc := list[int(i)%len(list)]
					req, err := sc.request(b, i)
					if err != nil {
						errs.add(err.Error())
						return
					}
					b.do(req, errs, false)
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
		return s, err
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
		return s, err
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
