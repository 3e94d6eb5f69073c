package cli

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/einvoice/einvoice/internal/dsig"
	"github.com/einvoice/einvoice/internal/sandbox"
	"github.com/einvoice/einvoice/internal/sqlstore"
)

// sandbox runs the tax-authority sandbox alone, as its own process, until
// ctx is done: the MyInvois protocol at the root of its address, its state
// in its database. A service reaches it with --authority-url.
func (m *Main) sandbox(ctx context.Context, cfg Config, args []string) error {
	if len(args) > 0 {
		switch args[0] {
		case "client":
			return m.sandboxClient(ctx, cfg, args[1:])
		case "ca":
			return m.sandboxCA(ctx, cfg, args[1:])
		case "issue-cert":
			return m.sandboxIssueCert(ctx, cfg, args[1:])
		}
	}
	fs := m.newFlagSet("sandbox", "einvoice sandbox [flags]")
	cfg.Addr, cfg.DatabaseURL = ":9090", "sandbox.db"
	cfg.dbFlag(fs.FlagSet)
	fs.StringVar(&cfg.Addr, "addr", cfg.Addr, "listen address")
	fs.StringVar(&cfg.PortalURL, "portal-url", "", "base URL of the validation links (default: this sandbox's /portal)")
	fs.StringVar(&cfg.LogFormat, "log-format", cfg.LogFormat, "log format: text or json (env EINVOICE_LOG_FORMAT)")
	fs.TextVar(&cfg.LogLevel, "log-level", cfg.LogLevel, "log level: debug, info, warn, error (env EINVOICE_LOG_LEVEL)")
	cfg.sandboxFlags(fs.FlagSet)
	cfg.timeoutFlags(fs.FlagSet)
	if _, err := fs.parse(args); err != nil {
		return err
	}
	if err := errors.Join(cfg.sandboxErrors()...); err != nil {
		return err
	}
	trusted, err := cfg.trustedCAs()
	if err != nil {
		return err
	}
	logger := newLogger(m, cfg)
	store, err := openStore(ctx, cfg, logger)
	if err != nil {
		return err
	}
	defer store.Close()
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", cfg.Addr, err)
	}
	portal := strings.TrimRight(cfg.PortalURL, "/")
	if portal == "" {
		portal = "http://" + loopback(ln.Addr().String()) + sandbox.PortalPath
	}
	sb := sandbox.New(sandbox.Options{DB: store.DB(), ReadDB: store.ReadDB(), Postgres: store.Engine() == sqlstore.Postgres, Now: m.now(),
		Delay: cfg.SandboxDelay, PortalURL: portal, VerifySignature: dsig.Verify, VerifyXMLSignature: dsig.VerifyXML, RateLimits: cfg.SandboxRateLimits, Logger: logger,
		Secrets: store.Secrets(), TrustedCAs: trusted})
	srv := newHTTPServer(ctx, cfg, sandboxGuard(sb, cfg.SandboxFaults), logger)
	logger.Info("sandbox listening", "addr", ln.Addr().String(), "portal", portal, "engine", store.Engine())
	if m.Ready != nil {
		m.Ready <- ln.Addr().String()
	}
	return runServer(ctx, srv, ln, 10*time.Second)
}
