package received

import (
	"context"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/einvoice/einvoice/internal/e2e/e2etest"
	"github.com/einvoice/einvoice/internal/testdb/migrated"

	"github.com/einvoice/einvoice/client"
	"github.com/einvoice/einvoice/internal/myinvois"
	"github.com/einvoice/einvoice/internal/sandbox"
	"github.com/einvoice/einvoice/internal/servetest"
	"github.com/einvoice/einvoice/internal/sqlstore"
)

// TestReceivedCatchUp measures how long the poller takes to catch up N
// received documents (EINVOICE_RECEIVED_CATCHUP, e.g. 1000) for one tenant
// against the built-in sandbox with the authority's rate limits on (search
// 12 a minute, raw documents 60), and what 10,000 would take at those
// limits. The documents are planted in the sandbox (Seed, then given the
// tenant's TIN and a real UBL document), submitted over the last hours:
//
//	EINVOICE_RECEIVED_CATCHUP=1000 go test -count=1 -run TestReceivedCatchUp -v -timeout 40m ./internal/e2e/
func TestReceivedCatchUp(t *testing.T) {
	t.Parallel()
	n, _ := strconv.Atoi(os.Getenv("EINVOICE_RECEIVED_CATCHUP"))
	if n <= 0 {
		t.Skip("set EINVOICE_RECEIVED_CATCHUP=N to measure catching up N received documents")
	}
	ctx := t.Context()
	dsn := migrated.SQLite(t)
	svc := e2etest.StartService(t, dsn, "--rate-limit", "100000", "--sandbox-delay", "0", "--received-poll-interval", "1s")
	c := svc.API(t, svc.DemoKey)
	prof, err := c.Profile.Update(ctx, e2etest.ProfileOf(t, e2etest.SampleProfile()), nil)
	e2etest.Must(t, prof, err)
	buyer, err := c.Buyers.Create(ctx, e2etest.PartyOf(t, e2etest.SampleBuyer()))
	id := e2etest.ReadyInvoiceDoc(t, c, "INV-CATCHUP-1", e2etest.Must(t, buyer, err).ID)
	ubl, err := c.Documents.UBL(ctx, id)
	e2etest.Must(t, ubl, err)

	st, err := servetest.OpenStore(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	sb := sandbox.New(sandbox.Options{DB: st.DB(), ReadDB: st.ReadDB(), Postgres: st.Engine() == sqlstore.Postgres})
	start := time.Now()
	first := start.Add(-3 * time.Hour)
	if err := sb.Seed(ctx, "catchup-issuer", "RCV-", n, first, 2*time.Hour/time.Duration(n)); err != nil {
		t.Fatal(err)
	}
	if _, err := st.DB().ExecContext(ctx, `UPDATE sandbox_documents SET receiver_tin = $1, receiver_name = $2, issuer_name = $3, document = $4
		WHERE client_id = 'catchup-issuer'`, e2etest.ReceivedTIN, "Buyer's Name", "Catch-up Supplier Sdn. Bhd.", string(ubl)); err != nil {
		t.Fatal(err)
	}
	// The receiving tenant comes after the documents: its poller starts 31
	// days back.
	_, key := e2etest.SecTenant(t, dsn, "Buyer's Name", e2etest.ReceivedTIN)
	c = svc.API(t, key)
	start = time.Now()
	got := 0
	for got < n {
		page, err := c.ReceivedDocuments.List(context.WithoutCancel(ctx), &client.ReceivedListOptions{ListOptions: client.ListOptions{PerPage: 1}})
		got = e2etest.Must(t, page, err).Meta.Total
		if time.Since(start) > 40*time.Minute {
			t.Fatalf("caught up %d of %d in %s", got, n, time.Since(start))
		}
		time.Sleep(2 * time.Second)
	}
	took := time.Since(start)
	raw := myinvois.RequestsPerMinute(myinvois.EndpointRawDocument)
	search := myinvois.RequestsPerMinute(myinvois.EndpointSearch)
	// One raw call per document; two searches per 100 (the window's first
	// page and its last, oldest, one).
	limit10k := max(time.Duration(10000/raw)*time.Minute, time.Duration(200/search)*time.Minute)
	t.Logf("caught up %d received documents in %s (%.1f a minute); at the authority's limits (raw %d/min, search %d/min) 10,000 take at least %s",
		n, took.Round(time.Second), float64(n)/took.Minutes(), raw, search, limit10k)
}
