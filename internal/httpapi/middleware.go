package httpapi

import (
	"errors"
	"math"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/einvoice/einvoice/internal/einvoice"
	"github.com/einvoice/einvoice/internal/web"
)

// authorize runs an API handler after checking, in order: that the client
// accepts JSON, the key (401; two Authorization headers are a 401 too: no
// guess at which one counts), the key's rate limit (429), and its
// permission (403); then the Idempotency-Key of a POST (idempotency.go).
func (s *Server) authorize(w http.ResponseWriter, r *http.Request, needsWrite bool, offers []string, h apiFunc) error {
	if negotiate(r.Header.Get("Accept"), offers) == "" {
		return einvoice.Errorf(einvoice.CodeNotAcceptable, "This endpoint answers %s only.", strings.Join(offers, " or "))
	}
	if len(r.Header.Values("Authorization")) > 1 {
		return einvoice.Errorf(einvoice.CodeUnauthorized, "Unauthenticated.")
	}
	k, err := s.svc.Authenticate(r.Context(), r.Header.Get("Authorization"))
	if err != nil {
		return err
	}
	r = r.WithContext(einvoice.WithActor(r.Context(), keyActor(k)))
	now := s.now()
	d, err := s.limiter.Allow(r.Context(), k.ID, now)
	if err != nil {
		// Fail open: a limiter that cannot count must not stop the service.
		s.logger.WarnContext(r.Context(), "rate limiter failed", "request_id", web.RequestID(r.Context()), "error", err)
	} else {
		hdr := w.Header()
		hdr.Set("X-RateLimit-Limit", strconv.Itoa(d.Limit))
		hdr.Set("X-RateLimit-Remaining", strconv.Itoa(d.Remaining))
		hdr.Set("X-RateLimit-Reset", strconv.FormatInt(d.Reset.Unix(), 10))
		if !d.Allowed {
			wait := int(math.Ceil(d.Reset.Sub(now).Seconds()))
			wait = max(wait, 1)
			hdr.Set("Retry-After", strconv.Itoa(wait))
			return einvoice.Errorf(einvoice.CodeRateLimitExceeded, "Too many requests. Please try again in %d seconds.", wait)
		}
	}
	if needsWrite && !k.Permission.CanWrite() {
		return einvoice.Errorf(einvoice.CodeForbidden, "This API key is read-only.")
	}
	return s.idempotent(w, r, k, h)
}

// negotiate returns the offer that an Accept header gives the highest
// quality (the first of offers on a tie), or "" when it allows none. An
// offer's quality is that of the most specific range matching it (RFC 9110
// 12.5.1): "*/*, application/json;q=0" refuses JSON. No Accept header takes
// the first offer.
func negotiate(accept string, offers []string) string {
	if strings.TrimSpace(accept) == "" {
		return offers[0]
	}
	// For each offer: the quality of its most specific matching range
	// (specificity 3 exact, 2 type/*, 1 */*; 0 none).
	q := make([]float64, len(offers))
	spec := make([]int, len(offers))
	for _, part := range strings.Split(accept, ",") {
		mt, params, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil {
			continue
		}
		pq := 1.0
		if v, ok := params["q"]; ok {
			if pq, err = strconv.ParseFloat(v, 64); err != nil || pq < 0 || pq > 1 {
				continue
			}
		}
		for k, o := range offers {
			typ, _, _ := strings.Cut(o, "/")
			sp := 0
			switch mt {
			case o:
				sp = 3
			case typ + "/*":
				sp = 2
			case "*/*":
				sp = 1
			}
			if sp > spec[k] || (sp == spec[k] && sp > 0 && pq > q[k]) {
				spec[k], q[k] = sp, pq
			}
		}
	}
	best, bestQ := "", 0.0
	for k, o := range offers {
		if q[k] > bestQ {
			best, bestQ = o, q[k]
		}
	}
	return best
}

// pageRequest reads page and per_page from the query: per_page defaults to
// 15 and is capped at 100; a non-positive or non-integer value, or a page
// below 1, is a 422.
func pageRequest(r *http.Request) (einvoice.PageRequest, error) {
	q := r.URL.Query()
	p := einvoice.PageRequest{Page: 1, PerPage: einvoice.DefaultPerPage}
	f := einvoice.FieldErrors{}
	if v := q.Get("per_page"); q.Has("per_page") {
		n, err := strconv.Atoi(v)
		switch {
		case err != nil && !isBigInt(v):
			f.Add("per_page", "must be a positive integer")
		case err != nil || n > einvoice.MaxPerPage:
			p.PerPage = einvoice.MaxPerPage
		case n < 1:
			f.Add("per_page", "must be a positive integer")
		default:
			p.PerPage = n
		}
	}
	if v := q.Get("page"); q.Has("page") {
		n, err := strconv.Atoi(v)
		switch {
		case err != nil && isBigInt(v):
			p.Page = math.MaxInt32 // far past the last page: an empty page
		case err != nil || n < 1:
			f.Add("page", "must be an integer of at least 1")
		default:
			p.Page = min(n, math.MaxInt32)
		}
	}
	return p, f.Err()
}

// listPaging reads the paging of a list with filters of its own: the page
// request, and the paging's field errors (never nil), to which the handler
// adds its filters' before one answer names them all.
func listPaging(r *http.Request) (einvoice.PageRequest, einvoice.FieldErrors) {
	pr, err := pageRequest(r)
	if e, ok := err.(*einvoice.Error); ok && e.Fields != nil {
		return pr, e.Fields
	}
	return pr, einvoice.FieldErrors{}
}

// isBigInt reports whether s is a positive integer too large for an int.
func isBigInt(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	_, err := strconv.Atoi(s)
	return errors.Is(err, strconv.ErrRange)
}

// checkSearch refuses a search text the databases cannot hold: invalid
// UTF-8 or the NUL character (PostgreSQL refuses both).
func checkSearch(q string) einvoice.FieldErrors {
	if !utf8.ValidString(q) || strings.ContainsRune(q, 0) {
		return einvoice.FieldErrors{"search": {"must be valid UTF-8 text without the NUL character"}}
	}
	return nil
}
