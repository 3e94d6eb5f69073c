package web

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"

	"github.com/einvoice/einvoice/internal/einvoice"
)

// ErrorBody is the JSON body of every failure (DECISIONS 2).
type ErrorBody struct {
	Success   bool          `json:"success"`
	Message   string        `json:"message"`
	ErrorCode einvoice.Code `json:"error_code"`
	// Errors maps field paths to their problems; "authority" holds the tax
	// authority's error structure instead when it refused something.
	Errors any `json:"errors,omitempty"`
}

// WriteJSON writes v as JSON with the status.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	body, err := json.Marshal(v)
	if err != nil { // only our own types are written: a bug
		status = http.StatusInternalServerError
		body = []byte(`{"success":false,"message":"Internal server error.","error_code":"INTERNAL_ERROR"}`)
	}
	WriteJSONBytes(w, status, append(body, '\n'))
}

// WriteJSONBytes writes a complete JSON body with the status, its length
// given, so that the answer is not chunked and a client can read it into
// one buffer.
func WriteJSONBytes(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// WriteError writes err as the JSON error body, its status from the one
// table. An error without a known code is a bug or an outage: it is logged
// with the request id, and the client gets a 500 that names the request id
// and nothing else.
func WriteError(w http.ResponseWriter, r *http.Request, logger *slog.Logger, err error) {
	status, e := StatusOf(err)
	if e == nil {
		id := RequestID(r.Context())
		logger.ErrorContext(r.Context(), "internal error", "request_id", id, "route", r.Pattern, "error", err)
		WriteJSON(w, status, ErrorBody{
			Message:   fmt.Sprintf("Internal server error. Quote request id %s when reporting it.", id),
			ErrorCode: einvoice.CodeInternal,
		})
		return
	}
	msg := e.Message
	if msg == "" {
		msg = http.StatusText(status) + "."
	}
	if e.Code == einvoice.CodeUnsupportedMedia {
		// RFC 9110 15.5.16: say which content codings a body may have.
		w.Header().Set("Accept-Encoding", "identity")
	}
	body := ErrorBody{Message: msg, ErrorCode: e.Code}
	switch {
	case len(e.Authority) > 0:
		body.Errors = map[string]any{"authority": e.Authority}
	case len(e.Fields) > 0:
		body.Errors = e.Fields
	}
	WriteJSON(w, status, body)
}
