package people

import (
	"sync"
	"time"
)

// signInsPerAddress bounds the sign-in attempts (passwords, second
// factors, links, reset requests) from one client address per minute, per
// process: a guesser spread over many e-mails meets it before the lockout
// of any one of them.
const signInsPerAddress = 30

// addressLimiter counts attempts per client address in fixed windows.
type addressLimiter struct {
	mu     sync.Mutex
	limit  int
	window time.Duration
	counts map[string]*addressWindow
}

type addressWindow struct {
	start time.Time
	n     int
}

func newAddressLimiter(limit int, window time.Duration) *addressLimiter {
	return &addressLimiter{limit: limit, window: window, counts: map[string]*addressWindow{}}
}

// allow counts one attempt of the address at now and reports whether it
// is within the limit.
func (l *addressLimiter) allow(address string, now time.Time) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.counts) > 100000 { // forget finished windows before growing further
		for a, w := range l.counts {
			if now.Sub(w.start) >= l.window {
				delete(l.counts, a)
			}
		}
	}
	w := l.counts[address]
	if w == nil || now.Sub(w.start) >= l.window || now.Before(w.start) {
		w = &addressWindow{start: now}
		l.counts[address] = w
	}
	w.n++
	return w.n <= l.limit
}
