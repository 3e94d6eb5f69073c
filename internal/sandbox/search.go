package sandbox

import (
	"fmt"
	"net/http"
	"strings"
	"time"
)

// Search rules.
const (
	searchWindow     = 31 * 24 * time.Hour
	maxSearchResults = 10000
	maxSearchQuery   = 200
)

// where builds a WHERE clause with $N placeholders.
type where struct {
	conds []string
	args  []any
}

// arg adds a value and returns its placeholder.
func (q *where) arg(v any) string {
	q.args = append(q.args, v)
	return fmt.Sprintf("$%d", len(q.args))
}

func (q *where) add(cond string) { q.conds = append(q.conds, cond) }

func (q *where) String() string { return strings.Join(q.conds, " AND ") }

// statusCond is the SQL of a status at now (see docRow.status).
func statusCond(q *where, status string, now time.Time) (string, bool) {
	n := q.arg(micros(now))
	switch strings.ToLower(status) {
	case "submitted":
		return "validated_at > " + n, true
	case "invalid":
		return "validated_at <= " + n + " AND verdict = 'Invalid'", true
	case "cancelled":
		return "validated_at <= " + n + " AND verdict = 'Valid' AND cancelled_at IS NOT NULL", true
	case "valid":
		return "validated_at <= " + n + " AND verdict = 'Valid' AND cancelled_at IS NULL", true
	}
	return "", false
}

// handleSearch is GET /api/v1.0/documents/search: the caller's documents
// (Sent: those its client submitted; Received: Valid or Cancelled ones whose
// receiver is its represented TIN), newest first, within a submission- or
// issue-date window of at most 31 days.
func (s *Server) handleSearch(w http.ResponseWriter, r *http.Request, c caller) {
	pageNo, pageSize, ok := paging(w, r)
	if !ok {
		return
	}
	now := s.now()
	q, ok := docFilter(w, r, c, now, true)
	if !ok {
		return
	}
	docs, total, err := s.pageDocs(r, q, pageNo, pageSize)
	if err != nil {
		s.internalError(w, r, err)
		return
	}
	result := make([]documentSummary, 0, len(docs))
	for _, d := range docs {
		result = append(result, d.summary(now))
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"result":   result,
		"metadata": map[string]int{"totalPages": (total + pageSize - 1) / pageSize, "totalCount": total},
	})
}

// docFilter reads the filters Search and Recent Documents share: the
// submission- and issue-date windows (one required when needWindow),
// direction, status, type, uuid, TINs and searchQuery. A bad one is
// answered 400 BadArgument.
func docFilter(w http.ResponseWriter, r *http.Request, c caller, now time.Time, needWindow bool) (*where, bool) {
	q := &where{}
	windows := 0
	for _, col := range []struct{ from, to, column string }{
		{"submissionDateFrom", "submissionDateTo", "received_at"},
		{"issueDateFrom", "issueDateTo", "issued_at"},
	} {
		from, to, given, ok := dateRange(w, r, col.from, col.to)
		if !ok {
			return nil, false
		}
		if given {
			windows++
			q.add(col.column + " >= " + q.arg(micros(from)) + " AND " + col.column + " < " + q.arg(micros(to)))
		}
	}
	if windows == 0 && needWindow {
		badArgument(w, "submissionDateFrom", "submissionDateFrom and submissionDateTo (or issueDateFrom and issueDateTo) are required")
		return nil, false
	}
	switch dir := param(r, "invoiceDirection"); {
	case dir == "" || strings.EqualFold(dir, "Sent"):
		q.add("client_id = " + q.arg(c.ClientID))
	case strings.EqualFold(dir, "Received"):
		// Documents issued by other clients to the TIN the caller is bound
		// to (none for an intermediary); receivers never see Submitted or
		// Invalid ones.
		if c.receiver() == "" {
			q.add("1 = 0")
		} else {
			q.add("receiver_tin = " + q.arg(c.receiver()) + " AND client_id <> " + q.arg(c.ClientID) +
				" AND verdict = 'Valid' AND validated_at <= " + q.arg(micros(now)))
		}
	default:
		badArgument(w, "invoiceDirection", "invoiceDirection must be Sent or Received")
		return nil, false
	}
	if st := param(r, "status"); st != "" {
		cond, ok := statusCond(q, st, now)
		if !ok {
			badArgument(w, "status", "status must be Valid, Invalid, Cancelled or Submitted")
			return nil, false
		}
		q.add(cond)
	}
	if dt := param(r, "documentType"); dt != "" {
		if _, ok := typeNames[dt]; !ok {
			badArgument(w, "documentType", "documentType must be one of 01, 02, 03, 04, 11, 12, 13, 14")
			return nil, false
		}
		q.add("type_code = " + q.arg(dt))
	}
	for _, p := range []struct{ name, column string }{{"uuid", "uuid"}, {"receiverTin", "receiver_tin"}, {"issuerTin", "issuer_tin"}} {
		if v := param(r, p.name); v != "" {
			if !cleanText(v, maxSearchQuery) {
				badArgument(w, p.name, p.name+" is not valid")
				return nil, false
			}
			q.add(p.column + " = " + q.arg(v))
		}
	}
	if sq := param(r, "searchQuery"); sq != "" {
		if !cleanText(sq, maxSearchQuery) {
			badArgument(w, "searchQuery", "searchQuery may have at most 200 characters")
			return nil, false
		}
		exact, like := q.arg(sq), q.arg("%"+likeEscape(strings.ToLower(sq))+"%")
		q.add("(uuid = " + exact + " OR internal_id = " + exact + " OR issuer_tin = " + exact + " OR receiver_tin = " + exact +
			` OR lower(issuer_name) LIKE ` + like + ` ESCAPE '\' OR lower(receiver_name) LIKE ` + like + ` ESCAPE '\')`)
	}
	return q, true
}

// pageDocs counts the documents q selects (at most 10,000) and reads one
// page of them, newest first.
func (s *Server) pageDocs(r *http.Request, q *where, pageNo, pageSize int) ([]docRow, int, error) {
	var total int
	if err := s.rdb.QueryRowContext(r.Context(), `SELECT COUNT(*) FROM sandbox_documents WHERE `+q.String(), q.args...).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("count documents: %w", err)
	}
	total = min(total, maxSearchResults)
	offset := (pageNo - 1) * pageSize
	if offset >= total {
		return nil, total, nil
	}
	limit := min(pageSize, total-offset)
	query := `SELECT ` + docColumns + ` FROM sandbox_documents WHERE ` + q.String() +
		` ORDER BY received_at DESC, uuid DESC LIMIT ` + q.arg(limit) + ` OFFSET ` + q.arg(offset)
	docs, err := s.queryDocs(r, query, q.args...)
	return docs, total, err
}

// dateRange reads a from/to pair: both or neither, from not after to, at
// most 31 days apart. to is inclusive to the end of its second (its day
// for a date alone); the returned to is exclusive.
func dateRange(w http.ResponseWriter, r *http.Request, fromName, toName string) (from, to time.Time, given, ok bool) {
	fs, ts := param(r, fromName), param(r, toName)
	if fs == "" && ts == "" {
		return time.Time{}, time.Time{}, false, true
	}
	from, fok := parseDateTime(fs, false)
	to, tok := parseDateTime(ts, true)
	switch {
	case !fok:
		badArgument(w, fromName, fromName+" must be a date and time (RFC 3339) and come with "+toName)
	case !tok:
		badArgument(w, toName, toName+" must be a date and time (RFC 3339) and come with "+fromName)
	case !from.Before(to):
		badArgument(w, fromName, fromName+" must not be after "+toName)
	case to.Sub(from) > searchWindow+time.Second:
		badArgument(w, toName, "The search window may not exceed 31 days")
	default:
		return from, to, true, true
	}
	return time.Time{}, time.Time{}, false, false
}

// parseDateTime reads RFC 3339, a date and time without zone (UTC) or a
// date alone. As an upper bound (end) it returns the first instant after
// the second (or day) named.
func parseDateTime(s string, end bool) (time.Time, bool) {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02"} {
		t, err := time.Parse(layout, s)
		if err != nil {
			continue
		}
		t = t.UTC()
		if t.Year() < 1970 || t.Year() > 9999 {
			return time.Time{}, false
		}
		if !end {
			return t, true
		}
		switch {
		case layout == "2006-01-02":
			return t.Add(24 * time.Hour), true
		case t.Nanosecond() == 0:
			return t.Add(time.Second), true
		}
		return t.Add(time.Microsecond), true
	}
	return time.Time{}, false
}

// likeEscaper escapes LIKE's wildcards (escape character \).
var likeEscaper = strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)

// likeEscape escapes LIKE's wildcards (escape character \).
func likeEscape(s string) string { return likeEscaper.Replace(s) }
