package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"
)

// report is the outcome of one engine's run.
type report struct {
	Engine  string `json:"engine"`
	Seed    uint64 `json:"seed"`
	Docs    int    `json:"docs"`
	Clients int    `json:"clients"`
	Kills   []kill `json:"kills"`
	// Faults is the configured shares; FaultsFired what the authority
	// injected, by endpoint/kind.
	Faults       string         `json:"faults"`
	FaultsFired  map[string]int `json:"faults_fired"`
	ChaosS       float64        `json:"chaos_s"`
	Requests     int            `json:"client_requests"`
	Answers      []count        `json:"answers"`
	WitnessCalls map[string]int `json:"witness_calls"`
	Submissions  int            `json:"submissions_forwarded"`
	// Settled: every document Valid or Invalid at the service, SettleS
	// seconds after the chaos stopped (within SettleDeadline).
	Settled        bool    `json:"settled"`
	SettleS        float64 `json:"settle_s"`
	SettleDeadline string  `json:"settle_deadline"`
	Valid          int     `json:"valid"`
	Invalid        int     `json:"invalid"`
	comparison
	Logs []logSummary `json:"logs"`
	// TotalS is the whole run of the engine, setup and checks included.
	TotalS   float64   `json:"total_s"`
	WorkDir  string    `json:"work_dir"`
	Kept     bool      `json:"kept"`
	Findings *findings `json:"violations"`
}

// passed reports whether the run found no violation.
func (r *report) passed() bool { return r.Findings.total() == 0 }

// print writes the report for a reader.
func (r *report) print(w io.Writer) {
	verdict := "PASSED"
	if !r.passed() {
		verdict = fmt.Sprintf("FAILED (%d violations)", r.Findings.total())
	}
	fmt.Fprintf(w, "\n== chaos on %s: %s (seed %d)\n", r.Engine, verdict, r.Seed)
	fmt.Fprintf(w, "documents %d, clients %d, kills %d, chaos %.1f s\n", r.Docs, r.Clients, len(r.Kills), r.ChaosS)
	for i, k := range r.Kills {
		fmt.Fprintf(w, "  kill %d: replica %d at %s, back after %s\n", i+1, k.Replica, k.At.Round(100*time.Millisecond), k.Down.Round(100*time.Millisecond))
	}
	fmt.Fprintf(w, "faults set: %s\n", r.Faults)
	fmt.Fprintf(w, "faults injected: %s\n", joinCounts(r.FaultsFired))
	fmt.Fprintf(w, "calls through the witness: %s\n", joinCounts(r.WitnessCalls))
	fmt.Fprintf(w, "submissions forwarded %d; documents by submissions that carried them: %s\n", r.Submissions, sentTimes(r.SentTimes))
	fmt.Fprintf(w, "client requests %d; answers: %s\n", r.Requests, joinCountList(r.Answers))
	settled := "SETTLED"
	if !r.Settled {
		settled = "NOT SETTLED"
	}
	fmt.Fprintf(w, "%s: %d Valid + %d Invalid of %d, %.1f s after the chaos stopped (deadline %s); service statuses: %s\n",
		settled, r.Valid, r.Invalid, r.Docs, r.SettleS, r.SettleDeadline, joinCounts(r.ServiceStatus))
	fmt.Fprintf(w, "received once: %d of %d (the authority holds %d documents)\n", r.ReceivedOnce, r.Docs, r.AuthorityDocs)
	for _, l := range r.Logs {
		fmt.Fprintf(w, "log of %s: unknown outcomes settled %d found, %d sent again; %s", l.Name, l.SettledFound, l.SettledResent, joinCounts(l.Levels))
		if top := l.topMessages(3); len(top) > 0 {
			fmt.Fprintf(w, " (%s)", joinCountList(top))
		}
		fmt.Fprintln(w)
	}
	if r.passed() {
		fmt.Fprintln(w, "violations: none")
	}
	for _, k := range r.Findings.sortedKinds() {
		fmt.Fprintf(w, "VIOLATION %s: %d\n", k, r.Findings.Counts[k])
		for _, e := range r.Findings.Examples[k] {
			fmt.Fprintf(w, "    %s\n", e)
		}
	}
	fmt.Fprintf(w, "the run took %.0f s\n", r.TotalS)
	if r.Kept {
		fmt.Fprintf(w, "logs and SQLite files kept in %s\n", r.WorkDir)
	}
}

// printSummary writes one table of the engines' figures.
func printSummary(w io.Writer, reps []*report) {
	fmt.Fprintln(w, "\n| engine | documents | kills | faults injected (submit) | settle (s) | received once | duplicates | false answers | violations | result | run (s) |")
	fmt.Fprintln(w, "|---|--:|--:|--:|--:|--:|--:|--:|--:|---|--:|")
	for _, r := range reps {
		faults := 0
		for k, n := range r.FaultsFired {
			if strings.HasPrefix(k, "submit/") {
				faults += n
			}
		}
		settle := fmt.Sprintf("%.1f", r.SettleS)
		if !r.Settled {
			settle = "> " + r.SettleDeadline
		}
		result := "passed"
		if !r.passed() {
			result = "**failed**"
		}
		fmt.Fprintf(w, "| %s | %d | %d | %d | %s | %d | %d | %d | %d | %s | %.0f |\n", r.Engine, r.Docs, len(r.Kills), faults, settle,
			r.ReceivedOnce, r.Findings.Counts[vDuplicate], r.Findings.Counts[vFalse], r.Findings.total(), result, r.TotalS)
	}
}

// writeJSON writes the reports to path.
func writeJSON(path string, reps []*report) error {
	raw, err := json.MarshalIndent(reps, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(path, append(raw, '\n'), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// joinCounts writes a map of counts sorted by name: "a 1, b 2".
func joinCounts(m map[string]int) string {
	list := make([]count, 0, len(m))
	for k, v := range m {
		list = append(list, count{k, v})
	}
	sort.Slice(list, func(i, j int) bool { return list[i].Name < list[j].Name })
	return joinCountList(list)
}

// joinCountList writes counts in their order.
func joinCountList(list []count) string {
	if len(list) == 0 {
		return "none"
	}
	parts := make([]string, len(list))
	for i, c := range list {
		parts[i] = fmt.Sprintf("%s %d", c.Name, c.Count)
	}
	return strings.Join(parts, ", ")
}

// sentTimes writes how many documents went out in how many submissions:
// "1×: 150, 2×: 40".
func sentTimes(m map[int]int) string {
	keys := make([]int, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%d×: %d", k, m[k])
	}
	return strings.Join(parts, ", ")
}
