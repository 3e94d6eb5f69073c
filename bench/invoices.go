package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/einvoice/einvoice/client"
)

// invoicePoolSize is how many invoices the read scenarios create for
// themselves when there is no seeded pool (no -seed-invoices, no
// -invoices-file).
const invoicePoolSize = 200

// invoiceState is what the invoice scenarios share.
type invoiceState struct {
	// buyers holds, per key (same index as bench.keys), a buyer of that
	// key's tenant that the created invoices bill.
	buyers []string
	// prefix starts every serial number this process creates. It is unique
	// per run, so serials never collide with those of an earlier run on
	// the same database.
	prefix string
	seq    atomic.Int64

	mu   sync.Mutex
	pool []invoiceRef // invoices to read: seeded, loaded, or the small pool
}

// invoiceRef is an invoice that the driver created: its id, its serial
// number and the index of the key of the tenant that owns it.
type invoiceRef struct {
	id, serial string
	key        int
}

// serialDigits is the width of the counter in a serial number. All serials
// of a run have the same length, so the full serial of one invoice is a
// prefix of no other serial.
const serialDigits = 8

// newSerialPrefix returns a prefix unique to this run, such as
// "B1A2B3C4D5E6F-": the start time in base 36.
func newSerialPrefix() string {
	return "B" + strings.ToUpper(strconv.FormatInt(time.Now().UnixNano(), 36)) + "-"
}

// nextSerial returns a fresh serial number of this run.
func (b *bench) nextSerial() string {
	n := strconv.FormatInt(b.inv.seq.Add(1), 10)
	if len(n) < serialDigits {
		n = strings.Repeat("0", serialDigits-len(n)) + n
	}
	return b.inv.prefix + n
}

// invoiceLines is the JSON array of the 10 lines of every created invoice:
// various quantities, prices, discounts and the two common tax rates, all
// with autoCalculate left to compute the amounts.
var invoiceLines = func() string {
	var sb strings.Builder
	sb.WriteByte('[')
	for i := range 10 {
		if i > 0 {
			sb.WriteByte(',')
		}
		rate := "10"
		if i%2 == 1 {
			rate = "5"
		}
		fmt.Fprintf(&sb, `{"classifications":["001"],"productDescription":"Item %d","quantity":%d,"unitCode":"H87",`+
			`"unitPrice":%d.9,"discountRate":%d,"invoiceLineTaxes":[{"taxType":"01","taxRate":%s}]}`,
			i+1, 1+i%4, 19+i*3, 5*(i%3), rate)
	}
	sb.WriteByte(']')
	return sb.String()
}()

// invoiceBody is the JSON of a 10-line invoice with autoCalculate.
func invoiceBody(buyerID, serial string) string {
	return `{"buyerId":"` + buyerID + `","invoiceSerialNumber":"` + serial +
		`","currencyCode":"MYR","autoCalculate":true,"invoiceLines":` + invoiceLines +
		`,"payment":{"paymentMode":"01"}}`
}

// ensureBuyers creates, once, one buyer per key for the invoices to bill.
func ensureBuyers(b *bench) error {
	if b.inv.buyers != nil {
		return nil
	}
	buyers := make([]string, len(b.keys))
	for k := range b.keys {
		p, err := b.api(k).Buyers.Create(context.Background(), buyerParty(b.seq.Add(1)))
		if err != nil {
			return fmt.Errorf("creating a buyer to bill: %s", describe(err))
		}
		if p.ID == "" {
			return errors.New("creating a buyer to bill: no id in the answer")
		}
		buyers[k] = p.ID
	}
	b.inv.buyers = buyers
	return nil
}

// createdInvoice is what the driver reads of a created invoice (the typed
// client.Document would cost the driver a full decoding of its 10 lines).
type createdInvoice struct {
	ID     string `json:"id"`
	Serial string `json:"invoiceSerialNumber"`
}

// createInvoice creates a new invoice of the tenant of key k with Do: the
// body is the prepared JSON, sent as it is (a typed client.Document would
// be encoded at each request), and the answer's data is decoded into out
// unless it is nil (invoices-create: see send).
func (b *bench) createInvoice(ctx context.Context, k int, out *createdInvoice) error {
	body := invoiceBody(b.inv.buyers[k], b.nextSerial())
	if out == nil {
		return b.send(ctx, k, http.MethodPost, "/api/v1/invoices", body)
	}
	_, err := b.api(k).Do(ctx, &client.Request{Method: http.MethodPost, Path: "/api/v1/invoices", Body: body}, out)
	return err
}

// randomInvoice returns an invoice of the pool, chosen at random.
func (b *bench) randomInvoice() invoiceRef {
	return b.inv.pool[rand.IntN(len(b.inv.pool))]
}

// invoiceAt returns the i-th invoice of the pool, in turn: concurrent
// requests then work on different invoices (two validations of one draft at
// once rightly answer 409 to one of them).
func (b *bench) invoiceAt(i int64) invoiceRef {
	return b.inv.pool[i%int64(len(b.inv.pool))]
}

// Seed is the outcome of -seed-invoices.
type Seed struct {
	Invoices     int      `json:"invoices"` // created
	Errors       int      `json:"errors"`
	Concurrency  int      `json:"concurrency"`
	DurationMS   float64  `json:"duration_ms"`
	Rate         float64  `json:"rate_per_s"`
	ErrorSamples []string `json:"error_samples,omitempty"`
}

// seedInvoices creates n invoices, spread over the keys, as fast as c
// workers go, and adds them to the pool.
func (b *bench) seedInvoices(n int) (Seed, error) {
	if err := ensureBuyers(b); err != nil {
		return Seed{}, err
	}
	errs := &errorLog{limit: 5}
	var (
		mu      sync.Mutex
		created []invoiceRef
	)
	start := time.Now()
	seed := scenario{name: "seeding", call: func(ctx context.Context, b *bench, i int64) error {
		k := int(i % int64(len(b.keys)))
		var doc createdInvoice
		if err := b.createInvoice(ctx, k, &doc); err != nil {
			return err
		}
		if doc.ID == "" || doc.Serial == "" {
			return errors.New("creating an invoice: no id or serial in the answer")
		}
		mu.Lock()
		created = append(created, invoiceRef{id: doc.ID, serial: doc.Serial, key: k})
		mu.Unlock()
		return nil
	}}
	b.drive(seed, int64(n), time.Time{}, errs)
	elapsed := time.Since(start)
	b.inv.mu.Lock()
	b.inv.pool = append(b.inv.pool, created...)
	b.inv.mu.Unlock()
	return Seed{
		Invoices:     len(created),
		Errors:       errs.count,
		Concurrency:  b.c,
		DurationMS:   ms(elapsed),
		Rate:         float64(len(created)) / elapsed.Seconds(),
		ErrorSamples: errs.samples,
	}, nil
}

// fillInvoicePool creates a small pool of invoices for the read scenarios
// when none was seeded or loaded.
func fillInvoicePool(b *bench) error {
	if len(b.inv.pool) > 0 {
		return nil
	}
	s, err := b.seedInvoices(max(invoicePoolSize, len(b.keys)))
	if err != nil {
		return err
	}
	if s.Errors > 0 {
		return fmt.Errorf("creating %d invoices to read: %d failed, first: %s", invoicePoolSize, s.Errors, s.ErrorSamples[0])
	}
	return nil
}

// writeInvoices saves the pool to path, one "key-index<TAB>id<TAB>serial" a
// line, so that later runs (one per scenario in run.sh) read the seeded
// invoices. The keys themselves are not written.
func (b *bench) writeInvoices(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	for _, r := range b.inv.pool {
		fmt.Fprintf(w, "%d\t%s\t%s\n", r.key, r.id, r.serial)
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// readInvoices loads a pool written by writeInvoices.
func (b *bench) readInvoices(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	var pool []invoiceRef
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		fields := strings.Split(sc.Text(), "\t")
		if len(fields) != 3 {
			return fmt.Errorf("%s:%d: want key-index, id and serial separated by tabs", path, line)
		}
		k, err := strconv.Atoi(fields[0])
		if err != nil || k < 0 || k >= len(b.keys) {
			return fmt.Errorf("%s:%d: key index %q: this run has %d keys", path, line, fields[0], len(b.keys))
		}
		pool = append(pool, invoiceRef{key: k, id: fields[1], serial: fields[2]})
	}
	if err := sc.Err(); err != nil {
		return err
	}
	if len(pool) == 0 {
		return fmt.Errorf("%s: no invoices", path)
	}
	b.inv.pool = pool
	return nil
}

// listPath is the request of invoices-list: page 1, 15 a page.
const listPath = "/api/v1/invoices?per_page=15&page=1"

// searchPath searches for serial as a prefix.
func searchPath(serial string) string {
	return "/api/v1/invoices?search=" + url.QueryEscape(serial) + "&per_page=15"
}

// checkList confirms that page 1 holds 15 invoices (or all of them) and
// records how many the tenant holds.
func checkList(b *bench, r *Result) error {
	page, err := b.api(0).Documents.List(context.Background(), &client.DocumentListOptions{ListOptions: client.ListOptions{Page: 1, PerPage: 15}})
	if err != nil {
		return fmt.Errorf("list invoices: %s", describe(err))
	}
	if page.Meta.Total == 0 || len(page.Items) != min(15, page.Meta.Total) {
		return fmt.Errorf("list invoices: %d invoices of %d", len(page.Items), page.Meta.Total)
	}
	r.TenantDocs = page.Meta.Total
	return nil
}

// checkSearch confirms, for a few invoices of the pool, that searching its
// serial finds it and nothing else.
func checkSearch(b *bench, _ *Result) error {
	for range 5 {
		ref := b.randomInvoice()
		page, err := b.api(ref.key).Documents.List(context.Background(), &client.DocumentListOptions{Search: ref.serial,
			ListOptions: client.ListOptions{PerPage: 15}})
		if err != nil {
			return fmt.Errorf("searching %q: %s", ref.serial, describe(err))
		}
		if page.Meta.Total != 1 || len(page.Items) != 1 || page.Items[0].ID != ref.id {
			return fmt.Errorf("searching %q: want invoice %s alone, got %d (total %d)", ref.serial, ref.id, len(page.Items), page.Meta.Total)
		}
	}
	return nil
}

// The invoice scenarios. Validation and the PDF go through the typed
// client (a small answer; raw bytes); the others through send.
var (
	invoicesCreate = scenario{name: "invoices-create", prepare: ensureBuyers, call: func(ctx context.Context, b *bench, i int64) error {
		return b.createInvoice(ctx, int(i%int64(len(b.keys))), nil)
	}}
	invoicesList = scenario{name: "invoices-list", prepare: fillInvoicePool, check: checkList, call: func(ctx context.Context, b *bench, i int64) error {
		return b.send(ctx, int(i%int64(len(b.keys))), http.MethodGet, listPath, nil)
	}}
	invoicesSearch = scenario{name: "invoices-search", prepare: fillInvoicePool, check: checkSearch, call: func(ctx context.Context, b *bench, i int64) error {
		ref := b.randomInvoice()
		return b.send(ctx, ref.key, http.MethodGet, searchPath(ref.serial), nil)
	}}
	invoicesGet = scenario{name: "invoices-get", prepare: fillInvoicePool, call: func(ctx context.Context, b *bench, i int64) error {
		ref := b.randomInvoice()
		return b.send(ctx, ref.key, http.MethodGet, "/api/v1/invoices/"+ref.id, nil)
	}}
	// invoicesValidate validates invoices of the pool: the first validation
	// of each makes it ready; later ones check it again and change nothing.
	invoicesValidate = scenario{name: "invoices-validate", prepare: fillInvoicePool, call: func(ctx context.Context, b *bench, i int64) error {
		ref := b.invoiceAt(i)
		_, err := b.api(ref.key).Documents.Validate(ctx, ref.id)
		return err
	}}
	// invoicesPDF renders the visual e-invoice of invoices of the pool (10
	// lines, not yet validated: one page).
	invoicesPDF = scenario{name: "invoices-pdf", prepare: fillInvoicePool, call: func(ctx context.Context, b *bench, i int64) error {
		ref := b.randomInvoice()
		_, err := b.api(ref.key).Documents.PDF(ctx, ref.id)
		return err
	}}
)
