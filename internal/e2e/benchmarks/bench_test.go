package benchmarks

import (
	"context"
	"net/http"
	"testing"

	"github.com/einvoice/einvoice/internal/e2e/e2etest"

	"github.com/einvoice/einvoice/client"
)

// Benchmarks of the whole service over loopback HTTP (rate limit raised):
//
//	go test -run '^$' -bench . -benchtime 3s ./internal/e2e/
//
// They measure a request's full path, sent by the public client: HTTP,
// auth, rate limit, decode, rules and the database write or read.
func BenchmarkBuyers(b *testing.B) {
	for _, e := range e2etest.Engines {
		b.Run(e.Name, func(b *testing.B) {
			svc := e2etest.StartService(b, e.DSN(b), "--rate-limit", "1000000000")
			// No retries, and no check of the answers against the OpenAPI
			// document: the benchmark measures the service.
			c := client.New(svc.URL, svc.DemoKey, client.WithRetries(0),
				client.WithHTTPClient(&http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}))
			ctx := context.Background()
			buyer := e2etest.ReadyBuyer("Bench Buyer Sdn. Bhd.")
			created, err := c.Buyers.Create(ctx, buyer)
			if err != nil {
				b.Fatal(err)
			}
			b.Run("create", func(b *testing.B) {
				b.SetParallelism(4)
				b.RunParallel(func(pb *testing.PB) {
					for pb.Next() {
						if _, err := c.Buyers.Create(ctx, buyer); err != nil {
							b.Fatal(err)
						}
					}
				})
			})
			b.Run("get", func(b *testing.B) {
				b.SetParallelism(4)
				b.RunParallel(func(pb *testing.PB) {
					for pb.Next() {
						if _, err := c.Buyers.Get(ctx, created.ID); err != nil {
							b.Fatal(err)
						}
					}
				})
			})
		})
	}
}
