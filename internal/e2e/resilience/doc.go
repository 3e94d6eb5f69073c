// Package resilience tests the promises that hold under faults end to
// end: SIGKILL during consolidation and webhook delivery, and several
// replicas of the real binary on one PostgreSQL database. Its tests build
// the binary and are skipped under -short.
package resilience
