package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
)

// Health is the answer of Health and Ready.
type Health struct {
	// Status is "ok", or "unavailable" (Ready) with Error saying why.
	Status string `json:"status"`
	Error  string `json:"error,omitempty"`
}

// Health reports whether the service's process is up (/healthz).
func (c *Client) Health(ctx context.Context) (*Health, error) { return c.health(ctx, "/healthz") }

// Ready reports whether the service can serve requests (/readyz: its
// database answers). When it cannot, the Health is returned with an
// *Error of status 503.
func (c *Client) Ready(ctx context.Context) (*Health, error) { return c.health(ctx, "/readyz") }

func (c *Client) health(ctx context.Context, path string) (*Health, error) {
	resp, err := c.Do(ctx, &Request{Method: http.MethodGet, Path: path}, nil)
	var e *Error
	if err != nil && !errors.As(err, &e) {
		return nil, err
	}
	var h Health
	if uerr := json.Unmarshal(resp.Body, &h); uerr != nil {
		return nil, fmt.Errorf("einvoice: GET %s: decode answer: %w", path, uerr)
	}
	return &h, err
}

// Metrics returns the service's Prometheus metrics, in the text format.
func (c *Client) Metrics(ctx context.Context) ([]byte, error) {
	return c.raw(ctx, "/metrics", "text/plain", nil)
}

// OpenAPI returns the service's OpenAPI 3.1 document.
func (c *Client) OpenAPI(ctx context.Context) ([]byte, error) {
	return c.raw(ctx, "/openapi.json", "application/json", nil)
}

// Docs returns the HTML page of the API reference (/docs).
func (c *Client) Docs(ctx context.Context) ([]byte, error) {
	return c.raw(ctx, "/docs", "text/html", nil)
}
