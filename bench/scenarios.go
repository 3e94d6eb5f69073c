package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
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
	// request builds the i-th request of a run.
	request func(b *bench, i int64) (*http.Request, error)
}

// buyersCreate creates buyers; fillPool uses it too.
var buyersCreate = scenario{name: "buyers-create", request: func(b *bench, i int64) (*http.Request, error) {
	return b.newRequest(http.MethodPost, "/api/v1/buyers", b.keys[i%int64(len(b.keys))], buyerBody(b.seq.Add(1)))
}}

// scenarios are the known scenarios, by name.
var scenarios = map[string]scenario{
	buyersCreate.name: buyersCreate,
	"buyers-get": {name: "buyers-get", prepare: fillBuyerPool, request: func(b *bench, i int64) (*http.Request, error) {
		p := b.pool[i%int64(len(b.pool))]
		return b.newRequest(http.MethodGet, "/api/v1/buyers/"+p.id, p.key, "")
	}},
	"buyers-list": {name: "buyers-list", prepare: fillBuyerPool, request: func(b *bench, i int64) (*http.Request, error) {
		p := b.pool[i%int64(len(b.pool))]
		return b.newRequest(http.MethodGet, "/api/v1/buyers?search=hebat&per_page=15", p.key, "")
	}},
	"states": {name: "states", request: func(b *bench, i int64) (*http.Request, error) {
		return b.newRequest(http.MethodGet, "/api/v1/states", b.keys[i%int64(len(b.keys))], "")
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

// buyerBody is the JSON of a valid buyer named "Hebat Group seq".
func buyerBody(seq int64) string {
	return `{"name":"Hebat Group ` + strconv.FormatInt(seq, 10) + `","tin":"C2584563200","id_type":"BRN",` +
		`"id_value":"201901234567","address":{"line1":"Lot 66","city":"Kuala Lumpur","state":"14",` +
		`"postCode":"50480","countryCode":"MYS"},"contact":{"phone":"+60123456789","email":"ap@hebat.example"}}`
}

// pooled is a buyer created for the read scenarios, with the key of the
// tenant that owns it.
type pooled struct{ id, key string }

// bench holds what every scenario shares.
type bench struct {
	client *http.Client
	base   string   // server URL without a trailing slash
	bases  []string // every replica's URL (base first); requests go round-robin
	next   atomic.Uint64
	keys   []string // API keys, used round-robin
	c      int      // concurrency
	warmup int      // uncounted requests before each scenario
	pool   []pooled // buyers to read, filled once by fillPool
	seq    atomic.Int64

	keyIndex map[string]int // position of each key in keys
	inv      invoiceState   // the invoice scenarios' buyers and pool
}

// newRequest builds an authenticated request; a non-empty body is sent as JSON.
func (b *bench) newRequest(method, path, key, body string) (*http.Request, error) {
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	base := b.base
	if len(b.bases) > 1 {
		base = b.bases[b.next.Add(1)%uint64(len(b.bases))]
	}
	req, err := http.NewRequest(method, base+path, rd)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+key)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	return req, nil
}

// do sends req and reads the whole response. It reports a failure (a
// transport error or a non-2xx status) to errs and returns the body of a
// successful response when keep is set.
func (b *bench) do(req *http.Request, errs *errorLog, keep bool) ([]byte, bool) {
	resp, err := b.client.Do(req)
	if err != nil {
		errs.add(req.Method + " " + req.URL.Path + ": " + err.Error())
		return nil, false
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 300))
		_, _ = io.Copy(io.Discard, resp.Body)
		errs.add(fmt.Sprintf("%s %s: %d %s", req.Method, req.URL.Path, resp.StatusCode, strings.TrimSpace(string(body))))
		return nil, false
	}
	if keep {
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			errs.add(req.Method + " " + req.URL.Path + ": reading body: " + err.Error())
			return nil, false
		}
		return body, true
	}
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		errs.add(req.Method + " " + req.URL.Path + ": reading body: " + err.Error())
		return nil, false
	}
	return nil, true
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
	b.drive(buyersCreate, int64(size), time.Time{}, errs, func(req *http.Request, body []byte) {
		var created struct {
			Data struct {
				ID string `json:"id"`
			} `json:"data"`
		}
		if err := json.Unmarshal(body, &created); err != nil || created.Data.ID == "" {
			errs.add(fmt.Sprintf("creating a buyer: no id in %.200s", body))
			return
		}
		mu.Lock()
		b.pool = append(b.pool, pooled{id: created.Data.ID, key: strings.TrimPrefix(req.Header.Get("Authorization"), "Bearer ")})
		mu.Unlock()
	})
	if errs.count > 0 {
		return fmt.Errorf("creating %d buyers to read: %d failed, first: %s", size, errs.count, errs.samples[0])
	}
	return nil
}

// drive sends up to n requests of sc from b.c workers, stopping early at
// deadline (if not zero), and returns each worker's latencies. A request
// in flight at the deadline is allowed to finish. When onBody is set, it
// receives each successful response.
func (b *bench) drive(sc scenario, n int64, deadline time.Time, errs *errorLog, onBody func(*http.Request, []byte)) [][]time.Duration {
	var next atomic.Int64
	lat := make([][]time.Duration, b.c)
	var wg sync.WaitGroup
	for w := range b.c {
		lat[w] = make([]time.Duration, 0, n/int64(b.c)+1)
		wg.Go(func() {
			for {
				i := next.Add(1) - 1
				if i >= n || (!deadline.IsZero() && time.Now().After(deadline)) {
					return
				}
				req, err := sc.request(b, i)
				if err != nil {
					errs.add(err.Error())
					return
				}
				t0 := time.Now()
				body, ok := b.do(req, errs, onBody != nil)
				lat[w] = append(lat[w], time.Since(t0))
				if ok && onBody != nil {
					onBody(req, body)
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
	b.drive(sc, int64(b.warmup), time.Now().Add(d), &errorLog{}, nil)

	errs := &errorLog{limit: 5}
	sampler := &rssSampler{client: b.client, url: b.base + "/metrics", every: 250 * time.Millisecond}
	stop := sampler.start()
	start := time.Now()
	lat := b.drive(sc, n, start.Add(d), errs, nil)
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
