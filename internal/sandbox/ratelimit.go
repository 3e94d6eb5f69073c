package sandbox

import (
	"net"
	"net/http"
	"time"
)

// rpm is the authority's requests per minute per client and endpoint
// (reference 1.4).
var rpm = map[string]int{
	epToken:      12,
	epSubmit:     100,
	epSubmission: 300,
	epDetails:    125,
	epRaw:        60,
	epCancel:     12,
	epTIN:        60,
	epSearch:     12,
	epRecent:     12,
	epTaxpayer:   60,
}

// allow counts one call of endpoint by client when rate limits are on; it
// sets the X-Rate-Limit-* headers and answers 429 with Retry-After when the
// client's window (a minute unless Options.RateWindow says otherwise) is
// used up. A client without an id (a login without
// client_id) is counted by its address.
func (s *Server) allow(w http.ResponseWriter, r *http.Request, endpoint, client string) bool {
	limit, ok := rpm[endpoint]
	if !s.limits || !ok {
		return true
	}
	if client == "" {
		client, _, _ = net.SplitHostPort(r.RemoteAddr)
		client = "addr:" + client
	}
	now := s.now()
	key := endpoint + ":" + sha256Hex([]byte(client))[:32]
	var start, hits int64
	err := s.db.QueryRowContext(r.Context(), `INSERT INTO sandbox_rate_windows (key_id, window_start, hits) VALUES ($1, $2, 1)
		ON CONFLICT (key_id) DO UPDATE SET
			hits = CASE WHEN sandbox_rate_windows.window_start + $3 <= $2 THEN 1 ELSE sandbox_rate_windows.hits + 1 END,
			window_start = CASE WHEN sandbox_rate_windows.window_start + $3 <= $2 THEN $2 ELSE sandbox_rate_windows.window_start END
		RETURNING window_start, hits`, key, micros(now), s.window.Microseconds()).Scan(&start, &hits)
	if err != nil {
		// A counting failure does not refuse service.
		s.log.Warn("sandbox: rate limit", "err", err)
		return true
	}
	h := w.Header()
	h.Set("X-Rate-Limit-Limit", itoa(limit))
	h.Set("X-Rate-Limit-Remaining", itoa(max(0, limit-int(hits))))
	if hits <= int64(limit) {
		return true
	}
	reset := fromMicros(start).Add(s.window)
	wait := int((reset.Sub(now) + time.Second - 1) / time.Second)
	h.Set("X-Rate-Limit-Reset", formatTime(reset))
	h.Set("Retry-After", itoa(max(wait, 1)))
	writeError(w, http.StatusTooManyRequests, apiError{Code: "TooManyRequests",
		Message: "Rate limit of " + itoa(limit) + " requests per minute exceeded for " + endpoint + "."})
	return false
}
