package myinvois

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"time"

	"github.com/einvoice/einvoice/internal/einvoice"
)

// Search rules (reference myinvois.md 1.7).
const (
	// searchWindow is the widest submission-date span Search accepts.
	searchWindow = 31 * 24 * time.Hour
	// searchMaxResults is the most results one search lists: a window
	// whose count reaches it may hold more than it shows.
	searchMaxResults = 10000
	// searchPageSize is the largest page.
	searchPageSize = 100
)

// searchSlack widens the search at both ends, and a sought document's
// Since, for the difference between our clock and the authority's.
const searchSlack = 5 * time.Minute

// searchPage is one page of Search.
type searchPage struct {
	Result   []wireDocState `json:"result"`
	Metadata struct {
		TotalPages int `json:"totalPages"`
		TotalCount int `json:"totalCount"`
	} `json:"metadata"`
}

// FindDocuments looks for the sought documents among the submissions of
// this client (invoiceDirection Sent), from the earliest Since (less five
// minutes of clock slack; a zero Since is 31 days back) to now (plus the
// slack), window by window of at most 31 days, newest first, and stops once
// every sought document has a match.
//
// In each window it reads the first page (100 documents, newest first),
// then whichever is cheaper: the remaining pages, or one search per code
// number still unmatched (searchQuery; a single code number starts there).
// A window whose count reaches the 10,000 results the search lists is split
// in two, down to a second; a window that cannot be read in full leaves the
// documents that may lie in it unknown. A sought document is Absent only
// when every window from its Since (less the slack) to now was read in
// full. On an error (a failed page, ctx ending) the search stops, and the
// result holds what was learnt before it.
func (c *Client) FindDocuments(ctx context.Context, cred einvoice.Credentials, sought []einvoice.SoughtDocument) (einvoice.FindResult, error) {
	f := newFinder(c, cred, sought)
	if len(sought) == 0 {
		return f.res, nil
	}
	now := c.now().UTC().Truncate(time.Second)
	to := now.Add(searchSlack)
	from := to
	for _, s := range sought {
		if e := earliest(s, now); e.Before(from) {
			from = e
		}
	}
	// covered: every submission from covered to `to` has been read.
	covered := to
	var err error
	for end := to; end.After(from) && !f.done(); {
		start := end.Add(-searchWindow)
		if start.Before(from) {
			start = from
		}
		var complete bool
		if complete, err = f.scan(ctx, start, end, ""); err != nil {
			break
		}
		if complete && covered.Equal(end) {
			covered = start
		}
		end = start
	}
	for i, s := range sought {
		f.res.Absent[i] = len(f.res.Matches[i]) == 0 && !earliest(s, now).Before(covered)
	}
	return f.res, err
}

// earliest is the start of the search a sought document needs: its Since
// less the clock slack (31 days back for a zero Since), to the second.
func earliest(s einvoice.SoughtDocument, now time.Time) time.Time {
	if s.Since.IsZero() {
		return now.Add(-searchWindow)
	}
	return s.Since.Add(-searchSlack).UTC().Truncate(time.Second)
}

// finder is one FindDocuments call: what is sought and what was learnt.
type finder struct {
	c      *Client
	cred   einvoice.Credentials
	sought []einvoice.SoughtDocument
	byCode map[string][]int  // code number -> indexes of sought documents
	seen   []map[string]bool // per sought document, the uuids of its matches
	res    einvoice.FindResult
	// noText: the authority refused a searchQuery (400): read pages only.
	noText bool
}

func newFinder(c *Client, cred einvoice.Credentials, sought []einvoice.SoughtDocument) *finder {
	f := &finder{c: c, cred: cred, sought: sought, byCode: map[string][]int{}, seen: make([]map[string]bool, len(sought)),
		res: einvoice.FindResult{Matches: make([][]einvoice.DocumentState, len(sought)), Absent: make([]bool, len(sought))}}
	for i, s := range sought {
		f.byCode[s.CodeNumber] = append(f.byCode[s.CodeNumber], i)
		f.seen[i] = map[string]bool{}
	}
	return f
}

// done reports whether every sought document has a match.
func (f *finder) done() bool {
	for _, m := range f.res.Matches {
		if len(m) == 0 {
			return false
		}
	}
	return true
}

// pending returns the code numbers of the sought documents without a match
// that may have been submitted by to (only code when it is not empty).
func (f *finder) pending(to time.Time, code string) []string {
	var out []string
	for i, s := range f.sought {
		if len(f.res.Matches[i]) > 0 || (code != "" && s.CodeNumber != code) || s.Since.Add(-searchSlack).After(to) {
			continue
		}
		if !slices.Contains(out, s.CodeNumber) {
			out = append(out, s.CodeNumber)
		}
	}
	return out
}

// scan reads the submissions of [from, to] (those the search text matches,
// when given), newest first, page by page, until no sought document that
// may lie there is without a match. It reports whether nothing there is left
// unknown: every page read, or every document that may lie there matched.
func (f *finder) scan(ctx context.Context, from, to time.Time, text string) (bool, error) {
	if codes := f.pending(to, text); len(codes) == 0 {
		return true, nil
	} else if text == "" && len(codes) == 1 && !f.noText {
		return f.scanCodes(ctx, from, to, codes)
	}
	for page := 1; page <= searchMaxResults/searchPageSize; page++ {
		if len(f.pending(to, text)) == 0 {
			return true, nil
		}
		p, err := f.page(ctx, from, to, text, page)
		if err != nil {
			return false, err
		}
		f.take(ctx, p.Result)
		if page == 1 {
			truncated := p.Metadata.TotalCount >= searchMaxResults
			left := max(p.Metadata.TotalPages, (p.Metadata.TotalCount+searchPageSize-1)/searchPageSize) - 1
			if truncated {
				left = max(left, searchMaxResults/searchPageSize)
			}
			if codes := f.pending(to, text); text == "" && !f.noText && len(codes) > 0 && len(codes) < left {
				return f.scanCodes(ctx, from, to, codes)
			}
			if truncated {
				return f.split(ctx, from, to, text)
			}
		}
		switch {
		case p.Metadata.TotalPages == 0 && len(p.Result) < searchPageSize:
			return true, nil // no metadata: a short page is the last
		case p.Metadata.TotalPages == 0:
		case page >= p.Metadata.TotalPages:
			return true, nil
		case len(p.Result) == 0:
			return false, nil // pages announced but none listed: unknown
		}
	}
	return false, nil // as many pages as the search lists, and more announced
}

// scanCodes searches [from, to] for each code number in turn. A search text
// the authority refuses (400) turns it to reading the window's pages.
func (f *finder) scanCodes(ctx context.Context, from, to time.Time, codes []string) (bool, error) {
	complete := true
	for _, code := range codes {
		ok, err := f.scan(ctx, from, to, code)
		if ce, is := einvoice.AsCallError(err); is && ce.Status == http.StatusBadRequest {
			f.c.log.WarnContext(ctx, "myinvois: the search refused a code number as searchQuery; reading pages instead", "code_number", code)
			f.noText = true
			return f.scan(ctx, from, to, "")
		}
		if err != nil {
			return false, err
		}
		complete = complete && ok
	}
	return complete, nil
}

// split reads a window the search truncates as its newer and older halves.
func (f *finder) split(ctx context.Context, from, to time.Time, text string) (bool, error) {
	if to.Sub(from) < 2*time.Second {
		f.c.log.WarnContext(ctx, "myinvois: more submissions in a second than the search lists", "from", formatTime(from), "search", text)
		return false, nil
	}
	mid := from.Add(to.Sub(from) / 2).Truncate(time.Second)
	newer, err := f.scan(ctx, mid, to, text)
	if err != nil {
		return false, err
	}
	older, err := f.scan(ctx, from, mid, text)
	return newer && older, err
}

// page reads one page of the search.
func (f *finder) page(ctx context.Context, from, to time.Time, text string, page int) (searchPage, error) {
	q := url.Values{
		"submissionDateFrom": {formatTime(from)},
		"submissionDateTo":   {formatTime(to)},
		"invoiceDirection":   {"Sent"},
		"pageSize":           {strconv.Itoa(searchPageSize)},
		"pageNo":             {strconv.Itoa(page)},
	}
	if text != "" {
		q.Set("searchQuery", text)
	}
	var p searchPage
	err := f.c.getJSON(ctx, f.cred, EndpointSearch, "myinvois: search documents", "/api/v1.0/documents/search", q, &p)
	return p, err
}

// take records the listed documents that match a sought one.
func (f *finder) take(ctx context.Context, listed []wireDocState) {
	for _, w := range listed {
		idx := f.byCode[w.InternalID]
		if len(idx) == 0 {
			continue
		}
		s := f.c.state(ctx, w)
		for _, i := range idx {
			if matches(f.sought[i], s) && !f.seen[i][s.UUID] {
				f.seen[i][s.UUID] = true
				f.res.Matches[i] = append(f.res.Matches[i], s)
			}
		}
	}
}

// matches reports whether a listed document (of the sought code number) is
// the sought document: not excepted, issued at its issue time when both are
// known, and submitted no earlier than its Since, less the clock slack.
func matches(sought einvoice.SoughtDocument, s einvoice.DocumentState) bool {
	if slices.Contains(sought.Except, s.UUID) {
		return false
	}
	if sought.IssuedAt != nil && s.IssuedAt != nil && !sought.IssuedAt.Truncate(time.Second).Equal(s.IssuedAt.Truncate(time.Second)) {
		return false
	}
	return s.SubmittedAt.IsZero() || sought.Since.IsZero() || !s.SubmittedAt.Before(sought.Since.Add(-searchSlack))
}
