package client

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"time"
)

// The service's error codes (Error.Code).
const (
	CodeMalformedJSON          = "MALFORMED_JSON"
	CodeMalformedRequest       = "MALFORMED_REQUEST"
	CodeUnauthorized           = "UNAUTHORIZED"
	CodeForbidden              = "FORBIDDEN"
	CodeNotFound               = "NOT_FOUND"
	CodeDocumentNotFound       = "DOCUMENT_NOT_FOUND"
	CodeBuyerNotFound          = "BUYER_NOT_FOUND"
	CodeSellerNotFound         = "SELLER_NOT_FOUND"
	CodeMethodNotAllowed       = "METHOD_NOT_ALLOWED"
	CodeNotAcceptable          = "NOT_ACCEPTABLE"
	CodeDocumentNotDraft       = "DOCUMENT_NOT_DRAFT"
	CodeDocumentSubmitted      = "DOCUMENT_ALREADY_SUBMITTED"
	CodeDuplicateSerial        = "DUPLICATE_SERIAL_NUMBER"
	CodeDuplicateID            = "DUPLICATE_ID"
	CodeBuyerInUse             = "BUYER_IN_USE"
	CodeDocumentNotValid       = "DOCUMENT_NOT_VALID"
	CodeDocumentNotReady       = "DOCUMENT_NOT_READY"
	CodeCancelWindowClosed     = "CANCEL_WINDOW_CLOSED"
	CodeRejectWindowClosed     = "REJECT_WINDOW_CLOSED"
	CodeReceivedNotFound       = "RECEIVED_DOCUMENT_NOT_FOUND"
	CodeReceiptNotFound        = "RECEIPT_NOT_FOUND"
	CodeDuplicateReceipt       = "DUPLICATE_RECEIPT_NUMBER"
	CodeReceiptNotDeletable    = "RECEIPT_NOT_DELETABLE"
	CodeConsolidationNotFound  = "CONSOLIDATION_NOT_FOUND"
	CodeNothingToConsolidate   = "NOTHING_TO_CONSOLIDATE"
	CodeConsolidationRunning   = "CONSOLIDATION_RUNNING"
	CodeReceiptNotConsolidated = "RECEIPT_NOT_CONSOLIDATED"
	CodePayloadTooLarge        = "PAYLOAD_TOO_LARGE"
	CodeUnsupportedMedia       = "UNSUPPORTED_MEDIA_TYPE"
	CodeHeadersTooLarge        = "REQUEST_HEADER_FIELDS_TOO_LARGE"
	CodeTransferEncoding       = "UNSUPPORTED_TRANSFER_ENCODING"
	CodeHTTPVersion            = "HTTP_VERSION_NOT_SUPPORTED"
	CodeValidationFailed       = "VALIDATION_FAILED"
	CodeAuthorityRejected      = "AUTHORITY_REJECTED"
	CodeRateLimitExceeded      = "RATE_LIMIT_EXCEEDED"
	CodeAuthorityUnavailable   = "AUTHORITY_UNAVAILABLE"
	CodeInternal               = "INTERNAL_ERROR"

	// CodeReceiptNotConvertible: the receipt asked for its invoice is
	// already converted or consolidated (Receipts.Invoice).
	CodeReceiptNotConvertible = "RECEIPT_NOT_CONVERTIBLE"
)

// Error codes of idempotency keys.
const (
	// CodeIdempotencyKeyInUse (409): the key's first request is still
	// running; the client retries it after a short wait.
	CodeIdempotencyKeyInUse = "IDEMPOTENCY_KEY_IN_USE"
	// CodeIdempotencyKeyReused (422): the key came before with another
	// method, path or body.
	CodeIdempotencyKeyReused = "IDEMPOTENCY_KEY_REUSED"
)

// Error is an answer of the service that is not a success.
type Error struct {
	// Method and Path are the request's ("GET", "/api/v1/buyers/0192...").
	Method, Path string
	// StatusCode is the HTTP status (404, 409, 422, ...).
	StatusCode int
	// Code is the machine-readable error code (CodeValidationFailed...);
	// empty when the answer was not the service's JSON (a proxy's page).
	Code string
	// Message says what went wrong, for a person.
	Message string
	// Fields maps the path of each field at fault ("invoiceLines.0.unitPrice",
	// "document_ids") to its problems.
	Fields map[string][]string
	// Authority holds the tax authority's own errors when it refused
	// something (Code is then CodeAuthorityRejected).
	Authority []AuthorityError
	// RequestID is the id the service gave the request; quote it when
	// reporting a problem.
	RequestID string
	// RetryAfter is how long the service asked to wait before trying again
	// (429 and 503 answers), 0 when it did not say.
	RetryAfter time.Duration
	// Body is the answer as received.
	Body []byte
}

// Error returns "einvoice: POST /api/v1/invoices: 422 VALIDATION_FAILED:
// message (field: problem; ...)".
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("einvoice: ")
	if e.Method != "" {
		b.WriteString(e.Method + " " + e.Path + ": ")
	}
	fmt.Fprintf(&b, "%d", e.StatusCode)
	if e.Code != "" {
		b.WriteString(" " + e.Code)
	}
	if e.Message != "" {
		b.WriteString(": " + e.Message)
	}
	if len(e.Fields) > 0 {
		paths := make([]string, 0, len(e.Fields))
		for p := range e.Fields {
			paths = append(paths, p)
		}
		sort.Strings(paths)
		parts := make([]string, len(paths))
		for i, p := range paths {
			parts[i] = p + ": " + strings.Join(e.Fields[p], ", ")
		}
		b.WriteString(" (" + strings.Join(parts, "; ") + ")")
	}
	for i, a := range e.Authority {
		if i == 0 {
			b.WriteString(" [authority:")
		}
		b.WriteString(" " + a.Code + " " + a.Message)
		if i == len(e.Authority)-1 {
			b.WriteString("]")
		}
	}
	return b.String()
}

// Field returns the problems of one field path, nil when it has none.
func (e *Error) Field(path string) []string { return e.Fields[path] }

// errorBody is the service's error answer.
type errorBody struct {
	Message   string          `json:"message"`
	ErrorCode string          `json:"error_code"`
	Errors    json.RawMessage `json:"errors"`
}

// newError reads a failed answer.
func newError(resp *Response) *Error {
	e := &Error{StatusCode: resp.StatusCode, RequestID: resp.RequestID(), Body: resp.Body}
	if ra, ok := parseRetryAfter(resp.Header.Get("Retry-After")); ok {
		e.RetryAfter = ra
	}
	var body errorBody
	if !isJSON(resp) || json.Unmarshal(resp.Body, &body) != nil {
		e.Message = http.StatusText(resp.StatusCode)
		return e
	}
	e.Code, e.Message = body.ErrorCode, body.Message
	if len(body.Errors) > 0 {
		var auth struct {
			Authority []AuthorityError `json:"authority"`
		}
		if json.Unmarshal(body.Errors, &auth) == nil && len(auth.Authority) > 0 {
			e.Authority = auth.Authority
		} else {
			_ = json.Unmarshal(body.Errors, &e.Fields)
		}
	}
	if e.Message == "" {
		e.Message = http.StatusText(resp.StatusCode)
	}
	return e
}
