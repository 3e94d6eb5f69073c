package dashboard

import (
	"net/url"
	"strconv"

	"github.com/einvoice/einvoice/internal/einvoice"
)

// pager is the previous/next links of a list ({{template "pager" ...}}):
// the relative URLs ("?page=2&...") of the neighbouring pages, "" at
// either end.
type pager struct {
	Page, Pages int
	Prev, Next  string
}

// pageRequest reads ?page= (from 1) of a list, perPage rows a page.
func pageRequest(q url.Values) einvoice.PageRequest {
	n, err := strconv.Atoi(q.Get("page"))
	if err != nil || n < 1 || n > 1_000_000 {
		n = 1
	}
	return einvoice.PageRequest{Page: n, PerPage: perPage}
}

// perPage is the rows of every list page.
const perPage = 25

// pagerOf is the pager of a page of total rows, keeping the other query
// parameters q.
func pagerOf(q url.Values, req einvoice.PageRequest, total int) pager {
	pages := max(1, (total+req.PerPage-1)/req.PerPage)
	p := pager{Page: req.Page, Pages: pages}
	at := func(n int) string {
		v := url.Values{}
		for k, vs := range q {
			v[k] = vs
		}
		v.Set("page", strconv.Itoa(n))
		return "?" + v.Encode()
	}
	if req.Page > 1 {
		p.Prev = at(min(req.Page-1, pages))
	}
	if req.Page < pages {
		p.Next = at(req.Page + 1)
	}
	return p
}
