package einvoice

import (
	"context"
	"time"
)

// AuthorityRecord is what the service knows of a document at the tax
// authority.
type AuthorityRecord struct {
	DocumentUUID  string `json:"documentUuid,omitempty"`
	LongID        string `json:"documentLongId,omitempty"`
	SubmissionUID string `json:"submissionUid,omitempty"`
	// IssuedAt is the issue date and time written into the UBL sent.
	IssuedAt    *time.Time `json:"issuedAt,omitempty"`
	Version     string     `json:"version,omitempty"`
	SubmittedAt *time.Time `json:"submittedAt,omitempty"`
	ValidatedAt *time.Time `json:"validatedAt,omitempty"`
	CancelledAt *time.Time `json:"cancelledAt,omitempty"`
	// CancelReason is the reason given when the tenant cancelled it.
	CancelReason string `json:"cancelReason,omitempty"`
	// Errors are the authority's errors of an Invalid document.
	Errors []AuthorityError `json:"errors,omitempty"`
	// RejectionRequested is set when the buyer asked for rejection: the
	// document stays Valid until the tenant cancels it.
	RejectionRequested *RejectionRequest `json:"rejectionRequested,omitempty"`
}

// RejectionRequest is a buyer's request to reject a Valid document.
type RejectionRequest struct {
	Reason      string    `json:"reason"`
	RequestedAt time.Time `json:"requestedAt"`
	// CancelBefore is the end of the window in which the tenant can still
	// cancel the document (72 hours after validation).
	CancelBefore time.Time `json:"cancelBefore"`
}

// FrozenParties are the supplier and the customer as submitted.
type FrozenParties struct {
	Supplier PartySnapshot `json:"supplier"`
	Customer PartySnapshot `json:"customer"`
}

// CancelWindow is how long after validation the issuer may cancel.
const CancelWindow = 72 * time.Hour

// JobKind tells what a job does with its document.
type JobKind string

// The kinds of job: send the document, then follow it to its verdict.
const (
	JobSubmit JobKind = "submit"
	JobPoll   JobKind = "poll"
)

// JobState is where a job is.
type JobState string

// The job states. A job is never deleted: done and failed ones stay, with
// their attempts and last error.
const (
	JobPending JobState = "pending"
	JobDone    JobState = "done"
	JobFailed  JobState = "failed"
)

// Job is a document's entry in the durable outbox: one per document, first
// to send it (kind submit), then to follow it (kind poll). A worker takes a
// job only when it is pending, due, and its lease has expired.
type Job struct {
	ID         string   `json:"-"`
	TenantID   string   `json:"-"`
	DocumentID string   `json:"-"`
	Kind       JobKind  `json:"kind"`
	State      JobState `json:"state"`
	Attempts   int      `json:"attempts"`
	// MaybeSent is set before every send and cleared once the outcome is
	// known: a job taken with it set may have reached the authority, which
	// is asked before sending again.
	MaybeSent     bool      `json:"-"`
	NextAttemptAt time.Time `json:"nextAttemptAt"`
	// SettleAfter is the earliest time an unknown outcome (MaybeSent) may be
	// searched for, due or not: a call that ended without an answer may
	// still be being taken in by the authority, whose searches list a
	// submission only once it is stored. Zero: at once.
	SettleAfter   time.Time `json:"-"`
	LeaseOwner    string    `json:"-"`
	LeaseUntil    time.Time `json:"-"`
	LastError     string    `json:"lastError,omitempty"`
	SubmissionUID string    `json:"-"`
	CreatedAt     time.Time `json:"createdAt"`
	UpdatedAt     time.Time `json:"updatedAt"`
}

// SubmissionWrite is one atomic change of the submission lifecycle: the
// document (when Doc is set, written only if its stored status is one of
// From and, when Version is set, it is unchanged since then), its UBL, its
// jobs (inserted, or updated only while Lease still owns them when Lease is
// set), and an event of the document.
type SubmissionWrite struct {
	Doc     *Document
	From    []Status
	Version time.Time
	UBL     []byte
	Jobs    []*Job
	Lease   string
	Event   *Event
	// Notify are the API events of the change (DECISIONS 15), written with
	// it and queued for the webhooks subscribed to their types.
	Notify []*APIEvent
	// Mail are the messages of the change (DECISIONS 21: the document's
	// mail to its buyer once Valid), written with it into the mail outbox.
	Mail []*MailMessage
}

// SweepOwnerPrefix begins the lease owner of a settle sweep's jobs
// (ClaimUnknown's caller), so that other sweeps leave its tenant alone.
const SweepOwnerPrefix = "sweep:"

// SubmissionStore keeps the outbox, the UBL sent and the TIN checks.
type SubmissionStore interface {
	// WriteSubmission applies w in one transaction; ErrWrongState when the
	// document's status is not in From or the lease was lost.
	WriteSubmission(ctx context.Context, w SubmissionWrite) error
	// ClaimJobs leases up to limit due jobs whose lease has expired to
	// owner until leaseUntil, oldest due first, except the submit jobs whose
	// outcome is unknown (MaybeSent), which ClaimUnknown takes. Several
	// processes may claim at once: each job goes to one of them.
	ClaimJobs(ctx context.Context, owner string, now, leaseUntil time.Time, limit int) ([]*Job, error)
	// ClaimPolls is ClaimJobs of the poll jobs alone (documents the
	// authority took, waiting for its verdict), so that following
	// verdicts never waits behind sends held by the rate budget.
	ClaimPolls(ctx context.Context, owner string, now, leaseUntil time.Time, limit int) ([]*Job, error)
	// ClaimUnknown leases to owner, until leaseUntil, the submit jobs whose
	// outcome is unknown (MaybeSent), whose lease has expired and whose
	// SettleAfter has passed, of one tenant that has such a job due (the one
	// due longest): all of them, due or not, up to limit, oldest first, so
	// that one search settles them all. None when no such job is due. A
	// tenant one of whose unknown outcomes is leased to a sweep (an owner
	// starting with SweepOwnerPrefix) is not claimed: one sweep per tenant
	// at a time, across replicas.
	ClaimUnknown(ctx context.Context, owner string, now, leaseUntil time.Time, limit int) ([]*Job, error)
	// ClaimSubmissionPolls leases to owner, until leaseUntil, every pending
	// poll job of a submission whose lease has expired, due or not: one
	// question to the authority then settles all its documents.
	ClaimSubmissionPolls(ctx context.Context, tenantID, submissionUID, owner string, now, leaseUntil time.Time) ([]*Job, error)
	// FinishPoll marks the pending poll job of a document done, unless a
	// worker holds it (that worker closes it itself).
	FinishPoll(ctx context.Context, tenantID, documentID string, now time.Time) error
	// GetJob returns the job of a document, or ErrNotFound.
	GetJob(ctx context.Context, tenantID, documentID string) (*Job, error)
	// GetUBL returns the UBL sent for a document, or ErrNotFound.
	GetUBL(ctx context.Context, tenantID, documentID string) ([]byte, error)
	// SetTINCheck records the authority's answer for a party's TIN.
	SetTINCheck(ctx context.Context, tenantID string, kind PartyKind, id string, check TINCheck) error
}
