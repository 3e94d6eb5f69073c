package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"strings"
	"time"
)

// config is the whole configuration of a run, from the flags.
type config struct {
	engines []string
	docs    int
	kills   int
	clients int
	// chaosTime is the window over which the first submissions and the
	// kills are spread; the chaos lasts at least that long.
	chaosTime time.Duration
	// maxChaos bounds the chaos: past it the clients stop even if some
	// document was never acknowledged by the service (a violation).
	maxChaos time.Duration
	// settle is the deadline for every document to be Valid or Invalid
	// after the chaos stops.
	settle       time.Duration
	submitWait   time.Duration
	sandboxDelay time.Duration
	shares       faultShares
	pgAdmin      string
	bin          string
	race         bool
	out          string
	jsonOut      string
	seed         uint64
}

// errHelp is returned after -h printed the usage.
var errHelp = errors.New("help")

// engines this harness knows.
var knownEngines = map[string]int{"sqlite": 1, "postgres": 1, "postgres-x2": 2}

// parseConfig reads the flags and checks them.
func parseConfig(args []string, stderr io.Writer) (config, error) {
	var c config
	var engines string
	fs := flag.NewFlagSet("chaos", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&engines, "engine", "sqlite", "comma list of engines: sqlite, postgres, postgres-x2 (two replicas on one PostgreSQL database)")
	fs.IntVar(&c.docs, "docs", 200, "documents to create, validate and submit")
	fs.IntVar(&c.kills, "kills", 5, "SIGKILLs of a service process during the chaos, each followed by a restart")
	fs.IntVar(&c.clients, "clients", 6, "concurrent clients submitting (at least 2: pairs submit one document through two clients at once)")
	fs.DurationVar(&c.chaosTime, "chaos-time", 0, "window over which the first submissions and the kills are spread (default 8s per kill, at least 30s)")
	fs.DurationVar(&c.maxChaos, "max-chaos", 0, "bound on the chaos phase (default the window plus 3 minutes)")
	fs.DurationVar(&c.settle, "settle", 2*time.Minute, "deadline for every document to be Valid or Invalid after the chaos stops (a correctness bound)")
	fs.DurationVar(&c.submitWait, "submit-wait", 2*time.Second, "the service's --submit-wait")
	fs.DurationVar(&c.sandboxDelay, "sandbox-delay", time.Second, "the authority's --sandbox-delay (time from received to verdict)")
	fs.DurationVar(&c.shares.delayFor, "fault-delay", 0, "how long a delayed or late submit is held (default --submit-wait plus 2s: past the service's wait)")
	fs.Float64Var(&c.shares.fail, "fail", 0.20, "share of submits the authority answers 500 without processing")
	fs.Float64Var(&c.shares.throttle, "throttle", 0.08, "share of submits the authority answers 429 (Retry-After 1) without processing")
	fs.Float64Var(&c.shares.delay, "delay", 0.07, "share of submits the authority processes and answers only after -fault-delay")
	fs.Float64Var(&c.shares.drop, "drop", 0.065, "share of submits the authority processes, then drops the connection")
	fs.Float64Var(&c.shares.dropBefore, "drop-before", 0.03, "share of submits whose connection the authority drops without processing")
	fs.Float64Var(&c.shares.late, "late", 0.05, "share of submits the authority reads, then takes in only after -fault-delay, when the service has stopped waiting")
	fs.StringVar(&c.pgAdmin, "pg", "postgres://postgres@127.0.0.1:5432/test?sslmode=disable", "PostgreSQL admin URL (loopback only); a fresh database is created on it per run and dropped after")
	fs.StringVar(&c.bin, "bin", "", "an einvoice binary to use (default: build ./cmd/einvoice)")
	fs.BoolVar(&c.race, "race", false, "build the binary with the race detector")
	fs.StringVar(&c.out, "out", "", "keep each run's logs and SQLite files under this directory (default: a temporary one, kept only when the run fails)")
	fs.StringVar(&c.jsonOut, "json", "", "also write the reports as JSON to this file")
	fs.Uint64Var(&c.seed, "seed", 0, "seed of the random choices (0: from the clock)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return c, errHelp
		}
		return c, err
	}
	if fs.NArg() > 0 {
		return c, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	for e := range strings.SplitSeq(engines, ",") {
		if e = strings.TrimSpace(e); e == "" {
			continue
		}
		if knownEngines[e] == 0 {
			return c, fmt.Errorf("-engine %q: want sqlite, postgres or postgres-x2", e)
		}
		c.engines = append(c.engines, e)
	}
	if c.chaosTime == 0 {
		c.chaosTime = max(30*time.Second, time.Duration(c.kills)*8*time.Second)
	}
	if c.maxChaos == 0 {
		c.maxChaos = c.chaosTime + 3*time.Minute
	}
	if c.shares.delayFor == 0 {
		c.shares.delayFor = c.submitWait + 2*time.Second
	}
	return c, c.check()
}

// check reports the first setting that cannot work.
func (c config) check() error {
	switch {
	case len(c.engines) == 0:
		return errors.New("-engine: name at least one engine")
	case c.docs < 1:
		return errors.New("-docs: want at least 1")
	case c.kills < 0:
		return errors.New("-kills: want 0 or more")
	case c.clients < 2:
		return errors.New("-clients: want at least 2")
	case c.settle <= 0 || c.submitWait <= 0 || c.sandboxDelay < 0:
		return errors.New("-settle and -submit-wait must be positive, -sandbox-delay not negative")
	case c.maxChaos < c.chaosTime:
		return errors.New("-max-chaos must be at least -chaos-time")
	}
	if err := c.shares.check(); err != nil {
		return err
	}
	u, err := url.Parse(c.pgAdmin)
	if err != nil || u.Scheme != "postgres" || (u.Hostname() != "127.0.0.1" && u.Hostname() != "localhost") {
		return fmt.Errorf("-pg %q: want a postgres:// URL on 127.0.0.1 or localhost", c.pgAdmin)
	}
	return nil
}
