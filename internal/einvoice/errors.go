package einvoice

import (
	"errors"
	"fmt"
	"sort"
	"strings"
)

// Code is a machine-readable error code, as listed in DECISIONS section 2.
// The HTTP adapter owns the one table that maps a Code to a status.
type Code string

// The error codes of the API.
const (
	CodeMalformedJSON      Code = "MALFORMED_JSON"
	CodeUnauthorized       Code = "UNAUTHORIZED"
	CodeForbidden          Code = "FORBIDDEN"
	CodeNotFound           Code = "NOT_FOUND"
	CodeDocumentNotFound   Code = "DOCUMENT_NOT_FOUND"
	CodeBuyerNotFound      Code = "BUYER_NOT_FOUND"
	CodeSellerNotFound     Code = "SELLER_NOT_FOUND"
	CodeMethodNotAllowed   Code = "METHOD_NOT_ALLOWED"
	CodeNotAcceptable      Code = "NOT_ACCEPTABLE"
	CodeDocumentNotDraft   Code = "DOCUMENT_NOT_DRAFT"
	CodeDocumentSubmitted  Code = "DOCUMENT_ALREADY_SUBMITTED"
	CodeDuplicateSerial    Code = "DUPLICATE_SERIAL_NUMBER"
	CodeBuyerInUse         Code = "BUYER_IN_USE"
	CodeDocumentNotValid   Code = "DOCUMENT_NOT_VALID"
	CodeCancelWindowClosed Code = "CANCEL_WINDOW_CLOSED"
	// CodeRejectWindowClosed: a received document asked to be rejected more
	// than 72 hours after its validation.
	CodeRejectWindowClosed Code = "REJECT_WINDOW_CLOSED"
	// CodeReceivedNotFound: no received document of the tenant has that id.
	CodeReceivedNotFound Code = "RECEIVED_DOCUMENT_NOT_FOUND"
	// CodeReceiptNotFound: no receipt of the tenant has that id (or it was
	// deleted).
	CodeReceiptNotFound Code = "RECEIPT_NOT_FOUND"
	// CodeDuplicateReceipt: the tenant already has a receipt of that
	// number.
	CodeDuplicateReceipt Code = "DUPLICATE_RECEIPT_NUMBER"
	// CodeReceiptNotDeletable: the receipt is converted or consolidated.
	CodeReceiptNotDeletable Code = "RECEIPT_NOT_DELETABLE"
	// CodeReceiptNotConvertible: the receipt asked for an invoice is
	// already converted (it has its invoice) or consolidated.
	CodeReceiptNotConvertible Code = "RECEIPT_NOT_CONVERTIBLE"
	// CodeConsolidationNotFound: no consolidation of the tenant has that id.
	CodeConsolidationNotFound Code = "CONSOLIDATION_NOT_FOUND"
	// CodeNothingToConsolidate: the month has no receipt left to
	// consolidate.
	CodeNothingToConsolidate Code = "NOTHING_TO_CONSOLIDATE"
	// CodeConsolidationRunning: the tenant's previous consolidation is
	// still running.
	CodeConsolidationRunning Code = "CONSOLIDATION_RUNNING"
	// CodeReceiptNotConsolidated: a credit note of a receipt needs the
	// receipt consolidated.
	CodeReceiptNotConsolidated Code = "RECEIPT_NOT_CONSOLIDATED"
	CodePayloadTooLarge        Code = "PAYLOAD_TOO_LARGE"
	CodeUnsupportedMedia       Code = "UNSUPPORTED_MEDIA_TYPE"
	CodeHeadersTooLarge        Code = "REQUEST_HEADER_FIELDS_TOO_LARGE"
	// The connection-level answers: a request net/http cannot read as HTTP
	// (before any route), in our shape.
	CodeMalformedRequest     Code = "MALFORMED_REQUEST"
	CodeTransferEncoding     Code = "UNSUPPORTED_TRANSFER_ENCODING"
	CodeHTTPVersion          Code = "HTTP_VERSION_NOT_SUPPORTED"
	CodeValidationFailed     Code = "VALIDATION_FAILED"
	CodeDocumentNotReady     Code = "DOCUMENT_NOT_READY"
	CodeAuthorityRejected    Code = "AUTHORITY_REJECTED"
	CodeRateLimitExceeded    Code = "RATE_LIMIT_EXCEEDED"
	CodeAuthorityUnavailable Code = "AUTHORITY_UNAVAILABLE"
	CodeInternal             Code = "INTERNAL_ERROR"

	// CodeDuplicateID is never an error answer of its own: it marks, in the
	// rejected list of a bulk request, an id given again in the same request.
	CodeDuplicateID Code = "DUPLICATE_ID"
)

// Error is the one error type that carries a Code to the client. Message is
// a sentence a person can act on; Fields maps a field path (dots, zero-based
// indexes: "address.state", "invoiceLines.0.unitPrice") to its problems.
// Err, when set, is the cause; it is logged, never shown to a client.
type Error struct {
	Code    Code
	Message string
	Fields  FieldErrors
	// Authority is the tax authority's own error structure, when it refused
	// something (AUTHORITY_REJECTED); clients find it under errors.authority.
	Authority []AuthorityError
	Err       error
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(string(e.Code))
	if e.Message != "" {
		b.WriteString(": ")
		b.WriteString(e.Message)
	}
	if len(e.Fields) > 0 {
		b.WriteString(" (")
		b.WriteString(e.Fields.String())
		b.WriteString(")")
	}
	if e.Err != nil {
		b.WriteString(": ")
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Errorf returns an *Error with a formatted message.
func Errorf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// ErrorCode returns the Code of err: the Code of the first *Error in its
// chain, CodeNotFound for ErrNotFound, and CodeInternal for anything else.
func ErrorCode(err error) Code {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	if errors.Is(err, ErrNotFound) {
		return CodeNotFound
	}
	return CodeInternal
}

// Sentinel errors returned by the stores. The domain turns them into *Error
// values with the code that fits the resource.
var (
	// ErrNotFound: no row with that id for that tenant (or the id is malformed).
	ErrNotFound = errors.New("not found")
	// ErrInUse: the row is referenced by another and cannot be deleted.
	ErrInUse = errors.New("in use")
	// ErrConflict: a uniqueness constraint refused the write.
	ErrConflict = errors.New("conflict")
	// ErrWrongState: a conditional write found the row in another status.
	ErrWrongState = errors.New("wrong state")
	// ErrUnreadable: a stored row does not decode (a bug, or a row an older
	// version wrote that breaks today's rules). Reading it alone fails with
	// it; a list skips it and names it (Page.Unreadable).
	ErrUnreadable = errors.New("stored row cannot be read back")
)

// FieldErrors maps a field path to the problems found with it.
type FieldErrors map[string][]string

// Add records one problem with the field at path.
func (f FieldErrors) Add(path, format string, args ...any) {
	f[path] = append(f[path], fmt.Sprintf(format, args...))
}

// Merge adds every problem of other, with prefix (and a dot) before its paths.
func (f FieldErrors) Merge(prefix string, other FieldErrors) {
	for path, msgs := range other {
		p := path
		if prefix != "" {
			p = prefix + "." + path
		}
		f[p] = append(f[p], msgs...)
	}
}

// Paths returns the field paths in sorted order.
func (f FieldErrors) Paths() []string {
	paths := make([]string, 0, len(f))
	for p := range f {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	return paths
}

// String renders the problems as "path: message; path: message".
func (f FieldErrors) String() string {
	var parts []string
	for _, p := range f.Paths() {
		for _, m := range f[p] {
			parts = append(parts, p+": "+m)
		}
	}
	return strings.Join(parts, "; ")
}

// Err returns nil when there are no problems, otherwise a VALIDATION_FAILED
// *Error carrying them.
func (f FieldErrors) Err() error {
	if len(f) == 0 {
		return nil
	}
	return &Error{Code: CodeValidationFailed, Message: "The given data was invalid.", Fields: f}
}
