package cli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/einvoice/einvoice/internal/einvoice"
)

// adminSynopses are the usage lines of the administration commands.
var adminSynopses = map[string]string{
	"tenant create": "einvoice tenant create --name NAME --tin TIN [flags]",
	"tenant list":   "einvoice tenant list [--db DB]",
	"key create":    "einvoice key create --tenant TENANT_ID [--read-only] [--db DB]",
	"key list":      "einvoice key list --tenant TENANT_ID [--db DB]",
	"key revoke":    "einvoice key revoke [--db DB] KEY_ID    (KEY_ID as einvoice key list shows it)",
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
	synopsis, ok := adminSynopses[cmd]
	if !ok {
		return commandError(fmt.Sprintf("unknown command %q", cmd))
	}
	fs := m.newFlagSet(cmd, synopsis)
	cfg.dbFlag(fs.FlagSet)
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
	}
	var names []string // the positional arguments
	if cmd == "key revoke" {
		names = []string{"KEY_ID"}
	}
	positional, err := fs.parse(args, names...)
	if err != nil {
		return err
	}
	switch {
	case cmd == "tenant create" && (strings.TrimSpace(p.Name) == "" || strings.TrimSpace(p.TIN) == ""):
		return fs.fail("--name and --tin are required")
	case (cmd == "key create" || cmd == "key list") && tenantID == "":
		return fs.fail("--tenant is required (see einvoice tenant list)")
	}
	logger := slog.New(slog.NewTextHandler(m.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	store, err := openStore(ctx, cfg, logger)
	if err != nil {
		return err
	}
	defer store.Close()
	svc := newService(store, m.now())
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
		keyID := positional[0]
		if err := store.RevokeAPIKey(ctx, keyID, time.Now()); errors.Is(err, einvoice.ErrNotFound) {
			return fmt.Errorf("key revoke: no key with id %q", keyID)
		} else if err != nil {
			return err
		}
		fmt.Fprintf(m.Stderr, "einvoice: key %s revoked\n", keyID)
	}
	return nil
}
