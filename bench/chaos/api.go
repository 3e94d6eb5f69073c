package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync/atomic"
	"time"
)

// api talks to the service: its replicas' base URLs (requests go round
// robin) and the demo tenant's key.
type api struct {
	bases []string
	key   string
	next  atomic.Uint64
}

// client is one HTTP client of the service, with its own connections.
type client struct {
	api *api
	hc  *http.Client
}

func (a *api) newClient() *client {
	return &client{api: a, hc: &http.Client{Timeout: 60 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 4}}}
}

// base returns the next replica's URL, round robin.
func (a *api) base() string {
	return a.bases[int(a.next.Add(1))%len(a.bases)]
}

// pairBases returns two replicas' URLs for the two requests of a pair:
// different ones when there are several.
func (a *api) pairBases() [2]string {
	i := int(a.next.Add(1))
	return [2]string{a.bases[i%len(a.bases)], a.bases[(i+1)%len(a.bases)]}
}

// reply is the service's answer: its status and envelope.
type reply struct {
	Status int
	Raw    []byte
	Body   struct {
		Success   bool            `json:"success"`
		Data      json.RawMessage `json:"data"`
		Message   string          `json:"message"`
		ErrorCode string          `json:"error_code"`
		Meta      *struct {
			Total int `json:"total"`
		} `json:"meta"`
	}
}

// do sends one request to base and reads the answer; a transport error is
// returned as is.
func (c *client) do(ctx context.Context, base, method, path string, body any) (*reply, error) {
	var rd io.Reader
	if body != nil {
		raw, err := json.Marshal(body)
		if err != nil {
			return nil, err
		}
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequestWithContext(ctx, method, base+path, rd)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+c.api.key)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	r := &reply{Status: resp.StatusCode}
	if r.Raw, err = io.ReadAll(resp.Body); err != nil {
		return nil, err
	}
	r.Raw = bytes.TrimSpace(r.Raw)
	_ = json.Unmarshal(r.Raw, &r.Body) // a body that is not our envelope is judged by the caller
	return r, nil
}

// must sends a request, round robin, and wants status; for the setup, when
// nothing is killed.
func (c *client) must(ctx context.Context, method, path string, body any, status int, into any) error {
	r, err := c.do(ctx, c.api.base(), method, path, body)
	if err != nil {
		return fmt.Errorf("%s %s: %w", method, path, err)
	}
	if r.Status != status {
		return fmt.Errorf("%s %s: HTTP %d, want %d: %.500s", method, path, r.Status, status, r.Raw)
	}
	if into != nil {
		if err := json.Unmarshal(r.Body.Data, into); err != nil {
			return fmt.Errorf("%s %s: decode data: %w", method, path, err)
		}
	}
	return nil
}
