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
// (audit) and without the middleware at all (none): the audit's cost.
// One request at a time (serial), and four at once (parallel).
//
//	EINVOICE_TEST_POSTGRES_URL=... go test -run '^$' -bench CreateDocument -benchtime 3s ./internal/httpapi/
func BenchmarkCreateDocument(b *testing.B) {
	engines := []struct {
		name string
		dsn  func(b *testing.B) string
	}{
		{"sqlite", func(b *testing.B) string { return testdb.SQLite(b) }},
		{"postgres", func(b *testing.B) string { return testdb.Postgres(b, os.Getenv) }},
	}
	for _, e := range engines {
		for _, audited := range []bool{false, true} {
			name := e.name + "/none"
			if audited {
				name = e.name + "/audit"
			}
			b.Run(name, func(b *testing.B) {
				url, key, buyer := benchAPI(b, e.dsn(b), audited)
				var n atomic.Int64
				create := func(c *http.Client) {
					body := fmt.Sprintf(benchInvoice, buyer, fmt.Sprintf("B-%d", n.Add(1)))
					if status := benchPost(b, c, url+"/api/v1/invoices", key, body, nil); status != 201 {
						b.Fatalf("create: %d", status)
					}
				}
				b.Run("serial", func(b *testing.B) {
					c := &http.Client{}
					for b.Loop() {
						create(c)
					}
				})
				b.Run("parallel", func(b *testing.B) {
					c := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 16}}
					b.SetParallelism(2) // 4 goroutines on 2 CPUs
					b.RunParallel(func(pb *testing.PB) {
						for pb.Next() {
							create(c)
						}
					})
				})
			})
		}
	}
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
