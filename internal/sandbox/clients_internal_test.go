package sandbox

import (
	"bytes"
	"context"
	"os"
	"testing"

	"github.com/einvoice/einvoice/internal/secretbox"
	"github.com/einvoice/einvoice/internal/sqlstore"
	"github.com/einvoice/einvoice/internal/testdb"
	"github.com/einvoice/einvoice/internal/testdb/migrated"
)

// TestBoundIdentity: the id of the client a TIN is bound to, registered
// first, then what Options.Taxpayers finds; nothing for an unbound TIN. On
// both engines.
func TestBoundIdentity(t *testing.T) {
	t.Parallel()
	dsns := map[string]string{"sqlite": migrated.SQLite(t)}
	if os.Getenv(testdb.EnvPostgres) != "" {
		dsns["postgres"] = migrated.Postgres(t, os.Getenv)
	}
	for name, dsn := range dsns {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			box, err := secretbox.New(bytes.Repeat([]byte{3}, secretbox.KeySize))
			if err != nil {
				t.Fatal(err)
			}
			st, err := sqlstore.Open(ctx, dsn, box)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { st.Close() })
			if err := st.Migrate(ctx, nil); err != nil {
				t.Fatal(err)
			}
			s := New(Options{DB: st.DB(), Postgres: st.Engine() == sqlstore.Postgres,
				Taxpayers: func(_ context.Context, q TaxpayerQuery) ([]Taxpayer, error) {
					all := []Taxpayer{{TIN: "C20000000010", IDType: "BRN", IDValue: "999"}, {TIN: "IG123456789", IDType: "NRIC", IDValue: "900101015555"}}
					var out []Taxpayer
					for _, tp := range all {
						if q.Matches(tp) {
							out = append(out, tp)
						}
					}
					return out, nil
				}})
			if err := s.AddClient(ctx, Client{ID: "a", Secret: "s", TIN: "c20000000010", IDType: "BRN", IDValue: "202001234567"}); err != nil {
				t.Fatal(err)
			}
			for _, tc := range []struct {
				tin, idType, idValue string
				ok                   bool
			}{
				{"C20000000010", "BRN", "202001234567", true}, // the registered client wins
				{" c20000000010 ", "BRN", "202001234567", true},
				{"IG123456789", "NRIC", "900101015555", true}, // a tenant's profile
				{"C30000000010", "", "", false},
				{"", "", "", false},
			} {
				idType, idValue, ok, err := s.boundIdentity(ctx, tc.tin)
				if err != nil || ok != tc.ok || idType != tc.idType || idValue != tc.idValue {
					t.Errorf("boundIdentity(%q) = %q %q %v %v", tc.tin, idType, idValue, ok, err)
				}
			}
		})
	}
}
