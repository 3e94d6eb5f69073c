package benchmarks

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/einvoice/einvoice/internal/e2e/e2etest"

	"github.com/einvoice/einvoice/client"
)

// BenchmarkWebhooks measures webhook deliveries to a receiver on loopback:
//
//	go test -run '^$' -bench Webhooks -benchtime 1x ./internal/e2e/
//
// throughput: a backlog of test events queued while the webhook is
// disabled, then enabled: deliveries per second until the last is in.
// latency: documents submitted one after another (the sandbox judging at
// once): the time from each status change (the event's createdAt, the
// moment of the change) to its delivery, median and 90th percentile.
func BenchmarkWebhooks(b *testing.B) {
	for _, e := range e2etest.Engines {
		b.Run(e.Name, func(b *testing.B) {
			svc := e2etest.StartService(b, e.DSN(b), "--rate-limit", "1000000000", "--sandbox-delay", "0", "--webhook-allow-private",
				"--webhook-workers", "8")
			c := client.New(svc.URL, svc.DemoKey, client.WithRetries(0),
				client.WithHTTPClient(&http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}))
			ctx := context.Background()
			var received atomic.Int64
			var mu sync.Mutex
			var latencies []time.Duration
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				at := time.Now()
				body, _ := io.ReadAll(r.Body)
				var ev client.APIEvent
				if json.Unmarshal(body, &ev) == nil && ev.Type != client.EventWebhookTest {
					mu.Lock()
					latencies = append(latencies, at.Sub(ev.CreatedAt))
					mu.Unlock()
				}
				received.Add(1)
			}))
			defer srv.Close()
			h, err := c.Webhooks.Create(ctx, &client.Webhook{URL: srv.URL, Events: e2etest.AllEventTypes})
			if err != nil {
				b.Fatal(err)
			}

			b.Run("throughput", func(b *testing.B) {
				const n = 3000
				for b.Loop() {
					off, on := false, true
					if _, err := c.Webhooks.Update(ctx, h.ID, &client.WebhookUpdate{Enabled: &off}); err != nil {
						b.Fatal(err)
					}
					var wg sync.WaitGroup
					for w := range 8 {
						wg.Go(func() {
							for i := w; i < n; i += 8 {
								if _, err := c.Webhooks.Test(ctx, h.ID); err != nil {
									b.Error(err)
									return
								}
							}
						})
					}
					wg.Wait()
					start, base := time.Now(), received.Load()
					if _, err := c.Webhooks.Update(ctx, h.ID, &client.WebhookUpdate{Enabled: &on}); err != nil {
						b.Fatal(err)
					}
					for received.Load()-base < n {
						if time.Since(start) > 2*time.Minute {
							b.Fatalf("%d of %d delivered in 2 minutes", received.Load()-base, n)
						}
						time.Sleep(time.Millisecond)
					}
					b.ReportMetric(float64(n)/time.Since(start).Seconds(), "deliveries/s")
				}
			})

			b.Run("latency", func(b *testing.B) {
				if _, err := c.Profile.Update(ctx, sampleSupplierProfile(), nil); err != nil {
					b.Fatal(err)
				}
				buyer, err := c.Buyers.Create(ctx, e2etest.SampleBuyerParty())
				if err != nil {
					b.Fatal(err)
				}
				const docs = 40
				for b.Loop() {
					mu.Lock()
					latencies = latencies[:0]
					mu.Unlock()
					for i := range docs {
						d := e2etest.SingleLineDoc(fmt.Sprintf("INV-WHBENCH-%d-%d", time.Now().UnixNano(), i))
						d.BuyerID = buyer.ID
						doc, err := c.Documents.Create(ctx, d)
						if err != nil {
							b.Fatal(err)
						}
						if _, err := c.Documents.Validate(ctx, doc.ID); err != nil {
							b.Fatal(err)
						}
						if _, err := c.Documents.Submit(ctx, doc.ID); err != nil {
							b.Fatal(err)
						}
					}
					// submitted and valid of each.
					for deadline := time.Now().Add(time.Minute); ; time.Sleep(5 * time.Millisecond) {
						mu.Lock()
						n := len(latencies)
						mu.Unlock()
						if n >= 2*docs {
							break
						}
						if time.Now().After(deadline) {
							b.Fatalf("%d of %d document events delivered in a minute", n, 2*docs)
						}
					}
					mu.Lock()
					l := slices.Clone(latencies)
					mu.Unlock()
					slices.Sort(l)
					b.ReportMetric(float64(l[len(l)/2].Microseconds())/1000, "ms-median")
					b.ReportMetric(float64(l[len(l)*9/10].Microseconds())/1000, "ms-p90")
				}
			})
		})
	}
}

// sampleSupplierProfile is sampleProfile as the client's type.
func sampleSupplierProfile() *client.Profile {
	raw, _ := json.Marshal(e2etest.SampleProfile())
	var p client.Profile
	if err := json.Unmarshal(raw, &p); err != nil {
		panic(err)
	}
	return &p
}
