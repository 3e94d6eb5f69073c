package benchmarks

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/einvoice/einvoice/internal/e2e/e2etest"

	"github.com/einvoice/einvoice/client"
	"github.com/einvoice/einvoice/internal/einvoice"
	"github.com/einvoice/einvoice/internal/servetest"
)

// BenchmarkReceivedList compares listing (and searching) 1,000 received
// documents with listing 1,000 of the tenant's own documents, a page of
// 100 each, over loopback HTTP:
//
//	go test -run '^$' -bench ReceivedList -benchtime 200x ./internal/e2e/
func BenchmarkReceivedList(b *testing.B) {
	const n = 1000
	for _, e := range e2etest.Engines {
		b.Run(e.Name, func(b *testing.B) {
			ctx := context.Background()
			dsn := e.DSN(b)
			svc := e2etest.StartService(b, dsn, "--rate-limit", "1000000000")
			c := client.New(svc.URL, svc.DemoKey, client.WithRetries(0),
				client.WithHTTPClient(&http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}))
			prof, err := c.Profile.Get(ctx)
			if err != nil {
				b.Fatal(err)
			}
			st, err := servetest.OpenStore(ctx, dsn)
			if err != nil {
				b.Fatal(err)
			}
			defer st.Close()
			tenant := ""
			if ts, err := st.ListTenants(ctx); err != nil || len(ts) != 1 {
				b.Fatalf("tenants: %v %v", ts, err)
			} else {
				tenant = ts[0].ID
			}
			buyer, err := c.Buyers.Create(ctx, e2etest.ReadyBuyer("Bench Buyer Sdn. Bhd."))
			if err != nil {
				b.Fatal(err)
			}
			now := time.Now().UTC().Truncate(time.Microsecond)
			for i := range n {
				doc := e2etest.SingleLineDoc(fmt.Sprintf("INV-BENCH-%05d", i))
				doc.BuyerID = buyer.ID
				if _, err := c.Documents.Create(ctx, doc); err != nil {
					b.Fatal(err)
				}
				at := now.Add(-time.Duration(i) * time.Minute)
				d := &einvoice.ReceivedDocument{ID: e2etest.NewID(), TenantID: tenant, UUID: fmt.Sprintf("BENCH%021d", i), SubmissionUID: "S",
					TypeCode: "01", TypeName: "Invoice", TypeVersion: "1.0", Number: fmt.Sprintf("SUP-%05d", i),
					IssuerTIN: fmt.Sprintf("C%010d", i%50), IssuerName: fmt.Sprintf("Supplier %d Sdn. Bhd.", i%50),
					ReceiverTIN: prof.TIN, ReceiverName: prof.Name, IssuedAt: at, SubmittedAt: at, ValidatedAt: &at, Status: "Valid",
					Currency: "MYR", TotalExcludingTax: "100.00", TotalTax: "6.00", TotalIncludingTax: "106.00", TotalPayableAmount: "106.00",
					Lines:  []einvoice.ReceivedLine{{ID: "1", Description: "Goods", Quantity: "1", UnitPrice: "100.00", LineExtensionAmount: "100.00"}},
					Parsed: true, CreatedAt: now, UpdatedAt: now}
				if _, err := st.SaveReceived(ctx, einvoice.ReceivedWrite{Doc: d, Raw: []byte("{}")}); err != nil {
					b.Fatal(err)
				}
			}
			page := func(i int) client.ListOptions { return client.ListOptions{PerPage: 100, Page: 1 + i%10} }
			b.Run("documents", func(b *testing.B) {
				for i := 0; b.Loop(); i++ {
					if _, err := c.Documents.List(ctx, &client.DocumentListOptions{ListOptions: page(i)}); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run("received", func(b *testing.B) {
				for i := 0; b.Loop(); i++ {
					if _, err := c.ReceivedDocuments.List(ctx, &client.ReceivedListOptions{ListOptions: page(i)}); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run("received-search", func(b *testing.B) {
				for i := 0; b.Loop(); i++ {
					if _, err := c.ReceivedDocuments.List(ctx, &client.ReceivedListOptions{Search: "supplier 7", ListOptions: client.ListOptions{PerPage: 100}}); err != nil {
						b.Fatal(err)
					}
				}
			})
		})
	}
}
