package httpapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"

	"github.com/einvoice/einvoice/internal/einvoice"
)

// statusOf is the one table from error code to HTTP status.
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

// envelope is the success body.
type envelope struct {
	Success bool  `json:"success"`
	Data    any   `json:"data"`
	Meta    *meta `json:"meta,omitempty"`
}

// meta describes one page of a list.
type meta struct {
	Page     int `json:"page"`
	PerPage  int `json:"per_page"`
	Total    int `json:"total"`
	LastPage int `json:"last_page"`
	// Unreadable are the ids of the page's stored rows that could not be
	// read back, left out of data (and logged).
	Unreadable []string `json:"unreadable,omitempty"`
}

// errorBody is the error body of every failure.
type errorBody struct {
	Success   bool          `json:"success"`
	Message   string        `json:"message"`
	ErrorCode einvoice.Code `json:"error_code"`
	// Errors maps field paths to their problems; "authority" holds the tax
	// authority's error structure instead when it refused something.
	Errors any `json:"errors,omitempty"`
}

// writeJSON writes v with the status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	body, err := json.Marshal(v)
	if err != nil { // only our own types are written: a bug
		status = http.StatusInternalServerError
		body = []byte(`{"success":false,"message":"Internal server error.","error_code":"INTERNAL_ERROR"}`)
	}
	writeJSONBytes(w, status, append(body, '\n'))
}

// writeJSONBytes writes a complete JSON body with the status, its length
// given, so that the answer is not chunked and a client can read it into
// one buffer.
func writeJSONBytes(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// ok writes a success envelope.
func ok(w http.ResponseWriter, status int, data any) {
	writeJSON(w, status, envelope{Success: true, Data: data})
}

// okPage writes a list envelope.
func okPage[T any](w http.ResponseWriter, p einvoice.Page[T], data any) {
	m := &meta{Page: p.Page, PerPage: p.PerPage, Total: p.Total, LastPage: p.LastPage()}
	for _, u := range p.Unreadable {
		m.Unreadable = append(m.Unreadable, u.ID)
	}
	writeJSON(w, http.StatusOK, envelope{Success: true, Data: data, Meta: m})
}

// logUnreadable logs, at error level, each row a list left out because it
// could not be read back: a bug to look into, named by its id.
func logUnreadable[T any](r *http.Request, logger *slog.Logger, p einvoice.Page[T]) {
	for _, u := range p.Unreadable {
		logger.ErrorContext(r.Context(), "unreadable row left out of a list", "request_id", requestID(r.Context()),
			"route", r.Pattern, "id", u.ID, "error", u.Err)
	}
}

// writeError writes err as an error body. An error without a Code is a bug:
// it is logged with the request id, and the client gets a 500 that names
// the request id and nothing else.
func writeError(w http.ResponseWriter, r *http.Request, logger *slog.Logger, err error) {
	var e *einvoice.Error
	if !errors.As(err, &e) || statusOf[e.Code] == 0 || e.Code == einvoice.CodeInternal {
		id := requestID(r.Context())
		logger.ErrorContext(r.Context(), "internal error", "request_id", id, "route", r.Pattern, "error", err)
		writeJSON(w, http.StatusInternalServerError, errorBody{
			Message:   fmt.Sprintf("Internal server error. Quote request id %s when reporting it.", id),
			ErrorCode: einvoice.CodeInternal,
		})
		return
	}
	msg := e.Message
	if msg == "" {
		msg = http.StatusText(statusOf[e.Code]) + "."
	}
	if e.Code == einvoice.CodeUnsupportedMedia {
		// RFC 9110 15.5.16: say which content codings a body may have.
		w.Header().Set("Accept-Encoding", "identity")
	}
	body := errorBody{Message: msg, ErrorCode: e.Code}
	switch {
	case len(e.Authority) > 0:
		body.Errors = map[string]any{"authority": e.Authority}
	case len(e.Fields) > 0:
		body.Errors = e.Fields
	}
	writeJSON(w, statusOf[e.Code], body)
}
