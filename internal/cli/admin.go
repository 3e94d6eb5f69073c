package cli

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/einvoice/einvoice/internal/einvoice"
	"github.com/einvoice/einvoice/internal/invoicing"
)

// adminSynopses are the usage lines of the administration commands.
var adminSynopses = map[string]string{
	"tenant create": "einvoice tenant create --name NAME --tin TIN [flags]",
	"tenant list":   "einvoice tenant list [--db DB]",
	"key create":    "einvoice key create --tenant TENANT_ID [--name NAME] [--read-only] [--db DB]",
	"key list":      "einvoice key list --tenant TENANT_ID [--db DB]",
	"key revoke":    "einvoice key revoke [--db DB] KEY_ID    (KEY_ID as einvoice key list shows it)",
	"user add":      "einvoice user add --tenant TENANT_ID --email E --role owner|admin|accountant|viewer [--name NAME] [--db DB]",
	"user list":     "einvoice user list --tenant TENANT_ID [--db DB]",
}

// adminCommands lists the commands of group ("tenant" or "key"): create,
// list, ...
func adminCommands(group string) []string {
	var cmds []string
	for cmd := range adminSynopses {
		if sub, ok := strings.CutPrefix(cmd, group+" "); ok {
			cmds = append(cmds, sub)
		}
	}
	slices.Sort(cmds)
	return cmds
}

// admin runs the administration command cmd ("tenant create", "key revoke", ...).
func (m *Main) admin(ctx context.Context, cfg Config, cmd string, args []string) error {
	run, ok := map[string]func(context.Context, *Config, *flagSet, []string) error{
		"tenant create": m.tenantCreate,
		"tenant list":   m.tenantList,
		"key create":    m.keyCreate,
		"key list":      m.keyList,
		"key revoke":    m.keyRevoke,
		"user add":      m.userAdd,
		"user list":     m.userList,
	}[cmd]
	if !ok {
		return commandError(fmt.Sprintf("unknown command %q", cmd))
	}
	fs := m.newFlagSet(cmd, adminSynopses[cmd])
	cfg.dbFlag(fs.FlagSet)
	return run(ctx, &cfg, fs, args) // the flags fill cfg as they are parsed
}

// adminService opens the database of an administration command and
// returns the service on it (no tax authority) and the function that
// closes it.
func (m *Main) adminService(ctx context.Context, cfg *Config) (*invoicing.Service, func(), error) {
	logger := slog.New(slog.NewTextHandler(m.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	store, err := openStore(ctx, *cfg, logger)
	if err != nil {
		return nil, nil, err
	}
	return invoicing.New(invoicing.Options{Store: store, Now: m.now(), NewID: newID, PublicURL: cfg.linkBase()}), func() { store.Close() }, nil
}

// tenantCreate is einvoice tenant create: it prints the new tenant's id.
func (m *Main) tenantCreate(ctx context.Context, cfg *Config, fs *flagSet, args []string) error {
	var p einvoice.Profile
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
	if _, err := fs.parse(args); err != nil {
		return err
	}
	if strings.TrimSpace(p.Name) == "" || strings.TrimSpace(p.TIN) == "" {
		return fs.fail("--name and --tin are required")
	}
	svc, closeStore, err := m.adminService(ctx, cfg)
	if err != nil {
		return err
	}
	defer closeStore()
	t, err := svc.CreateTenant(ctx, p)
	if err != nil {
		return err
	}
	m.recordCLI(ctx, svc, t.ID, "tenant create", "tenant", t.ID)
	fmt.Fprintln(m.Stdout, t.ID)
	return nil
}

// tenantList is einvoice tenant list: a table of every tenant.
func (m *Main) tenantList(ctx context.Context, cfg *Config, fs *flagSet, args []string) error {
	if _, err := fs.parse(args); err != nil {
		return err
	}
	svc, closeStore, err := m.adminService(ctx, cfg)
	if err != nil {
		return err
	}
	defer closeStore()
	ts, err := svc.ListTenants(ctx)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(m.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tNAME\tTIN\tENVIRONMENT\tCREATED")
	for _, t := range ts {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", t.ID, t.Profile.Name, t.Profile.TIN, t.Authority.Environment, t.CreatedAt.Format(time.RFC3339))
	}
	return tw.Flush()
}

// tenantFlag defines --tenant, which the key commands require.
func tenantFlag(fs *flagSet) *string {
	return fs.String("tenant", "", "tenant id (required)")
}

// keyCreate is einvoice key create: it prints the new key, shown once.
func (m *Main) keyCreate(ctx context.Context, cfg *Config, fs *flagSet, args []string) error {
	tenantID := tenantFlag(fs)
	readOnly := fs.Bool("read-only", false, "create a read-only key")
	name := fs.String("name", "", "whose key it is (a person's name, shown by the dashboard)")
	svc, closeStore, err := m.tenantService(ctx, cfg, fs, args, tenantID)
	if err != nil {
		return err
	}
	defer closeStore()
	perm := einvoice.PermReadWrite
	if *readOnly {
		perm = einvoice.PermRead
	}
	k, key, err := svc.CreateNamedAPIKey(ctx, *tenantID, *name, perm)
	if err != nil {
		return err
	}
	m.recordCLI(ctx, svc, *tenantID, "key create", "key", k.ID)
	fmt.Fprintln(m.Stdout, key)
	return nil
}

// tenantService parses the arguments of a key command, whose --tenant
// (tenantID) is required, and opens the service as adminService does.
func (m *Main) tenantService(ctx context.Context, cfg *Config, fs *flagSet, args []string, tenantID *string) (*invoicing.Service, func(), error) {
	if _, err := fs.parse(args); err != nil {
		return nil, nil, err
	}
	if *tenantID == "" {
		return nil, nil, fs.fail("--tenant is required (see einvoice tenant list)")
	}
	return m.adminService(ctx, cfg)
}

// keyList is einvoice key list: a table of the tenant's keys.
func (m *Main) keyList(ctx context.Context, cfg *Config, fs *flagSet, args []string) error {
	tenantID := tenantFlag(fs)
	svc, closeStore, err := m.tenantService(ctx, cfg, fs, args, tenantID)
	if err != nil {
		return err
	}
	defer closeStore()
	keys, err := svc.ListAPIKeys(ctx, *tenantID)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(m.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tPREFIX\tPERMISSION\tCREATED\tREVOKED\tNAME")
	for _, k := range keys {
		revoked := "-"
		if k.RevokedAt != nil {
			revoked = k.RevokedAt.Format(time.RFC3339)
		}
		fmt.Fprintf(tw, "%s\t%s...\t%s\t%s\t%s\t%s\n", k.ID, k.Prefix, k.Permission, k.CreatedAt.Format(time.RFC3339), revoked, k.Name)
	}
	return tw.Flush()
}

// keyRevoke is einvoice key revoke KEY_ID: the key stops working, by the
// service's clock.
func (m *Main) keyRevoke(ctx context.Context, cfg *Config, fs *flagSet, args []string) error {
	positional, err := fs.parse(args, "KEY_ID")
	if err != nil {
		return err
	}
	keyID := positional[0]
	svc, closeStore, err := m.adminService(ctx, cfg)
	if err != nil {
		return err
	}
	defer closeStore()
	err = svc.RevokeAPIKey(ctx, keyID)
	if err == nil {
		m.recordCLI(ctx, svc, keyTenant(ctx, svc, keyID), "key revoke", "key", keyID)
	}
	if einvoice.ErrorCode(err) == einvoice.CodeNotFound {
		return fmt.Errorf("key revoke: no key with id %q", keyID)
	} else if err != nil {
		return err
	}
	fmt.Fprintf(m.Stderr, "einvoice: key %s revoked\n", keyID)
	return nil
}

// userAdd is einvoice user add: it makes the user of the e-mail (when new)
// a member of the tenant with the role, and prints a one-time link that
// sets its password (valid 7 days).
func (m *Main) userAdd(ctx context.Context, cfg *Config, fs *flagSet, args []string) error {
	tenantID := tenantFlag(fs)
	email := fs.String("email", "", "the person's e-mail (required)")
	role := fs.String("role", "", "owner, admin, accountant or viewer (required)")
	name := fs.String("name", "", "the person's name (default: the e-mail)")
	svc, closeStore, err := m.tenantService(ctx, cfg, fs, args, tenantID)
	if err != nil {
		return err
	}
	defer closeStore()
	if *email == "" || *role == "" {
		return fs.fail("--email and --role are required")
	}
	u, link, err := svc.AddUser(ctx, *tenantID, *email, *name, einvoice.Role(*role))
	if err != nil {
		return err
	}
	m.recordCLI(ctx, svc, *tenantID, "user add", "user", u.ID)
	fmt.Fprintln(m.Stdout, link)
	return nil
}

// userList is einvoice user list: a table of the tenant's people.
func (m *Main) userList(ctx context.Context, cfg *Config, fs *flagSet, args []string) error {
	tenantID := tenantFlag(fs)
	svc, closeStore, err := m.tenantService(ctx, cfg, fs, args, tenantID)
	if err != nil {
		return err
	}
	defer closeStore()
	ms, err := svc.Members(ctx, *tenantID)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(m.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tEMAIL\tROLE\tSECOND FACTOR\tNAME")
	for _, mb := range ms {
		second := "-"
		if mb.User.TOTPEnabled {
			second = "totp"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", mb.User.ID, mb.User.Email, mb.Role, second, mb.User.Name)
	}
	return tw.Flush()
}
