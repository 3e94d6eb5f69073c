package web

import (
	"context"
	"net/http"
	"regexp"

	"github.com/google/uuid"
)

type ctxKey int

const requestIDKey ctxKey = iota

// saneRequestID is what a client's X-Request-Id may be to be kept.
var saneRequestID = regexp.MustCompile(`^[A-Za-z0-9._:-]{1,128}$`)

// RequestID is the id Root gave the request of ctx ("" outside one).
func RequestID(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey).(string)
	return id
}

// WithRequestID returns ctx carrying the request id.
func WithRequestID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, requestIDKey, id)
}

// newRequestID is the id of r: the client's X-Request-Id when it is sane,
// else a new UUID.
func newRequestID(r *http.Request) string {
	if id := r.Header.Get("X-Request-Id"); saneRequestID.MatchString(id) {
		return id
	}
	return uuid.NewString()
}
