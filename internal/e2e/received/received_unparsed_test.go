package received

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/einvoice/einvoice/internal/e2e/e2etest"

	"github.com/einvoice/einvoice/client"
	"github.com/einvoice/einvoice/internal/sandbox"
	"github.com/einvoice/einvoice/internal/servetest"
	"github.com/einvoice/einvoice/internal/sqlstore"
)

// TestReceivedUnparsed: received documents our UBL reader cannot read (an
// XML one, a JSON one without an Invoice) are stored and listed once, with
// parsed false and the reason, their raw document kept; the poller goes on.
func TestReceivedUnparsed(t *testing.T) {
	t.Parallel()
	e2etest.EachEngine(t, func(t *testing.T, dsn string) {
		ctx := t.Context()
		svc := e2etest.StartService(t, dsn, append([]string{"--rate-limit", "100000", "--sandbox-delay", "0"}, e2etest.ReceivedArgs...)...)
		st, err := servetest.OpenStore(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		sb := sandbox.New(sandbox.Options{DB: st.DB(), ReadDB: st.ReadDB(), Postgres: st.Engine() == sqlstore.Postgres})
		if err := sb.Seed(ctx, "odd-issuer", "ODD-", 2, time.Now().Add(-time.Hour), time.Minute); err != nil {
			t.Fatal(err)
		}
		for code, doc := range map[string]string{"ODD-00000": `<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"/>`, "ODD-00001": `{"_D": "x"}`} {
			if _, err := st.DB().ExecContext(ctx, `UPDATE sandbox_documents SET receiver_tin = $1, document = $2 WHERE internal_id = $3`,
				e2etest.ReceivedTIN, doc, code); err != nil {
				t.Fatal(err)
			}
		}
		// The tenant comes after the documents: its poller starts 31 days back.
		_, key := e2etest.SecTenant(t, dsn, "Buyer's Name", e2etest.ReceivedTIN)
		c := svc.API(t, key)
		got := e2etest.WaitReceived(t, c, 20*time.Second, "the unreadable documents are listed", func(ds []client.ReceivedDocument) bool { return len(ds) >= 2 })
		if len(got) != 2 {
			t.Fatalf("received %d, want 2: %+v", len(got), got)
		}
		for _, d := range got {
			if d.Parsed || d.ParseError == "" || d.Issuer.TIN != "C1234567890" || d.Status != "Valid" {
				t.Errorf("%s: %+v, want parsed false with a reason", d.Number, d)
			}
			// The XML one is read without the contract check (its
			// validator decodes JSON only).
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, svc.URL+"/api/v1/received-documents/"+d.ID+"/ubl", nil)
			req.Header.Set("Authorization", "Bearer "+key)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			raw, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			wantType := map[string]string{"ODD-00000": "application/xml", "ODD-00001": "application/json"}[d.Number]
			if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), wantType) || len(raw) == 0 {
				t.Errorf("%s: raw %d %s %q", d.Number, resp.StatusCode, resp.Header.Get("Content-Type"), raw)
			}
			if d.Number == "ODD-00001" {
				if _, err := c.ReceivedDocuments.UBL(ctx, d.ID); err != nil {
					t.Errorf("%s: UBL: %v", d.Number, err)
				}
			}
		}
	})
}
