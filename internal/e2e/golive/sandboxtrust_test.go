package golive

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/einvoice/einvoice/internal/e2e/e2etest"

	"github.com/einvoice/einvoice/client"
	"github.com/einvoice/einvoice/internal/testcert"
)

// TestSandboxTrust: the built-in sandbox judges a signed document's
// certificate as the authority does. A self-signed certificate, which the
// service itself accepts at PUT /profile, makes the document Invalid with
// DS329; one from a certificate authority given with --sandbox-trust-ca
// makes it Valid.
func TestSandboxTrust(t *testing.T) {
	t.Parallel()
	e2etest.EachEngine(t, func(t *testing.T, dsn string) {
		ctx := t.Context()
		ca := testcert.NewCA(t, "Trusted Test CA")
		caFile := filepath.Join(t.TempDir(), "ca.pem")
		if err := os.WriteFile(caFile, []byte(ca.CertPEM), 0o600); err != nil {
			t.Fatal(err)
		}
		_, c := e2etest.StartLifecycleAPI(t, dsn, "--sandbox-trust-ca", caFile)
		cur, err := c.Profile.Get(ctx)
		e2etest.Must(t, cur, err)
		b, err := c.Buyers.Create(ctx, e2etest.PartyOf(t, e2etest.SampleBuyer()))
		buyer := e2etest.Must(t, b, err).ID
		useCert := func(cert, key string) {
			t.Helper()
			p, err := c.Profile.Update(ctx, e2etest.ProfileOf(t, e2etest.SampleProfile()), &client.AuthorityUpdate{Environment: "sandbox",
				Mode: "taxpayer", ClientID: cur.Authority.ClientID, CertificatePEM: cert, PrivateKeyPEM: key})
			e2etest.Must(t, p, err)
		}

		useCert(testcert.New(t, "Supplier's Name", e2etest.SampleSupplier().TIN))
		id := e2etest.ReadyInvoiceDoc(t, c, "INV-SELF-SIGNED-1", buyer)
		sub, err := c.Documents.Submit(ctx, id)
		e2etest.Must(t, sub, err)
		st := e2etest.WaitStatusTyped(t, c, id, client.StatusInvalid, 20*time.Second)
		var codes []string
		for _, e := range st.AuthorityErrors {
			for _, d := range e.Details {
				codes = append(codes, d.Code)
			}
		}
		if !slices.Equal(codes, []string{"DS329"}) {
			t.Errorf("a self-signed document's errors: %+v, want DS329 alone", st.AuthorityErrors)
		}

		useCert(testcert.Make(t, testcert.Options{Organisation: "Supplier's Name", TIN: e2etest.SampleSupplier().TIN, CA: ca}))
		id = e2etest.ReadyInvoiceDoc(t, c, "INV-TRUSTED-1", buyer)
		sub, err = c.Documents.Submit(ctx, id)
		e2etest.Must(t, sub, err)
		e2etest.WaitStatusTyped(t, c, id, client.StatusValid, 20*time.Second)
	})
}
