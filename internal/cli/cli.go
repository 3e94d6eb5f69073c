// Package cli is the einvoice command: its subcommands, its configuration,
// and the wiring of the adapters around the domain. cmd/einvoice only calls
// Main.Run, so a test can run the whole service.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/einvoice/einvoice/internal/secretbox"
	"github.com/einvoice/einvoice/internal/sqlstore"
)

// Main runs one command line.
type Main struct {
	Stdout, Stderr io.Writer
	// Getenv reads the environment (os.Getenv in production).
	Getenv func(string) string
	// Ready, when set, receives the listening address once serve accepts
	// connections (tests start the service on 127.0.0.1:0).
	Ready chan<- string
	// Now is the clock of serve and of its built-in sandbox (time.Now when
	// nil); tests move it to cross the authority's time windows.
	Now func() time.Time
}

func (m *Main) now() func() time.Time {
	if m.Now != nil {
		return m.Now
	}
	return time.Now
}

const usage = `einvoice: an e-invoicing service for the MyInvois tax authority.

Usage:
  einvoice serve [--addr :8080] [--db einvoice.db] [--rate-limit 60]   run the service
  einvoice migrate [--db ...]                                          apply database migrations
  einvoice tenant create --name N --tin T [--id-type BRN --id-value V ...]  print the new tenant id
  einvoice tenant list [--db ...]
  einvoice key create --tenant ID [--read-only]                       print the new API key (shown once)
  einvoice key list --tenant ID
  einvoice key revoke KEY_ID                                          KEY_ID as einvoice key list shows it
  einvoice check --tenant ID                                          the go-live check (login, TIN, certificate, signature)
  einvoice audit verify [--db ...]                                    check the audit log's hash chain
  einvoice sandbox [--addr :9090] [--db sandbox.db] [--sandbox-delay 2s]    run the tax-authority sandbox alone
  einvoice sandbox client add --tin TIN [--id-type BRN --id-value X] [--name N]    register a sandbox client; prints its id and secret
  einvoice sandbox ca [--db sandbox.db]                              print the sandbox's test CA certificate (PEM)
  einvoice sandbox issue-cert --tin TIN [--name ORG] (--out-cert F --out-key F | --pkcs12 F --password P)
                                                                      a signing certificate the sandbox trusts
  einvoice version

Flags may come before or after the arguments; -- ends them. Every command
reads EINVOICE_DATABASE_URL and EINVOICE_SECRET_KEY; run a command with -h
for its flags.
`

// commandError is the usage error of a command line that names no command.
func commandError(problem string) error { return &usageError{problem: problem, usage: usage} }

// Run runs the command in args (without the program name) and returns the
// process exit status.
func (m *Main) Run(ctx context.Context, args []string) int {
	if err := m.run(ctx, args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		var bad *usageError
		if errors.As(err, &bad) {
			fmt.Fprintf(m.Stderr, "einvoice: %s\n\n%s", bad.problem, bad.usage)
			return 2
		}
		fmt.Fprintf(m.Stderr, "einvoice: %v\n", err)
		return 1
	}
	return 0
}

func (m *Main) run(ctx context.Context, args []string) error {
	if len(args) == 0 {
		return commandError("no command given")
	}
	cfg, err := envDefaults(m.Getenv)
	if err != nil {
		return err
	}
	cmd, rest := args[0], args[1:]
	switch cmd {
	case "serve":
		return m.serve(ctx, cfg, rest)
	case "migrate":
		return m.migrate(ctx, cfg, rest)
	case "sandbox":
		return m.sandbox(ctx, cfg, rest)
	case "tenant", "key", "user":
		if len(rest) == 0 || strings.HasPrefix(rest[0], "-") {
			return commandError(fmt.Sprintf("%s: name the command first: einvoice %s %s", cmd, cmd, strings.Join(adminCommands(cmd), "|")))
		}
		return m.admin(ctx, cfg, cmd+" "+rest[0], rest[1:])
	case "check":
		return m.check(ctx, cfg, rest)
	case "audit":
		return m.auditCommand(ctx, cfg, rest)
	case "version":
		if _, err := m.newFlagSet("version", "einvoice version").parse(rest); err != nil {
			return err
		}
		fmt.Fprintln(m.Stdout, versionString())
		return nil
	case "help", "-h", "--help":
		fmt.Fprint(m.Stdout, usage)
		return nil
	}
	return commandError(fmt.Sprintf("unknown command %q", cmd))
}

// openStore loads the secret key, opens the database and migrates it.
func openStore(ctx context.Context, cfg Config, logger *slog.Logger) (*sqlstore.Store, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	key, err := loadSecretKey(cfg, logger)
	if err != nil {
		return nil, err
	}
	box, err := secretbox.New(key)
	if err != nil {
		return nil, err
	}
	store, err := sqlstore.Open(ctx, cfg.DatabaseURL, box)
	if err != nil {
		return nil, err
	}
	if err := store.Migrate(ctx, logger); err != nil {
		store.Close()
		return nil, err
	}
	return store, nil
}

// loadSecretKey returns EINVOICE_SECRET_KEY or, on SQLite when it is unset,
// the key in a file beside the database (created on first start).
func loadSecretKey(cfg Config, logger *slog.Logger) ([]byte, error) {
	if cfg.SecretKey != "" {
		return secretbox.ParseKey(cfg.SecretKey)
	}
	path := sqlstore.SQLitePath(cfg.DatabaseURL) + ".secret"
	key, created, err := secretbox.LoadOrCreateKeyFile(path)
	if err != nil {
		return nil, err
	}
	if created {
		logger.Warn("generated a secret key for tenant secrets; back it up with the database, or set EINVOICE_SECRET_KEY", "file", path)
	}
	return key, nil
}

// newID returns a UUID v7: ids sort by creation.
func newID() string { return uuid.Must(uuid.NewV7()).String() }

func (m *Main) migrate(ctx context.Context, cfg Config, args []string) error {
	fs := m.newFlagSet("migrate", "einvoice migrate [--db DB]")
	cfg.dbFlag(fs.FlagSet)
	if _, err := fs.parse(args); err != nil {
		return err
	}
	logger := slog.New(slog.NewTextHandler(m.Stderr, nil))
	store, err := openStore(ctx, cfg, logger)
	if err != nil {
		return err
	}
	defer store.Close()
	fmt.Fprintf(m.Stderr, "einvoice: %s database is up to date\n", store.Engine())
	return nil
}
