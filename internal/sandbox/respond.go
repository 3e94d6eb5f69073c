package sandbox

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
)

// apiError is the authority's synchronous error body, {"error": apiError}.
type apiError struct {
	Code         string     `json:"code"`
	Message      string     `json:"message"`
	Target       string     `json:"target"`
	PropertyPath string     `json:"propertyPath,omitempty"`
	Details      []apiError `json:"details"`
}

// writeJSON answers status with v as JSON.
func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		// Only our own types are encoded; this does not happen.
		status, b = http.StatusInternalServerError, []byte(`{"error":{"code":"InternalServerError","message":"encoding failed","target":"","details":null}}`)
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// writeError answers status with the authority's error shape.
func writeError(w http.ResponseWriter, status int, e apiError) {
	writeJSON(w, status, struct {
		Error apiError `json:"error"`
	}{e})
}

// badArgument answers 400 BadArgument naming the offending parameter.
func badArgument(w http.ResponseWriter, target, msg string) {
	writeError(w, http.StatusBadRequest, apiError{Code: "BadArgument", Message: msg, Target: target})
}

// writeOAuthError answers 400 with the identity service's error shape.
func writeOAuthError(w http.ResponseWriter, code, description string) {
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, http.StatusBadRequest, map[string]any{"error": code, "error_description": description, "error_uri": nil})
}

func itoa(n int) string { return strconv.Itoa(n) }

// bufferedWriter holds a response back, so that a fault can delay or drop
// it after the request was processed in full.
type bufferedWriter struct {
	w      http.ResponseWriter
	header http.Header
	status int
	body   bytes.Buffer
}

func newBufferedWriter(w http.ResponseWriter) *bufferedWriter {
	return &bufferedWriter{w: w, header: http.Header{}}
}

func (b *bufferedWriter) Header() http.Header { return b.header }

func (b *bufferedWriter) WriteHeader(status int) {
	if b.status == 0 {
		b.status = status
	}
}

func (b *bufferedWriter) Write(p []byte) (int, error) {
	if b.status == 0 {
		b.status = http.StatusOK
	}
	return b.body.Write(p)
}

// flush sends the held response.
func (b *bufferedWriter) flush() {
	h := b.w.Header()
	for k, v := range b.header {
		h[k] = v
	}
	if b.status == 0 {
		b.status = http.StatusOK
	}
	b.w.WriteHeader(b.status)
	_, _ = b.w.Write(b.body.Bytes())
}
