// Package invoicing is the application layer: every use case of the API, in
// one Service made once with its dependencies (the store, the tax
// authority's API, the clock), the one entry point of the adapters. It
// composes the capability packages, each with its own options and loops
// (DECISIONS 19), by embedding their services: access (tenants, keys,
// sessions, idempotency keys), webhooks (webhooks, events and their
// delivery) and received (received documents and their poller). What it
// holds itself applies the domain's rules (package einvoice) to parties
// and documents, validates documents, takes them to the tax authority
// exactly once and follows them to their verdict (DECISIONS sections 5 and
// 9), makes receipts and their consolidation, and assembles the QR code
// and PDF. Run starts every loop, each switched by its own setting, and
// the housekeeping loop, which always runs. The adapters call it and
// nothing below it.
//
// A submit commits the intent first: in one transaction the document moves
// from ready to submitting, its UBL and frozen parties are stored, and its
// job is written to the outbox (submission_jobs) with a lease held by the
// request. The request then calls the authority at once, within a bounded
// wait. Before every send the job is marked maybe-sent; once the answer is
// known it is cleared. Workers (several per process, several processes on
// PostgreSQL) take only jobs whose lease has expired: a job whose request
// gave up, crashed or timed out. Maybe-sent jobs are settled in a loop of
// their own (settle.go), all of a tenant's with one search that reads every
// submission since they may have been sent; a document is sent again only
// when that search was complete and did not find it, so a document is never
// sent twice (and a DS302 duplicate, should one happen, is settled to its
// original: duplicate.go). Accepted documents become poll
// jobs, which follow them to Valid or Invalid; a worker polling a submission
// takes all its pending poll jobs along, so one Get Submission (limited to
// 300 a minute by the authority) settles all its documents. Jobs are never deleted: their
// attempts, next attempt and last error stay visible on the document.
package invoicing
