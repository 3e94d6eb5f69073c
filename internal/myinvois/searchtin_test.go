package myinvois_test

import (
	"errors"
	"testing"

	"github.com/einvoice/einvoice/internal/einvoice"
	"github.com/einvoice/einvoice/internal/myinvois"
	"github.com/einvoice/einvoice/internal/sandbox"
	"github.com/einvoice/einvoice/internal/testdb/migrated"
)

// TestSandboxSearchTIN drives Search TIN against the built-in sandbox over
// HTTP: by id (with and without fileType), by name, none found, more than
// one found, malformed criteria; and its rate budget is the reference's.
func TestSandboxSearchTIN(t *testing.T) {
	env := startSandbox(t, migrated.SQLite(t), sandbox.Options{})
	ctx := t.Context()
	for _, c := range []sandbox.Client{
		{ID: "ali", Secret: "ali-secret", TIN: "IG12345678901", IDType: "NRIC", IDValue: "900101015555", Name: "Ali bin Abu"},
		{ID: "twin-a", Secret: "twin-secret", TIN: "IG22222222220", IDType: "PASSPORT", IDValue: "A1234567", Name: "Twin"},
		{ID: "twin-b", Secret: "twin-secret", TIN: "IG33333333330", IDType: "PASSPORT", IDValue: "B7654321", Name: "Twin"},
	} {
		if err := env.sb.AddClient(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	c := myinvois.New(myinvois.Options{Logger: quietLogger(t)})
	for _, tc := range []struct {
		q    einvoice.TINSearch
		want string
		err  error
	}{
		{q: einvoice.TINSearch{IDType: "NRIC", IDValue: "900101015555"}, want: "IG12345678901"},
		{q: einvoice.TINSearch{IDType: "NRIC", IDValue: "900101015555", FileType: "1"}, want: "IG12345678901"},
		{q: einvoice.TINSearch{IDType: "NRIC", IDValue: "900101015555", FileType: "2"}, err: einvoice.ErrTINNotFound},
		{q: einvoice.TINSearch{TaxpayerName: "ali bin abu"}, want: "IG12345678901"},
		{q: einvoice.TINSearch{IDType: "BRN", IDValue: "201901234567"}, want: supplierTIN},
		{q: einvoice.TINSearch{IDType: "NRIC", IDValue: "990101019999"}, err: einvoice.ErrTINNotFound},
		{q: einvoice.TINSearch{TaxpayerName: "Twin"}, err: einvoice.ErrTINAmbiguous},
		{q: einvoice.TINSearch{TaxpayerName: "Twin", IDType: "PASSPORT", IDValue: "B7654321"}, want: "IG33333333330"},
	} {
		got, err := c.SearchTIN(ctx, env.cred, tc.q)
		if got != tc.want || !errors.Is(err, tc.err) {
			t.Errorf("SearchTIN %+v = %q, %v; want %q, %v", tc.q, got, err, tc.want, tc.err)
		}
	}
	// Malformed criteria: the authority's 400 BadArgument, neither of the
	// two answers above.
	_, err := c.SearchTIN(ctx, env.cred, einvoice.TINSearch{IDType: "NRIC"})
	if ce, ok := einvoice.AsCallError(err); !ok || ce.Status != 400 || ce.Body.Code != "BadArgument" ||
		errors.Is(err, einvoice.ErrTINAmbiguous) || errors.Is(err, einvoice.ErrTINNotFound) {
		t.Errorf("SearchTIN without idValue: %v, want 400 BadArgument", err)
	}
	if n := myinvois.RequestsPerMinute(myinvois.EndpointSearchTIN); n != 60 {
		t.Errorf("search TIN budget %d a minute, want 60 (reference 1.4, row 15)", n)
	}
}
