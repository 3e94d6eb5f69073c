package benchmarks

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/einvoice/einvoice/internal/e2e/e2etest"

	"github.com/einvoice/einvoice/client"
)

// BenchmarkReceiptsBulk records receipts through the bulk endpoint over
// loopback HTTP, 1,000 per request (two lines each: a discounted line with
// sales tax, an exempt one), and reports receipts per second:
//
//	go test -run '^$' -bench ReceiptsBulk -benchtime 20x ./internal/e2e/
func BenchmarkReceiptsBulk(b *testing.B) {
	const per = 1000
	for _, e := range e2etest.Engines {
		b.Run(e.Name, func(b *testing.B) {
			ctx := context.Background()
			svc := e2etest.StartService(b, e.DSN(b), "--rate-limit", "1000000000")
			c := client.New(svc.URL, svc.DemoKey, client.WithRetries(0),
				client.WithHTTPClient(&http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 8}, Timeout: time.Minute}))
			issued := time.Now().Add(-time.Hour)
			batch := func(i int) []client.ReceiptInput {
				out := make([]client.ReceiptInput, per)
				for j := range out {
					out[j] = client.ReceiptInput{ReceiptNumber: fmt.Sprintf("BENCH-%05d-%04d", i, j), IssuedAt: issued,
						Lines: []client.Line{
							{ProductDescription: "Shirt", Quantity: "2", UnitPrice: "39.90", DiscountRate: "10",
								Taxes: []client.LineTax{{TaxType: "01", TaxRate: "10"}}},
							{ProductDescription: "Rice 5kg", Quantity: "1", UnitPrice: "18.50",
								Taxes: []client.LineTax{{TaxType: "E", ExemptionReason: "Basic food"}}},
						},
						Payment: &client.Payment{PaymentMode: "01"}}
				}
				return out
			}
			for i := 0; b.Loop(); i++ {
				b.StopTimer()
				in := batch(i)
				b.StartTimer()
				res, err := c.Receipts.CreateBulk(ctx, in)
				if err != nil {
					b.Fatal(err)
				}
				if len(res.Created) != per {
					b.Fatalf("created %d of %d: %+v", len(res.Created), per, res.Refused[:min(3, len(res.Refused))])
				}
			}
			b.ReportMetric(float64(per*b.N)/b.Elapsed().Seconds(), "receipts/s")
		})
	}
}
