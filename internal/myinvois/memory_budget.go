package myinvois

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/einvoice/einvoice/internal/einvoice"
)

// memoryBudget is the einvoice.AuthorityBudget of one process: per key, its
// last limit send times and its block, in memory. It is the client's budget
// when Options.Budget is nil.
type memoryBudget struct {
	mu    sync.Mutex
	state map[string]*memoryKey
	swept time.Time
}

type memoryKey struct {
	sends   []time.Time // the last (at most limit) send times, ascending
	blocked time.Time   // no send before this (after a 429)
	window  time.Duration
}

var _ einvoice.AuthorityBudget = (*memoryBudget)(nil)

func newMemoryBudget() *memoryBudget {
	return &memoryBudget{state: map[string]*memoryKey{}}
}

// sweepEvery is how often keys with nothing left to remember are forgotten.
const sweepEvery = time.Minute

// Reserve takes the next send time of key when it is no later than latest.
func (m *memoryBudget) Reserve(_ context.Context, key string, limit int, window time.Duration, now, latest time.Time) (time.Time, bool, error) {
	if limit < 1 {
		return time.Time{}, false, fmt.Errorf("authority budget %s: limit %d is not positive", key, limit)
	}
	if latest.Before(now) {
		return now, false, nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.sweep(now)
	st := m.key(key)
	st.window = window
	at := now
	if st.blocked.After(at) {
		at = st.blocked
	}
	n := len(st.sends)
	if n > 0 && st.sends[n-1].After(at) {
		at = st.sends[n-1]
	}
	if n >= limit {
		if free := st.sends[n-limit].Add(window); free.After(at) {
			at = free
		}
	}
	if at.After(latest) {
		return at, false, nil
	}
	st.sends = append(st.sends, at)
	if len(st.sends) > limit {
		st.sends = append(st.sends[:0], st.sends[len(st.sends)-limit:]...)
	}
	return at, true, nil
}

// Block makes key send nothing before until.
func (m *memoryBudget) Block(_ context.Context, key string, until time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if st := m.key(key); until.After(st.blocked) {
		st.blocked = until
	}
	return nil
}

// key returns the state of key, created when absent. m.mu is held.
func (m *memoryBudget) key(key string) *memoryKey {
	st := m.state[key]
	if st == nil {
		st = &memoryKey{}
		m.state[key] = st
	}
	return st
}

// sweep forgets, at most once every sweepEvery, the keys with nothing left
// to remember. m.mu is held.
func (m *memoryBudget) sweep(now time.Time) {
	if now.Sub(m.swept) < sweepEvery {
		return
	}
	m.swept = now
	for k, st := range m.state {
		n := len(st.sends)
		if (n == 0 || now.Sub(st.sends[n-1]) > st.window) && now.After(st.blocked) {
			delete(m.state, k)
		}
	}
}
