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
	"runtime/debug"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/google/uuid"

	"github.com/einvoice/einvoice/internal/einvoice"
	"github.com/einvoice/einvoice/internal/secretbox"
	"github.com/einvoice/einvoice/internal/sqlstore"
)

// Version is set at build time with -ldflags "-X .../internal/cli.Version=v1.2.3".
var Version = "dev"

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
  einvoice key revoke KEY_ID
  einvoice sandbox [--addr :9090] [--db sandbox.db] [--sandbox-delay 2s]    run the tax-authority sandbox alone
  einvoice version

Every command reads EINVOICE_DATABASE_URL and EINVOICE_SECRET_KEY; run a
command with -h for its flags.
`

// errUsage marks a usage error (exit status 2).
var errUsage = errors.New("usage")

// Run runs the command in args (without the program name) and returns the
// process exit status.
func (m *Main) Run(ctx context.Context, args []string) int {
	if err := m.run(ctx, args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		if errors.Is(err, errUsage) {
			fmt.Fprint(m.Stderr, usage)
			return 2
		}
		fmt.Fprintf(m.Stderr, "einvoice: %v\n", err)
		return 1
	}
	return 0
}

func (m *Main) run(ctx context.Context, args []string) error {
	if len(args) == 0 {
		return errUsage
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
	case "tenant", "key":
		if len(rest) == 0 {
			return errUsage
		}
		return m.admin(ctx, cfg, cmd+" "+rest[0], rest[1:])
	case "version":
		fmt.Fprintln(m.Stdout, versionString())
		return nil
	case "help", "-h", "--help":
		fmt.Fprint(m.Stdout, usage)
		return nil
	}
	return errUsage
}

func versionString() string {
	v := Version
	if info, ok := debug.ReadBuildInfo(); ok && v == "dev" && info.Main.Version != "" && info.Main.Version != "(devel)" {
		v = info.Main.Version
	}
	return "einvoice " + v
}

// parseFlags parses args with fs, refusing stray arguments.
func (m *Main) parseFlags(fs *flag.FlagSet, args []string) error {
	fs.SetOutput(m.Stderr)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%s: unexpected argument %q", fs.Name(), fs.Arg(0))
	}
	return nil
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
	path := strings.TrimPrefix(cfg.DatabaseURL, "file:")
	if i := strings.IndexByte(path, '?'); i >= 0 {
		path = path[:i]
	}
	path += ".secret"
	key, created, err := secretbox.LoadOrCreateKeyFile(path)
	if err != nil {
		return nil, err
	}
	if created {
		logger.Warn("generated a secret key for tenant secrets; back it up with the database, or set EINVOICE_SECRET_KEY", "file", path)
	}
	return key, nil
}

func newService(store einvoice.Store) *einvoice.Service {
	return &einvoice.Service{Store: store, Now: time.Now, NewID: newID}
}

// newID returns a UUID v7: ids sort by creation.
func newID() string { return uuid.Must(uuid.NewV7()).String() }

func (m *Main) migrate(ctx context.Context, cfg Config, args []string) error {
	fs := flag.NewFlagSet("migrate", flag.ContinueOnError)
	cfg.dbFlag(fs)
	if err := m.parseFlags(fs, args); err != nil {
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

func (m *Main) admin(ctx context.Context, cfg Config, cmd string, args []string) error {
	fs := flag.NewFlagSet(cmd, flag.ContinueOnError)
	cfg.dbFlag(fs)
	var p einvoice.Profile
	var tenantID string
	var readOnly bool
	switch cmd {
	case "tenant create":
		fs.StringVar(&p.Name, "name", "", "company name (required)")
		fs.StringVar(&p.TIN, "tin", "", "tax identification number (required)")
		fs.StringVar(&p.IDType, "id-type", "BRN", "registration id type: BRN, NRIC, PASSPORT, ARMY")
		fs.StringVar(&p.IDValue, "id-value", "", "registration number")
		fs.StringVar(&p.SSTRegistrationNumber, "sst", "NA", "SST registration number, NA when not registered")
		fs.StringVar(&p.TourismTaxRegistrationNumber, "ttx", "NA", "tourism tax registration number, NA when not registered")
		fs.StringVar(&p.MSICCode, "msic", "", "MSIC code (5 digits)")
		fs.StringVar(&p.BusinessActivityDescription, "activity", "", "business activity description")
		fs.StringVar(&p.Contact.Phone, "phone", "", "phone, e.g. +60312345678")
		fs.StringVar(&p.Contact.Email, "email", "", "e-mail")
		fs.StringVar(&p.Address.Line1, "address", "", "address line 1")
		fs.StringVar(&p.Address.City, "city", "", "city")
		fs.StringVar(&p.Address.State, "state", "", "state code, 01-17")
		fs.StringVar(&p.Address.PostCode, "postcode", "", "postcode")
		fs.StringVar(&p.Address.CountryCode, "country", "MYS", "country code (ISO 3166-1 alpha-3)")
	case "key create":
		fs.StringVar(&tenantID, "tenant", "", "tenant id (required)")
		fs.BoolVar(&readOnly, "read-only", false, "create a read-only key")
	case "key list":
		fs.StringVar(&tenantID, "tenant", "", "tenant id (required)")
	case "tenant list", "key revoke":
	default:
		return errUsage
	}
	var keyID string
	if cmd == "key revoke" {
		if len(args) == 0 || strings.HasPrefix(args[0], "-") {
			return errors.New("key revoke: give the key id: einvoice key revoke KEY_ID (see einvoice key list)")
		}
		keyID, args = args[0], args[1:]
	}
	if err := m.parseFlags(fs, args); err != nil {
		return err
	}
	switch {
	case cmd == "tenant create" && (strings.TrimSpace(p.Name) == "" || strings.TrimSpace(p.TIN) == ""):
		return errors.New("tenant create: --name and --tin are required")
	case (cmd == "key create" || cmd == "key list") && tenantID == "":
		return fmt.Errorf("%s: --tenant is required (see einvoice tenant list)", cmd)
	}
	logger := slog.New(slog.NewTextHandler(m.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	store, err := openStore(ctx, cfg, logger)
	if err != nil {
		return err
	}
	defer store.Close()
	svc := newService(store)
	switch cmd {
	case "tenant create":
		t, err := svc.CreateTenant(ctx, p)
		if err != nil {
			return err
		}
		fmt.Fprintln(m.Stdout, t.ID)
	case "tenant list":
		ts, err := store.ListTenants(ctx)
		if err != nil {
			return err
		}
		tw := tabwriter.NewWriter(m.Stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tNAME\tTIN\tENVIRONMENT\tCREATED")
		for _, t := range ts {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", t.ID, t.Profile.Name, t.Profile.TIN, t.Authority.Environment, t.CreatedAt.Format(time.RFC3339))
		}
		return tw.Flush()
	case "key create":
		perm := einvoice.PermReadWrite
		if readOnly {
			perm = einvoice.PermRead
		}
		_, key, err := svc.CreateAPIKey(ctx, tenantID, perm)
		if err != nil {
			return err
		}
		fmt.Fprintln(m.Stdout, key)
	case "key list":
		keys, err := store.ListAPIKeys(ctx, tenantID)
		if err != nil {
			return err
		}
		tw := tabwriter.NewWriter(m.Stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tPREFIX\tPERMISSION\tCREATED\tREVOKED")
		for _, k := range keys {
			revoked := "-"
			if k.RevokedAt != nil {
				revoked = k.RevokedAt.Format(time.RFC3339)
			}
			fmt.Fprintf(tw, "%s\t%s...\t%s\t%s\t%s\n", k.ID, k.Prefix, k.Permission, k.CreatedAt.Format(time.RFC3339), revoked)
		}
		return tw.Flush()
	case "key revoke":
		if err := store.RevokeAPIKey(ctx, keyID, time.Now()); errors.Is(err, einvoice.ErrNotFound) {
			return fmt.Errorf("key revoke: no key with id %q", keyID)
		} else if err != nil {
			return err
		}
		fmt.Fprintf(m.Stderr, "einvoice: key %s revoked\n", keyID)
	}
	return nil
}
