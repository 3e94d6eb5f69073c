// Command bench is a bounded load driver for the einvoice API.
//
// It runs each named scenario with -c concurrent workers until -n requests
// or -duration have passed, whichever comes first, after an uncounted
// warm-up, and prints throughput, latency percentiles and the server's
// peak resident memory (sampled from its /metrics every 250 ms). It only
// talks to a loopback address.
//
//	go run ./bench -key eik_... -scenario buyers-create,buyers-get -c 16 -n 20000
//
// With -seed-invoices N it first creates N invoices (10 lines each, with
// autoCalculate) for the keys' tenants, uncounted, and prints the seeding
// rate; the invoice read scenarios then pick from them. -invoices-file keeps
// the seeded invoices for later runs:
//
//	go run ./bench -key eik_... -scenario "" -seed-invoices 100000 -invoices-file inv.tsv
//	go run ./bench -key eik_... -scenario invoices-search -invoices-file inv.tsv
//
// With -pace N it takes N invoices end to end in a pipeline, spread over
// the keys' tenants, and prints the documents found Valid per minute and
// the server's memory over the run (bench/pace.sh runs it):
//
//	go run ./bench -key eik_... -pace 20000 -c 8 -timeout 20m
//
// With -wait-ready it instead polls /readyz every 5 ms and prints the
// milliseconds from -started-at to the first 200 (bench/run.sh uses it to
// time the server's startup).
//
// The exit status is 1 if any measured request failed, 2 on bad usage.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/einvoice/einvoice/client"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// options are the command-line flags.
type options struct {
	url, key, keysFile, scenarios string
	c, n, warmup                  int
	seedInvoices                  int
	invoicesFile                  string
	duration                      time.Duration
	json                          bool
	waitReady                     bool
	startedAt                     int64
	readyTimeout                  time.Duration
	flow                          int
	flowTimeout                   time.Duration
	pace                          int
	timeout, pacePoll             time.Duration
	soak, soakWarmup              time.Duration
}

func run(args []string, stdout, stderr io.Writer) int {
	var o options
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.url, "url", "http://127.0.0.1:8080", "server URL (loopback only); a comma list of replicas' URLs spreads the requests round-robin over them (memory is sampled on the first)")
	fs.StringVar(&o.key, "key", "", "API key")
	fs.StringVar(&o.keysFile, "keys-file", "", "file of API keys, one a line; requests are spread round-robin over them")
	fs.StringVar(&o.scenarios, "scenario", "buyers-create,buyers-get,buyers-list,states",
		"comma list of: buyers-create, buyers-get, buyers-list, states, invoices-create, invoices-list, invoices-search, invoices-get, invoices-validate, invoices-pdf (empty: none, e.g. to only seed)")
	fs.IntVar(&o.seedInvoices, "seed-invoices", 0, "first create this many invoices with -c workers, uncounted, for the invoice read scenarios to pick from")
	fs.StringVar(&o.invoicesFile, "invoices-file", "", "with -seed-invoices: write the seeded invoices (key index, id, serial) to this file; without: read the invoices to pick from it")
	fs.IntVar(&o.c, "c", 16, "concurrent workers")
	fs.IntVar(&o.n, "n", 20000, "max requests per scenario")
	fs.DurationVar(&o.duration, "duration", 20*time.Second, "max time per scenario")
	fs.IntVar(&o.warmup, "warmup", 300, "uncounted warm-up requests before each scenario")
	fs.IntVar(&o.flow, "flow", 0, "instead of scenarios: take this many invoices end to end (create, validate, bulk submit 100 at a time, wait for Valid) and print each phase's time")
	fs.DurationVar(&o.flowTimeout, "flow-timeout", 5*time.Minute, "with -flow: how long to wait for every document to be Valid")
	fs.IntVar(&o.pace, "pace", 0, "instead of scenarios: take this many invoices end to end in a pipeline (workers create and validate, each tenant's ready documents are bulk-submitted 100 at a time as soon as there are 100) spread evenly over the keys, and print the Valid documents per minute, per 60-s window, and the server's memory")
	fs.DurationVar(&o.timeout, "timeout", 30*time.Minute, "with -pace: how long the whole run may take until every document is Valid")
	fs.DurationVar(&o.pacePoll, "pace-poll", 2*time.Second, "with -pace: how often to count the Valid documents (one list request per tenant)")
	fs.DurationVar(&o.soak, "soak", 0, "instead of one scenario after another: run the -scenario list mixed for this long and compare the server's heap, memory and goroutines after the warm-up and at the end")
	fs.DurationVar(&o.soakWarmup, "soak-warmup", time.Minute, "with -soak: the warm-up before the first measurement")
	fs.BoolVar(&o.json, "json", false, "print results as JSON")
	fs.BoolVar(&o.waitReady, "wait-ready", false, "only poll /readyz every 5 ms and print the ms since -started-at to the first 200")
	fs.Int64Var(&o.startedAt, "started-at", 0, "with -wait-ready: when the server process started, in Unix nanoseconds (default now)")
	fs.DurationVar(&o.readyTimeout, "ready-timeout", 30*time.Second, "with -wait-ready: give up after this long")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	var bases []string
	for raw := range strings.SplitSeq(o.url, ",") {
		base, err := loopbackURL(strings.TrimSpace(raw))
		if err != nil {
			fmt.Fprintln(stderr, "bench:", err)
			return 2
		}
		bases = append(bases, base)
	}
	base := bases[0]
	if o.waitReady {
		return waitReady(base, o, stdout, stderr)
	}
	if o.flow > 0 || o.pace > 0 {
		o.scenarios = ""
	}
	b, list, err := setup(bases, o)
	if err != nil {
		fmt.Fprintln(stderr, "bench:", err)
		return 2
	}
	if o.flow > 0 {
		return flowMain(b, o, stdout, stderr)
	}
	if o.pace > 0 {
		return paceMain(b, o, stdout, stderr)
	}
	if o.soak > 0 {
		return soakMain(b, list, o, stdout, stderr)
	}

	var results []Result
	failed := false
	var seed *Seed
	switch {
	case o.seedInvoices > 0:
		fmt.Fprintf(stderr, "bench: seeding %d invoices with c=%d\n", o.seedInvoices, o.c)
		s, err := b.seedInvoices(o.seedInvoices)
		if err != nil {
			fmt.Fprintln(stderr, "bench: seeding:", err)
			return 1
		}
		fmt.Fprintf(stderr, "bench: seeded %d invoices in %.1f s: %.0f/s (c=%d, %d errors)\n", s.Invoices, s.DurationMS/1000, s.Rate, s.Concurrency, s.Errors)
		for _, e := range s.ErrorSamples {
			fmt.Fprintf(stderr, "bench: error: %s\n", e)
		}
		failed = s.Errors > 0
		seed = &s
		if o.invoicesFile != "" {
			if err := b.writeInvoices(o.invoicesFile); err != nil {
				fmt.Fprintln(stderr, "bench:", err)
				return 1
			}
		}
	case o.invoicesFile != "":
		if err := b.readInvoices(o.invoicesFile); err != nil {
			fmt.Fprintln(stderr, "bench:", err)
			return 2
		}
	}
	for _, sc := range list {
		fmt.Fprintf(stderr, "bench: %s: c=%d n=%d duration=%s warmup=%d\n", sc.name, o.c, o.n, o.duration, o.warmup)
		r, err := b.run(sc, int64(o.n), o.duration)
		if err != nil {
			fmt.Fprintf(stderr, "bench: %s: %v\n", sc.name, err)
			failed = true
			break
		}
		for _, e := range r.ErrorSamples {
			fmt.Fprintf(stderr, "bench: error: %s\n", e)
		}
		failed = failed || r.Errors > 0
		results = append(results, r)
	}
	if o.json {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(struct {
			URL         string   `json:"url"`
			Concurrency int      `json:"concurrency"`
			Keys        int      `json:"keys"`
			Seed        *Seed    `json:"seed,omitempty"`
			Results     []Result `json:"results"`
		}{base, o.c, len(b.keys), seed, results})
	} else {
		if seed != nil {
			fmt.Fprintf(stdout, "seeded %d invoices in %.1f s: %.0f/s (c=%d)\n\n", seed.Invoices, seed.DurationMS/1000, seed.Rate, seed.Concurrency)
		}
		printTable(stdout, results)
	}
	if failed {
		return 1
	}
	return 0
}

// loopbackURL checks that raw is an http URL of a loopback host and returns
// it without a trailing slash.
func loopbackURL(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", fmt.Errorf("-url %q: %v", raw, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return "", fmt.Errorf("-url %q: want http://127.0.0.1:PORT", raw)
	}
	host := u.Hostname()
	ip := net.ParseIP(host)
	if host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return "", fmt.Errorf("-url %q: refusing a host that is not loopback (use 127.0.0.1, ::1 or localhost)", raw)
	}
	return strings.TrimSuffix(u.Scheme+"://"+u.Host+u.Path, "/"), nil
}

// setup reads the keys, resolves the scenarios and builds the clients: one
// of the public client per replica and key, all on one http.Client.
func setup(bases []string, o options) (*bench, []scenario, error) {
	if o.c < 1 || o.n < 1 || o.duration <= 0 || o.warmup < 0 || o.seedInvoices < 0 {
		return nil, nil, errors.New("want -c >= 1, -n >= 1, -duration > 0, -warmup >= 0, -seed-invoices >= 0")
	}
	var keys []string
	if o.key != "" {
		keys = append(keys, o.key)
	}
	if o.keysFile != "" {
		more, err := readKeys(o.keysFile)
		if err != nil {
			return nil, nil, err
		}
		keys = append(keys, more...)
	}
	if len(keys) == 0 {
		return nil, nil, errors.New("pass -key or -keys-file")
	}
	var list []scenario
	for name := range strings.SplitSeq(o.scenarios, ",") {
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		sc, ok := scenarios[name]
		if !ok {
			return nil, nil, fmt.Errorf("unknown scenario %q", name)
		}
		list = append(list, sc)
	}
	if len(list) == 0 && o.seedInvoices == 0 && o.flow == 0 && o.pace == 0 {
		return nil, nil, errors.New("no scenario and no -seed-invoices: nothing to do")
	}
	conns := o.c
	if o.pace > 0 {
		conns = 2*o.c + 1 // workers, submitters and the poller
	}
	hc := newClient(conns)
	b := &bench{base: bases[0], keys: keys, c: o.c, warmup: o.warmup, metrics: newAPI(bases[0], "", hc)}
	for _, base := range bases {
		row := make([]*client.Client, len(keys))
		for k, key := range keys {
			row[k] = newAPI(base, key, hc)
		}
		b.clients = append(b.clients, row)
	}
	b.inv.prefix = newSerialPrefix()
	return b, list, nil
}

// newClient returns the one http.Client of the run, under every client.Client:
// keep-alive connections for every worker (and one for the metrics sampler),
// no proxy, no redirects.
func newClient(c int) *http.Client {
	return &http.Client{
		Timeout: 30 * time.Second,
		Transport: &http.Transport{
			Proxy:               nil,
			DialContext:         (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
			MaxIdleConns:        c + 1,
			MaxIdleConnsPerHost: c + 1,
			IdleConnTimeout:     90 * time.Second,
			DisableCompression:  true,
		},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// readKeys reads one key a line, skipping blank lines and # comments.
func readKeys(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var keys []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k := strings.TrimSpace(sc.Text()); k != "" && !strings.HasPrefix(k, "#") {
			keys = append(keys, k)
		}
	}
	return keys, sc.Err()
}

// waitReady polls /readyz every 5 ms and prints the whole milliseconds from
// o.startedAt to the first 200.
func waitReady(base string, o options, stdout, stderr io.Writer) int {
	start := time.Now()
	if o.startedAt != 0 {
		start = time.Unix(0, o.startedAt)
	}
	c := newAPI(base, "", &http.Client{Timeout: time.Second, Transport: &http.Transport{Proxy: nil, DisableKeepAlives: true}})
	for time.Since(start) < o.readyTimeout {
		if _, err := c.Ready(context.Background()); err == nil {
			fmt.Fprintf(stdout, "%d\n", time.Since(start).Milliseconds())
			return 0
		}
		time.Sleep(5 * time.Millisecond)
	}
	fmt.Fprintf(stderr, "bench: %s/readyz not ready after %s\n", base, o.readyTimeout)
	return 1
}

// printTable prints results as an aligned text table.
func printTable(w io.Writer, results []Result) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "scenario\trequests\terrors\tduration s\treq/s\tp50 ms\tp95 ms\tp99 ms\tmax ms\tpeak RSS MB\tserver CPU %\t")
	for _, r := range results {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.2f\t%.0f\t%.2f\t%.2f\t%.2f\t%.2f\t%.1f\t%.0f\t\n", r.Scenario, r.Requests, r.Errors,
			r.DurationMS/1000, r.Throughput, r.P50MS, r.P95MS, r.P99MS, r.MaxMS, r.PeakRSSMB, r.ServerCPUPct)
	}
	tw.Flush()
}

// flowMain runs -flow and prints its figures.
func flowMain(b *bench, o options, stdout, stderr io.Writer) int {
	fmt.Fprintf(stderr, "bench: flow of %d documents with c=%d\n", o.flow, o.c)
	f, err := b.runFlow(o.flow, o.flowTimeout)
	if err != nil {
		fmt.Fprintln(stderr, "bench: flow:", err)
		return 1
	}
	return report(o, stdout, stderr, "flow", f.ErrorSamples, f.Errors, f, func(w io.Writer) { printFlow(w, f) })
}

// paceMain runs -pace and prints its figures.
func paceMain(b *bench, o options, stdout, stderr io.Writer) int {
	fmt.Fprintf(stderr, "bench: pace: %d documents over %d key(s) with c=%d, timeout %s\n", o.pace, len(b.keys), o.c, o.timeout)
	if o.pacePoll <= 0 {
		fmt.Fprintln(stderr, "bench: want -pace-poll > 0")
		return 2
	}
	p, err := b.runPace(o.pace, o.timeout, o.pacePoll, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "bench: pace:", err)
		return 1
	}
	return report(o, stdout, stderr, "pace", p.ErrorSamples, p.Errors, p, func(w io.Writer) { printPace(w, p) })
}

// soakMain runs -soak and prints its figures.
func soakMain(b *bench, list []scenario, o options, stdout, stderr io.Writer) int {
	fmt.Fprintf(stderr, "bench: soak of %s with c=%d: warm-up %s, then %s\n", o.scenarios, o.c, o.soakWarmup, o.soak)
	s, err := b.runSoak(list, o.soakWarmup, o.soak)
	if err != nil {
		fmt.Fprintln(stderr, "bench: soak:", err)
		return 1
	}
	return report(o, stdout, stderr, "soak", s.ErrorSamples, s.Errors, s, func(w io.Writer) { printSoak(w, s) })
}

// report prints a run's error samples to stderr and its figures to stdout
// (v as JSON with -json, else print), and returns the exit status: 1 if any
// request failed.
func report(o options, stdout, stderr io.Writer, what string, samples []string, errs int, v any, print func(io.Writer)) int {
	for _, e := range samples {
		fmt.Fprintf(stderr, "bench: %s: error: %s\n", what, e)
	}
	if o.json {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(v)
	} else {
		print(stdout)
	}
	if errs > 0 {
		return 1
	}
	return 0
}
