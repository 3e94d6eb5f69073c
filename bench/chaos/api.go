package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/einvoice/einvoice/client"
)

// api talks to the service: its replicas' base URLs (requests go round
// robin) and the demo tenant's key.
type api struct {
	bases []string
	key   string
	next  atomic.Uint64
}

// apiClient is one client of the service, with its own connections: the
// public client of each replica, on one http.Client. Nothing is retried:
// the clients of the chaos make their own retries (clients.go), and judge
// every answer.
type apiClient struct {
	api *api
	by  map[string]*client.Client // by base URL
}

func (a *api) newClient() *apiClient {
	hc := &http.Client{Timeout: 60 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 4}}
	c := &apiClient{api: a, by: map[string]*client.Client{}}
	for _, base := range a.bases {
		c.by[base] = client.New(base, a.key, client.WithRetries(0), client.WithHTTPClient(hc), client.WithUserAgent("einvoice-chaos"))
	}
	return c
}

// at returns the client of the replica at base.
func (c *apiClient) at(base string) *client.Client { return c.by[base] }

// any returns the client of the next replica, round robin.
func (c *apiClient) any() *client.Client { return c.at(c.api.base()) }

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

// reply is the service's answer, as received: its status and envelope,
// whatever they hold (the answers are judged, not trusted).
type reply struct {
	Status int
	Raw    []byte
	Body   struct {
		Success   bool            `json:"success"`
		Data      json.RawMessage `json:"data"`
		Message   string          `json:"message"`
		ErrorCode string          `json:"error_code"`
	}
}

// do sends one request to base through the public client (Do, which
// decodes nothing for us) and returns the answer, whatever its status; a
// transport error (no answer) is returned as is.
func (c *apiClient) do(ctx context.Context, base, method, path string, body any) (*reply, error) {
	resp, err := c.at(base).Do(ctx, &client.Request{Method: method, Path: path, Body: body}, nil)
	if resp == nil {
		return nil, err
	}
	// An answer: a 2xx, or any other status (err is then its *client.Error).
	r := &reply{Status: resp.StatusCode, Raw: bytes.TrimSpace(resp.Body)}
	_ = json.Unmarshal(r.Raw, &r.Body) // a body that is not our envelope is judged by the caller
	return r, nil
}
