package dashboard

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/einvoice/einvoice/internal/einvoice"
)

// documentsData is the documents list's own data.
type documentsData struct {
	Tabs []statusTab
	// CSV is the export's URL: the filter, without the page.
	CSV   string
	Items []*einvoice.Document
	Total int
	Pager pager
}

// statusTab is one tab of the list: a status and its count.
type statusTab struct {
	Status  einvoice.Status
	Label   string
	Count   int
	Current bool
	Href    string
}

// documentFilter reads the list's filter from the query: status, search,
// from and to (issue dates); problems are field errors of f's form.
func documentFilter(q url.Values) (einvoice.DocumentFilter, *form) {
	f := &form{Values: map[string]string{}, Errors: einvoice.FieldErrors{}}
	for _, k := range []string{"status", "search", "from", "to"} {
		f.Values[k] = q.Get(k)
	}
	filter := einvoice.DocumentFilter{Status: einvoice.Status(q.Get("status")), Search: strings.TrimSpace(q.Get("search")),
		PageRequest: pageRequest(q)}
	if filter.Status != "" && !slices.Contains(einvoice.Statuses, filter.Status) {
		filter.Status = ""
	}
	if !utf8.ValidString(filter.Search) || strings.ContainsRune(filter.Search, 0) || len(filter.Search) > 100 {
		f.Errors.Add("search", "Type at most 100 characters of text.")
		filter.Search = ""
	}
	filter.From = formDate(q.Get("from"), "from", f.Errors)
	filter.To = formDate(q.Get("to"), "to", f.Errors)
	if !filter.From.IsZero() && !filter.To.IsZero() && filter.From.After(filter.To) {
		f.Errors.Add("to", "Must not be before the from date.")
		filter.To = time.Time{}
	}
	return filter, f
}

// formDate reads a date (YYYY-MM-DD), the zero time when empty or wrong.
func formDate(v, name string, errs einvoice.FieldErrors) time.Time {
	if v == "" {
		return time.Time{}
	}
	d, err := time.Parse(time.DateOnly, v)
	if err != nil {
		errs.Add(name, "Give a date as YYYY-MM-DD, e.g. 2026-01-31.")
		return time.Time{}
	}
	return d
}

// documents is the list of documents: tabs by status with counts, search,
// issue-date period, paged.
func (d *Dashboard) documents(w http.ResponseWriter, r *http.Request, u *user) {
	q := r.URL.Query()
	filter, f := documentFilter(q)
	counts, err := d.svc.DocumentCounts(r.Context(), u.tenant(), filter)
	if err != nil {
		d.renderError(w, r, u, err)
		return
	}
	// The tabs' counts are the page's total: the list need not count again
	// (a period of 100,000 documents is a pass over their index entries).
	filter.Total = counts[filter.Status]
	if filter.Status == "" {
		filter.Total = 0
		for _, n := range counts {
			filter.Total += n
		}
	}
	page, err := d.svc.ListDocuments(r.Context(), u.tenant(), filter)
	if err != nil {
		d.renderError(w, r, u, err)
		return
	}
	keep := url.Values{}
	for _, k := range []string{"search", "from", "to"} {
		if v := q.Get(k); v != "" && f.Error(k) == "" {
			keep.Set(k, v)
		}
	}
	all := 0
	tabs := []statusTab{{Label: "All", Current: filter.Status == "", Href: "/app/documents?" + keep.Encode()}}
	for _, st := range einvoice.Statuses {
		v := url.Values{}
		for k, vs := range keep {
			v[k] = vs
		}
		v.Set("status", string(st))
		all += counts[st]
		tabs = append(tabs, statusTab{Status: st, Label: statusLabel(st), Count: counts[st], Current: filter.Status == st, Href: "/app/documents?" + v.Encode()})
	}
	tabs[0].Count = all
	current := url.Values{}
	for k, vs := range keep {
		current[k] = vs
	}
	if filter.Status != "" {
		current.Set("status", string(filter.Status))
	}
	d.render(w, r, http.StatusOK, "documents", view{Title: "Documents", Nav: "documents", User: u, Form: f,
		Data: documentsData{Tabs: tabs, CSV: "/app/documents.csv?" + current.Encode(), Items: page.Items, Total: page.Total,
			Pager: pagerOf(current, filter.PageRequest, page.Total)}})
}

// statusLabel is a status as the pages name it.
func statusLabel(s einvoice.Status) string {
	switch s {
	case einvoice.StatusDraft:
		return "Draft"
	case einvoice.StatusReady:
		return "Ready"
	case einvoice.StatusSubmitting:
		return "Submitting"
	}
	return string(s)
}

func init() { funcs["statusLabel"] = statusLabel }
