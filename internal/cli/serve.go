package cli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/einvoice/einvoice/internal/einvoice"
	"github.com/einvoice/einvoice/internal/invoicing"
	"github.com/einvoice/einvoice/internal/ratelimit"
	"github.com/einvoice/einvoice/internal/sqlstore"
	"github.com/einvoice/einvoice/internal/web"
	"github.com/einvoice/einvoice/internal/webhook"
)

// serve runs the service until ctx is done, then drains in-flight requests.
func (m *Main) serve(ctx context.Context, cfg Config, args []string) error {
	fs := m.newFlagSet("serve", "einvoice serve [flags]")
	cfg.serveFlags(fs.FlagSet)
	if _, err := fs.parse(args); err != nil {
		return err
	}
	if err := cfg.validate(); err != nil {
		return err
	}
	logger := newLogger(m, cfg)
	started := time.Now()
	tuneGC()
	store, err := openStore(ctx, cfg, logger)
	if err != nil {
		return err
	}
	defer store.Close()
	var limiter einvoice.RateLimiter = ratelimit.NewMemory(cfg.RateLimit, cfg.RateWindow)
	if store.Engine() == sqlstore.Postgres {
		dbLimiter, err := sqlstore.NewRateLimiter(store, cfg.RateLimit, cfg.RateWindow)
		if err != nil {
			return err
		}
		limiter = dbLimiter
	}
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", cfg.Addr, err)
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	auth, err := newAuthority(cfg, store, logger, ln.Addr().String(), m.now(), reg)
	if err != nil {
		ln.Close()
		return err
	}
	mailSender, err := newMailSender(cfg, logger.With("component", "mail"))
	if err != nil {
		ln.Close()
		return err
	}
	hookMetrics := newWebhookMetrics(reg)
	svc := invoicing.New(invoicing.Options{Store: store, Authority: auth.client, SandboxAPI: auth.sandboxAPI, SandboxPortal: auth.sandboxPortal, SandboxTrust: auth.sandboxTrust(),
		Now: m.now(), NewID: newID, Logger: logger.With("component", "submission"), KeyCacheTTL: cfg.KeyCacheTTL,
		Wait: cfg.SubmitWait, Workers: cfg.Workers,
		Webhooks: webhook.New(cfg.WebhookAllowPrivate), WebhookAllowPrivate: cfg.WebhookAllowPrivate,
		DeliveryWorkers: cfg.WebhookWorkers, RetryBase: cfg.WebhookRetryBase, OnDelivery: hookMetrics.delivery,
		ReceivedInterval: cfg.receivedInterval(), AutoConsolidate: cfg.AutoConsolidate, PublicURL: cfg.publicURL(ln.Addr()),
		Mail: mailSender, MailRetryBase: cfg.MailRetryBase, OwnerEmail: cfg.OwnerEmail, Argon2: cfg.argon2()})
	if b, err := svc.Bootstrap(ctx); err != nil {
		ln.Close()
		return err
	} else if b != nil {
		m.printDemoKey(b, cfg.Addr, ln.Addr())
	}
	hookMetrics.watch(svc)
	secret, err := webSecret(cfg, logger)
	if err != nil {
		ln.Close()
		return err
	}
	handler := routes(surfaces{svc: svc, sandbox: auth.sandbox, limiter: limiter, logger: logger, reg: reg, secret: secret, now: m.now()})
	workCtx, stopWork := context.WithCancel(context.WithoutCancel(ctx))
	workDone := make(chan struct{})
	go func() {
		defer close(workDone)
		svc.Run(workCtx) // each loop switched by its own setting
	}()
	defer func() { stopWork(); <-workDone }()
	srv := newHTTPServer(ctx, cfg, handler, logger)
	if host, _, err := net.SplitHostPort(ln.Addr().String()); err == nil && net.ParseIP(host) != nil && net.ParseIP(host).IsUnspecified() {
		logger.Warn("listening on every network interface over plain HTTP: put a TLS proxy in front, or listen on loopback only (--addr 127.0.0.1:8080)",
			"addr", ln.Addr().String())
	}
	logger.Info("listening", "addr", ln.Addr().String(), "dashboard", "/app", "engine", store.Engine(), "version", Version,
		"authority_sandbox", auth.sandboxAPI, "startup_ms", time.Since(started).Milliseconds())
	if m.Ready != nil {
		m.Ready <- ln.Addr().String()
	}

	if cfg.PprofAddr != "" {
		stopPprof, err := servePprof(cfg.PprofAddr, logger)
		if err != nil {
			return err
		}
		defer stopPprof()
	}

	// Oversized headers answer our JSON error, even those net/http refuses
	// before the handler runs.
	if err := runServer(ctx, srv, web.Listener(ln), cfg.ShutdownTimeout, func() {
		logger.Info("shutting down: draining in-flight requests", "timeout", cfg.ShutdownTimeout)
	}); err != nil {
		return err
	}
	logger.Info("finishing submission work in hand")
	stopWork()
	<-workDone
	logger.Info("stopped")
	return nil
}

// newHTTPServer is the http.Server of a command, with the timeouts of cfg
// and the header limit of the API (web.MaxHeaderBytes).
func newHTTPServer(ctx context.Context, cfg Config, handler http.Handler, logger *slog.Logger) *http.Server {
	return &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: cfg.ReadHeaderTimeout,
		ReadTimeout:       cfg.ReadTimeout,
		WriteTimeout:      cfg.WriteTimeout,
		IdleTimeout:       cfg.IdleTimeout,
		MaxHeaderBytes:    web.MaxHeaderBytes,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
		BaseContext:       func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
	}
}

// servePprof serves the runtime profiles on their own listener, apart from
// the API, and returns the function that stops it.
func servePprof(addr string, logger *slog.Logger) (func(), error) {
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("pprof listen on %s: %w", addr, err)
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	logger.Info("pprof listening", "addr", ln.Addr().String())
	return func() { _ = srv.Close() }, nil
}

func newLogger(m *Main, cfg Config) *slog.Logger {
	opts := &slog.HandlerOptions{Level: cfg.LogLevel}
	var h slog.Handler = slog.NewTextHandler(m.Stderr, opts)
	if cfg.LogFormat == "json" {
		h = slog.NewJSONHandler(m.Stderr, opts)
	}
	return slog.New(web.LogHandler(h))
}

// printDemoKey shows the demo tenant's key, once, with a line to try it.
func (m *Main) printDemoKey(b *invoicing.Bootstrapped, addr string, listening net.Addr) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		host, port = "localhost", "8080"
	}
	if _, p, err := net.SplitHostPort(listening.String()); err == nil {
		port = p // the port it listens on (--addr :0 picks one)
	}
	if host == "" || host == "0.0.0.0" || host == "::" {
		host = "localhost"
	}
	base := "http://" + net.JoinHostPort(host, port)
	fmt.Fprintf(m.Stdout, `
einvoice: this is a new database. Created the demo tenant %q (id %s)
on the built-in tax-authority sandbox.

The dashboard, for people:

    %s/app

Its owner is %s. Set the owner's password (once, within 7 days) at

    %s

A read-write API key for programs, shown only this once:

    %s

Try it:

    curl -s -H 'Authorization: Bearer %s' %s/api/v1/profile

`, b.Tenant.Profile.Name, b.Tenant.ID, base, b.OwnerEmail, b.OwnerLink, b.Key, b.Key, base)
}

// runServer serves on ln until ctx is done, then drains in-flight requests
// for at most timeout; draining, if given, is called as draining starts.
func runServer(ctx context.Context, srv *http.Server, ln net.Listener, timeout time.Duration, draining ...func()) error {
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	for _, f := range draining {
		f()
	}
	sctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
