package sandbox

import (
	"maps"
	"math/rand/v2"
	"sync"
	"time"
)

// Endpoint names, as Fault.Endpoint and the rate limits know them.
const (
	epToken      = "token"
	epSubmit     = "submit"
	epSubmission = "submission"
	epDetails    = "details"
	epRaw        = "raw"
	epCancel     = "cancel" // the state endpoint: cancel and reject
	epSearch     = "search"
	epTIN        = "tin"
	epRecent     = "recent"
	epTypes      = "documenttypes"
	epNotices    = "notifications"
	epTaxpayer   = "taxpayer" // search TIN and taxpayer QR info
	epAny        = "*"
)

// Fault kinds.
const (
	// FaultFail answers HTTP 500 without processing the request.
	FaultFail = "fail"
	// FaultThrottle answers 429 with Retry-After (Fault.RetryAfter seconds,
	// at least 1) without processing the request.
	FaultThrottle = "throttle"
	// FaultDelay processes the request in full, then waits Fault.Delay
	// before answering.
	FaultDelay = "delay"
	// FaultDrop processes the request in full, then closes the connection
	// without answering.
	FaultDrop = "drop"
	// FaultDropBefore closes the connection without processing the request.
	FaultDropBefore = "drop-before"
	// FaultLate reads the request, waits Fault.Delay, then processes it in
	// full even when the caller has stopped waiting: an authority slow to
	// take a submission in, which its searches list only once stored.
	FaultLate = "late"
)

// Fault is a failure injected into the protocol endpoints, for tests of
// clients. Faults live in the memory of one Server (one process): replicas
// do not share them.
type Fault struct {
	// Endpoint is "token", "submit", "submission", "details", "raw",
	// "cancel" (the state endpoint, cancel and reject), "search", "tin", or
	// "*" for all of them.
	Endpoint string
	// Kind is one of FaultFail, FaultThrottle, FaultDelay, FaultDrop and
	// FaultDropBefore.
	Kind string
	// Count is how many matching calls the fault affects; 0: every one
	// until ClearFaults.
	Count int
	// Share is the probability (0..1) that a matching call is affected; 0
	// means every matching call.
	Share float64
	// Delay is the wait of FaultDelay and FaultLate.
	Delay time.Duration
	// RetryAfter is the Retry-After of FaultThrottle, in seconds.
	RetryAfter int
}

// valid reports whether the fault names a known endpoint and kind.
func (f Fault) valid() bool {
	switch f.Endpoint {
	case epToken, epSubmit, epSubmission, epDetails, epRaw, epCancel, epSearch, epTIN, epRecent, epTypes, epNotices, epTaxpayer, epAny:
	default:
		return false
	}
	switch f.Kind {
	case FaultFail, FaultThrottle, FaultDelay, FaultDrop, FaultDropBefore, FaultLate:
	default:
		return false
	}
	return f.Count >= 0 && f.Share >= 0 && f.Share <= 1 && f.Delay >= 0 && f.RetryAfter >= 0
}

// AddFault injects f; a fault with an unknown endpoint or kind (or negative
// numbers) is ignored. The first matching fault that fires affects a call.
func (s *Server) AddFault(f Fault) {
	if !f.valid() {
		s.log.Warn("sandbox: fault ignored", "endpoint", f.Endpoint, "kind", f.Kind)
		return
	}
	s.faults.add(f)
}

// ClearFaults removes every fault.
func (s *Server) ClearFaults() { s.faults.clear() }

// FaultsFired returns how many calls the faults of this process affected,
// by "endpoint/kind" of the call (for example "submit/drop"), since the
// process started: what a chaos test injected, counted where it happened.
func (s *Server) FaultsFired() map[string]int { return s.faults.firedCopy() }

// faultSet is the faults of one Server, and how often each kind fired.
type faultSet struct {
	mu   sync.Mutex
	list []*Fault
	// fired counts the calls a fault affected, by "endpoint/kind" (the
	// endpoint called, also under a "*" fault); ClearFaults keeps it.
	fired map[string]int
}

func (fs *faultSet) add(f Fault) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	fs.list = append(fs.list, &f)
}

func (fs *faultSet) clear() {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	fs.list = nil
}

func (fs *faultSet) firedCopy() map[string]int {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	out := make(map[string]int, len(fs.fired))
	maps.Copy(out, fs.fired)
	return out
}

// take returns the fault that affects this call of endpoint, counting it.
func (fs *faultSet) take(endpoint string) (Fault, bool) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	for i, f := range fs.list {
		if f.Endpoint != epAny && f.Endpoint != endpoint {
			continue
		}
		if f.Share > 0 && f.Share < 1 && rand.Float64() >= f.Share {
			continue
		}
		out := *f
		if fs.fired == nil {
			fs.fired = map[string]int{}
		}
		fs.fired[endpoint+"/"+f.Kind]++
		if f.Count > 0 {
			f.Count--
			if f.Count == 0 {
				fs.list = append(fs.list[:i:i], fs.list[i+1:]...)
			}
		}
		return out, true
	}
	return Fault{}, false
}
