package e2e

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"testing"
)

// Benchmarks of the whole service over loopback HTTP (rate limit raised):
//
//	go test -run '^$' -bench . -benchtime 3s ./internal/e2e/
//
// They measure a request's full path: HTTP, auth, rate limit, decode, rules
// and the database write or read.
func BenchmarkBuyers(b *testing.B) {
	for _, e := range engines {
		b.Run(e.name, func(b *testing.B) {
			svc := startService(b, e.dsn(b), "--rate-limit", "1000000000")
			client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
			body, _ := json.Marshal(validBuyer("Bench Buyer Sdn. Bhd."))
			send := func(method, url string, payload []byte) []byte {
				req, _ := http.NewRequest(method, url, bytes.NewReader(payload))
				req.Header.Set("Authorization", "Bearer "+svc.DemoKey)
				if payload != nil {
					req.Header.Set("Content-Type", "application/json")
				}
				resp, err := client.Do(req)
				if err != nil {
					b.Fatal(err)
				}
				raw, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode >= 300 {
					b.Fatalf("%s %s: %d %s", method, url, resp.StatusCode, raw)
				}
				return raw
			}
			var created struct{ Data struct{ ID string } }
			_ = json.Unmarshal(send("POST", svc.URL+"/api/v1/buyers", body), &created)
			b.Run("create", func(b *testing.B) {
				b.SetParallelism(4)
				b.RunParallel(func(pb *testing.PB) {
					for pb.Next() {
						send("POST", svc.URL+"/api/v1/buyers", body)
					}
				})
			})
			b.Run("get", func(b *testing.B) {
				b.SetParallelism(4)
				b.RunParallel(func(pb *testing.PB) {
					for pb.Next() {
						send("GET", svc.URL+"/api/v1/buyers/"+created.Data.ID, nil)
					}
				})
			})
		})
	}
}
