package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/einvoice/einvoice/client"
)

// scenario is one kind of request, driven in a loop.
type scenario struct {
	name string
	// prepare, when set, creates what the scenario reads (buyers, invoices)
	// before its warm-up. What it creates is kept for later scenarios.
	prepare func(b *bench) error
	// check, when set, sends one or a few requests before the warm-up to
	// confirm that the scenario measures what it claims; it may fill in
	// fields of the result.
	check func(b *bench, r *Result) error
	// call makes the i-th request of a run through the public client:
	// exactly one HTTP request (the clients never retry), whose time is one
	// latency sample. Any answer but a 2xx is an error.
	call func(ctx context.Context, b *bench, i int64) error
}

// send makes one measured request with Do and out == nil: the client
// checks the status and reads the answer, but decodes it into no typed
// result. The typed calls cost the driver enough CPU to lower the figures
// of this 2-core machine, where the driver shares the cores with the
// service (bench/README.md, "Client").
func (b *bench) send(ctx context.Context, k int, method, path string, body any) error {
	_, err := b.api(k).Do(ctx, &client.Request{Method: method, Path: path, Body: body}, nil)
	return err
}

// buyersCreate creates buyers.
var buyersCreate = scenario{name: "buyers-create", call: func(ctx context.Context, b *bench, i int64) error {
	return b.send(ctx, int(i%int64(len(b.keys))), http.MethodPost, "/api/v1/buyers", buyerParty(b.seq.Add(1)))
}}

// scenarios are the known scenarios, by name.
var scenarios = map[string]scenario{
	buyersCreate.name: buyersCreate,
	"buyers-get": {name: "buyers-get", prepare: fillBuyerPool, call: func(ctx context.Context, b *bench, i int64) error {
		p := b.pool[i%int64(len(b.pool))]
		return b.send(ctx, p.key, http.MethodGet, "/api/v1/buyers/"+p.id, nil)
	}},
	"buyers-list": {name: "buyers-list", prepare: fillBuyerPool, call: func(ctx context.Context, b *bench, i int64) error {
		p := b.pool[i%int64(len(b.pool))]
		return b.send(ctx, p.key, http.MethodGet, "/api/v1/buyers?search=hebat&per_page=15", nil)
	}},
	"states": {name: "states", call: func(ctx context.Context, b *bench, i int64) error {
		return b.send(ctx, int(i%int64(len(b.keys))), http.MethodGet, "/api/v1/states", nil)
	}},
	invoicesCreate.name:   invoicesCreate,
	invoicesList.name:     invoicesList,
	invoicesSearch.name:   invoicesSearch,
	invoicesGet.name:      invoicesGet,
	invoicesValidate.name: invoicesValidate,
	invoicesPDF.name:      invoicesPDF,
}

// fillBuyerPool creates the 200 buyers that buyers-get and buyers-list read.
func fillBuyerPool(b *bench) error { return b.fillPool(200) }

// buyerParty is a valid buyer named "Hebat Group seq".
func buyerParty(seq int64) *client.Party {
	return &client.Party{Name: "Hebat Group " + strconv.FormatInt(seq, 10), TIN: "C21638015020", IDType: client.IDTypeBRN,
		IDValue: "201901234567", Address: client.Address{Line1: "Lot 66", City: "Kuala Lumpur", State: "14",
			PostCode: "50480", CountryCode: "MYS"}, Contact: client.Contact{Phone: "+60123456789", Email: "ap@hebat.example"}}
}

// pooled is a buyer created for the read scenarios, with the index of the
// key of the tenant that owns it.
type pooled struct {
	id  string
	key int
}

// bench holds what every scenario shares.
type bench struct {
	base string // server URL without a trailing slash (the first replica's)
	// clients holds the public client of each replica (rows, base first)
	// and key (columns, as keys); they all share one http.Client.
	clients [][]*client.Client
	next    atomic.Uint64
	// metrics is the client, without a key, of the first replica's
	// /metrics.
	metrics *client.Client
	keys    []string // API keys, used round-robin
	c       int      // concurrency
	warmup  int      // uncounted requests before each scenario
	pool    []pooled // buyers to read, filled once by fillPool
	seq     atomic.Int64

	inv invoiceState // the invoice scenarios' buyers and pool
}

// newAPI returns the public client of the service at base with key, as the
// driver uses it: through hc, and never retrying, so that each call is one
// HTTP request (one latency sample).
func newAPI(base, key string, hc *http.Client) *client.Client {
	return client.New(base, key, client.WithRetries(0), client.WithHTTPClient(hc), client.WithUserAgent("einvoice-bench"))
}

// api returns the client of key k, on the next replica (round robin) when
// there are several.
func (b *bench) api(k int) *client.Client {
	row := b.clients[0]
	if len(b.clients) > 1 {
		row = b.clients[b.next.Add(1)%uint64(len(b.clients))]
	}
	return row[k]
}

// describe turns a failed call into an error sample: the status and the
// start of the body of an answer, or the client's error.
func describe(err error) string {
	var e *client.Error
	if errors.As(err, &e) {
		return fmt.Sprintf("%d %.300s", e.StatusCode, bytes.TrimSpace(e.Body))
	}
	return err.Error()
}

// fillPool creates size buyers, spread over the keys, for the read
// scenarios. It runs once, before the first scenario that needs it.
func (b *bench) fillPool(size int) error {
	if len(b.pool) > 0 {
		return nil
	}
	size = max(size, len(b.keys))
	errs := &errorLog{limit: 3}
	var mu sync.Mutex
	fill := scenario{name: "buyers-pool", call: func(ctx context.Context, b *bench, i int64) error {
		k := int(i % int64(len(b.keys)))
		p, err := b.api(k).Buyers.Create(ctx, buyerParty(b.seq.Add(1)))
		if err != nil {
			return err
		}
		if p.ID == "" {
			return errors.New("creating a buyer: no id in the answer")
		}
		mu.Lock()
		b.pool = append(b.pool, pooled{id: p.ID, key: k})
		mu.Unlock()
		return nil
	}}
	b.drive(fill, int64(size), time.Time{}, errs)
	if errs.count > 0 {
		return fmt.Errorf("creating %d buyers to read: %d failed, first: %s", size, errs.count, errs.samples[0])
	}
	return nil
}

// drive sends up to n requests of sc from b.c workers, stopping early at
// deadline (if not zero), and returns each worker's latencies. A request
// in flight at the deadline is allowed to finish.
func (b *bench) drive(sc scenario, n int64, deadline time.Time, errs *errorLog) [][]time.Duration {
	var next atomic.Int64
	lat := make([][]time.Duration, b.c)
	ctx := context.Background()
	var wg sync.WaitGroup
	for w := range b.c {
		lat[w] = make([]time.Duration, 0, n/int64(b.c)+1)
		wg.Go(func() {
			for {
				i := next.Add(1) - 1
				if i >= n || (!deadline.IsZero() && time.Now().After(deadline)) {
					return
				}
				t0 := time.Now()
				err := sc.call(ctx, b, i)
				lat[w] = append(lat[w], time.Since(t0))
				if err != nil {
					errs.add(sc.name + ": " + describe(err))
				}
			}
		})
	}
	wg.Wait()
	return lat
}

// Result is the outcome of one scenario.
type Result struct {
	Scenario       string   `json:"scenario"`
	Requests       int      `json:"requests"`
	Errors         int      `json:"errors"`
	DurationMS     float64  `json:"duration_ms"`
	Throughput     float64  `json:"throughput_rps"`
	P50MS          float64  `json:"p50_ms"`
	P95MS          float64  `json:"p95_ms"`
	P99MS          float64  `json:"p99_ms"`
	MaxMS          float64  `json:"max_ms"`
	PeakRSSMB      float64  `json:"peak_rss_mb"`
	PeakGoroutines int      `json:"peak_goroutines"`
	ServerCPUPct   float64  `json:"server_cpu_pct"`        // of one core, averaged over the run
	TenantDocs     int      `json:"tenant_docs,omitempty"` // invoices-list: meta.total of the first key's tenant
	RSSSamples     int      `json:"rss_samples"`
	ErrorSamples   []string `json:"error_samples,omitempty"`
}

// run warms up, then measures sc for at most n requests or d, whichever
// comes first, while sampling the server's memory.
func (b *bench) run(sc scenario, n int64, d time.Duration) (Result, error) {
	if sc.prepare != nil {
		if err := sc.prepare(b); err != nil {
			return Result{}, err
		}
	}
	var checked Result
	if sc.check != nil {
		if err := sc.check(b, &checked); err != nil {
			return Result{}, fmt.Errorf("check before the run: %w", err)
		}
	}
	b.drive(sc, int64(b.warmup), time.Now().Add(d), &errorLog{})

	errs := &errorLog{limit: 5}
	sampler := &rssSampler{client: b.metrics, every: 250 * time.Millisecond}
	stop := sampler.start()
	start := time.Now()
	lat := b.drive(sc, n, start.Add(d), errs)
	elapsed := time.Since(start)
	stop()

	var all []time.Duration
	for _, l := range lat {
		all = append(all, l...)
	}
	s := Summarize(all)
	return Result{
		Scenario:       sc.name,
		Requests:       s.Count,
		Errors:         errs.count,
		DurationMS:     ms(elapsed),
		Throughput:     float64(s.Count) / elapsed.Seconds(),
		P50MS:          ms(s.P50),
		P95MS:          ms(s.P95),
		P99MS:          ms(s.P99),
		MaxMS:          ms(s.Max),
		PeakRSSMB:      sampler.peakRSS / (1 << 20),
		PeakGoroutines: int(sampler.peakGo),
		ServerCPUPct:   100 * (sampler.cpu - sampler.firstCPU) / elapsed.Seconds(),
		RSSSamples:     sampler.samples,
		TenantDocs:     checked.TenantDocs,
		ErrorSamples:   errs.samples,
	}, nil
}
