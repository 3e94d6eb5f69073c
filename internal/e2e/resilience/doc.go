// Package resilience tests the promises that hold under faults and at
// scale, end to end: SIGKILL during consolidation and webhook delivery,
// several replicas of the real binary on one PostgreSQL database, and a
// month of 5,000 receipts consolidated (and asked for from the request
// page) on both engines. Its tests build the binary or move thousands of
// rows: they are skipped under -short, and CI runs this package without
// the race detector (the receipts and webhooks packages run the same code
// under it at a smaller size).
package resilience
