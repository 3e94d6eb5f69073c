package myinvois

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/einvoice/einvoice/internal/einvoice"
)

// The endpoints, as named in budgets, logs and Options.OnCall.
const (
	EndpointLogin           = "login"
	EndpointSubmit          = "submit"
	EndpointGetSubmission   = "get_submission"
	EndpointDocumentDetails = "document_details"
	EndpointSearch          = "search_documents"
	EndpointCancel          = "cancel_document"
	EndpointValidateTIN     = "validate_tin"
)

// RequestsPerMinute is the authority's published limit of requests per
// minute per client ID for an endpoint (0 for an unknown endpoint), kept
// with Options.Budgets.
func RequestsPerMinute(endpoint string) int { return defaultRPM[endpoint] }

var defaultRPM = map[string]int{
	EndpointLogin:           12,
	EndpointSubmit:          100,
	EndpointGetSubmission:   300,
	EndpointDocumentDetails: 125,
	EndpointCancel:          12,
	EndpointValidateTIN:     60,
	EndpointSearch:          12,
}

// budgetWindow is the sliding window of the budgets: a minute, plus a second
// for the jitter between our clock and the authority's.
const budgetWindow = 61 * time.Second

// budgets keeps each (client, endpoint) under its requests per window: no
// window of that length holds more sends than the limit. Slots are handed out
// in order of arrival (reserved, then waited for). Budgets use the monotonic
// clock, not Options.Now.
type budgets struct {
	enabled bool
	window  time.Duration
	limits  map[string]int

	mu    sync.Mutex
	state map[budgetKey]*budgetState
	swept time.Time
}

type budgetKey struct{ baseURL, clientID, endpoint string }

type budgetState struct {
	slots   []time.Time // the last (at most limit) reserved send times, ascending
	blocked time.Time   // no send before this (after a 429)
}

func newBudgets(enabled bool, window time.Duration, limits map[string]int) *budgets {
	if window <= 0 {
		window = budgetWindow
	}
	all := make(map[string]int, len(defaultRPM))
	for ep, n := range defaultRPM {
		all[ep] = n
	}
	for ep, n := range limits {
		all[ep] = n
	}
	return &budgets{enabled: enabled, window: window, limits: all, state: map[budgetKey]*budgetState{}}
}

func keyOf(c einvoice.Credentials, endpoint string) budgetKey {
	return budgetKey{baseURL: c.BaseURL, clientID: c.ClientID, endpoint: endpoint}
}

// wait takes the next slot of the endpoint for this client and sleeps until
// it comes. When the slot lies beyond ctx's deadline it takes nothing and
// returns a CallError (Status 429, ErrThrottled, RetryAfter the wait); when
// ctx ends while waiting it gives the slot back and returns a CallError
// (Status 0) wrapping ErrNotSent and ctx's error.
func (b *budgets) wait(ctx context.Context, c einvoice.Credentials, endpoint, op string) error {
	if !b.enabled || b.limits[endpoint] <= 0 {
		return nil
	}
	key := keyOf(c, endpoint)
	now := time.Now()
	slot, ok := b.reserve(key, now, ctx)
	if !ok {
		return &einvoice.CallError{Op: op, Status: 429, RetryAfter: slot.Sub(now), NotSent: true, Err: ErrThrottled}
	}
	d := slot.Sub(now)
	if d <= 0 {
		return nil
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return nil
	case <-ctx.Done():
		b.giveBack(key, slot)
		return &einvoice.CallError{Op: op, NotSent: true, Err: fmt.Errorf("%w: waiting for the rate budget: %w", ErrNotSent, ctx.Err())}
	}
}

// reserve hands out the next slot of key at or after now: after the last
// slot handed out (first come, first served), after any block, and a window
// after the slot limit places back, so that no window holds more than limit
// slots. ok is false, and nothing is taken, when the slot lies beyond ctx's
// deadline.
func (b *budgets) reserve(key budgetKey, now time.Time, ctx context.Context) (slot time.Time, ok bool) {
	limit := b.limits[key.endpoint]
	b.mu.Lock()
	defer b.mu.Unlock()
	b.sweep(now)
	st := b.state[key]
	if st == nil {
		st = &budgetState{}
		b.state[key] = st
	}
	slot = now
	if st.blocked.After(slot) {
		slot = st.blocked
	}
	n := len(st.slots)
	if n > 0 && st.slots[n-1].After(slot) {
		slot = st.slots[n-1]
	}
	if n >= limit {
		if free := st.slots[n-limit].Add(b.window); free.After(slot) {
			slot = free
		}
	}
	if deadline, has := ctx.Deadline(); has && slot.After(deadline) {
		return slot, false
	}
	st.slots = append(st.slots, slot)
	if len(st.slots) > limit {
		st.slots = append(st.slots[:0], st.slots[len(st.slots)-limit:]...)
	}
	return slot, true
}

// giveBack removes a reserved slot that was not used.
func (b *budgets) giveBack(key budgetKey, slot time.Time) {
	b.mu.Lock()
	defer b.mu.Unlock()
	st := b.state[key]
	if st == nil {
		return
	}
	for i := len(st.slots) - 1; i >= 0; i-- {
		if st.slots[i].Equal(slot) {
			st.slots = append(st.slots[:i], st.slots[i+1:]...)
			return
		}
	}
}

// block holds the endpoint back for this client for d (after a 429). Without
// an announced wait, it holds it for one slot of its budget.
func (b *budgets) block(c einvoice.Credentials, endpoint string, d time.Duration) {
	if !b.enabled {
		return
	}
	if d <= 0 {
		if limit := b.limits[endpoint]; limit > 0 {
			d = b.window / time.Duration(limit)
		}
	}
	key := keyOf(c, endpoint)
	until := time.Now().Add(d)
	b.mu.Lock()
	defer b.mu.Unlock()
	st := b.state[key]
	if st == nil {
		st = &budgetState{}
		b.state[key] = st
	}
	if until.After(st.blocked) {
		st.blocked = until
	}
}

// sweep forgets, at most once a window, the keys with nothing left to
// remember. b.mu is held.
func (b *budgets) sweep(now time.Time) {
	if now.Sub(b.swept) < b.window {
		return
	}
	b.swept = now
	for k, st := range b.state {
		n := len(st.slots)
		if (n == 0 || now.Sub(st.slots[n-1]) > b.window) && now.After(st.blocked) {
			delete(b.state, k)
		}
	}
}
