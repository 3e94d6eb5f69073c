// Package testclock is the clock of tests that need time to jump ahead: it
// follows the real clock, plus every Advance so far.
package testclock

import (
	"sync"
	"time"
)

// Clock is time.Now plus an offset that only grows. Its zero value is the
// real clock; it is safe for concurrent use.
type Clock struct {
	mu     sync.Mutex
	offset time.Duration
}

// Now is the real time plus every Advance so far.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return time.Now().Add(c.offset)
}

// Advance moves the clock d ahead.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.offset += d
}
