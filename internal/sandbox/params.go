package sandbox

import (
	"net/http"
	"strconv"
	"strings"
)

// param returns a query parameter, matching its name case-insensitively
// when the exact spelling is absent (the authority's own spellings vary:
// invoiceDirection, InvoiceDirection).
func param(r *http.Request, name string) string {
	q := r.URL.Query()
	if v, ok := q[name]; ok && len(v) > 0 {
		return strings.TrimSpace(v[0])
	}
	for k, v := range q {
		if strings.EqualFold(k, name) && len(v) > 0 {
			return strings.TrimSpace(v[0])
		}
	}
	return ""
}

// intParam reads an integer parameter in [lo, hi], def when absent; a bad
// value is answered 400 BadArgument.
func intParam(w http.ResponseWriter, r *http.Request, name string, def, lo, hi int) (int, bool) {
	v := param(r, name)
	if v == "" {
		return def, true
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < lo || n > hi {
		badArgument(w, name, name+" must be a whole number from "+itoa(lo)+" to "+itoa(hi))
		return 0, false
	}
	return n, true
}
