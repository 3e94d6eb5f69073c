package cli

import (
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/einvoice/einvoice/internal/invoicing/people"
	"github.com/einvoice/einvoice/internal/sqlstore"
)

// Config is the whole configuration of a command, filled once from flags
// and EINVOICE_* variables (a flag wins over its variable, which wins over
// the default), validated once and passed down.
type Config struct {
	DatabaseURL     string
	SecretKey       string
	Addr            string
	RateLimit       int
	RateWindow      time.Duration
	LogFormat       string
	LogLevel        slog.Level
	ShutdownTimeout time.Duration
	// ReadHeaderTimeout, ReadTimeout, WriteTimeout and IdleTimeout are the
	// HTTP server's timeouts (http.Server's fields of the same names).
	ReadHeaderTimeout time.Duration
	ReadTimeout       time.Duration
	WriteTimeout      time.Duration
	IdleTimeout       time.Duration
	// KeyCacheTTL is how long an authenticated key is trusted without a
	// lookup (and so how long a revoked key may still work).
	KeyCacheTTL time.Duration
	// PprofAddr, when set, serves net/http/pprof on its own listener
	// (keep it on loopback).
	PprofAddr string

	// AuthorityURL and PortalURL, when set, are where the sandbox
	// environment is (any MyInvois-compatible service, such as `einvoice
	// sandbox`); by default the built-in sandbox under /sandbox.
	AuthorityURL string
	PortalURL    string
	// SandboxDelay is how long the built-in sandbox keeps a document
	// Submitted before its verdict (0: at once).
	SandboxDelay time.Duration
	// SandboxRateLimits makes the sandbox enforce the authority's
	// per-endpoint rate limits.
	SandboxRateLimits bool
	// SandboxFaults exposes the sandbox's fault switches (for tests).
	SandboxFaults bool
	// SandboxTrustCA are PEM files of certificate authorities the sandbox
	// trusts besides its own test CA.
	SandboxTrustCA []string
	// Workers is the number of submission workers of this process.
	Workers int
	// SubmitWait bounds how long a submit request waits for the authority.
	SubmitWait time.Duration
	// WebhookAllowPrivate lets webhook URLs reach loopback and private
	// addresses; WebhookWorkers is the number of delivery workers of this
	// process; WebhookRetryBase the first retry delay of a failed delivery.
	WebhookAllowPrivate bool
	WebhookWorkers      int
	WebhookRetryBase    time.Duration
	// ReceivedPollInterval is how often each tenant's received documents
	// are looked for (0: every 10 s with the built-in sandbox, otherwise a
	// minute).
	ReceivedPollInterval time.Duration
	// PublicURL is the service's public base URL (absolute http or https,
	// no query): receipts' request pages are under it, at /r/{token}. By
	// default http:// and the listen address (127.0.0.1 for an empty or
	// unspecified host).
	PublicURL string
	// AutoConsolidate runs the monthly consolidation of the previous month
	// for each tenant from the 3rd (DECISIONS 17); false leaves it to the
	// API.
	AutoConsolidate bool
	// SMTPURL is the operator's mail server (smtp://user:pass@host:587 with
	// STARTTLS, smtps:// with TLS, smtp+insecure:// on loopback only);
	// without one, messages are kept in the service's mailbox. MailFrom is
	// the sender's address; SMTPCA a PEM file of a certificate authority
	// the mail server's certificate may chain to besides the system's;
	// MailRetryBase the first retry delay of a temporary failure.
	SMTPURL       string
	MailFrom      string
	SMTPCA        string
	MailRetryBase time.Duration
	// SMTPTimeout bounds the connection to the mail server and each of its
	// commands.
	SMTPTimeout time.Duration
	// OwnerEmail is the e-mail of the demo tenant's owner, made by the
	// first start of an empty database.
	OwnerEmail string
	// Argon2MemoryKiB is the memory of a password hash (64 MiB); only tests
	// lower it.
	Argon2MemoryKiB int
}

// envDefaults reads the variables into a Config holding the defaults.
func envDefaults(getenv func(string) string) (Config, error) {
	c := Config{
		DatabaseURL: "einvoice.db", Addr: ":8080", RateLimit: 60, RateWindow: time.Minute,
		LogFormat: "text", LogLevel: slog.LevelInfo, ShutdownTimeout: 30 * time.Second, KeyCacheTTL: 5 * time.Second,
		SandboxDelay: 2 * time.Second, SandboxRateLimits: true, AutoConsolidate: true, Workers: 2, SubmitWait: 10 * time.Second,
		WebhookWorkers: 4, WebhookRetryBase: 5 * time.Second, MailRetryBase: 30 * time.Second, SMTPTimeout: 30 * time.Second,
		OwnerEmail: "owner@example.com", Argon2MemoryKiB: 64 * 1024,
		ReadHeaderTimeout: 5 * time.Second, ReadTimeout: 30 * time.Second, WriteTimeout: 60 * time.Second, IdleTimeout: 120 * time.Second,
	}
	var errs []error
	str := func(name string, dst *string) {
		if v := getenv(name); v != "" {
			*dst = v
		}
	}
	str("EINVOICE_DATABASE_URL", &c.DatabaseURL)
	str("EINVOICE_SECRET_KEY", &c.SecretKey)
	str("EINVOICE_ADDR", &c.Addr)
	str("EINVOICE_LOG_FORMAT", &c.LogFormat)
	str("EINVOICE_PPROF_ADDR", &c.PprofAddr)
	str("EINVOICE_AUTHORITY_URL", &c.AuthorityURL)
	str("EINVOICE_PORTAL_URL", &c.PortalURL)
	str("EINVOICE_PUBLIC_URL", &c.PublicURL)
	str("EINVOICE_SMTP_URL", &c.SMTPURL)
	str("EINVOICE_MAIL_FROM", &c.MailFrom)
	str("EINVOICE_SMTP_CA", &c.SMTPCA)
	str("EINVOICE_OWNER_EMAIL", &c.OwnerEmail)
	if v := getenv("EINVOICE_SANDBOX_TRUST_CA"); v != "" {
		_ = (*listFlag)(&c.SandboxTrustCA).Set(v)
	}
	for name, dst := range map[string]*bool{"EINVOICE_SANDBOX_RATE_LIMITS": &c.SandboxRateLimits, "EINVOICE_SANDBOX_FAULTS": &c.SandboxFaults,
		"EINVOICE_WEBHOOK_ALLOW_PRIVATE": &c.WebhookAllowPrivate,
		"EINVOICE_AUTO_CONSOLIDATE":      &c.AutoConsolidate} {
		if v := getenv(name); v != "" {
			b, err := strconv.ParseBool(v)
			if err != nil {
				errs = append(errs, fmt.Errorf("%s=%q: want true or false", name, v))
			}
			*dst = b
		}
	}
	if v := getenv("EINVOICE_WEBHOOK_WORKERS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			errs = append(errs, fmt.Errorf("EINVOICE_WEBHOOK_WORKERS=%q: want a whole number", v))
		}
		c.WebhookWorkers = n
	}
	if v := getenv("EINVOICE_WORKERS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			errs = append(errs, fmt.Errorf("EINVOICE_WORKERS=%q: want a whole number", v))
		}
		c.Workers = n
	}
	if v := getenv("EINVOICE_ARGON2_MEMORY"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			errs = append(errs, fmt.Errorf("EINVOICE_ARGON2_MEMORY=%q: want a whole number of KiB", v))
		}
		c.Argon2MemoryKiB = n
	}
	if v := getenv("EINVOICE_RATE_LIMIT"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			errs = append(errs, fmt.Errorf("EINVOICE_RATE_LIMIT=%q: want a whole number of requests per window", v))
		}
		c.RateLimit = n
	}
	for name, dst := range map[string]*time.Duration{"EINVOICE_RATE_WINDOW": &c.RateWindow,
		"EINVOICE_SHUTDOWN_TIMEOUT": &c.ShutdownTimeout, "EINVOICE_KEY_CACHE_TTL": &c.KeyCacheTTL,
		"EINVOICE_SANDBOX_DELAY": &c.SandboxDelay, "EINVOICE_SUBMIT_WAIT": &c.SubmitWait, "EINVOICE_WEBHOOK_RETRY_BASE": &c.WebhookRetryBase,
		"EINVOICE_MAIL_RETRY_BASE": &c.MailRetryBase, "EINVOICE_SMTP_TIMEOUT": &c.SMTPTimeout,
		"EINVOICE_RECEIVED_POLL_INTERVAL": &c.ReceivedPollInterval,
		"EINVOICE_READ_HEADER_TIMEOUT":    &c.ReadHeaderTimeout, "EINVOICE_READ_TIMEOUT": &c.ReadTimeout,
		"EINVOICE_WRITE_TIMEOUT": &c.WriteTimeout, "EINVOICE_IDLE_TIMEOUT": &c.IdleTimeout} {
		if v := getenv(name); v != "" {
			d, err := time.ParseDuration(v)
			if err != nil {
				errs = append(errs, fmt.Errorf("%s=%q: want a Go duration such as 60s", name, v))
			}
			*dst = d
		}
	}
	if v := getenv("EINVOICE_LOG_LEVEL"); v != "" {
		if err := c.LogLevel.UnmarshalText([]byte(v)); err != nil {
			errs = append(errs, fmt.Errorf("EINVOICE_LOG_LEVEL=%q: want debug, info, warn or error", v))
		}
	}
	return c, errors.Join(errs...)
}

// dbFlag adds --db to fs.
func (c *Config) dbFlag(fs *flag.FlagSet) {
	fs.StringVar(&c.DatabaseURL, "db", c.DatabaseURL, "database: a SQLite file path, or a postgres:// URL (env EINVOICE_DATABASE_URL)")
}

// serveFlags adds the flags of serve to fs.
func (c *Config) serveFlags(fs *flag.FlagSet) {
	c.dbFlag(fs)
	fs.StringVar(&c.Addr, "addr", c.Addr, "listen address (env EINVOICE_ADDR)")
	fs.IntVar(&c.RateLimit, "rate-limit", c.RateLimit, "requests per API key per window (env EINVOICE_RATE_LIMIT)")
	fs.DurationVar(&c.RateWindow, "rate-window", c.RateWindow, "length of a rate-limit window (env EINVOICE_RATE_WINDOW)")
	fs.StringVar(&c.LogFormat, "log-format", c.LogFormat, "log format: text or json (env EINVOICE_LOG_FORMAT)")
	fs.TextVar(&c.LogLevel, "log-level", c.LogLevel, "log level: debug, info, warn, error (env EINVOICE_LOG_LEVEL)")
	fs.DurationVar(&c.KeyCacheTTL, "key-cache-ttl", c.KeyCacheTTL, "how long an authenticated key is trusted without a lookup; a revoked key works at most that long (env EINVOICE_KEY_CACHE_TTL; 0 disables)")
	fs.StringVar(&c.PprofAddr, "pprof-addr", c.PprofAddr, "serve net/http/pprof on this address, e.g. 127.0.0.1:6060 (env EINVOICE_PPROF_ADDR; off when empty)")
	fs.DurationVar(&c.ShutdownTimeout, "shutdown-timeout", c.ShutdownTimeout, "how long SIGTERM waits for in-flight requests (env EINVOICE_SHUTDOWN_TIMEOUT)")
	c.timeoutFlags(fs)
	fs.StringVar(&c.AuthorityURL, "authority-url", c.AuthorityURL, "base URL of the sandbox environment's API, e.g. http://127.0.0.1:9090 for `einvoice sandbox` (env EINVOICE_AUTHORITY_URL; default: the built-in sandbox at /sandbox)")
	fs.StringVar(&c.PublicURL, "public-url", c.PublicURL, "the service's public base URL, under which receipts' request pages are (/r/{token}) (env EINVOICE_PUBLIC_URL; default http:// and the listen address)")
	fs.StringVar(&c.PortalURL, "portal-url", c.PortalURL, "base URL of the sandbox environment's portal, for validation links (env EINVOICE_PORTAL_URL)")
	c.sandboxFlags(fs)
	fs.IntVar(&c.Workers, "workers", c.Workers, "submission workers in this process (env EINVOICE_WORKERS)")
	fs.DurationVar(&c.SubmitWait, "submit-wait", c.SubmitWait, "how long a submit request waits for the authority before answering 202 (env EINVOICE_SUBMIT_WAIT)")
	fs.BoolVar(&c.WebhookAllowPrivate, "webhook-allow-private", c.WebhookAllowPrivate, "let webhook URLs reach loopback, private and link-local addresses (env EINVOICE_WEBHOOK_ALLOW_PRIVATE)")
	fs.BoolVar(&c.AutoConsolidate, "auto-consolidate", c.AutoConsolidate, "consolidate each tenant's receipts of the previous month from the 3rd of the month, Malaysian time, once on any replica; false leaves it to POST /api/v1/consolidations (env EINVOICE_AUTO_CONSOLIDATE)")
	fs.IntVar(&c.WebhookWorkers, "webhook-workers", c.WebhookWorkers, "webhook delivery workers in this process (env EINVOICE_WEBHOOK_WORKERS)")
	fs.DurationVar(&c.ReceivedPollInterval, "received-poll-interval", c.ReceivedPollInterval, "how often each tenant's received documents are looked for (env EINVOICE_RECEIVED_POLL_INTERVAL; default 10s with the built-in sandbox, else 1m)")
	fs.DurationVar(&c.WebhookRetryBase, "webhook-retry-base", c.WebhookRetryBase, "first retry delay of a failed webhook delivery, doubled per attempt up to 1h, with jitter (env EINVOICE_WEBHOOK_RETRY_BASE)")
	fs.StringVar(&c.SMTPURL, "smtp-url", c.SMTPURL, "the mail server: smtp://user:pass@host:587 (STARTTLS required), smtps://user:pass@host:465, or smtp+insecure://127.0.0.1:25 (loopback only) (env EINVOICE_SMTP_URL; default: none, messages are kept in the service's mailbox)")
	fs.StringVar(&c.MailFrom, "mail-from", c.MailFrom, "the address mail is sent from, e.g. einvoice@example.com (env EINVOICE_MAIL_FROM; required with --smtp-url)")
	fs.StringVar(&c.SMTPCA, "smtp-ca", c.SMTPCA, "PEM file of a certificate authority the mail server's certificate may chain to, besides the system's (env EINVOICE_SMTP_CA)")
	fs.DurationVar(&c.SMTPTimeout, "smtp-timeout", c.SMTPTimeout, "how long the mail server may take to connect and to answer each command (env EINVOICE_SMTP_TIMEOUT)")
	fs.StringVar(&c.OwnerEmail, "owner-email", c.OwnerEmail, "e-mail of the demo tenant's owner, made by the first start of an empty database (env EINVOICE_OWNER_EMAIL)")
	fs.IntVar(&c.Argon2MemoryKiB, "argon2-memory", c.Argon2MemoryKiB, "memory of a password hash in KiB (argon2id, 3 passes, 4 lanes); lower it only for tests (env EINVOICE_ARGON2_MEMORY)")
	fs.DurationVar(&c.MailRetryBase, "mail-retry-base", c.MailRetryBase, "first retry delay of a mail the server refused for now (4xx) or could not be reached for, doubled per attempt up to 1h, with jitter, for 3 days (env EINVOICE_MAIL_RETRY_BASE)")
}

// timeoutFlags adds the HTTP server's timeouts to fs.
func (c *Config) timeoutFlags(fs *flag.FlagSet) {
	fs.DurationVar(&c.ReadHeaderTimeout, "read-header-timeout", c.ReadHeaderTimeout, "how long a client may take to send a request's headers (env EINVOICE_READ_HEADER_TIMEOUT)")
	fs.DurationVar(&c.ReadTimeout, "read-timeout", c.ReadTimeout, "how long a client may take to send a whole request (env EINVOICE_READ_TIMEOUT)")
	fs.DurationVar(&c.WriteTimeout, "write-timeout", c.WriteTimeout, "how long a request may take from its headers to the end of its answer (env EINVOICE_WRITE_TIMEOUT)")
	fs.DurationVar(&c.IdleTimeout, "idle-timeout", c.IdleTimeout, "how long an idle keep-alive connection stays open (env EINVOICE_IDLE_TIMEOUT)")
}

// sandboxFlags adds the flags of the built-in sandbox to fs.
func (c *Config) sandboxFlags(fs *flag.FlagSet) {
	fs.DurationVar(&c.SandboxDelay, "sandbox-delay", c.SandboxDelay, "how long the sandbox keeps a document Submitted before its verdict; 0 validates at once (env EINVOICE_SANDBOX_DELAY)")
	fs.BoolVar(&c.SandboxRateLimits, "sandbox-rate-limits", c.SandboxRateLimits, "make the sandbox enforce the authority's per-endpoint rate limits (env EINVOICE_SANDBOX_RATE_LIMITS)")
	fs.BoolVar(&c.SandboxFaults, "sandbox-faults", c.SandboxFaults, "expose the sandbox's fault switches at /sandbox/sandbox/faults, for tests (env EINVOICE_SANDBOX_FAULTS)")
	fs.Var((*listFlag)(&c.SandboxTrustCA), "sandbox-trust-ca", "PEM file of a certificate authority the sandbox trusts besides its own test CA; repeat or separate with commas (env EINVOICE_SANDBOX_TRUST_CA)")
}

// validate checks the configuration once, with errors that say how to fix it.
func (c *Config) validate() error {
	errs := c.sandboxErrors()
	if c.RateLimit < 1 {
		errs = append(errs, fmt.Errorf("rate limit %d: want at least 1 request per window", c.RateLimit))
	}
	if c.RateWindow < time.Second {
		errs = append(errs, fmt.Errorf("rate window %s: want at least 1s", c.RateWindow))
	}
	if c.KeyCacheTTL < 0 || c.KeyCacheTTL > time.Minute {
		errs = append(errs, fmt.Errorf("key cache TTL %s: want 0 (off) to 1m", c.KeyCacheTTL))
	}
	if c.Workers < 0 || c.Workers > 64 {
		errs = append(errs, fmt.Errorf("workers %d: want 0 to 64", c.Workers))
	}
	if c.WebhookWorkers < 1 || c.WebhookWorkers > 64 {
		errs = append(errs, fmt.Errorf("webhook workers %d: want 1 to 64", c.WebhookWorkers))
	}
	if c.ReceivedPollInterval != 0 && (c.ReceivedPollInterval < 100*time.Millisecond || c.ReceivedPollInterval > time.Hour) {
		errs = append(errs, fmt.Errorf("received poll interval %s: want 100ms to 1h", c.ReceivedPollInterval))
	}
	if c.WebhookRetryBase < 10*time.Millisecond || c.WebhookRetryBase > 10*time.Second {
		errs = append(errs, fmt.Errorf("webhook retry base %s: want 10ms to 10s (the first retry comes within it)", c.WebhookRetryBase))
	}
	if c.Argon2MemoryKiB < 1024 || c.Argon2MemoryKiB > 1<<20 {
		errs = append(errs, fmt.Errorf("argon2 memory %d KiB: want 1024 to 1048576", c.Argon2MemoryKiB))
	}
	if c.MailRetryBase < 10*time.Millisecond || c.MailRetryBase > time.Hour {
		errs = append(errs, fmt.Errorf("mail retry base %s: want 10ms to 1h", c.MailRetryBase))
	}
	if c.SMTPTimeout < 100*time.Millisecond || c.SMTPTimeout > 10*time.Minute {
		errs = append(errs, fmt.Errorf("SMTP timeout %s: want 100ms to 10m", c.SMTPTimeout))
	}
	if c.SMTPURL == "" && (c.MailFrom != "" || c.SMTPCA != "") {
		errs = append(errs, errors.New("--mail-from and --smtp-ca need --smtp-url (EINVOICE_SMTP_URL): without a mail server, messages are kept in the service's mailbox"))
	}
	if c.SMTPURL != "" && c.MailFrom == "" {
		errs = append(errs, errors.New("--smtp-url needs --mail-from (EINVOICE_MAIL_FROM): the address mail is sent from"))
	}
	if c.SubmitWait < time.Second || c.SubmitWait > 2*time.Minute {
		errs = append(errs, fmt.Errorf("submit wait %s: want 1s to 2m", c.SubmitWait))
	}
	if c.PublicURL != "" {
		if err := checkPublicURL(c.PublicURL); err != nil {
			errs = append(errs, err)
		}
	}
	if sqlstore.EngineOf(c.DatabaseURL) == sqlstore.Postgres && c.SecretKey == "" {
		errs = append(errs, errors.New("EINVOICE_SECRET_KEY is required with PostgreSQL (every replica must share it): generate one with `head -c 32 /dev/urandom | base64`"))
	}
	return errors.Join(errs...)
}

// sandboxErrors checks the settings that `einvoice sandbox` shares with
// serve: the database, the sandbox's delay and the log format.
func (c *Config) sandboxErrors() []error {
	var errs []error
	if strings.TrimSpace(c.DatabaseURL) == "" {
		errs = append(errs, errors.New("no database given: pass --db FILE or --db postgres://URL"))
	}
	if c.SandboxDelay < 0 {
		errs = append(errs, fmt.Errorf("sandbox delay %s: want 0 or more", c.SandboxDelay))
	}
	if c.LogFormat != "text" && c.LogFormat != "json" {
		errs = append(errs, fmt.Errorf("log format %q: want text or json", c.LogFormat))
	}
	for _, t := range []struct {
		name string
		d    time.Duration
	}{{"read header", c.ReadHeaderTimeout}, {"read", c.ReadTimeout}, {"write", c.WriteTimeout}, {"idle", c.IdleTimeout}} {
		if t.d < time.Second || t.d > time.Hour {
			errs = append(errs, fmt.Errorf("%s timeout %s: want 1s to 1h", t.name, t.d))
		}
	}
	return errs
}

// receivedInterval is the received-documents poller's interval: as set, or
// 10 s against the built-in sandbox and a minute otherwise (DECISIONS 16).
func (c Config) receivedInterval() time.Duration {
	switch {
	case c.ReceivedPollInterval > 0:
		return c.ReceivedPollInterval
	case c.AuthorityURL == "":
		return 10 * time.Second
	}
	return time.Minute
}

// checkPublicURL refuses a public base URL that is not absolute http(s),
// or that has a query, a fragment or user information.
func checkPublicURL(v string) error {
	u, err := url.Parse(v)
	switch {
	case err != nil:
		return fmt.Errorf("public URL %q: %w", v, err)
	case u.Scheme != "http" && u.Scheme != "https":
		return fmt.Errorf("public URL %q: want an absolute http:// or https:// URL", v)
	case u.Host == "":
		return fmt.Errorf("public URL %q: want a host", v)
	case u.RawQuery != "" || u.ForceQuery || u.Fragment != "" || strings.Contains(v, "#"):
		return fmt.Errorf("public URL %q: want no query or fragment", v)
	case u.User != nil:
		return fmt.Errorf("public URL %q: want no user information", v)
	}
	return nil
}

// publicURL is the service's public base URL: as configured (without a
// trailing slash), or http:// and the address the server listens on, with
// 127.0.0.1 for an empty or unspecified host.
func (c Config) publicURL(listen net.Addr) string {
	if c.PublicURL != "" {
		return strings.TrimRight(c.PublicURL, "/")
	}
	host, port, err := net.SplitHostPort(listen.String())
	if err != nil {
		return "http://" + listen.String()
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		host = "127.0.0.1"
	}
	return "http://" + net.JoinHostPort(host, port)
}

// argon2 is the cost of a password hash.
func (c Config) argon2() people.Argon2Params {
	p := people.DefaultArgon2
	p.MemoryKiB = uint32(c.Argon2MemoryKiB)
	return p
}

// linkBase is where the administration commands' links point: the public
// URL, else the listen address (loopback for every interface).
func (c Config) linkBase() string {
	if c.PublicURL != "" {
		return strings.TrimRight(c.PublicURL, "/")
	}
	host, port, err := net.SplitHostPort(c.Addr)
	if err != nil {
		return "http://127.0.0.1:8080"
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		host = "127.0.0.1"
	}
	return "http://" + net.JoinHostPort(host, port)
}
