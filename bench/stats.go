package main

import (
	"bufio"
	"context"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/einvoice/einvoice/client"
)

// Summary describes a set of latencies.
type Summary struct {
	Count              int
	P50, P95, P99, Max time.Duration
}

// Summarize sorts lat in place and returns its percentiles.
func Summarize(lat []time.Duration) Summary {
	slices.Sort(lat)
	s := Summary{Count: len(lat)}
	if len(lat) == 0 {
		return s
	}
	s.P50 = percentile(lat, 50)
	s.P95 = percentile(lat, 95)
	s.P99 = percentile(lat, 99)
	s.Max = lat[len(lat)-1]
	return s
}

// percentile returns the p-th percentile (0 < p <= 100) of sorted by the
// nearest-rank method: the smallest value such that at least p% of the
// values are less than or equal to it.
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	rank := int(math.Ceil(p / 100 * float64(len(sorted))))
	rank = min(max(rank, 1), len(sorted))
	return sorted[rank-1]
}

// ms converts d to fractional milliseconds.
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// errorLog counts failed requests and keeps the first few distinct error
// descriptions. It is only touched on the error path, so its mutex costs
// nothing while requests succeed.
type errorLog struct {
	mu      sync.Mutex
	count   int
	samples []string
	limit   int
}

func (e *errorLog) add(desc string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.count++
	if len(e.samples) < e.limit && !slices.Contains(e.samples, desc) {
		e.samples = append(e.samples, desc)
	}
}

// metricValue returns the value of the unlabelled sample name in a
// Prometheus text exposition.
func metricValue(r io.Reader, name string) (float64, bool) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		rest, found := strings.CutPrefix(sc.Text(), name+" ")
		if !found {
			continue
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(rest), 64)
		return v, err == nil
	}
	return 0, false
}

// rssSampler polls the server's /metrics and keeps the peak resident memory
// and goroutine count seen, and the server's CPU time between the first
// and the last sample.
type rssSampler struct {
	client        *client.Client // of the server, without a key
	every         time.Duration
	peakRSS       float64 // bytes
	peakGo        float64
	firstCPU, cpu float64 // process_cpu_seconds_total
	samples       int     // successful samples
}

// fetchMetrics reads the server's Prometheus text exposition; an answer
// other than a 2xx is an error.
func fetchMetrics(ctx context.Context, c *client.Client) (string, error) {
	body, err := c.Metrics(ctx)
	if err != nil {
		return "", err
	}
	return string(body), nil
}

// sample reads /metrics once; a failed read is not counted.
func (s *rssSampler) sample(ctx context.Context) {
	text, err := fetchMetrics(ctx, s.client)
	if err != nil {
		return
	}
	s.samples++
	if v, ok := metricValue(strings.NewReader(text), "process_resident_memory_bytes"); ok {
		s.peakRSS = max(s.peakRSS, v)
	}
	if v, ok := metricValue(strings.NewReader(text), "go_goroutines"); ok {
		s.peakGo = max(s.peakGo, v)
	}
	if v, ok := metricValue(strings.NewReader(text), "process_cpu_seconds_total"); ok {
		if s.samples == 1 {
			s.firstCPU = v
		}
		s.cpu = v
	}
}

// start samples immediately and then every s.every until the returned stop
// function is called; stop takes a last sample and returns once sampling
// has ended.
func (s *rssSampler) start() (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(s.every)
		defer t.Stop()
		for {
			s.sample(ctx)
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	}()
	return func() {
		cancel()
		<-done
		s.sample(context.Background())
	}
}
