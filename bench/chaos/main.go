// Command chaos is einvoice's own test in the manner of Jepsen: the real
// binary, an authority that fails, throttles, stalls and drops, clients that
// retry, and a killer that SIGKILLs the service at random moments; at the
// end a witness that does not rely on the service's records says whether
// every document reached the authority exactly once.
//
// For each engine (sqlite, postgres, postgres-x2) it:
//
//  1. starts `einvoice sandbox` as its own process (its own SQLite file,
//     the authority's rate limits on, fault switches on) and, between the
//     service and it, a recording reverse proxy in this process: the
//     witness, which decodes every submission it forwards (each document's
//     codeNumber and the SHA-256 of its bytes) and the authority's answer;
//  2. sets the submit faults through the sandbox's fault API: by default 20 %
//     fail with 500, 8 % throttled with 429, 7 % delayed past the service's
//     --submit-wait, 6.5 % dropped after processing, 3 % dropped before,
//     5 % taken in late (read, then stored only after the service stopped
//     waiting: a search soon after does not list it);
//  3. starts the service (`einvoice serve`, one process, or two replicas on
//     one PostgreSQL database), creates -docs invoices and validates them;
//  4. lets -clients clients submit them, singly, two clients at once on the
//     same document, and in bulks of up to 100, each retrying on no answer,
//     5xx and 202; every answer is checked against what the service may
//     say (200, 202, 409 DOCUMENT_ALREADY_SUBMITTED; never 422 for a ready
//     document);
//  5. meanwhile kills a service process -kills times (SIGKILL) and restarts
//     it with the same flags and database;
//  6. stops the chaos (the faults stay on), measures the time until every
//     document is Valid or Invalid at the service, bounded by -settle, and
//     compares with the witness and with the authority's own tables: each
//     document received exactly once, the same uuid and status on both
//     sides, every uuid a client was told the one that stands.
//
// It prints a report per engine and exits 1 on any violation, 2 when the
// run itself could not be made.
//
//	go run ./bench/chaos -engine sqlite,postgres,postgres-x2            # CI's size: 200 documents, 5 kills
//	go run ./bench/chaos -engine sqlite,postgres,postgres-x2 -docs 600 -kills 15   # the size (make chaos)
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run parses the flags, runs each engine in turn and returns the exit code.
func run(args []string, stdout, stderr io.Writer) int {
	cfg, err := parseConfig(args, stderr)
	if err != nil {
		if err == errHelp {
			return 0
		}
		fmt.Fprintln(stderr, "chaos:", err)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	logf := func(format string, a ...any) { fmt.Fprintf(stderr, "chaos: "+format+"\n", a...) }

	bin, cleanBin, err := buildBinary(ctx, cfg, logf)
	if err != nil {
		fmt.Fprintln(stderr, "chaos:", err)
		return 2
	}
	defer cleanBin()

	code := 0
	var reports []*report
	for _, engine := range cfg.engines {
		rep, err := runEngine(ctx, cfg, engine, bin, logf)
		if err != nil {
			fmt.Fprintf(stderr, "chaos: %s: %v\n", engine, err)
			return 2
		}
		rep.print(stdout)
		reports = append(reports, rep)
		if !rep.passed() {
			code = 1
		}
	}
	if len(reports) > 1 {
		printSummary(stdout, reports)
	}
	if cfg.jsonOut != "" {
		if err := writeJSON(cfg.jsonOut, reports); err != nil {
			fmt.Fprintln(stderr, "chaos:", err)
			return 2
		}
	}
	return code
}
