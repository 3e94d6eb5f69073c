package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/einvoice/einvoice/internal/einvoice"
	"github.com/einvoice/einvoice/internal/invoicing"
	"github.com/einvoice/einvoice/internal/ratelimit"
	"github.com/einvoice/einvoice/internal/secretbox"
	"github.com/einvoice/einvoice/internal/sqlstore"
	"github.com/einvoice/einvoice/internal/testdb"
	"github.com/einvoice/einvoice/internal/web"
)

// benchInvoice is the single-line sample invoice of the end-to-end tests,
// with its serial number and buyer to fill in.
const benchInvoice = `{"autoCalculate":true,"currencyCode":"MYR","buyerId":%q,"invoiceSerialNumber":%q,
"invoiceLines":[{"classifications":["004"],"discountDescription":"Sample Description","discountRate":15,
"feeOrChargeDescription":"Sample Description","feeOrChargeRate":10,"invoiceLineTaxes":[{"exemptionReason":"Exempt New Means of Transport",
"taxRate":0,"taxType":"E"}],"productDescription":"Laptop Peripherals","quantity":1,"unitCode":"C62","unitPrice":17}],
"payment":{"paymentMode":"03","paymentTerms":"Payment method is cash"}}`

const benchBuyer = `{"address":{"city":"Kuala Lumpur","countryCode":"MYS","line1":"Lot 66","postCode":"50480","state":"14"},
"contact":{"email":"buyer@email.com","phone":"+60123456789"},"idType":"BRN","idValue":"201901234567","name":"Buyer's Name",
"sstRegistrationNumber":"NA","tin":"C20880050010"}`

// BenchmarkCreateDocument measures POST /api/v1/invoices over loopback
// HTTP on a real database, with the audit log recording every create
// (audit) and without the middleware at all (none): the audit's cost. The
// two services run side by side, each on its own database, and take the
// creates in alternating blocks of benchBlock, so that the machine's drift
// (a shared VM's disk and CPU vary by a fifth from minute to minute) falls
// on both alike: the figures to read are none-µs/op, audit-µs/op and their
// ratio, audit-x. One request at a time (serial), and four at once
// (parallel, the block's creates shared by four goroutines). With
// EINVOICE_BENCH_AA=1 neither service is audited: audit-x then shows the
// method's own noise (0.96-1.04 on the project's VM).
//
//	EINVOICE_TEST_POSTGRES_URL=... go test -run '^$' -bench CreateDocument -benchtime 4000x -count 6 ./internal/httpapi/
func BenchmarkCreateDocument(b *testing.B) {
	engines := []struct {
		name string
		dsn  func(b *testing.B) string
	}{
		{"sqlite", func(b *testing.B) string { return testdb.SQLite(b) }},
		{"postgres", func(b *testing.B) string { return testdb.Postgres(b, os.Getenv) }},
	}
	for _, e := range engines {
		b.Run(e.name, func(b *testing.B) {
			var apis [2]benchTarget // none, audit
			for i := range apis {
				apis[i].url, apis[i].key, apis[i].buyer = benchAPI(b, e.dsn(b), i == 1 && os.Getenv("EINVOICE_BENCH_AA") == "")
			}
			b.Run("serial", func(b *testing.B) { benchAlternate(b, apis, 1) })
			b.Run("parallel", func(b *testing.B) { benchAlternate(b, apis, 4) })
		})
	}
}

// benchBlock is how many creates one service takes before the other's turn.
const benchBlock = 200

// benchSerial numbers the created invoices of every run (serial numbers
// are unique per tenant).
var benchSerial atomic.Int64

// benchTarget is one service of BenchmarkCreateDocument.
type benchTarget struct{ url, key, buyer string }

// benchAlternate makes b.N creates on each of apis, in alternating blocks,
// by clients goroutines at once, and reports each one's time per create and
// the ratio of the second's to the first's.
func benchAlternate(b *testing.B, apis [2]benchTarget, clients int) {
	c := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 16}}
	var spent [2]time.Duration
	b.ResetTimer()
	for done := 0; done < b.N; done += benchBlock {
		block := min(benchBlock, b.N-done)
		for i, api := range apis {
			var next atomic.Int64
			start := time.Now()
			var wg sync.WaitGroup
			for range clients {
				wg.Go(func() {
					for next.Add(1) <= int64(block) {
						body := fmt.Sprintf(benchInvoice, api.buyer, fmt.Sprintf("B-%d", benchSerial.Add(1)))
						if status := benchPost(b, c, api.url+"/api/v1/invoices", api.key, body, nil); status != 201 {
							b.Errorf("create: %d", status)
							return
						}
					}
				})
			}
			wg.Wait()
			spent[i] += time.Since(start)
		}
	}
	b.StopTimer()
	none, audit := float64(spent[0].Microseconds())/float64(b.N), float64(spent[1].Microseconds())/float64(b.N)
	b.ReportMetric(none, "none-µs/op")
	b.ReportMetric(audit, "audit-µs/op")
	b.ReportMetric(audit/none, "audit-x")
}

// benchAPI serves the API on the database at dsn (its loops running, the
// audit log's writer among them), audited or not, and returns its URL, a
// read-write key and a buyer's id.
func benchAPI(b *testing.B, dsn string, audited bool) (string, string, string) {
	b.Helper()
	ctx := context.Background()
	box, _ := secretbox.New(make([]byte, secretbox.KeySize))
	store, err := sqlstore.Open(ctx, dsn, box)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { store.Close() })
	if err := store.Migrate(ctx, nil); err != nil {
		b.Fatal(err)
	}
	svc := invoicing.New(invoicing.Options{Store: store, Now: time.Now, NewID: func() string { return uuid.Must(uuid.NewV7()).String() }})
	tenant, err := svc.CreateTenant(ctx, einvoice.DemoProfile())
	if err != nil {
		b.Fatal(err)
	}
	_, key, err := svc.CreateAPIKey(ctx, tenant.ID, einvoice.PermReadWrite)
	if err != nil {
		b.Fatal(err)
	}
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); svc.Run(runCtx) }()
	b.Cleanup(func() { stop(); <-done })
	s := New(Options{Service: svc, Limiter: ratelimit.NewMemory(1<<30, time.Minute)})
	if !audited {
		s.audit = nil
	}
	root := web.NewRoot(web.RootOptions{})
	s.Mount(root)
	srv := httptest.NewServer(root)
	b.Cleanup(srv.Close)
	var created struct {
		Data struct{ ID string } `json:"data"`
	}
	if status := benchPost(b, srv.Client(), srv.URL+"/api/v1/buyers", key, benchBuyer, &created); status != 201 {
		b.Fatalf("create the buyer: %d", status)
	}
	return srv.URL, key, created.Data.ID
}

// benchPost posts a JSON body and returns the status, decoding the answer
// into out when given.
func benchPost(b *testing.B, c *http.Client, url, key, body string, out any) int {
	req, err := http.NewRequest("POST", url, strings.NewReader(body))
	if err != nil {
		b.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	var buf bytes.Buffer
	_, _ = buf.ReadFrom(resp.Body)
	if out != nil {
		_ = json.Unmarshal(buf.Bytes(), out)
	}
	return resp.StatusCode
}
