package e2e

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/einvoice/einvoice/client"
	"github.com/einvoice/einvoice/internal/testcert"
)

// TestSandboxTrust: the built-in sandbox judges a signed document's
// certificate as the authority does. A self-signed certificate, which the
// service itself accepts at PUT /profile, makes the document Invalid with
// DS329; one from a certificate authority given with --sandbox-trust-ca
// makes it Valid.
func TestSandboxTrust(t *testing.T) {
	eachEngine(t, func(t *testing.T, dsn string) {
		ctx := t.Context()
		ca := testcert.NewCA(t, "Trusted Test CA")
		caFile := filepath.Join(t.TempDir(), "ca.pem")
		if err := os.WriteFile(caFile, []byte(ca.CertPEM), 0o600); err != nil {
			t.Fatal(err)
		}
		_, c := startLifecycleAPI(t, dsn, "--sandbox-trust-ca", caFile)
		cur, err := c.Profile.Get(ctx)
		must(t, cur, err)
		b, err := c.Buyers.Create(ctx, partyOf(t, sampleBuyer()))
		buyer := must(t, b, err).ID
		useCert := func(cert, key string) {
			t.Helper()
			p, err := c.Profile.Update(ctx, profileOf(t, sampleProfile()), &client.AuthorityUpdate{Environment: "sandbox",
				Mode: "taxpayer", ClientID: cur.Authority.ClientID, CertificatePEM: cert, PrivateKeyPEM: key})
			must(t, p, err)
		}

		useCert(testcert.New(t, "Supplier's Name", sampleSupplier().TIN))
		id := readyInvoiceDoc(t, c, "INV-SELF-SIGNED-1", buyer)
		sub, err := c.Documents.Submit(ctx, id)
		must(t, sub, err)
		st := waitStatusTyped(t, c, id, client.StatusInvalid, 20*time.Second)
		var codes []string
		for _, e := range st.AuthorityErrors {
			for _, d := range e.Details {
				codes = append(codes, d.Code)
			}
		}
		if !slices.Equal(codes, []string{"DS329"}) {
			t.Errorf("a self-signed document's errors: %+v, want DS329 alone", st.AuthorityErrors)
		}

		useCert(testcert.Make(t, testcert.Options{Organisation: "Supplier's Name", TIN: sampleSupplier().TIN, CA: ca}))
		id = readyInvoiceDoc(t, c, "INV-TRUSTED-1", buyer)
		sub, err = c.Documents.Submit(ctx, id)
		must(t, sub, err)
		waitStatusTyped(t, c, id, client.StatusValid, 20*time.Second)
	})
}
