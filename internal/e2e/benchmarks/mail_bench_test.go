package benchmarks

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/einvoice/einvoice/client"
	"github.com/einvoice/einvoice/internal/e2e/e2etest"
	"github.com/einvoice/einvoice/internal/testdb"
	"github.com/einvoice/einvoice/internal/testsmtp"
)

// BenchmarkMail measures the mail of Valid documents on SQLite, through a
// real SMTP server on loopback (STARTTLS):
//
//	go test -run '^$' -bench Mail -benchtime 1x ./internal/e2e/benchmarks/
//
// 1,000 ready invoices are submitted in bulks of 100 (the sandbox judging
// at once); s-to-valid is the time until the last is Valid, and with mail
// on, s-to-mailed until the mail server has taken the 1,000th message
// (goal: within 30 s). off is the same with mail off in the settings (each
// Valid transition then records a not_applicable message): the cost of
// the Valid transition with mail on is s-to-valid on against off (goal:
// within 10 %).
func BenchmarkMail(b *testing.B) {
	for _, on := range []bool{false, true} {
		name := map[bool]string{false: "off", true: "on"}[on]
		b.Run(name, func(b *testing.B) {
			srv := testsmtp.Start(b, testsmtp.Options{TLS: true})
			svc := e2etest.StartService(b, testdb.SQLite(b), "--rate-limit", "1000000000", "--sandbox-delay", "0",
				"--smtp-url", srv.URL(), "--mail-from", "einvoice@supplier.example", "--smtp-ca", srv.CAFile(b))
			c := client.New(svc.URL, svc.DemoKey, client.WithRetries(0),
				client.WithHTTPClient(&http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}))
			ctx := context.Background()
			if _, err := c.Profile.Update(ctx, sampleSupplierProfile(), nil); err != nil {
				b.Fatal(err)
			}
			set, err := c.Mail.Settings(ctx)
			if err != nil {
				b.Fatal(err)
			}
			in := set.Input()
			in.Enabled = on
			if _, err := c.Mail.UpdateSettings(ctx, in); err != nil {
				b.Fatal(err)
			}
			buyer, err := c.Buyers.Create(ctx, e2etest.SampleBuyerParty())
			if err != nil {
				b.Fatal(err)
			}
			const n = 1000
			round := 0
			for b.Loop() {
				round++
				ids := make([]string, n)
				var wg sync.WaitGroup
				for w := range 8 {
					wg.Go(func() {
						for i := w; i < n; i += 8 {
							d := e2etest.SingleLineDoc(fmt.Sprintf("INV-MAIL-%d-%04d", round, i))
							d.BuyerID = buyer.ID
							doc, err := c.Documents.Create(ctx, d)
							if err != nil {
								b.Error(err)
								return
							}
							if _, err := c.Documents.Validate(ctx, doc.ID); err != nil {
								b.Error(err)
								return
							}
							ids[i] = doc.ID
						}
					})
				}
				wg.Wait()
				if b.Failed() {
					return
				}
				base := srv.Count()
				start := time.Now()
				for i := 0; i < n; i += 100 {
					if _, err := c.Documents.SubmitBulk(ctx, ids[i:i+100]); err != nil {
						b.Fatal(err)
					}
				}
				for deadline := start.Add(5 * time.Minute); ; time.Sleep(20 * time.Millisecond) {
					p, err := c.Documents.List(ctx, &client.DocumentListOptions{Status: client.StatusValid, ListOptions: client.ListOptions{PerPage: 1}})
					if err != nil {
						b.Fatal(err)
					}
					if p.Meta.Total >= round*n {
						break
					}
					if time.Now().After(deadline) {
						b.Fatalf("%d of %d Valid after 5 minutes", p.Meta.Total, round*n)
					}
				}
				b.ReportMetric(time.Since(start).Seconds(), "s-to-valid")
				if on {
					srv.WaitCount(b, base+n, 5*time.Minute)
					b.ReportMetric(time.Since(start).Seconds(), "s-to-mailed")
				}
			}
		})
	}
}
