package sandbox_test

import (
	"context"
	"net/http"
	"net/url"
	"os"
	"testing"
	"time"
)

// TestProtocolTimings measures the new calls over a sandbox holding 10,000
// documents of one client, all issued to the TIN another client is bound
// to: a login (a JWT signed, its row stored), the issuer's and the
// receiver's first page of notifications, the receiver's first page of
// recent documents. It logs the mean of 20 calls each; it runs only with
// EINVOICE_SANDBOX_TIMINGS=1 (go test -run TestProtocolTimings -v).
func TestProtocolTimings(t *testing.T) {
	t.Parallel()
	if os.Getenv("EINVOICE_SANDBOX_TIMINGS") == "" {
		t.Skip("set EINVOICE_SANDBOX_TIMINGS=1 to measure")
	}
	eachEngine(t, func(t *testing.T, e *env) {
		e.clock = &clock{t: time.Now()}
		sb, hs := e.server()
		if err := sb.Seed(context.Background(), "seeder", "B-", 10000, time.Now().Add(-time.Hour), 100*time.Millisecond); err != nil {
			t.Fatal(err)
		}
		registry.ensure(t, hs.URL, "seeder", "C1234567890", "")
		issuer := login1(t, hs.URL, "seeder", "")
		receiver := loginAs(t, hs.URL, "receiver", "IG123456789")
		for _, bc := range []struct {
			name string
			fn   func() int
		}{
			{"login", func() int {
				return newClient(t, hs.URL).loginRaw(url.Values{"client_id": {"seeder"}, "client_secret": {"secret-seeder"}, "grant_type": {"client_credentials"}}, "").Status
			}},
			{"notifications, issuer", func() int {
				return issuer.do(http.MethodGet, "/api/v1.0/notifications/taxpayer?pageSize=100", nil).Status
			}},
			{"notifications, receiver", func() int {
				return receiver.do(http.MethodGet, "/api/v1.0/notifications/taxpayer?pageSize=100", nil).Status
			}},
			{"recent, received", func() int {
				return receiver.do(http.MethodGet, "/api/v1.0/documents/recent?pageSize=100&InvoiceDirection=Received", nil).Status
			}},
		} {
			const n = 20
			start := time.Now()
			for range n {
				if st := bc.fn(); st != http.StatusOK {
					t.Fatalf("%s: %d", bc.name, st)
				}
			}
			t.Logf("%s: %v a call (mean of %d)", bc.name, (time.Since(start) / n).Round(10*time.Microsecond), n)
		}
	})
}
