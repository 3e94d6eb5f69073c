package main

import (
	"context"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// runEngine runs the whole scenario on one engine and returns its report;
// an error means the run could not be made (the service or the authority
// did not start, the setup failed), not that the service failed it.
func runEngine(ctx context.Context, cfg config, engine, bin string, logf func(string, ...any)) (rep *report, err error) {
	began := time.Now()
	seed := cfg.seed
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	h := fnv.New64a()
	h.Write([]byte(engine))
	rng := rand.New(rand.NewPCG(seed, h.Sum64()))
	rep = &report{Engine: engine, Seed: seed, Docs: cfg.docs, Clients: cfg.clients, Faults: cfg.shares.String(),
		SettleDeadline: cfg.settle.String(), Findings: newFindings()}

	logf("%s: starting the authority, the witness and %d service process(es)", engine, knownEngines[engine])
	c, err := startCluster(ctx, cfg, engine, bin)
	if err != nil {
		if c != nil && c.work != "" {
			err = fmt.Errorf("%w (logs in %s)", err, c.work)
		}
		return nil, err
	}
	rep.WorkDir = c.work
	defer func() {
		keep := err != nil || !rep.passed()
		if cerr := c.close(keep); cerr != nil {
			logf("%s: cleaning up: %v", engine, cerr)
		}
		if keep || cfg.out != "" {
			rep.Kept = true
		}
	}()

	key, err := c.demoKey()
	if err != nil {
		return nil, err
	}
	a := &api{bases: c.urls, key: key}
	if err := bindSandboxClient(ctx, c, a); err != nil {
		return nil, err
	}
	logf("%s: creating and validating %d documents", engine, cfg.docs)
	prefix := "CHAOS-" + strings.ToUpper(strconv.FormatInt(time.Now().UnixMilli(), 36))
	docs, err := createDocuments(ctx, a, cfg.docs, prefix)
	if err != nil {
		return nil, err
	}
	if err := installFaults(ctx, c.authURL, cfg.shares.chain()); err != nil {
		return nil, err
	}

	wl, chaosTook := chaos(ctx, c, a, docs, rng, seed, rep, logf)
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	rep.ChaosS = chaosTook.Seconds()
	logf("%s: chaos stopped after %s (%d kills); the faults stay on; waiting up to %s for every document to be Valid or Invalid",
		engine, chaosTook.Round(100*time.Millisecond), len(rep.Kills), cfg.settle)

	st := waitSettled(ctx, a, cfg.docs, cfg.settle)
	rep.Settled, rep.SettleS, rep.Valid, rep.Invalid = st.Settled, st.Took.Seconds(), st.Valid, st.Invalid
	logf("%s: %d Valid and %d Invalid of %d, %s after the chaos", engine, st.Valid, st.Invalid, cfg.docs, st.Took.Round(100*time.Millisecond))
	err = judge(ctx, c, a, docs, wl, rep)
	rep.TotalS = time.Since(began).Seconds()
	return rep, err
}

// chaos runs the clients and the killer until the killer is done, the
// window has passed and the service has answered a submit of every
// document, or -max-chaos passes; it returns the stopped workload and how
// long the chaos lasted.
func chaos(ctx context.Context, c *cluster, a *api, docs []*doc, rng *rand.Rand, seed uint64, rep *report, logf func(string, ...any)) (*workload, time.Duration) {
	cfg := c.cfg
	chaosCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	start := time.Now()
	logf("%s: chaos: %d clients, %d kills within %s; %s", c.engine, cfg.clients, cfg.kills, cfg.chaosTime, cfg.shares)
	wl := startWorkload(chaosCtx, a, cfg.clients, plan(docs, rng, cfg.chaosTime), seed)
	type killed struct {
		kills []kill
		err   error
	}
	killerDone := make(chan killed, 1)
	times := killTimes(cfg.kills, cfg.chaosTime, rng)
	krng := rand.New(rand.NewPCG(seed, 1<<40))
	go func() {
		ks, err := runKiller(chaosCtx, c, start, times, krng, logf)
		killerDone <- killed{ks, err}
	}()

	var result *killed
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case k := <-killerDone:
			result = &k
		case <-tick.C:
		case <-ctx.Done():
			wl.stop(cancel)
			return wl, time.Since(start)
		}
		elapsed := time.Since(start)
		if result != nil && elapsed >= cfg.chaosTime && allAcked(docs) {
			break
		}
		if elapsed >= cfg.maxChaos {
			logf("%s: -max-chaos %s passed: stopping the chaos", c.engine, cfg.maxChaos)
			break
		}
	}
	wl.stop(cancel)
	took := time.Since(start)
	if result == nil {
		k := <-killerDone
		result = &k
	}
	rep.Kills = result.kills
	if result.err != nil {
		rep.Findings.add(vExit, "the killer: %v", result.err)
	}
	return wl, took
}

// judge gathers what the service, the witness and the authority hold, and
// the logs, and fills the report's verdict.
func judge(ctx context.Context, c *cluster, a *api, docs []*doc, wl *workload, rep *report) error {
	f := rep.Findings
	service, err := serviceDocs(ctx, a)
	if err != nil {
		return err
	}
	noteJobs(ctx, a, service)
	held, err := readAuthority(ctx, filepath.Join(c.work, "sandbox.db"))
	if err != nil {
		return err
	}
	stats, err := readSandboxStats(ctx, c.authURL)
	if err != nil {
		return err
	}
	rep.FaultsFired = stats.Faults
	rep.comparison = compare(docs, service, held, c.witness.byCodeNumber(), f)
	rep.WitnessCalls, rep.Submissions = c.witness.callCounts()

	rep.Requests = wl.tally.requests
	rep.Answers = wl.tally.answers()
	for _, l := range wl.tally.falseOnes {
		f.add(vFalse, "%s", l)
	}
	for _, l := range wl.tally.unexpected {
		f.add(vUnexpected, "%s", l)
	}
	for _, d := range docs {
		if !d.acked.Load() {
			f.add(vUnexpected, "%s: the service never answered a submit of it during the chaos", d.serial)
		}
	}

	c.stopReplicas()
	for _, p := range append([]*proc{c.sandbox}, c.replicas...) {
		for _, e := range p.unexpectedExits() {
			f.add(vExit, "%s: %s", p.name, e)
		}
		s, err := scanLog(p.name, p.logPath)
		if err != nil {
			return err
		}
		if s.Crashes > 0 {
			f.add(vLog, "%s: %d lines, first: %s", p.name, s.Crashes, strings.Join(s.Crash, " | "))
		}
		rep.Logs = append(rep.Logs, s)
	}
	return nil
}
