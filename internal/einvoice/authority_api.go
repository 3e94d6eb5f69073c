package einvoice

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"time"
)

// AuthorityAPI is the tax authority's protocol as the service uses it. The
// myinvois package implements it over HTTP (against MyInvois itself or the
// built-in sandbox).
type AuthorityAPI interface {
	// Submit sends up to 100 documents in one submission. The implementation
	// logs in (tokens cached per client and represented TIN), hashes each
	// document's exact bytes and enforces the size limits before sending.
	Submit(ctx context.Context, c Credentials, docs []OutgoingDocument) (SubmitResult, error)
	// GetSubmission returns the state of every document of a submission.
	GetSubmission(ctx context.Context, c Credentials, submissionUID string) (SubmissionState, error)
	// GetDocumentDetails returns one document's state with its validation
	// errors when Invalid.
	GetDocumentDetails(ctx context.Context, c Credentials, uuid string) (DocumentState, error)
	// FindDocuments looks for documents this client submitted: how outcomes
	// that are unknown (no answer after sending) are settled before sending
	// again. It reads the client's submissions from the earliest Since (less
	// a clock slack) to now, in windows the search accepts, and stops as
	// soon as every sought document has a match. A sought document is Absent
	// only when every submission since it could have been sent was read: a
	// search cut short (a failed page, ctx ending, a window the authority
	// truncates) leaves it neither matched nor absent, unknown, to be asked
	// again later. On an error the result still holds what was learnt
	// before it.
	FindDocuments(ctx context.Context, c Credentials, sought []SoughtDocument) (FindResult, error)
	// CancelDocument cancels a Valid document (issuer only, within 72 hours
	// of its validation).
	CancelDocument(ctx context.Context, c Credentials, uuid, reason string) error
	// Login logs in with c (or finds its token cached): nil when the
	// authority accepts the credentials; ErrLogin in the chain otherwise.
	Login(ctx context.Context, c Credentials) error
	// ValidateTIN reports whether the authority knows the TIN with that id
	// (false, nil for "not found").
	ValidateTIN(ctx context.Context, c Credentials, tin, idType, idValue string) (bool, error)
	// SearchTIN finds the one TIN of a taxpayer by name, or by id type and
	// value (optionally with the name and the file type): ErrTINNotFound
	// when the authority knows none, ErrTINAmbiguous when more than one
	// match.
	SearchTIN(ctx context.Context, c Credentials, q TINSearch) (string, error)
	// Split groups documents, in order, into as few submissions as the
	// authority's limits allow; ErrTooLarge when one cannot be sent at all.
	Split(docs []OutgoingDocument) ([][]OutgoingDocument, error)
}

// TINSearch is a Search TIN query (reference myinvois.md 1.9): the
// taxpayer's name alone, or IDType with IDValue (NRIC, PASSPORT, BRN,
// ARMY), optionally with the name; FileType narrows to individuals ("1",
// IG TINs) or the others ("2").
type TINSearch struct {
	TaxpayerName, IDType, IDValue, FileType string
}

// ErrTINNotFound is in the chain of a Search TIN that found no taxpayer.
var ErrTINNotFound = errors.New("no TIN found for the search")

// ErrTINAmbiguous is in the chain of a Search TIN that found more than one
// taxpayer (the authority's 400 BadRequest).
var ErrTINAmbiguous = errors.New("more than one TIN matches the search")

// ErrTooLarge is in the chain of an error about documents over the
// authority's limits (100 documents and 5 MB a submission, 300 KB a
// document): refused before anything is sent.
var ErrTooLarge = errors.New("over the authority's submission limits")

// Credentials name where the authority is and how to log in to it.
type Credentials struct {
	// BaseURL is the API (and identity) host, e.g.
	// https://preprod-api.myinvois.hasil.gov.my, without a trailing slash.
	BaseURL      string
	ClientID     string
	ClientSecret string
	// OnBehalfOf is, for an intermediary login, the represented taxpayer's
	// TIN (or TIN:ROB); "" for a taxpayer login.
	OnBehalfOf string
}

// OutgoingDocument is one UBL JSON document ready to send.
type OutgoingDocument struct {
	// CodeNumber is the document's cbc:ID (our invoiceSerialNumber).
	CodeNumber string
	// Body is the exact bytes to send (hashed and base64-encoded by the client).
	Body []byte
}

// SubmitResult is the authority's answer to a submission (HTTP 202).
type SubmitResult struct {
	SubmissionUID string
	Accepted      []AcceptedDocument
	Rejected      []RejectedDocument
}

// AcceptedDocument is a document the authority took in.
type AcceptedDocument struct {
	UUID       string `json:"uuid"`
	CodeNumber string `json:"invoiceCodeNumber"`
}

// RejectedDocument is a document the authority refused at submission.
type RejectedDocument struct {
	CodeNumber string         `json:"invoiceCodeNumber"`
	Error      AuthorityError `json:"error"`
}

// AuthorityError is the authority's error structure, in either of its two
// shapes ({code, message, target, details} and {errorCode, error,
// propertyPath, innerError}) folded into one.
type AuthorityError struct {
	Code         string           `json:"code"`
	Message      string           `json:"message"`
	Target       string           `json:"target,omitempty"`
	PropertyPath string           `json:"propertyPath,omitempty"`
	Details      []AuthorityError `json:"details,omitempty"`
}

// SubmissionState is the answer of Get Submission.
type SubmissionState struct {
	SubmissionUID string
	// OverallStatus as the authority spells it (in progress, valid,
	// partially valid, invalid).
	OverallStatus string
	Documents     []DocumentState
}

// DocumentState is what the authority says about one document.
type DocumentState struct {
	UUID          string
	SubmissionUID string
	LongID        string
	CodeNumber    string
	// Status is Submitted, Valid, Invalid or Cancelled.
	Status      string
	SubmittedAt time.Time
	// IssuedAt is the document's issue date and time, when listed.
	IssuedAt    *time.Time
	ValidatedAt *time.Time
	CancelledAt *time.Time
	// RejectRequestedAt is set when the buyer asked for rejection (the
	// document stays Valid); StatusReason then carries the buyer's reason.
	RejectRequestedAt *time.Time
	StatusReason      string
	// Errors are the validation errors of an Invalid document (details only).
	Errors []AuthorityError
}

// SoughtDocument is a document FindDocuments looks for. A listed document
// matches it when its internal id is CodeNumber, its issue date and time is
// IssuedAt (when both are known), it was submitted at or after Since (less
// the clock slack) and its uuid is not in Except.
type SoughtDocument struct {
	// CodeNumber is the document's cbc:ID (our invoiceSerialNumber).
	CodeNumber string
	// IssuedAt is the issue date and time written into the document (nil:
	// any). A copy issued at another time is another document with the same
	// number, such as an earlier Invalid one corrected and sent again.
	IssuedAt *time.Time
	// Since is the earliest time the document may have been submitted, by
	// our clock.
	Since time.Time
	// Except are uuids of copies that do not count (a duplicate whose
	// original is sought).
	Except []string
}

// FindResult is what FindDocuments learnt, per sought document (same order
// as asked).
type FindResult struct {
	// Matches are the listed documents that match each sought document,
	// newest first (several when it was submitted more than once).
	Matches [][]DocumentState
	// Absent tells, for each sought document, that it has no match and that
	// every document this client submitted since it could have been was
	// read: the authority does not have it.
	Absent []bool
}

// CallError is a failed call to the authority. Status is the HTTP status, 0
// when no answer came (connection refused, timeout, dropped connection).
type CallError struct {
	Op     string
	Status int
	// Error is the authority's error body, when it sent one.
	Body AuthorityError
	// RetryAfter is the authority's Retry-After, when it sent one.
	RetryAfter time.Duration
	// NotSent: the request never left (the rate budget was spent, the
	// context ended while waiting, the login failed).
	NotSent bool
	Err     error
}

func (e *CallError) Error() string {
	msg := e.Op
	if e.Status != 0 {
		msg += fmt.Sprintf(": HTTP %d", e.Status)
	}
	if e.Body.Code != "" || e.Body.Message != "" {
		msg += fmt.Sprintf(": %s %s", e.Body.Code, e.Body.Message)
	}
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

func (e *CallError) Unwrap() error { return e.Err }

// The HTTP statuses CallError's methods name (the domain does not import
// net/http for a few numbers).
const (
	statusUnauthorized       = 401
	statusTooManyRequests    = 429
	statusBadGateway         = 502
	statusServiceUnavailable = 503
	statusGatewayTimeout     = 504
)

// Deferred reports whether the call was held back by the caller's own rate
// budget for the endpoint (nothing left, RetryAfter says when its slot
// comes): a wait, not a failure.
func (e *CallError) Deferred() bool { return e.NotSent && e.Status == statusTooManyRequests }

// Temporary reports whether trying again later may succeed: no answer, a
// 5xx, a 429 or a 401 (an expired token).
func (e *CallError) Temporary() bool {
	return e.Status == 0 || e.Status >= 500 || e.Status == statusTooManyRequests || e.Status == statusUnauthorized
}

// Unanswered reports whether the request may have reached the authority
// without an answer coming back, so that its outcome is unknown.
func (e *CallError) Unanswered() bool { return !e.NotSent && (e.Status == 0 || e.Status >= 500) }

// AnsweredByAuthority reports whether the authority itself answered the
// call (any status but a gateway's 502, 503 or 504, behind which it may
// still be at work): it is no longer taking the request in, and a search
// lists whatever it stored.
func (e *CallError) AnsweredByAuthority() bool {
	return e.Status != 0 && e.Status != statusBadGateway && e.Status != statusServiceUnavailable && e.Status != statusGatewayTimeout
}

// ErrLogin is in the chain of a call that failed because the login to the
// authority failed (wrong credentials, or the identity service refusing):
// the call itself was never sent.
var ErrLogin = errors.New("login to the tax authority failed")

// AsCallError returns the CallError in err's chain.
func AsCallError(err error) (*CallError, bool) {
	var ce *CallError
	ok := errors.As(err, &ce)
	return ce, ok
}

// AuthorityCallError turns a failed synchronous call to the authority (for
// what: "rejection", "cancellation") into the API's error: the authority's
// refusal (422 AUTHORITY_REJECTED) or its absence (503).
func AuthorityCallError(err error, what string) error {
	ce, ok := AsCallError(err)
	if ok && !ce.Temporary() {
		e := Errorf(CodeAuthorityRejected, "The tax authority refused the %s: %s", what, cmp.Or(ce.Body.Message, ce.Body.Code, err.Error()))
		e.Authority = []AuthorityError{ce.Body}
		return e
	}
	return &Error{Code: CodeAuthorityUnavailable,
		Message: fmt.Sprintf("The tax authority could not be reached for the %s; try again later.", what), Err: err}
}
