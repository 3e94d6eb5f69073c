package sandbox

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"fmt"
	"html/template"
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
}

// Stats returns the counts.
func (s *Server) Stats(ctx context.Context) (Stats, error) {
	st := Stats{ByCodeNumber: map[string]int{}}
	if err := s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM sandbox_submissions`).Scan(&st.Submissions); err != nil {
		return Stats{}, fmt.Errorf("sandbox stats: %w", err)
	}
	rows, err := s.db.QueryContext(ctx, `SELECT issuer_tin, internal_id, COUNT(*) FROM sandbox_documents GROUP BY issuer_tin, internal_id`)
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
		badArgument(w, "kind", "endpoint must be token, submit, submission, details, raw, cancel, search, tin or *; kind fail, throttle, delay, drop or drop-before; numbers not negative, share at most 1")
		return
	}
	s.faults.add(f)
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

var portalPage = template.Must(template.New("portal").Parse(`<!doctype html>
<html><head><meta charset="utf-8"><title>Sandbox e-invoice {{.UUID}}</title></head>
<body><h1>{{.TypeName}} {{.InternalID}}</h1>
<p>Built-in MyInvois sandbox: not a tax authority record.</p>
<dl><dt>UUID</dt><dd>{{.UUID}}</dd><dt>Status</dt><dd>{{.Status}}</dd>
<dt>Issuer</dt><dd>{{.IssuerName}} ({{.IssuerTIN}})</dd><dt>Receiver</dt><dd>{{.ReceiverName}} ({{.ReceiverID}})</dd>
<dt>Issued</dt><dd>{{.DateTimeIssued}}</dd><dt>Validated</dt><dd>{{with .DateTimeValidated}}{{.}}{{end}}</dd>
<dt>Total payable</dt><dd>{{printf "%s" .TotalPayableAmount}}</dd></dl></body></html>
`))

// handlePortal is GET /sandbox-portal/{uuid}/share/{longId}: the page a
// validation link (QR code) opens, for Valid and Cancelled documents.
func (s *Server) handlePortal(w http.ResponseWriter, r *http.Request) {
	id, longID := r.PathValue("uuid"), r.PathValue("longId")
	if !cleanText(id, maxIDParam) {
		http.NotFound(w, r)
		return
	}
	d, err := scanDoc(s.db.QueryRowContext(r.Context(), `SELECT `+docColumns+` FROM sandbox_documents WHERE uuid = $1`, id))
	if err != nil || d.LongID == "" || subtle.ConstantTimeCompare([]byte(d.LongID), []byte(longID)) != 1 {
		http.NotFound(w, r)
		return
	}
	sum := d.summary(s.now())
	if sum.Status != statusValid && sum.Status != statusCancelled {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if err := portalPage.Execute(w, sum); err != nil {
		s.log.Warn("sandbox: portal page", "err", err)
	}
}
