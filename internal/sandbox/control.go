package sandbox

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// Stats counts what the sandbox holds (in the database, so across replicas).
type Stats struct {
	// Submissions is the number of submissions with at least one accepted
	// document.
	Submissions int `json:"submissions"`
	// Documents is the number of accepted documents (whatever their verdict).
	Documents int `json:"documents"`
	// ByCodeNumber counts accepted documents per issuer TIN + "/" +
	// codeNumber: more than 1 means a document was sent again.
	ByCodeNumber map[string]int `json:"byCodeNumber"`
	// Faults counts the calls that injected faults affected, by
	// "endpoint/kind" (see FaultsFired). Unlike the rest it is this
	// process's own count: each replica has its faults.
	Faults map[string]int `json:"faults"`
}

// Stats returns the counts.
func (s *Server) Stats(ctx context.Context) (Stats, error) {
	st := Stats{ByCodeNumber: map[string]int{}, Faults: s.FaultsFired()}
	if err := s.rdb.QueryRowContext(ctx, `SELECT COUNT(*) FROM sandbox_submissions`).Scan(&st.Submissions); err != nil {
		return Stats{}, fmt.Errorf("sandbox stats: %w", err)
	}
	rows, err := s.rdb.QueryContext(ctx, `SELECT issuer_tin, internal_id, COUNT(*) FROM sandbox_documents GROUP BY issuer_tin, internal_id`)
	if err != nil {
		return Stats{}, fmt.Errorf("sandbox stats: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var tin, code string
		var n int
		if err := rows.Scan(&tin, &code, &n); err != nil {
			return Stats{}, fmt.Errorf("sandbox stats: %w", err)
		}
		st.ByCodeNumber[tin+"/"+code] += n
		st.Documents += n
	}
	if err := rows.Err(); err != nil {
		return Stats{}, fmt.Errorf("sandbox stats: %w", err)
	}
	return st, nil
}

// faultJSON is a Fault on the wire, its Delay a Go duration ("1.5s").
type faultJSON struct {
	Endpoint   string  `json:"endpoint"`
	Kind       string  `json:"kind"`
	Count      int     `json:"count"`
	Share      float64 `json:"share"`
	Delay      string  `json:"delay"`
	RetryAfter int     `json:"retryAfter"`
}

// handleAddFault is POST /sandbox/faults (this process only).
func (s *Server) handleAddFault(w http.ResponseWriter, r *http.Request) {
	body, tooBig, err := readAll(w, r, maxStateBody)
	var fj faultJSON
	if tooBig || err != nil || json.Unmarshal(body, &fj) != nil {
		badArgument(w, "body", `The body must be {"endpoint", "kind", "count", "share", "delay", "retryAfter"}`)
		return
	}
	f := Fault{Endpoint: fj.Endpoint, Kind: fj.Kind, Count: fj.Count, Share: fj.Share, RetryAfter: fj.RetryAfter}
	if fj.Delay != "" {
		if f.Delay, err = time.ParseDuration(fj.Delay); err != nil {
			badArgument(w, "delay", "delay must be a Go duration such as 1.5s")
			return
		}
	}
	if !f.valid() {
		badArgument(w, "kind", "endpoint must be token, submit, submission, details, raw, cancel, search, tin or *; kind fail, throttle, delay, drop, drop-before or late; numbers not negative, share at most 1")
		return
	}
	s.AddFault(f)
	w.WriteHeader(http.StatusNoContent)
}

// handleClearFaults is DELETE /sandbox/faults.
func (s *Server) handleClearFaults(w http.ResponseWriter, _ *http.Request) {
	s.ClearFaults()
	w.WriteHeader(http.StatusNoContent)
}

// handleStats is GET /sandbox/stats.
func (s *Server) handleStats(w http.ResponseWriter, r *http.Request) {
	st, err := s.Stats(r.Context())
	if err != nil {
		s.internalError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, st)
}
