package web

import (
	"errors"
	"net/http"

	"github.com/einvoice/einvoice/internal/einvoice"
)

// statusOf is the one table from error code to HTTP status, for JSON and
// HTML answers alike.
var statusOf = map[einvoice.Code]int{
	einvoice.CodeMalformedJSON:          http.StatusBadRequest,
	einvoice.CodeUnauthorized:           http.StatusUnauthorized,
	einvoice.CodeForbidden:              http.StatusForbidden,
	einvoice.CodeNotFound:               http.StatusNotFound,
	einvoice.CodeDocumentNotFound:       http.StatusNotFound,
	einvoice.CodeBuyerNotFound:          http.StatusNotFound,
	einvoice.CodeSellerNotFound:         http.StatusNotFound,
	einvoice.CodeMethodNotAllowed:       http.StatusMethodNotAllowed,
	einvoice.CodeNotAcceptable:          http.StatusNotAcceptable,
	einvoice.CodeDocumentNotDraft:       http.StatusConflict,
	einvoice.CodeDocumentSubmitted:      http.StatusConflict,
	einvoice.CodeDuplicateSerial:        http.StatusConflict,
	einvoice.CodeBuyerInUse:             http.StatusConflict,
	einvoice.CodeDocumentNotValid:       http.StatusConflict,
	einvoice.CodeCancelWindowClosed:     http.StatusConflict,
	einvoice.CodeRejectWindowClosed:     http.StatusConflict,
	einvoice.CodeReceivedNotFound:       http.StatusNotFound,
	einvoice.CodeReceiptNotFound:        http.StatusNotFound,
	einvoice.CodeDuplicateReceipt:       http.StatusConflict,
	einvoice.CodeReceiptNotDeletable:    http.StatusConflict,
	einvoice.CodeConsolidationNotFound:  http.StatusNotFound,
	einvoice.CodeNothingToConsolidate:   http.StatusConflict,
	einvoice.CodeConsolidationRunning:   http.StatusConflict,
	einvoice.CodeReceiptNotConsolidated: http.StatusConflict,
	einvoice.CodePayloadTooLarge:        http.StatusRequestEntityTooLarge,
	einvoice.CodeUnsupportedMedia:       http.StatusUnsupportedMediaType,
	einvoice.CodeHeadersTooLarge:        http.StatusRequestHeaderFieldsTooLarge,
	einvoice.CodeMalformedRequest:       http.StatusBadRequest,
	einvoice.CodeTransferEncoding:       http.StatusNotImplemented,
	einvoice.CodeHTTPVersion:            http.StatusHTTPVersionNotSupported,
	einvoice.CodeValidationFailed:       http.StatusUnprocessableEntity,
	einvoice.CodeDocumentNotReady:       http.StatusUnprocessableEntity,
	einvoice.CodeAuthorityRejected:      http.StatusUnprocessableEntity,
	einvoice.CodeRateLimitExceeded:      http.StatusTooManyRequests,
	einvoice.CodeAuthorityUnavailable:   http.StatusServiceUnavailable,
	einvoice.CodeInternal:               http.StatusInternalServerError,
	// Idempotency keys (DECISIONS 15).
	einvoice.CodeIdempotencyKeyInUse:  http.StatusConflict,
	einvoice.CodeIdempotencyKeyReused: http.StatusUnprocessableEntity,

	// A receipt already converted or consolidated, asked for its invoice.
	einvoice.CodeReceiptNotConvertible: http.StatusConflict,
}

// Status is the HTTP status of an error code; 0 for a code the table does
// not hold (a bug: such an error is answered as a 500).
func Status(code einvoice.Code) int { return statusOf[code] }

// StatusOf is the HTTP status of err and the service error it carries: a
// 500 and nil for anything that is not an *einvoice.Error with a known
// code, or is CodeInternal (a bug or an outage: its details are the log's,
// never the client's).
func StatusOf(err error) (int, *einvoice.Error) {
	var e *einvoice.Error
	if !errors.As(err, &e) || statusOf[e.Code] == 0 || e.Code == einvoice.CodeInternal {
		return http.StatusInternalServerError, nil
	}
	return statusOf[e.Code], e
}
