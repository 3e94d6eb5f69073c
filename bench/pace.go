package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/einvoice/einvoice/client"
)

// Pace is the outcome of -pace: documents taken end to end in a pipeline
// (create, validate, bulk submit 100 at a time as soon as 100 of a tenant
// are ready), counted as the authority finds them Valid, with the server's
// memory over the whole run.
type Pace struct {
	Documents int `json:"documents"`
	Tenants   int `json:"tenants"`
	Workers   int `json:"workers"`
	// Valid is how many of the run's documents were Valid at the end;
	// Invalid how many the authority refused.
	Valid   int     `json:"valid"`
	Invalid int     `json:"invalid"`
	TotalS  float64 `json:"total_s"`
	// FirstValidS is when the first document was found Valid.
	FirstValidS float64 `json:"first_valid_s"`
	// ValidPerMin is Valid documents per minute over the whole run.
	ValidPerMin float64 `json:"valid_per_min"`
	// Windows holds the documents found Valid in each complete 60-s
	// window from the start; the last, partial window is left out.
	Windows      []int   `json:"windows_valid"`
	WindowMin    int     `json:"window_min"`
	WindowMedian float64 `json:"window_median"`
	WindowMax    int     `json:"window_max"`
	Created      int64   `json:"created"`
	Validated    int64   `json:"validated"`
	BulkSubmits  int64   `json:"bulk_submits"`
	// Submissions counts the submission ids in the bulk submits' answers,
	// Accepted the documents the authority had taken in by the answer, and
	// Pending those still queued in the service's outbox then (sent
	// later; the authority's submissions are Authority.Calls["submit"]).
	Submissions   int64 `json:"submissions"`
	Accepted      int64 `json:"accepted_in_answer"`
	Pending       int64 `json:"pending_in_answer"`
	DocsSubmitted int64 `json:"documents_submitted"`
	// Throttled counts the 429 answers the driver got from the service;
	// each was waited out (its Retry-After) and asked again.
	Throttled int64 `json:"throttled_429"`
	// Authority holds what the service's /metrics say of its calls to the
	// authority during the run (differences of counters).
	Authority AuthorityCalls `json:"authority"`
	Memory    PaceMemory     `json:"memory"`
	Errors    int            `json:"errors"`
	// ErrorSamples holds the first distinct errors.
	ErrorSamples []string `json:"error_samples,omitempty"`
}

// AuthorityCalls is the service's traffic with the authority during a run.
type AuthorityCalls struct {
	// Calls counts the calls by endpoint.
	Calls map[string]float64 `json:"calls"`
	// Throttled counts the calls the authority answered 429.
	Throttled float64 `json:"throttled_429"`
	// HeldWaited and HeldDeferred count the calls the service's rate
	// budget held back: waited for, then sent; or put off, to be retried.
	HeldWaited   float64 `json:"budget_waited"`
	HeldDeferred float64 `json:"budget_deferred"`
}

// PaceMemory is the server's memory over a run: the mean of the first
// minute's samples, the peak, and the mean of the last minute's.
type PaceMemory struct {
	Samples    int      `json:"samples"`
	RSSMB      Triplet  `json:"rss_mb"`
	HeapMB     Triplet  `json:"heap_inuse_mb"`
	Goroutines Triplet  `json:"goroutines"`
	Series     []Sample `json:"series,omitempty"`
}

// Triplet is a level in the first minute, at its peak and in the last
// minute.
type Triplet struct {
	First float64 `json:"first_minute"`
	Peak  float64 `json:"peak"`
	Last  float64 `json:"last_minute"`
}

// Sample is one reading of the server's /metrics.
type Sample struct {
	S          float64 `json:"s"`
	RSSMB      float64 `json:"rss_mb"`
	HeapMB     float64 `json:"heap_inuse_mb"`
	Goroutines float64 `json:"goroutines"`
}

// paceTenant is the pipeline's state of one key (one tenant).
type paceTenant struct {
	mu      sync.Mutex
	quota   int      // documents of this tenant
	done    int      // documents that went through create and validate, passed or not
	pending []string // ready documents not yet handed to a submitter
}

// paceSampleEvery is how often the server's memory is read.
const paceSampleEvery = 3 * time.Second

// runPace takes n documents end to end, spread evenly over the keys (one
// tenant each), with b.c workers creating and validating and as many
// submitters bulk-submitting, and waits until all are Valid or timeout,
// counting them every pollEvery.
func (b *bench) runPace(n int, timeout, pollEvery time.Duration, progress io.Writer) (Pace, error) {
	p := Pace{Documents: n, Tenants: len(b.keys), Workers: b.c}
	if err := ensureBuyers(b); err != nil {
		return p, err
	}
	errs := &errorLog{limit: 5}
	tenants := make([]*paceTenant, len(b.keys))
	for k := range tenants {
		tenants[k] = &paceTenant{quota: n / len(b.keys)}
		if k < n%len(b.keys) {
			tenants[k].quota++
		}
	}
	before, err := b.authorityCalls()
	if err != nil {
		return p, fmt.Errorf("reading the server's metrics: %w", err)
	}
	var created, validated, bulks, submissions, accepted, pending, submitted, throttled atomic.Int64
	retry := func(ctx context.Context, call func() error) error {
		for {
			err := call()
			var e *client.Error
			if !errors.As(err, &e) || e.StatusCode != http.StatusTooManyRequests {
				return err
			}
			throttled.Add(1)
			wait := e.RetryAfter
			if wait <= 0 {
				wait = time.Second
			}
			select {
			case <-ctx.Done():
				return err
			case <-time.After(wait):
			}
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	start := time.Now()
	mem := &paceSampler{b: b, start: start}
	stopMem := mem.run()

	// Submitters bulk-submit the batches the workers hand over.
	batches := make(chan paceBatch, n/bulkSize+len(b.keys)+1)
	var subs sync.WaitGroup
	for range b.c {
		subs.Go(func() {
			for batch := range batches {
				var res *client.BulkResult
				err := retry(ctx, func() (err error) {
					res, err = b.api(batch.key).Documents.SubmitBulk(ctx, batch.ids)
					return err
				})
				if err != nil {
					errs.add("bulk submit: " + describe(err))
					continue
				}
				bulks.Add(1)
				submissions.Add(int64(len(res.SubmissionUIDs)))
				accepted.Add(int64(len(res.Accepted)))
				pending.Add(int64(len(res.Pending)))
				submitted.Add(int64(len(batch.ids) - len(res.Rejected)))
				for _, r := range res.Rejected {
					errs.add(fmt.Sprintf("bulk submit rejected: %s %s %s", r.ID, r.ErrorCode, r.Message))
				}
			}
		})
	}

	// Workers create and validate; whoever makes a tenant's batch full (or
	// finishes its last document) hands the batch to the submitters.
	var next atomic.Int64
	var work sync.WaitGroup
	for range b.c {
		work.Go(func() {
			for {
				i := next.Add(1) - 1
				if i >= int64(n) || ctx.Err() != nil {
					return
				}
				k := int(i % int64(len(b.keys)))
				id := b.paceDocument(ctx, k, retry, errs, &created, &validated)
				t := tenants[k]
				t.mu.Lock()
				t.done++
				if id != "" {
					t.pending = append(t.pending, id)
				}
				var batch []string
				if len(t.pending) >= bulkSize || (t.done == t.quota && len(t.pending) > 0) {
					batch, t.pending = t.pending, nil
				}
				t.mu.Unlock()
				if batch != nil {
					batches <- paceBatch{key: k, ids: batch}
				}
			}
		})
	}
	workDone := make(chan struct{})
	go func() {
		work.Wait()
		close(batches)
		subs.Wait()
		close(workDone)
	}()

	// The poller counts the run's Valid documents (its serials share a
	// prefix) every pollEvery until every submitted one has a verdict.
	var timeline []validAt
	lastReport := start
	finished := false
	for round := 0; ; round++ {
		var valid int
		err := retry(ctx, func() (err error) {
			valid, err = b.countStatus(ctx, client.StatusValid)
			return err
		})
		if err != nil {
			if ctx.Err() != nil {
				break
			}
			errs.add("counting the Valid documents: " + describe(err))
			time.Sleep(time.Second)
			continue
		}
		now := time.Since(start)
		timeline = append(timeline, validAt{at: now, valid: valid})
		if valid > 0 && p.FirstValidS == 0 {
			p.FirstValidS = now.Seconds()
		}
		p.Valid = valid
		select {
		case <-workDone:
			finished = true
		default:
		}
		if valid >= n {
			break
		}
		if finished && round%5 == 0 {
			var invalid int
			err := retry(ctx, func() (err error) {
				invalid, err = b.countStatus(ctx, client.StatusInvalid)
				return err
			})
			if err == nil && valid+invalid >= int(submitted.Load()) {
				break
			}
		}
		if time.Since(lastReport) >= 10*time.Second && progress != nil {
			lastReport = time.Now()
			// Documents the authority holds without a verdict known to
			// the service yet: few while the outbox is waiting for
			// submission slots, many while polls lag.
			atAuthority := "?"
			if n, err := b.countStatus(ctx, client.StatusSubmitted); err == nil {
				atAuthority = fmt.Sprint(n)
			}
			fmt.Fprintf(progress, "bench: pace: %.0f s: created %d, validated %d, bulk-submitted %d in %d requests, Submitted %s, Valid %d\n",
				now.Seconds(), created.Load(), validated.Load(), submitted.Load(), bulks.Load(), atAuthority, valid)
		}
		select {
		case <-ctx.Done():
		case <-time.After(pollEvery):
		}
		if ctx.Err() != nil {
			break
		}
	}
	elapsed := time.Since(start)
	cancel()
	<-workDone
	p.Memory = stopMem()
	p.TotalS = elapsed.Seconds()
	p.Created, p.Validated = created.Load(), validated.Load()
	p.BulkSubmits, p.Submissions, p.DocsSubmitted, p.Throttled = bulks.Load(), submissions.Load(), submitted.Load(), throttled.Load()
	p.Accepted, p.Pending = accepted.Load(), pending.Load()
	p.ValidPerMin = float64(p.Valid) / elapsed.Minutes()
	p.Windows = windows(timeline, time.Minute)
	if len(p.Windows) > 0 {
		s := slices.Clone(p.Windows)
		sort.Ints(s)
		p.WindowMin, p.WindowMax = s[0], s[len(s)-1]
		p.WindowMedian = float64(s[len(s)/2])
		if len(s)%2 == 0 {
			p.WindowMedian = float64(s[len(s)/2-1]+s[len(s)/2]) / 2
		}
	}
	final, cancelFinal := context.WithTimeout(context.Background(), time.Minute)
	defer cancelFinal()
	var invalid int
	if err := retry(final, func() (err error) {
		invalid, err = b.countStatus(final, client.StatusInvalid)
		return err
	}); err != nil {
		errs.add("counting the Invalid documents: " + describe(err))
	} else if p.Invalid = invalid; invalid > 0 {
		errs.add(fmt.Sprintf("%d documents Invalid", invalid))
	}
	if p.Valid < n {
		errs.add(fmt.Sprintf("only %d of %d documents Valid after %.0f s (timeout %s)", p.Valid, n, elapsed.Seconds(), timeout))
	}
	if after, err := b.authorityCalls(); err != nil {
		errs.add("reading the server's metrics: " + err.Error())
	} else {
		p.Authority = after.minus(before)
	}
	p.Throttled = throttled.Load() // with the final counts' 429s
	p.Errors, p.ErrorSamples = errs.count, errs.samples
	return p, nil
}

// paceBatch is up to 100 ready documents of the tenant of key.
type paceBatch struct {
	key int
	ids []string
}

// validAt is a count of Valid documents at a time since the start.
type validAt struct {
	at    time.Duration
	valid int
}

// paceDocument creates an invoice for the tenant of key k and validates it;
// it returns the id of the ready document, or "" after counting an error.
func (b *bench) paceDocument(ctx context.Context, k int, retry func(context.Context, func() error) error,
	errs *errorLog, created, validated *atomic.Int64) string {
	var doc createdInvoice
	if err := retry(ctx, func() error { return b.createInvoice(ctx, k, &doc) }); err != nil {
		errs.add("create: " + describe(err))
		return ""
	}
	if doc.ID == "" {
		errs.add("create: no id in the answer")
		return ""
	}
	created.Add(1)
	var res *client.ValidationResult
	if err := retry(ctx, func() (err error) {
		res, err = b.api(k).Documents.Validate(ctx, doc.ID)
		return err
	}); err != nil {
		errs.add("validate: " + describe(err))
		return ""
	}
	if !res.ValidationPassed {
		errs.add(fmt.Sprintf("validation did not pass: %s %v", res.Message, res.Errors))
		return ""
	}
	validated.Add(1)
	return doc.ID
}

// countStatus sums, over the keys' tenants, the run's documents in status
// (one list request per tenant, its meta.total).
func (b *bench) countStatus(ctx context.Context, status client.Status) (int, error) {
	total := 0
	for k := range b.keys {
		page, err := b.api(k).Documents.List(ctx, &client.DocumentListOptions{Status: status,
			Search: b.inv.prefix, ListOptions: client.ListOptions{PerPage: 1}})
		if err != nil {
			return 0, err
		}
		total += page.Meta.Total
	}
	return total, nil
}

// windows returns the documents found Valid in each complete window of
// length w from the start of timeline: the growth of the count between
// the last samples at or before each window's ends.
func windows(timeline []validAt, w time.Duration) []int {
	if len(timeline) == 0 {
		return nil
	}
	at := func(t time.Duration) int {
		v := 0
		for _, s := range timeline {
			if s.at > t {
				break
			}
			v = s.valid
		}
		return v
	}
	end := timeline[len(timeline)-1].at
	var out []int
	for from := time.Duration(0); from+w <= end; from += w {
		out = append(out, at(from+w)-at(from))
	}
	return out
}

// authorityCalls reads the service's counters of its calls to the
// authority.
func (b *bench) authorityCalls() (AuthorityCalls, error) {
	text, err := fetchMetrics(context.Background(), b.metrics)
	if err != nil {
		return AuthorityCalls{}, err
	}
	a := AuthorityCalls{Calls: map[string]float64{}}
	for line := range strings.SplitSeq(text, "\n") {
		name, labels, v, ok := parseSample(line)
		if !ok {
			continue
		}
		switch name {
		case "einvoice_authority_calls_total":
			a.Calls[labels["endpoint"]] += v
			if labels["code"] == "429" {
				a.Throttled += v
			}
		case "einvoice_authority_budget_held_total":
			switch labels["outcome"] {
			case "waited":
				a.HeldWaited += v
			case "deferred":
				a.HeldDeferred += v
			}
		}
	}
	return a, nil
}

// minus returns the counts of a since earlier.
func (a AuthorityCalls) minus(earlier AuthorityCalls) AuthorityCalls {
	out := AuthorityCalls{Calls: map[string]float64{}, Throttled: a.Throttled - earlier.Throttled,
		HeldWaited: a.HeldWaited - earlier.HeldWaited, HeldDeferred: a.HeldDeferred - earlier.HeldDeferred}
	for k, v := range a.Calls {
		if d := v - earlier.Calls[k]; d > 0 {
			out.Calls[k] = d
		}
	}
	return out
}

// parseSample parses one line of a Prometheus text exposition: name,
// labels (simple values without escapes) and value.
func parseSample(line string) (name string, labels map[string]string, v float64, ok bool) {
	if line == "" || line[0] == '#' {
		return "", nil, 0, false
	}
	name, rest, found := strings.Cut(line, "{")
	labels = map[string]string{}
	if found {
		var body string
		body, rest, found = strings.Cut(rest, "}")
		if !found {
			return "", nil, 0, false
		}
		for pair := range strings.SplitSeq(body, ",") {
			k, val, _ := strings.Cut(pair, "=")
			labels[strings.TrimSpace(k)] = strings.Trim(strings.TrimSpace(val), `"`)
		}
	} else {
		name, rest, found = strings.Cut(line, " ")
		if !found {
			return "", nil, 0, false
		}
	}
	fields := strings.Fields(rest)
	if len(fields) == 0 {
		return "", nil, 0, false
	}
	if _, err := fmt.Sscan(fields[0], &v); err != nil {
		return "", nil, 0, false
	}
	return name, labels, v, true
}

// paceSampler reads the server's memory and goroutines every
// paceSampleEvery.
type paceSampler struct {
	b      *bench
	start  time.Time
	series []Sample
}

// run starts sampling; the returned function stops it and summarizes.
func (s *paceSampler) run() (stop func() PaceMemory) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(paceSampleEvery)
		defer t.Stop()
		for {
			s.sample(ctx)
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	}()
	return func() PaceMemory {
		cancel()
		<-done
		s.sample(context.Background())
		return summarizeMemory(s.series)
	}
}

// sample reads /metrics once; a failed read is skipped.
func (s *paceSampler) sample(ctx context.Context) {
	text, err := fetchMetrics(ctx, s.b.metrics)
	if err != nil {
		return
	}
	get := func(names ...string) float64 {
		for _, name := range names {
			if v, ok := metricValue(strings.NewReader(text), name); ok {
				return v
			}
		}
		return 0
	}
	s.series = append(s.series, Sample{S: time.Since(s.start).Seconds(),
		RSSMB:      get("process_resident_memory_bytes") / (1 << 20),
		HeapMB:     get("go_memstats_heap_inuse_bytes", "go_memstats_heap_alloc_bytes") / (1 << 20),
		Goroutines: get("go_goroutines")})
}

// summarizeMemory reduces the series to first minute, peak and last
// minute (the first and last minute overlap in a run under two minutes).
func summarizeMemory(series []Sample) PaceMemory {
	m := PaceMemory{Samples: len(series), Series: series}
	if len(series) == 0 {
		return m
	}
	end := series[len(series)-1].S
	level := func(get func(Sample) float64) Triplet {
		var t Triplet
		var nFirst, nLast int
		for _, s := range series {
			v := get(s)
			t.Peak = max(t.Peak, v)
			if s.S < 60 {
				t.First += v
				nFirst++
			}
			if s.S >= end-60 {
				t.Last += v
				nLast++
			}
		}
		t.First /= float64(max(nFirst, 1))
		t.Last /= float64(max(nLast, 1))
		return t
	}
	m.RSSMB = level(func(s Sample) float64 { return s.RSSMB })
	m.HeapMB = level(func(s Sample) float64 { return s.HeapMB })
	m.Goroutines = level(func(s Sample) float64 { return s.Goroutines })
	return m
}

// printPace writes the run's figures.
func printPace(w io.Writer, p Pace) {
	fmt.Fprintf(w, "pace: %d documents over %d tenant(s), %d workers: %d Valid in %.1f s (first Valid at %.1f s): %.0f Valid/min overall\n",
		p.Documents, p.Tenants, p.Workers, p.Valid, p.TotalS, p.FirstValidS, p.ValidPerMin)
	if len(p.Windows) > 0 {
		fmt.Fprintf(w, "  per 60-s window (%d complete): min %d, median %.0f, max %d Valid/min %v\n",
			len(p.Windows), p.WindowMin, p.WindowMedian, p.WindowMax, p.Windows)
	} else {
		fmt.Fprintln(w, "  per 60-s window: none complete (a run under a minute)")
	}
	fmt.Fprintf(w, "  created %d, validated %d, %d documents bulk-submitted in %d requests: %d accepted by the answer (%d submission ids), %d pending in the outbox\n",
		p.Created, p.Validated, p.DocsSubmitted, p.BulkSubmits, p.Accepted, p.Submissions, p.Pending)
	fmt.Fprintf(w, "  submissions made to the authority: %.0f\n", p.Authority.Calls["submit"]-p.Authority.Throttled)
	fmt.Fprintf(w, "  429 answers to the driver: %d (each waited out for its Retry-After, then asked again)\n", p.Throttled)
	keys := make([]string, 0, len(p.Authority.Calls))
	for k := range p.Authority.Calls {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var calls []string
	for _, k := range keys {
		calls = append(calls, fmt.Sprintf("%s %.0f", k, p.Authority.Calls[k]))
	}
	fmt.Fprintf(w, "  service to authority: calls %s; answered 429: %.0f; held by the rate budget: %.0f waited, %.0f deferred\n",
		strings.Join(calls, ", "), p.Authority.Throttled, p.Authority.HeldWaited, p.Authority.HeldDeferred)
	m := p.Memory
	fmt.Fprintf(w, "  server (first minute / peak / last minute, %d samples): RSS %.1f / %.1f / %.1f MB, heap in use %.1f / %.1f / %.1f MB, goroutines %.0f / %.0f / %.0f\n",
		m.Samples, m.RSSMB.First, m.RSSMB.Peak, m.RSSMB.Last, m.HeapMB.First, m.HeapMB.Peak, m.HeapMB.Last,
		m.Goroutines.First, m.Goroutines.Peak, m.Goroutines.Last)
	fmt.Fprintf(w, "  errors: %d (Invalid: %d)\n", p.Errors, p.Invalid)
}
