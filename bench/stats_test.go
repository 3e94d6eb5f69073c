package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestSummarize(t *testing.T) {
	// 1..100 ms, shuffled: the nearest-rank percentiles are exact.
	lat := make([]time.Duration, 100)
	for i := range lat {
		lat[i] = time.Duration(i+1) * time.Millisecond
	}
	rand.New(rand.NewPCG(1, 2)).Shuffle(len(lat), func(i, j int) { lat[i], lat[j] = lat[j], lat[i] })

	got := Summarize(lat)
	want := Summary{Count: 100, P50: 50 * time.Millisecond, P95: 95 * time.Millisecond,
		P99: 99 * time.Millisecond, Max: 100 * time.Millisecond}
	if got != want {
		t.Errorf("Summarize(1..100ms) = %+v, want %+v", got, want)
	}
}

func TestPercentile(t *testing.T) {
	sorted := []time.Duration{10, 20, 30, 40, 50, 60, 70, 80, 90, 1000}
	for _, tc := range []struct {
		p    float64
		want time.Duration
	}{
		{1, 10}, {10, 10}, {11, 20}, {50, 50}, {90, 90}, {95, 1000}, {99, 1000}, {100, 1000},
	} {
		if got := percentile(sorted, tc.p); got != tc.want {
			t.Errorf("percentile(p%v) = %v, want %v", tc.p, got, tc.want)
		}
	}
	if got := percentile([]time.Duration{7}, 99); got != 7 {
		t.Errorf("percentile of one value = %v, want 7", got)
	}
	if got := Summarize(nil); got != (Summary{}) {
		t.Errorf("Summarize(nil) = %+v, want zero", got)
	}
}

func TestMetricValue(t *testing.T) {
	const text = `# HELP process_resident_memory_bytes Resident memory size in bytes.
# TYPE process_resident_memory_bytes gauge
process_resident_memory_bytes_total 1
process_resident_memory_bytes 2.1651456e+07
go_goroutines 11
`
	if v, ok := metricValue(strings.NewReader(text), "process_resident_memory_bytes"); !ok || v != 21651456 {
		t.Errorf("process_resident_memory_bytes = %v, %v; want 21651456, true", v, ok)
	}
	if v, ok := metricValue(strings.NewReader(text), "go_goroutines"); !ok || v != 11 {
		t.Errorf("go_goroutines = %v, %v; want 11, true", v, ok)
	}
	if _, ok := metricValue(strings.NewReader(text), "missing"); ok {
		t.Error("a missing metric was found")
	}
}

func TestFetchMetrics(t *testing.T) {
	const full = "go_memstats_heap_inuse_bytes 2097152\nprocess_resident_memory_bytes 4194304\ngo_goroutines 7\n"
	var mu sync.Mutex
	status, text := http.StatusOK, full
	answer := func(s int, t string) {
		mu.Lock()
		defer mu.Unlock()
		status, text = s, t
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		w.WriteHeader(status)
		fmt.Fprint(w, text)
	}))
	defer srv.Close()
	b := &bench{metrics: newAPI(srv.URL, "", srv.Client()), base: srv.URL}

	if got, err := fetchMetrics(context.Background(), b.metrics); err != nil || got != full {
		t.Errorf("fetchMetrics = %q, %v; want the body, nil", got, err)
	}
	if heap, rss, g, err := b.serverLevels(1); err != nil || heap != 2 || rss != 4 || g != 7 {
		t.Errorf("serverLevels = %v, %v, %v, %v; want 2, 4, 7, nil", heap, rss, g, err)
	}

	answer(http.StatusServiceUnavailable, "down")
	if _, err := fetchMetrics(context.Background(), b.metrics); err == nil || !strings.Contains(err.Error(), "503") {
		t.Errorf("fetchMetrics on a 503 = %v, want an error naming the status", err)
	}
	if _, _, _, err := b.serverLevels(1); err == nil {
		t.Error("serverLevels on a 503 succeeded")
	}

	answer(http.StatusOK, "go_memstats_heap_inuse_bytes 2097152\ngo_goroutines 7\n")
	if _, _, _, err := b.serverLevels(1); err == nil || !strings.Contains(err.Error(), "process_resident_memory_bytes") {
		t.Errorf("serverLevels without resident memory = %v, want an error naming the metric", err)
	}
}

func TestLoopbackURL(t *testing.T) {
	for raw, want := range map[string]string{
		"http://127.0.0.1:8080/": "http://127.0.0.1:8080",
		"http://localhost:1":     "http://localhost:1",
		"http://[::1]:9":         "http://[::1]:9",
		"http://127.3.4.5":       "http://127.3.4.5",
	} {
		if got, err := loopbackURL(raw); err != nil || got != want {
			t.Errorf("loopbackURL(%q) = %q, %v; want %q", raw, got, err, want)
		}
	}
	for _, raw := range []string{"http://10.0.0.1:8080", "http://example.com", "http://0.0.0.0:8080", "ftp://127.0.0.1", "127.0.0.1:8080"} {
		if _, err := loopbackURL(raw); err == nil {
			t.Errorf("loopbackURL(%q) accepted a non-loopback URL", raw)
		}
	}
}
