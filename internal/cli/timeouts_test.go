package cli

import (
	"context"
	"flag"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestServerTimeouts: the HTTP server's timeouts are settings, from a flag
// or a variable, checked once.
func TestServerTimeouts(t *testing.T) {
	t.Parallel()
	cfg, err := envDefaults(env(map[string]string{"EINVOICE_IDLE_TIMEOUT": "3m", "EINVOICE_READ_HEADER_TIMEOUT": "2s"}))
	if err != nil {
		t.Fatal(err)
	}
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	cfg.serveFlags(fs)
	if err := fs.Parse([]string{"--write-timeout", "90s", "--read-timeout=45s"}); err != nil {
		t.Fatal(err)
	}
	if err := cfg.validate(); err != nil {
		t.Fatal(err)
	}
	srv := newHTTPServer(context.Background(), cfg, nil, slog.New(slog.DiscardHandler))
	if srv.ReadHeaderTimeout != 2*time.Second || srv.ReadTimeout != 45*time.Second || srv.WriteTimeout != 90*time.Second || srv.IdleTimeout != 3*time.Minute {
		t.Errorf("timeouts: read header %v, read %v, write %v, idle %v; want 2s, 45s, 1m30s, 3m",
			srv.ReadHeaderTimeout, srv.ReadTimeout, srv.WriteTimeout, srv.IdleTimeout)
	}
	cfg.WriteTimeout = 0
	if err := cfg.validate(); err == nil || !strings.Contains(err.Error(), "write timeout 0s") {
		t.Errorf("validate with a write timeout of 0: %v, want an error naming it", err)
	}
}

// TestServerLimits: by default the HTTP server's timeouts and header limit
// are those the API's security tests rely on (TestSecuritySlowClient of
// internal/e2e drives them over the wire).
func TestServerLimits(t *testing.T) {
	t.Parallel()
	cfg, err := envDefaults(func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	srv := newHTTPServer(context.Background(), cfg, http.NotFoundHandler(), slog.New(slog.DiscardHandler))
	if srv.ReadHeaderTimeout != 5*time.Second || srv.ReadTimeout != 30*time.Second || srv.WriteTimeout != 60*time.Second ||
		srv.IdleTimeout != 120*time.Second || srv.MaxHeaderBytes != 64<<10 {
		t.Errorf("server limits: read header %v, read %v, write %v, idle %v, max header bytes %d",
			srv.ReadHeaderTimeout, srv.ReadTimeout, srv.WriteTimeout, srv.IdleTimeout, srv.MaxHeaderBytes)
	}
}

// env returns a Getenv over the given variables only.
func env(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}
