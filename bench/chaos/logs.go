package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
)

// logSummary is what a process's log tells, over all its runs.
type logSummary struct {
	Name string `json:"name"`
	// Levels counts lines by level (WARN, ERROR).
	Levels map[string]int `json:"levels"`
	// Messages counts warning and error lines by message.
	Messages map[string]int `json:"messages"`
	// SettledFound and SettledResent count unknown outcomes the service
	// settled by asking the authority: found there, or sent again.
	SettledFound  int `json:"settled_found"`
	SettledResent int `json:"settled_resent"`
	// Crashes counts lines of panics and data races.
	Crashes int      `json:"crashes"`
	Crash   []string `json:"crash,omitempty"`
}

// scanLog reads a process's log file (JSON lines, and whatever else the
// runtime printed).
func scanLog(name, path string) (logSummary, error) {
	s := logSummary{Name: name, Levels: map[string]int{}, Messages: map[string]int{}}
	f, err := os.Open(path)
	if err != nil {
		return s, fmt.Errorf("read the log of %s: %w", name, err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		line := sc.Text()
		var rec struct {
			Level string `json:"level"`
			Msg   string `json:"msg"`
		}
		isJSON := json.Unmarshal([]byte(line), &rec) == nil
		if strings.HasPrefix(line, "panic:") || strings.HasPrefix(line, "fatal error:") || strings.Contains(line, "DATA RACE") ||
			(isJSON && strings.Contains(strings.ToLower(rec.Msg), "panic")) {
			s.Crashes++
			if len(s.Crash) < maxExamples {
				s.Crash = append(s.Crash, line)
			}
		}
		if !isJSON {
			continue
		}
		switch {
		case strings.HasPrefix(rec.Msg, "unknown outcome settled: the authority has"):
			s.SettledFound++
		case strings.HasPrefix(rec.Msg, "unknown outcome settled: the authority does not have"):
			s.SettledResent++
		}
		if rec.Level == "WARN" || rec.Level == "ERROR" {
			s.Levels[rec.Level]++
			s.Messages[rec.Level+" "+rec.Msg]++
		}
	}
	return s, sc.Err()
}

// topMessages returns the most frequent warning and error messages.
func (s logSummary) topMessages(n int) []count {
	out := make([]count, 0, len(s.Messages))
	for m, c := range s.Messages {
		out = append(out, count{m, c})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Count != out[j].Count {
			return out[i].Count > out[j].Count
		}
		return out[i].Name < out[j].Name
	})
	return out[:min(n, len(out))]
}
