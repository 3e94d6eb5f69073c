// Package audit is the application's audit log capability (DECISIONS 20):
// recording who changed what (RecordAudit), listing a tenant's log
// (ListAudit), and checking the hash chain (VerifyAudit). It imports only
// the domain (package einvoice).
//
// An entry is written after the change it records committed, not in the
// change's transaction: the surfaces record a request once it was
// answered, and the service's own changes once written. Entries wait in a
// queue of this process, which one writer appends in batches (one
// transaction per batch, sharing its commit), so that recording adds
// almost nothing to a request. The crash window: a process that dies
// (killed, power lost) after a change committed and before its entry's
// batch did loses that entry, at most the queue's length (Options.Queue)
// and in practice the entries of one batch (the writer lingers 20 ms for a
// batch to fill). A graceful stop (Run's context ending) writes every
// queued entry first. The chain itself never forks nor breaks: each append
// reads and moves its head in one transaction.
package audit
