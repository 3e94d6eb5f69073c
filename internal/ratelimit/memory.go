// Package ratelimit holds the in-memory rate limiter used on a single node
// (SQLite). The database-backed limiter that replicas share is in sqlstore.
package ratelimit

import (
	"context"
	"sync"
	"time"

	"github.com/einvoice/einvoice/internal/einvoice"
)

// Memory counts requests per key in fixed windows opened by a key's first
// request after the previous window closed.
type Memory struct {
	limit  int
	window time.Duration

	mu      sync.Mutex
	windows map[string]*memWindow
	swept   time.Time
}

type memWindow struct {
	start time.Time
	hits  int
}

var _ einvoice.RateLimiter = (*Memory)(nil)

// NewMemory returns a limiter of limit requests per window.
func NewMemory(limit int, window time.Duration) *Memory {
	return &Memory{limit: limit, window: window, windows: map[string]*memWindow{}}
}

// Allow counts one request of keyID at now.
func (m *Memory) Allow(_ context.Context, keyID string, now time.Time) (einvoice.RateDecision, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.sweep(now)
	w := m.windows[keyID]
	if w == nil || !now.Before(w.start.Add(m.window)) {
		w = &memWindow{start: now}
		m.windows[keyID] = w
	}
	w.hits++
	return einvoice.RateDecision{
		Allowed:   w.hits <= m.limit,
		Limit:     m.limit,
		Remaining: max(0, m.limit-w.hits),
		Reset:     w.start.Add(m.window),
	}, nil
}

// sweep drops closed windows once per window length, so memory stays bounded
// by the keys active in the last window.
func (m *Memory) sweep(now time.Time) {
	if now.Sub(m.swept) < m.window {
		return
	}
	m.swept = now
	for k, w := range m.windows {
		if !now.Before(w.start.Add(m.window)) {
			delete(m.windows, k)
		}
	}
}
