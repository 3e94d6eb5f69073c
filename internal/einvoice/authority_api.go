package einvoice

import (
	"context"
	"errors"
	"fmt"
	"net/http"
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
	// FindDocuments returns the documents this client submitted since a
	// time whose code number (internal id) is one of codeNumbers: how
	// outcomes that are unknown (a timeout after sending) are settled before
	// sending again. One code number is one search; several read the
	// client's submissions of the window page by page.
	FindDocuments(ctx context.Context, c Credentials, codeNumbers []string, since time.Time) ([]DocumentState, error)
	// CancelDocument cancels a Valid document (issuer only, within 72 hours
	// of its validation).
	CancelDocument(ctx context.Context, c Credentials, uuid, reason string) error
	// ValidateTIN reports whether the authority knows the TIN with that id
	// (false, nil for "not found").
	ValidateTIN(ctx context.Context, c Credentials, tin, idType, idValue string) (bool, error)
	// Split groups documents, in order, into as few submissions as the
	// authority's limits allow; ErrTooLarge when one cannot be sent at all.
	Split(docs []OutgoingDocument) ([][]OutgoingDocument, error)
}

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
	ValidatedAt *time.Time
	CancelledAt *time.Time
	// RejectRequestedAt is set when the buyer asked for rejection (the
	// document stays Valid); StatusReason then carries the buyer's reason.
	RejectRequestedAt *time.Time
	StatusReason      string
	// Errors are the validation errors of an Invalid document (details only).
	Errors []AuthorityError
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

// Temporary reports whether trying again later may succeed: no answer, a
// 5xx, a 429 or a 401 (an expired token).
func (e *CallError) Temporary() bool {
	return e.Status == 0 || e.Status >= 500 || e.Status == http.StatusTooManyRequests || e.Status == http.StatusUnauthorized
}

// Unanswered reports whether the request may have reached the authority
// without an answer coming back, so that its outcome is unknown.
func (e *CallError) Unanswered() bool { return !e.NotSent && (e.Status == 0 || e.Status >= 500) }

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
