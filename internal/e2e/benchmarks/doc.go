// Package benchmarks measures the whole service over loopback HTTP
// (go test -run '^$' -bench . ./internal/e2e/benchmarks/): buyers,
// receipts in bulk, consolidation of 100,000 receipts, received documents,
// webhooks.
package benchmarks
