package cli

import (
	"context"
	"fmt"
	"log/slog"
	"strings"

	"github.com/einvoice/einvoice/internal/einvoice"
	"github.com/einvoice/einvoice/internal/refdata"
	"github.com/einvoice/einvoice/internal/sandbox"
	"github.com/einvoice/einvoice/internal/sqlstore"
)

// sandboxClientSynopsis is the usage line of einvoice sandbox client add.
const sandboxClientSynopsis = "einvoice sandbox client add --tin TIN [--id-type BRN --id-value X] [--name N] [--represents TIN,...] [--db sandbox.db]"

// sandboxClient runs einvoice sandbox client SUBCOMMAND: add registers a
// client of the standalone sandbox, bound to a TIN, and prints its id and
// secret (the secret is shown once).
func (m *Main) sandboxClient(ctx context.Context, cfg Config, args []string) error {
	if len(args) == 0 || args[0] != "add" {
		return &usageError{problem: "sandbox client: the command is add", usage: "Usage: " + sandboxClientSynopsis + "\n"}
	}
	fs := m.newFlagSet("sandbox client add", sandboxClientSynopsis)
	cfg.DatabaseURL = "sandbox.db"
	cfg.dbFlag(fs.FlagSet)
	var c sandbox.Client
	var represents string
	fs.StringVar(&c.TIN, "tin", "", "the taxpayer TIN the client logs in as (required; an intermediary's own TIN)")
	fs.StringVar(&c.IDType, "id-type", "BRN", "the taxpayer's id type: BRN, NRIC, PASSPORT, ARMY")
	fs.StringVar(&c.IDValue, "id-value", "", "the taxpayer's id (the TIN check matches a TIN bound to a client only with it)")
	fs.StringVar(&c.Name, "name", "", "the taxpayer's name (search TIN, taxpayer QR info)")
	fs.StringVar(&represents, "represents", "", "for an intermediary: the TINs it may act for (onbehalfof), comma-separated")
	if _, err := fs.parse(args[1:]); err != nil {
		return err
	}
	c.TIN = strings.ToUpper(strings.TrimSpace(c.TIN))
	c.IDType = strings.ToUpper(strings.TrimSpace(c.IDType))
	switch {
	case c.TIN == "":
		return fs.fail("--tin is required")
	case einvoice.CheckTIN(c.TIN) != "":
		return fs.fail("--tin " + einvoice.CheckTIN(c.TIN))
	case !refdata.IDTypes.Has(c.IDType):
		return fs.fail("--id-type must be one of BRN, NRIC, PASSPORT, ARMY")
	}
	for r := range strings.SplitSeq(represents, ",") {
		r = strings.ToUpper(strings.TrimSpace(r))
		if r == "" {
			continue
		}
		if problem := einvoice.CheckTIN(r); problem != "" {
			return fs.fail("--represents " + r + " " + problem)
		}
		c.Represents = append(c.Represents, r)
	}
	logger := slog.New(slog.NewTextHandler(m.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	store, err := openStore(ctx, cfg, logger)
	if err != nil {
		return err
	}
	defer store.Close()
	sb := sandbox.New(sandbox.Options{DB: store.DB(), ReadDB: store.ReadDB(), Postgres: store.Engine() == sqlstore.Postgres, Now: m.now(), Logger: logger})
	c.ID, c.Secret = sandbox.NewClientCredentials()
	if err := sb.AddClient(ctx, c); err != nil {
		return err
	}
	fmt.Fprintf(m.Stdout, "client_id: %s\nclient_secret: %s\n", c.ID, c.Secret)
	return nil
}
