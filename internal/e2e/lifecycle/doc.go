// Package lifecycle tests a document's life end to end: submit (one, in
// bulk, signed, through faults and crashes), cancel and reject,
// idempotency keys, events, tax periods, and serve without workers.
package lifecycle
