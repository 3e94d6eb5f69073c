package main

import (
	"slices"
	"testing"
	"time"
)

// TestWindows counts the growth in each complete minute, from the last
// sample at or before each end, and leaves out the partial last minute.
func TestWindows(t *testing.T) {
	s := time.Second
	timeline := []validAt{{0, 0}, {30 * s, 100}, {59 * s, 900}, {61 * s, 1000}, {120 * s, 5000}, {150 * s, 6000}}
	got := windows(timeline, time.Minute)
	if want := []int{900, 4100}; !slices.Equal(got, want) {
		t.Errorf("windows = %v, want %v", got, want)
	}
	if got := windows(timeline[:3], time.Minute); got != nil {
		t.Errorf("windows of a run under a minute = %v, want none", got)
	}
}

// TestParseSample reads labelled and unlabelled samples and skips
// comments.
func TestParseSample(t *testing.T) {
	name, labels, v, ok := parseSample(`einvoice_authority_calls_total{code="429",endpoint="submit"} 7`)
	if !ok || name != "einvoice_authority_calls_total" || labels["code"] != "429" || labels["endpoint"] != "submit" || v != 7 {
		t.Errorf("labelled sample: %q %v %v %v", name, labels, v, ok)
	}
	name, _, v, ok = parseSample("go_goroutines 42")
	if !ok || name != "go_goroutines" || v != 42 {
		t.Errorf("unlabelled sample: %q %v %v", name, v, ok)
	}
	for _, line := range []string{"", "# HELP go_goroutines x", "broken{a=\"b\" 1", "novalue"} {
		if _, _, _, ok := parseSample(line); ok {
			t.Errorf("parseSample(%q) ok, want not", line)
		}
	}
}

// TestAuthorityMinus keeps the growth of each counter.
func TestAuthorityMinus(t *testing.T) {
	before := AuthorityCalls{Calls: map[string]float64{"submit": 3, "login": 1}, Throttled: 1, HeldWaited: 2}
	after := AuthorityCalls{Calls: map[string]float64{"submit": 13, "login": 1, "get_submission": 5}, Throttled: 4, HeldWaited: 2, HeldDeferred: 1}
	d := after.minus(before)
	if d.Calls["submit"] != 10 || d.Calls["get_submission"] != 5 || len(d.Calls) != 2 || d.Throttled != 3 || d.HeldWaited != 0 || d.HeldDeferred != 1 {
		t.Errorf("minus = %+v", d)
	}
}

// TestSummarizeMemory averages the first and the last minute and keeps the
// peak.
func TestSummarizeMemory(t *testing.T) {
	var series []Sample
	for i := range 50 { // 0 to 147 s, every 3 s
		rss := 40.0
		switch {
		case i*3 >= 87:
			rss = 60
		case i == 20:
			rss = 100
		}
		series = append(series, Sample{S: float64(i * 3), RSSMB: rss, HeapMB: 10, Goroutines: 30})
	}
	m := summarizeMemory(series)
	if m.Samples != 50 || m.RSSMB.First != 40 || m.RSSMB.Peak != 100 || m.RSSMB.Last != 60 || m.HeapMB.Last != 10 || m.Goroutines.First != 30 {
		t.Errorf("summary = %+v", m)
	}
	if m := summarizeMemory(nil); m.Samples != 0 || m.RSSMB.Peak != 0 {
		t.Errorf("summary of no samples = %+v", m)
	}
}
