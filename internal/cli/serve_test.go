package cli_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/einvoice/einvoice/internal/apidoc/apidoctest"
	"github.com/einvoice/einvoice/internal/servetest"
	"github.com/einvoice/einvoice/internal/testdb"
)

// TestShutdownDrains: cancelling serve (SIGTERM) lets it finish cleanly and
// closes the port.
func TestShutdownDrains(t *testing.T) {
	svc := servetest.Start(t, testdb.SQLite(t))
	c := newAPIClient(t, svc.URL, svc.DemoKey)
	c.get("/api/v1/profile").want(t, 200, "")
	svc.Stop(t)
	if _, err := http.Get(svc.URL + "/healthz"); err == nil {
		t.Errorf("the port still answers after shutdown")
	}
}

// apiClient reads the API of a running service with one key, for the few
// tests of the command that look through the API (what serve answers before
// it stops, where the README's walkthrough left the demo tenant); every
// answer is checked against the OpenAPI document. The tests of the API
// itself are in internal/e2e.
type apiClient struct {
	t    *testing.T
	base string
	key  string
	http *http.Client
}

var (
	validatorOnce sync.Once
	validator     *apidoctest.Validator
)

func newAPIClient(t *testing.T, base, key string) *apiClient {
	validatorOnce.Do(func() { validator = apidoctest.New(t) })
	return &apiClient{t: t, base: base, key: key, http: &http.Client{
		Transport: validator.Transport(t, http.DefaultTransport), Timeout: 30 * time.Second}}
}

// apiAnswer is a decoded answer.
type apiAnswer struct {
	Status int
	Raw    []byte
	Body   map[string]any
}

// get sends GET path. A 5xx answer, a JSON answer that is not an object and
// an answer without X-Request-Id fail the test.
func (c *apiClient) get(path string) *apiAnswer {
	c.t.Helper()
	req, err := http.NewRequest("GET", c.base+path, nil)
	if err != nil {
		c.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+c.key)
	resp, err := c.http.Do(req)
	if err != nil {
		c.t.Fatalf("GET %s: %v", path, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		c.t.Fatalf("GET %s: read body: %v", path, err)
	}
	r := &apiAnswer{Status: resp.StatusCode, Raw: raw}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		if err := json.Unmarshal(raw, &r.Body); err != nil {
			c.t.Errorf("GET %s: response is not a JSON object: %v\n%s", path, err, raw)
		}
	}
	if resp.Header.Get("X-Request-Id") == "" {
		c.t.Errorf("GET %s: no X-Request-Id", path)
	}
	if r.Status >= 500 {
		c.t.Errorf("GET %s answered %d: %s", path, r.Status, r.Raw)
	}
	return r
}

// want checks the status (and, for errors, the error code).
func (r *apiAnswer) want(t *testing.T, status int, code string) *apiAnswer {
	t.Helper()
	if got, _ := r.Body["error_code"].(string); r.Status != status || got != code {
		t.Errorf("got %d %q, want %d %q: %s", r.Status, got, status, code, r.Raw)
	}
	return r
}

// data returns body.data as an object.
func (r *apiAnswer) data() map[string]any {
	d, _ := r.Body["data"].(map[string]any)
	return d
}
