package client

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// ValidationResult is the answer of Validate.
type ValidationResult struct {
	ID string `json:"id"`
	// Status is ready when validation passed, draft otherwise.
	Status           Status `json:"status"`
	ValidationPassed bool   `json:"validation_passed"`
	// Message sums the problems up in a sentence a person can act on.
	Message string `json:"message"`
	// Errors maps each field at fault to its problems; Problems lists them
	// with the rule each breaks.
	Errors   map[string][]string `json:"errors,omitempty"`
	Problems []Problem           `json:"problems,omitempty"`
}

// Problem is one rule a document breaks.
type Problem struct {
	Rule    string `json:"rule"`
	Field   string `json:"field"`
	Message string `json:"message"`
}

// Submission is the answer of Submit.
type Submission struct {
	ID                string `json:"id"`
	Status            Status `json:"status"`
	DocumentUUID      string `json:"document_uuid"`
	InvoiceCodeNumber string `json:"invoice_code_number"`
	SubmissionUID     string `json:"submission_uid,omitempty"`
	// Pending is true when the service recorded the submission but its
	// outcome is not known yet (the service answered 202): follow it with
	// Status.
	Pending bool `json:"-"`
}

// SubmissionStatus is the answer of Status and Cancel.
type SubmissionStatus struct {
	ID                 string            `json:"id"`
	Status             Status            `json:"status"`
	DocumentUUID       string            `json:"document_uuid"`
	DocumentLongID     string            `json:"document_long_id"`
	ValidatedAt        *time.Time        `json:"validated_at"`
	InvoiceCodeNumber  string            `json:"invoice_code_number"`
	SubmissionUID      string            `json:"submission_uid,omitempty"`
	ValidationURL      string            `json:"validation_url,omitempty"`
	CancelledAt        *time.Time        `json:"cancelled_at,omitempty"`
	RejectionRequested *RejectionRequest `json:"rejection_requested,omitempty"`
	AuthorityErrors    []AuthorityError  `json:"authority_errors,omitempty"`
	// Job is the service's work on the document while it is being sent or
	// followed.
	Job *Job `json:"submission,omitempty"`
	// Stale is true when the authority could not be asked: the answer is
	// what the service last knew.
	Stale bool `json:"stale"`
}

// Job is the service's pending work on a document.
type Job struct {
	// Kind is "submit" or "poll"; State "pending", "done" or "failed".
	Kind          string    `json:"kind"`
	State         string    `json:"state"`
	Attempts      int       `json:"attempts"`
	NextAttemptAt time.Time `json:"nextAttemptAt"`
	LastError     string    `json:"lastError,omitempty"`
	CreatedAt     time.Time `json:"createdAt"`
	UpdatedAt     time.Time `json:"updatedAt"`
}

// BulkResult is the answer of SubmitBulk: each id is in one of Accepted,
// Rejected or Pending.
type BulkResult struct {
	SubmissionUIDs []string       `json:"submission_uids"`
	Accepted       []BulkAccepted `json:"accepted"`
	Rejected       []BulkRejected `json:"rejected"`
	Pending        []BulkPending  `json:"pending"`
}

// BulkAccepted is a document the authority accepted.
type BulkAccepted struct {
	ID                string `json:"id"`
	DocumentUUID      string `json:"document_uuid"`
	InvoiceCodeNumber string `json:"invoice_code_number"`
}

// BulkRejected is a document that was not sent, or that the authority
// refused.
type BulkRejected struct {
	ID        string           `json:"id"`
	ErrorCode string           `json:"error_code"`
	Message   string           `json:"message"`
	Authority []AuthorityError `json:"authority,omitempty"`
}

// BulkPending is a document whose outcome is not known yet.
type BulkPending struct {
	ID     string `json:"id"`
	Status Status `json:"status"`
}

// QRCode is the JSON answer of QR.
type QRCode struct {
	ID           string `json:"id"`
	DocumentUUID string `json:"document_uuid"`
	// URL is the tax authority's validation link the code holds.
	URL string `json:"url"`
	// PNG is the image (decoded from the answer's base64).
	PNG []byte `json:"qr_code"`
}

// File is a document's visual form as the service answers it.
type File struct {
	// ContentType is the media type ("application/pdf", "image/png").
	ContentType string
	// Filename is the name the service suggests (Content-Disposition),
	// empty when it suggests none.
	Filename string
	Data     []byte
}

// ImageFormat is the format of QRImage.
type ImageFormat string

// The formats of QRImage.
const (
	PNG  ImageFormat = "image/png"
	JPEG ImageFormat = "image/jpeg"
)

func actionPath(id, action string) string { return "/api/v1/documents/" + escape(id) + "/" + action }

// Validate checks a document against the tax authority's rules: it becomes
// ready when it passes. A document that fails is not an error: see
// ValidationResult.ValidationPassed.
func (s *DocumentService) Validate(ctx context.Context, id string, opts ...CallOption) (*ValidationResult, error) {
	var out ValidationResult
	if _, err := s.c.call(ctx, http.MethodPost, actionPath(id, "validate"), nil, nil, &out, opts); err != nil {
		return nil, err
	}
	return &out, nil
}

// Submit sends a ready document to the tax authority. The answer is
// Submitted once the authority accepted it, or Pending when its outcome
// awaits the service's worker; a refusal is an *Error with
// CodeAuthorityRejected and the authority's errors.
func (s *DocumentService) Submit(ctx context.Context, id string, opts ...CallOption) (*Submission, error) {
	var out Submission
	resp, err := s.c.call(ctx, http.MethodPost, actionPath(id, "submit"), nil, nil, &out, opts)
	if err != nil {
		return nil, err
	}
	out.Pending = resp.StatusCode == http.StatusAccepted
	return &out, nil
}

// SubmitBulk submits up to 100 ready documents in as few submissions as the
// authority's limits allow; each id's outcome is in the result.
func (s *DocumentService) SubmitBulk(ctx context.Context, ids []string, opts ...CallOption) (*BulkResult, error) {
	var out BulkResult
	body := struct {
		DocumentIDs []string `json:"document_ids"`
	}{ids}
	if _, err := s.c.call(ctx, http.MethodPost, "/api/v1/documents/submit-bulk", nil, body, &out, opts); err != nil {
		return nil, err
	}
	return &out, nil
}

// Status returns where a submitted document stands, asking the authority
// (Stale when it could not).
func (s *DocumentService) Status(ctx context.Context, id string) (*SubmissionStatus, error) {
	var out SubmissionStatus
	if _, err := s.c.call(ctx, http.MethodGet, actionPath(id, "status"), nil, nil, &out, nil); err != nil {
		return nil, err
	}
	return &out, nil
}

// Cancel cancels a Valid document within 72 hours of its validation, for
// reason (1 to 300 characters).
func (s *DocumentService) Cancel(ctx context.Context, id, reason string, opts ...CallOption) (*SubmissionStatus, error) {
	var out SubmissionStatus
	body := struct {
		Reason string `json:"reason"`
	}{reason}
	if _, err := s.c.call(ctx, http.MethodPost, actionPath(id, "cancel"), nil, body, &out, opts); err != nil {
		return nil, err
	}
	return &out, nil
}

// UBL returns the UBL 2.1 JSON document as it was (or will be) sent to the
// authority, signed when the tenant has a certificate.
func (s *DocumentService) UBL(ctx context.Context, id string) ([]byte, error) {
	return s.c.raw(ctx, actionPath(id, "ubl"), "application/json", nil)
}

// QR returns the QR code of a Valid document's validation link, size
// pixels wide (64 to 1024; 256 when 0).
func (s *DocumentService) QR(ctx context.Context, id string, size int) (*QRCode, error) {
	var out QRCode
	if _, err := s.c.call(ctx, http.MethodGet, actionPath(id, "qr"), sizeQuery(size), nil, &out, nil); err != nil {
		return nil, err
	}
	return &out, nil
}

// QRImage returns the QR code of QR as an image of the format.
func (s *DocumentService) QRImage(ctx context.Context, id string, format ImageFormat, size int) (*File, error) {
	return s.c.file(ctx, actionPath(id, "qr"), string(format), sizeQuery(size))
}

// PDF returns the visual e-invoice: of any document, marked as not yet
// validated until it is Valid, and as cancelled once Cancelled.
func (s *DocumentService) PDF(ctx context.Context, id string) (*File, error) {
	return s.c.file(ctx, actionPath(id, "pdf"), "application/pdf", nil)
}

func sizeQuery(size int) url.Values {
	if size == 0 {
		return nil
	}
	return url.Values{"size": {strconv.Itoa(size)}}
}
