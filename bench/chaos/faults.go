package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"
)

// faultShares is what share of all submit calls each kind of fault affects.
type faultShares struct {
	fail, throttle, delay, drop, dropBefore, late float64
	// delayFor is how long a delayed or late call is held.
	delayFor time.Duration
}

// check reports shares out of range.
func (s faultShares) check() error {
	sum := 0.0
	for _, v := range []float64{s.fail, s.throttle, s.delay, s.drop, s.dropBefore, s.late} {
		if v < 0 || v > 1 {
			return fmt.Errorf("fault share %v: want 0 to 1", v)
		}
		sum += v
	}
	if sum > 1 {
		return fmt.Errorf("fault shares add up to %.3f: want at most 1", sum)
	}
	return nil
}

// sandboxFault is a fault as POST /sandbox/faults takes it.
type sandboxFault struct {
	Endpoint   string  `json:"endpoint"`
	Kind       string  `json:"kind"`
	Share      float64 `json:"share"`
	Delay      string  `json:"delay,omitempty"`
	RetryAfter int     `json:"retryAfter,omitempty"`
}

// chain returns the faults to install, in order, on the submit endpoint.
// The sandbox tries its faults in turn and the first that fires affects
// the call, each firing with its own share of the calls that reach it; so
// that each kind affects its share of all calls, each fault's share is
// taken of what the ones before it left: share / (1 - sum of the earlier
// shares).
func (s faultShares) chain() []sandboxFault {
	kinds := []struct {
		kind  string
		share float64
	}{{"fail", s.fail}, {"throttle", s.throttle}, {"delay", s.delay}, {"drop", s.drop}, {"drop-before", s.dropBefore}, {"late", s.late}}
	var out []sandboxFault
	left := 1.0
	for _, k := range kinds {
		if k.share <= 0 {
			continue
		}
		f := sandboxFault{Endpoint: "submit", Kind: k.kind, Share: min(k.share/left, 1)}
		switch k.kind {
		case "delay", "late":
			f.Delay = s.delayFor.String()
		case "throttle":
			f.RetryAfter = 1
		}
		out = append(out, f)
		left -= k.share
	}
	return out
}

// String describes the shares as the report shows them.
func (s faultShares) String() string {
	return fmt.Sprintf("submits: %.1f %% fail (500), %.1f %% throttled (429), %.1f %% delayed %s, %.1f %% dropped after processing, %.1f %% dropped before, %.1f %% taken in %s late",
		s.fail*100, s.throttle*100, s.delay*100, s.delayFor, s.drop*100, s.dropBefore*100, s.late*100, s.delayFor)
}

// installFaults switches the faults on in the sandbox at base.
func installFaults(ctx context.Context, base string, faults []sandboxFault) error {
	for _, f := range faults {
		body, err := json.Marshal(f)
		if err != nil {
			return err
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/sandbox/faults", bytes.NewReader(body))
		if err != nil {
			return err
		}
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return fmt.Errorf("install fault %s: %w", body, err)
		}
		msg, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusNoContent {
			return fmt.Errorf("install fault %s: HTTP %d %s", body, resp.StatusCode, msg)
		}
	}
	return nil
}

// sandboxStats is what GET /sandbox/stats tells: the documents it holds
// per code number and the faults it injected.
type sandboxStats struct {
	Submissions  int            `json:"submissions"`
	Documents    int            `json:"documents"`
	ByCodeNumber map[string]int `json:"byCodeNumber"`
	Faults       map[string]int `json:"faults"`
}

// readSandboxStats reads GET /sandbox/stats of the sandbox at base.
func readSandboxStats(ctx context.Context, base string) (sandboxStats, error) {
	var st sandboxStats
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/sandbox/stats", nil)
	if err != nil {
		return st, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return st, fmt.Errorf("sandbox stats: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return st, fmt.Errorf("sandbox stats: HTTP %d", resp.StatusCode)
	}
	if err := json.NewDecoder(resp.Body).Decode(&st); err != nil {
		return st, fmt.Errorf("sandbox stats: %w", err)
	}
	return st, nil
}
