package myinvois

import (
	"container/list"
	"context"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/einvoice/einvoice/internal/einvoice"
)

// ValidateTIN asks whether the authority knows the TIN with that id: true
// for 200, false (and nil) for 404 (with an empty or JSON body); any other
// failure is a CallError. Both
// answers are remembered per (BaseURL, TIN, idType, idValue) for
// Options.TINCacheTTL.
func (c *Client) ValidateTIN(ctx context.Context, cred einvoice.Credentials, tin, idType, idValue string) (bool, error) {
	const op = "myinvois: validate TIN"
	key := tinKey{cred.BaseURL, tin, idType, idValue}
	if found, ok := c.tins.get(key, c.now()); ok {
		return found, nil
	}
	_, err := c.do(ctx, cred, request{
		endpoint: EndpointValidateTIN,
		op:       op,
		method:   http.MethodGet,
		path:     "/api/v1.0/taxpayer/validate/" + url.PathEscape(tin),
		query:    url.Values{"idType": {idType}, "idValue": {idValue}},
	})
	found := err == nil
	// A 404 is "not found" when it is the API's answer (empty or JSON), not
	// a gateway's page for a wrong URL.
	if ce, ok := einvoice.AsCallError(err); ok && ce.Status == http.StatusNotFound && ce.Err == nil {
		err = nil
	}
	if err != nil {
		return false, err
	}
	c.tins.put(key, found, c.now())
	return found, nil
}

type tinKey struct{ baseURL, tin, idType, idValue string }

type tinEntry struct {
	key     tinKey
	found   bool
	expires time.Time
}

// tinCache remembers TIN answers for a while; when full, the oldest answer
// makes room (all entries live equally long, so the oldest expires first).
type tinCache struct {
	ttl  time.Duration
	size int

	mu      sync.Mutex
	entries map[tinKey]*list.Element
	order   *list.List // of *tinEntry, oldest first
}

func newTINCache(ttl time.Duration, size int) *tinCache {
	if ttl == 0 {
		ttl = 24 * time.Hour
	}
	if size <= 0 {
		size = 10_000
	}
	return &tinCache{ttl: ttl, size: size, entries: map[tinKey]*list.Element{}, order: list.New()}
}

func (tc *tinCache) get(k tinKey, now time.Time) (found, ok bool) {
	if tc.ttl < 0 {
		return false, false
	}
	tc.mu.Lock()
	defer tc.mu.Unlock()
	el, ok := tc.entries[k]
	if !ok {
		return false, false
	}
	e := el.Value.(*tinEntry)
	if !now.Before(e.expires) {
		tc.order.Remove(el)
		delete(tc.entries, k)
		return false, false
	}
	return e.found, true
}

func (tc *tinCache) put(k tinKey, found bool, now time.Time) {
	if tc.ttl < 0 {
		return
	}
	tc.mu.Lock()
	defer tc.mu.Unlock()
	if el, ok := tc.entries[k]; ok {
		tc.order.Remove(el)
		delete(tc.entries, k)
	}
	for tc.order.Len() >= tc.size {
		oldest := tc.order.Front()
		tc.order.Remove(oldest)
		delete(tc.entries, oldest.Value.(*tinEntry).key)
	}
	tc.entries[k] = tc.order.PushBack(&tinEntry{key: k, found: found, expires: now.Add(tc.ttl)})
}
