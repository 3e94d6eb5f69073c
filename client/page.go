package client

import (
	"context"
	"iter"
	"net/url"
	"strconv"
)

// ListOptions choose one page of a list. Lists are newest first.
type ListOptions struct {
	// Page is the page number, from 1 (the default).
	Page int
	// PerPage is the page size: 15 when 0, at most 100.
	PerPage int
}

func (o ListOptions) query(q url.Values) url.Values {
	if q == nil {
		q = url.Values{}
	}
	if o.Page > 0 {
		q.Set("page", strconv.Itoa(o.Page))
	}
	if o.PerPage > 0 {
		q.Set("per_page", strconv.Itoa(o.PerPage))
	}
	return q
}

// Meta describes one page of a list.
type Meta struct {
	Page     int `json:"page"`
	PerPage  int `json:"per_page"`
	Total    int `json:"total"`
	LastPage int `json:"last_page"`
	// Unreadable are the ids of stored items the service could not read
	// back, left out of the page (a fault of the service: report it).
	Unreadable []string `json:"unreadable,omitempty"`
}

// Page is one page of a list.
type Page[T any] struct {
	Items []T
	Meta  Meta
}

// list fetches one page of path.
func list[T any](ctx context.Context, c *Client, path string, q url.Values) (*Page[T], error) {
	p := &Page[T]{}
	resp, err := c.call(ctx, "GET", path, q, nil, &p.Items, nil)
	if err != nil {
		return nil, err
	}
	if resp.Meta != nil {
		p.Meta = *resp.Meta
	}
	return p, nil
}

// all walks every page from first on, yielding each item once (by id: an
// item created while the walk runs pushes older ones onto later pages, and
// those already yielded are not yielded again), and stops at the first
// error, which it yields.
func all[T any](ctx context.Context, fetch func(ctx context.Context, page int) (*Page[T], error), first int, id func(T) string) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		seen := map[string]bool{}
		for page := max(first, 1); ; page++ {
			p, err := fetch(ctx, page)
			if err != nil {
				var zero T
				yield(zero, err)
				return
			}
			for _, item := range p.Items {
				if k := id(item); seen[k] {
					continue
				} else {
					seen[k] = true
				}
				if !yield(item, nil) {
					return
				}
			}
			if len(p.Items) == 0 || page >= p.Meta.LastPage {
				return
			}
		}
	}
}
