package web

import (
	"context"
	"log/slog"
)

// LogHandler returns a slog.Handler that adds the request id of a log
// call's context (Root's) to every record logged with one (the *Context
// methods), unless the record names it already: every line a request
// causes carries its id, whichever surface or layer writes it.
func LogHandler(h slog.Handler) slog.Handler { return requestIDHandler{h} }

type requestIDHandler struct{ slog.Handler }

func (h requestIDHandler) Handle(ctx context.Context, r slog.Record) error {
	if id := RequestID(ctx); id != "" {
		named := false
		r.Attrs(func(a slog.Attr) bool {
			named = a.Key == "request_id"
			return !named
		})
		if !named {
			r.AddAttrs(slog.String("request_id", id))
		}
	}
	return h.Handler.Handle(ctx, r)
}

func (h requestIDHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return requestIDHandler{h.Handler.WithAttrs(as)}
}

func (h requestIDHandler) WithGroup(name string) slog.Handler {
	return requestIDHandler{h.Handler.WithGroup(name)}
}
