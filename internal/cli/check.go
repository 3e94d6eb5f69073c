package cli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"text/tabwriter"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/einvoice/einvoice/internal/invoicing"
)

const checkSynopsis = "einvoice check --tenant TENANT_ID [--db DB] [--authority-url URL]"

// check is einvoice check: the go-live check of a tenant
// (invoicing.Service.CheckProfile, as GET /api/v1/profile/check), one line
// per step with what to do; an error (exit status 1) when a step failed.
// The built-in sandbox, when the tenant's environment is sandbox and no
// --authority-url is given, runs on a loopback port of this process for the
// check's length, on the same database.
func (m *Main) check(ctx context.Context, cfg Config, args []string) error {
	fs := m.newFlagSet("check", checkSynopsis)
	cfg.dbFlag(fs.FlagSet)
	tenantID := tenantFlag(fs)
	fs.StringVar(&cfg.AuthorityURL, "authority-url", cfg.AuthorityURL, "base URL of the sandbox environment's API (env EINVOICE_AUTHORITY_URL; default: the built-in sandbox, run for the check)")
	if _, err := fs.parse(args); err != nil {
		return err
	}
	if *tenantID == "" {
		return fs.fail("--tenant is required (see einvoice tenant list)")
	}
	logger := slog.New(slog.NewTextHandler(m.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	store, err := openStore(ctx, cfg, logger)
	if err != nil {
		return err
	}
	defer store.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("listen for the built-in sandbox: %w", err)
	}
	auth, err := newAuthority(cfg, store, logger, ln.Addr().String(), m.now(), prometheus.NewRegistry())
	if err != nil {
		ln.Close()
		return err
	}
	mux := http.NewServeMux()
	if auth.sandbox != nil {
		mux.Handle("/sandbox/", http.StripPrefix("/sandbox", auth.sandbox))
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: cfg.ReadHeaderTimeout}
	go srv.Serve(ln) //nolint:errcheck // ends with Close
	defer srv.Close()

	svc := invoicing.New(invoicing.Options{Store: store, Authority: auth.client, SandboxAPI: auth.sandboxAPI, SandboxPortal: auth.sandboxPortal, SandboxTrust: auth.sandboxTrust(),
		Now: m.now(), NewID: newID, Logger: logger, Wait: cfg.SubmitWait})
	res, err := svc.CheckProfile(ctx, *tenantID)
	if err != nil {
		return err
	}
	fmt.Fprintf(m.Stdout, "go-live check of tenant %s (%s):\n", *tenantID, res.Environment)
	tw := tabwriter.NewWriter(m.Stdout, 0, 4, 2, ' ', 0)
	var failed []string
	for _, s := range res.Steps {
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", s.Name, s.Status, s.Detail)
		if s.Action != "" {
			fmt.Fprintf(tw, "  \t\t-> %s\n", s.Action)
		}
		if s.Status == invoicing.CheckFailed {
			failed = append(failed, s.Name)
		}
	}
	tw.Flush()
	if len(failed) > 0 {
		return errors.New("the go-live check failed: " + strings.Join(failed, ", "))
	}
	fmt.Fprintln(m.Stdout, "passed")
	return nil
}
