package servetest

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/einvoice/einvoice/internal/einvoice"
	"github.com/einvoice/einvoice/internal/invoicing"
	"github.com/einvoice/einvoice/internal/secretbox"
	"github.com/einvoice/einvoice/internal/sqlstore"
)

// Application is what the handlers' fuzz targets run on: the application
// on a migrated SQLite store in the target's temporary directory (closed
// when it ends), and the demo tenant.
func Application(f testing.TB) (*invoicing.Service, *einvoice.Tenant) {
	f.Helper()
	ctx := context.Background()
	box, _ := secretbox.New(make([]byte, secretbox.KeySize))
	store, err := sqlstore.Open(ctx, filepath.Join(f.TempDir(), "fuzz.db"), box)
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { _ = store.Close() })
	if err := store.Migrate(ctx, nil); err != nil {
		f.Fatal(err)
	}
	svc := invoicing.New(invoicing.Options{Store: store, Now: time.Now, NewID: func() string { return uuid.Must(uuid.NewV7()).String() }})
	tenant, err := svc.CreateTenant(ctx, einvoice.DemoProfile())
	if err != nil {
		f.Fatal(err)
	}
	return svc, tenant
}
