// Package retry is the one schedule of the service's waits between
// attempts: a Policy says how long to wait before attempt n+1 after n
// failed (or n idle passes), growing from a base by a factor per attempt,
// capped, with a random share (jitter) so that processes that failed
// together do not come back together.
//
// It imports only the standard library. The public client (package client)
// keeps its own, as it imports nothing of ours.
package retry

import (
	"math"
	"math/rand/v2"
	"time"
)

// Jitter shares: the random part of a delay, as a share of it.
const (
	NoJitter    = 0.0 // exactly the capped exponential
	EqualJitter = 0.5 // from half the delay to all of it: the first retry still within Base
	FullJitter  = 1.0 // from zero to all of it
)

// Policy is a retry schedule. The delay before attempt n+1, after n failed,
// is Base·Factor^(n−1), at most Max (its ceiling, Ceiling(n)), of which the
// share Jitter is random: uniform from Ceiling(n)·(1−Jitter) to Ceiling(n).
// So a delay is never above Max nor below zero, and each attempt's range
// starts and ends no earlier than the one before.
//
// The zero value waits nothing. A Policy is a value: safe to copy and to
// use from several goroutines (as is Rand, when set, by its contract).
type Policy struct {
	// Base is the ceiling of the first delay; zero or less waits nothing.
	Base time.Duration
	// Max caps every delay; zero or less means no cap but the largest
	// time.Duration. A Max below Base caps the first delay too.
	Max time.Duration
	// Factor is the growth per attempt: 0 means 2 (doubling); a value
	// above 1 other than that grows by it (1.5 for polls that should
	// follow a verdict more closely); 1 or less (and NaN) does not grow.
	Factor float64
	// Jitter is the random share of each delay, from 0 (none) to 1 (all of
	// it); values outside are taken as the nearer bound, NaN as 0. See
	// NoJitter, EqualJitter, FullJitter.
	Jitter float64
	// Rand returns a number from 0 to n−1 for n > 0; nil means math/rand/v2's
	// Int64N. Tests set it to fix the jitter.
	Rand func(n int64) int64
}

// Around is d give or take half, uniform from d/2 to 3d/2, every time: the
// rest of an idle loop, so that loops started together drift apart.
func Around(d time.Duration) Policy {
	return Policy{Base: d + d/2, Max: d + d/2, Jitter: 2.0 / 3}
}

// Delay is the wait before attempt n+1 after n failed: Ceiling(n) less a
// random share of up to Jitter of it. An attempt below 1 counts as 1.
func (p Policy) Delay(attempt int) time.Duration {
	c := p.Ceiling(attempt)
	span := int64(float64(c) * p.jitter())
	if span <= 0 {
		return c
	}
	r := p.Rand
	if r == nil {
		r = rand.Int64N
	}
	// Kept within range even when a test's Rand is not.
	off := min(max(r(span+1), 0), span)
	return c - time.Duration(span) + time.Duration(off)
}

// Ceiling is the delay before attempt n+1 without jitter: Base·Factor^(n−1),
// at most Max. An attempt below 1 counts as 1. It is computed in one step
// however large n is, and never overflows.
func (p Policy) Ceiling(attempt int) time.Duration {
	if p.Base <= 0 {
		return 0
	}
	top := p.Max
	if top <= 0 {
		top = math.MaxInt64
	}
	d := min(p.Base, top)
	f := p.Factor
	if f == 0 {
		f = 2
	}
	if !(f > 1) || attempt <= 1 {
		return d
	}
	// In floating point: exact for doubling; a factor such as 1.5 may be
	// a few nanoseconds off multiplying step by step in integers.
	v := float64(d) * math.Pow(f, float64(attempt-1))
	if v >= float64(top) {
		return top
	}
	return time.Duration(v)
}

// jitter is Jitter within 0 to 1.
func (p Policy) jitter() float64 {
	switch {
	case !(p.Jitter > 0):
		return 0
	case p.Jitter > 1:
		return 1
	}
	return p.Jitter
}
