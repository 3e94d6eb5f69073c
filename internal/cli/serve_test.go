package cli_test

import (
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/einvoice/einvoice/client"
	"github.com/einvoice/einvoice/internal/apidoc/apidoctest"
	"github.com/einvoice/einvoice/internal/servetest"
	"github.com/einvoice/einvoice/internal/testdb/migrated"
)

// TestShutdownDrains: cancelling serve (SIGTERM) lets it finish cleanly and
// closes the port.
func TestShutdownDrains(t *testing.T) {
	t.Parallel()
	svc := servetest.Start(t, migrated.SQLite(t))
	c := newAPIClient(t, svc.URL, svc.DemoKey)
	if _, err := c.Profile.Get(t.Context()); err != nil {
		t.Errorf("GET /profile before the stop: %v", err)
	}
	svc.Stop(t)
	if _, err := http.Get(svc.URL + "/healthz"); err == nil {
		t.Errorf("the port still answers after shutdown")
	}
}

// newAPIClient returns the public Go client of a running service with one
// key, for the few tests of the command that look through the API (what
// serve answers before it stops, where the README's walkthrough left the
// demo tenant): nothing retried, every answer checked against the OpenAPI
// document. The tests of the API itself are in internal/e2e.
func newAPIClient(t *testing.T, base, key string) *client.Client {
	validatorOnce.Do(func() { validator = apidoctest.New(t) })
	return client.New(base, key, client.WithRetries(0), client.WithHTTPClient(&http.Client{
		Transport: checkedAnswers{t, validator.Transport(t, http.DefaultTransport)}, Timeout: 30 * time.Second}))
}

// checkedAnswers fails the test on an answer without X-Request-Id, or with a
// 5xx status.
type checkedAnswers struct {
	t    *testing.T
	next http.RoundTripper
}

func (c checkedAnswers) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := c.next.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	if resp.Header.Get("X-Request-Id") == "" {
		c.t.Errorf("%s %s: no X-Request-Id", req.Method, req.URL.Path)
	}
	if resp.StatusCode >= 500 {
		c.t.Errorf("%s %s answered %d", req.Method, req.URL.Path, resp.StatusCode)
	}
	return resp, nil
}

var (
	validatorOnce sync.Once
	validator     *apidoctest.Validator
)
