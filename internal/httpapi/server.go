// Package httpapi is the HTTP adapter of the service: the routes of
// /api/v1, the operations endpoints, authentication, the rate limit, and
// the JSON envelope and errors of DECISIONS sections 1 and 2.
package httpapi

import (
	"log/slog"
	"net/http"
	"time"

	"github.com/einvoice/einvoice/internal/einvoice"
	"github.com/einvoice/einvoice/internal/invoicing"
	"github.com/einvoice/einvoice/internal/web"
)

// Options are the dependencies of the API.
type Options struct {
	// Service is the application: every use case the routes call.
	Service *invoicing.Service
	Limiter einvoice.RateLimiter
	Logger  *slog.Logger
	// Now is the clock (time.Now when nil).
	Now func() time.Time
}

// Server is the JSON API under /api/v1 and the operations endpoints
// (/healthz, /readyz, /metrics, /openapi.json, /docs): a surface that
// Mount registers on the root handler.
type Server struct {
	svc     *invoicing.Service
	limiter einvoice.RateLimiter
	logger  *slog.Logger
	now     func() time.Time
	// root is the handler the routes are registered on (Mount).
	root *web.Root
	// audit records the changes of the routes (audit.go).
	audit *web.Audit
}

// New returns the API; Mount registers its routes.
func New(o Options) *Server {
	s := &Server{svc: o.Service, limiter: o.Limiter, logger: o.Logger, now: o.Now}
	if s.now == nil {
		s.now = time.Now
	}
	if s.logger == nil {
		s.logger = slog.New(slog.DiscardHandler)
	}
	if s.svc != nil {
		s.audit = &web.Audit{Record: s.svc.RecordAudit, Types: auditTypes()}
	}
	return s
}

// Mount registers the routes of the API and the operations endpoints on
// root.
func (s *Server) Mount(root *web.Root) {
	s.root = root
	s.routes()
}

// apiFunc is the handler of an authenticated /api/v1 route. An error it
// returns is written as the error body.
type apiFunc func(w http.ResponseWriter, r *http.Request, k *einvoice.APIKey) error
