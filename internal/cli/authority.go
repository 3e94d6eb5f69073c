package cli

import (
	"context"
	"crypto/x509"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/einvoice/einvoice/internal/dsig"
	"github.com/einvoice/einvoice/internal/myinvois"
	"github.com/einvoice/einvoice/internal/sandbox"
	"github.com/einvoice/einvoice/internal/sqlstore"
)

// authority is the tax-authority side of a serving process: the MyInvois
// client, where the sandbox environment is, and the built-in sandbox when
// the sandbox environment is not elsewhere.
type authority struct {
	client        *myinvois.Client
	sandbox       http.Handler
	sandboxServer *sandbox.Server // the built-in sandbox; nil when elsewhere
	sandboxAPI    string
	sandboxPortal string
}

// newAuthority wires the client and the built-in sandbox of a process
// listening on addr. The client's rate budgets live in the database, shared
// by every replica; its metrics go to reg.
func newAuthority(cfg Config, store *sqlstore.Store, logger *slog.Logger, addr string, now func() time.Time, reg prometheus.Registerer) (*authority, error) {
	a := &authority{sandboxAPI: strings.TrimRight(cfg.AuthorityURL, "/"), sandboxPortal: strings.TrimRight(cfg.PortalURL, "/")}
	if a.sandboxAPI == "" {
		base := "http://" + loopback(addr) + "/sandbox"
		a.sandboxAPI = base
		if a.sandboxPortal == "" {
			a.sandboxPortal = base + sandbox.PortalPath
		}
		trusted, err := cfg.trustedCAs()
		if err != nil {
			return nil, err
		}
		o := sandbox.Options{DB: store.DB(), ReadDB: store.ReadDB(), Now: now, Postgres: store.Engine() == sqlstore.Postgres, Delay: cfg.SandboxDelay,
			PortalURL: a.sandboxPortal, VerifySignature: dsig.Verify, VerifyXMLSignature: dsig.VerifyXML, RateLimits: cfg.SandboxRateLimits, Logger: logger.With("component", "sandbox"),
			Secrets: store.Secrets(), TrustedCAs: trusted}
		// The tenants' sandbox credentials log in bound to their TINs.
		sandbox.BindTenants(&o, store)
		sb := sandbox.New(o)
		a.sandboxServer = sb
		a.sandbox = sandboxGuard(sb, cfg.SandboxFaults)
	}
	budget, err := sqlstore.NewAuthorityBudget(store)
	if err != nil {
		return nil, err
	}
	metrics := newAuthorityMetrics(reg)
	a.client = myinvois.New(myinvois.Options{Budgets: true, Budget: budget, Now: now, Timeout: cfg.SubmitWait,
		Logger: logger.With("component", "myinvois"), OnCall: metrics.call, OnBudget: metrics.budget})
	return a, nil
}

// sandboxTrust is the built-in sandbox's chain check, for the go-live
// check; nil when the sandbox environment is elsewhere.
func (a *authority) sandboxTrust() func(ctx context.Context, cert *x509.Certificate) error {
	if a.sandboxServer == nil {
		return nil
	}
	return a.sandboxServer.CheckChain
}

// loopback is the address to reach this process's own listener.
func loopback(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return addr
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, port)
}

// sandboxGuard hides the sandbox's fault switches and statistics unless they
// were asked for: on a shared service, nobody should be able to make the
// sandbox fail.
func sandboxGuard(h http.Handler, faults bool) http.Handler {
	if faults {
		return h
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/sandbox/") {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write([]byte(`{"error":{"code":"NotFound","message":"the sandbox's fault switches are off (start with --sandbox-faults)"}}` + "\n"))
			return
		}
		h.ServeHTTP(w, r)
	})
}
