package benchmarks

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/einvoice/einvoice/internal/e2e/e2etest"

	"github.com/einvoice/einvoice/client"
)

// BenchmarkConsolidation100k consolidates a month of 100,000 receipts
// (mixed taxes, discounts, cash rounding, a gap every 97 numbers; and,
// "scattered", numbers never consecutive, a line each) and submits the
// documents to the built-in sandbox, with its rate limits: it reports the
// seconds from the request to every document Valid. The receipts are
// recorded before the timer starts.
//
//	go test -run '^$' -bench Consolidation100k -benchtime 1x -timeout 30m ./internal/e2e/benchmarks/
func BenchmarkConsolidation100k(b *testing.B) {
	const n = 100000
	for _, kind := range []string{"runs", "scattered"} {
		for _, e := range e2etest.Engines {
			b.Run(kind+"/"+e.Name, func(b *testing.B) {
				ctx := context.Background()
				for range b.N {
					b.StopTimer()
					svc := e2etest.StartService(b, e.DSN(b), "--rate-limit", "1000000000", "--sandbox-delay", "0")
					c := client.New(svc.URL, svc.DemoKey, client.WithRetries(0),
						client.WithHTTPClient(&http.Client{Timeout: 30 * time.Minute}))
					var p client.Profile
					raw, _ := json.Marshal(e2etest.SampleProfile())
					if err := json.Unmarshal(raw, &p); err != nil {
						b.Fatal(err)
					}
					if _, err := c.Profile.Update(ctx, &p, nil); err != nil {
						b.Fatal(err)
					}
					ins := e2etest.MonthReceipts("B", n)
					if kind == "scattered" {
						ins = e2etest.ScatteredReceipts(n)
					}
					for start := 0; start < n; start += 1000 {
						res, err := c.Receipts.CreateBulk(ctx, ins[start:start+1000])
						if err != nil {
							b.Fatal(err)
						}
						if len(res.Refused) > 0 {
							b.Fatalf("refused: %+v", res.Refused[0])
						}
					}
					b.StartTimer()
					cons, err := c.Consolidations.Create(ctx, e2etest.ConsolidationMonth)
					if err != nil {
						b.Fatal(err)
					}
					for cons.Status != client.ConsolidationCompleted { // a large month answers running
						time.Sleep(100 * time.Millisecond)
						if cons, err = c.Consolidations.Get(ctx, cons.ID); err != nil {
							b.Fatal(err)
						}
					}
					made := time.Now()
					lines := 0
					for _, cd := range cons.Documents {
						for {
							st, err := c.Documents.Status(ctx, cd.ID)
							if err != nil {
								b.Fatal(err)
							}
							if st.Status == client.StatusValid {
								break
							}
							if st.Status == client.StatusInvalid || st.Status == client.StatusDraft {
								b.Fatalf("document %s is %s", cd.ID, st.Status)
							}
							time.Sleep(100 * time.Millisecond)
						}
					}
					b.StopTimer()
					for _, cd := range cons.Documents[:1] {
						d, err := c.Documents.Get(ctx, cd.ID)
						if err != nil {
							b.Fatal(err)
						}
						lines = len(d.Lines)
					}
					if cons.ReceiptCount != n {
						b.Fatalf("%d receipts consolidated, want %d", cons.ReceiptCount, n)
					}
					b.ReportMetric(float64(len(cons.Documents)), "documents")
					b.ReportMetric(float64(lines), "lines/first-doc")
					b.ReportMetric(made.Sub(cons.CreatedAt).Seconds(), "s-to-consolidated")
					svc.Stop(b)
				}
				b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s-to-all-valid")
			})
		}
	}
}
