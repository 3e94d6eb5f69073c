package httpapi

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strconv"

	"github.com/einvoice/einvoice/internal/einvoice"
	"github.com/einvoice/einvoice/internal/invoicing"
	"github.com/einvoice/einvoice/internal/web"
)

// keptHeaders are the response headers kept with a response under an
// Idempotency-Key and replayed with it.
var keptHeaders = []string{"Content-Type", "Location"}

// idempotent runs h under the request's Idempotency-Key (DECISIONS 15), for
// a POST that carries one: after authentication (the tenant is known) and
// before the handler. The body is read once here, hashed with the method
// and path, and handed on to the handler; the key is claimed
// (invoicing.Service.BeginIdempotent), and the handler's response kept
// under it or the key freed (invoicing.KeepsResponse). A retry of a finished request is answered the
// kept response with Idempotent-Replayed: true.
func (s *Server) idempotent(w http.ResponseWriter, r *http.Request, k *einvoice.APIKey, h apiFunc) error {
	keys, has := r.Header[invoicing.IdempotencyHeader]
	if r.Method != http.MethodPost || !has {
		return h(w, r, k)
	}
	if len(keys) > 1 {
		return &einvoice.Error{Code: einvoice.CodeValidationFailed, Message: "The given data was invalid.",
			Fields: einvoice.FieldErrors{invoicing.IdempotencyHeader: {"must be given once"}}}
	}
	if err := invoicing.CheckIdempotencyKey(keys[0]); err != nil {
		return err
	}
	// The body, read once for its hash and handed on: at most one byte over
	// the route's limit, so that what is larger is the handler's 413 (not
	// kept) without being read whole.
	limit := bodyLimit(r.Pattern)
	if r.ContentLength > limit {
		return h(w, r, k)
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, limit+1))
	r.Body = io.NopCloser(io.MultiReader(bytes.NewReader(body), r.Body))
	if err != nil || int64(len(body)) > limit {
		return h(w, r, k) // unreadable (400) or too large (413): never kept
	}
	call, err := s.svc.BeginIdempotent(r.Context(), k.TenantID, keys[0], r.Method, r.URL.RequestURI(), body)
	if err != nil {
		return err
	}
	if call.Replay != nil {
		replay(w, call.Replay)
		return nil
	}
	rec := &keepWriter{ResponseWriter: w}
	end := func() {
		resp := einvoice.IdempotentResponse{Status: rec.status, Body: rec.body.Bytes(), Header: map[string]string{}}
		for _, name := range keptHeaders {
			if v := w.Header().Get(name); v != "" {
				resp.Header[name] = v
			}
		}
		// The response is written: ending the key must not depend on the
		// client still listening.
		if err := s.svc.EndIdempotent(context.WithoutCancel(r.Context()), call, resp); err != nil {
			s.logger.ErrorContext(r.Context(), "idempotency key not ended", "request_id", web.RequestID(r.Context()), "error", err)
		}
	}
	defer func() {
		if v := recover(); v != nil {
			rec.status = http.StatusInternalServerError // a panic is never kept
			end()
			panic(v)
		}
	}()
	if err := h(rec, r, k); err != nil {
		web.WriteError(rec, r, s.logger, err)
	}
	if rec.status == 0 {
		rec.status = http.StatusOK
	}
	end()
	return nil
}

// replay writes a kept response.
func replay(w http.ResponseWriter, resp *einvoice.IdempotentResponse) {
	hdr := w.Header()
	for name, v := range resp.Header {
		hdr.Set(name, v)
	}
	hdr.Set("Idempotent-Replayed", "true")
	hdr.Set("Content-Length", strconv.Itoa(len(resp.Body)))
	w.WriteHeader(resp.Status)
	_, _ = w.Write(resp.Body)
}

// keepWriter passes a response through and keeps a copy of its status and
// body.
type keepWriter struct {
	http.ResponseWriter
	status int
	body   bytes.Buffer
}

func (k *keepWriter) WriteHeader(code int) {
	if k.status == 0 {
		k.status = code
	}
	k.ResponseWriter.WriteHeader(code)
}

func (k *keepWriter) Write(b []byte) (int, error) {
	if k.status == 0 {
		k.status = http.StatusOK
	}
	k.body.Write(b)
	return k.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the connection.
func (k *keepWriter) Unwrap() http.ResponseWriter { return k.ResponseWriter }
