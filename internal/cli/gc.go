package cli

import (
	"os"
	"runtime/debug"
)

// The garbage collector's defaults for serve. Go's own (GOGC=100, no
// memory limit) collect whenever the heap doubles: a service whose live
// heap is a few megabytes then collects thousands of times a second under
// load, and the collector took 10-15 % of the CPU of a read (docs/
// performance.md). serve lets the heap grow to five times the live heap
// (GOGC=400), within a soft limit (GOMEMLIMIT=48MiB) past which the
// collector works harder again, so that memory stays bounded. GOGC and
// GOMEMLIMIT, when set, are the operator's and are left alone.
const (
	serveGCPercent   = 400
	serveMemoryLimit = 48 << 20
)

// tuneGC applies serve's collector defaults where the environment sets
// none.
func tuneGC() {
	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(serveGCPercent)
	}
	if _, set := os.LookupEnv("GOMEMLIMIT"); !set {
		debug.SetMemoryLimit(serveMemoryLimit)
	}
}
