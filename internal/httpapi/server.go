// Package httpapi is the HTTP adapter of the service: the routes of
// /api/v1, the operations endpoints, authentication, the rate limit, and
// the JSON envelope and errors of DECISIONS sections 1 and 2.
package httpapi

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/einvoice/einvoice/internal/einvoice"
	"github.com/einvoice/einvoice/internal/invoicing"
)

// Options are the dependencies of the handler.
type Options struct {
	// Service is the application: every use case the routes call.
	Service *invoicing.Service
	// Sandbox, when set, is the built-in tax-authority sandbox, mounted
	// under /sandbox (its own OAuth; no API key).
	Sandbox http.Handler
	// Dashboard, when set, is the web dashboard, mounted at /app and under
	// /app/ (its own sessions; no API key).
	Dashboard http.Handler
	Limiter   einvoice.RateLimiter
	Logger    *slog.Logger
	// Registry receives the HTTP metrics and is served at /metrics.
	Registry *prometheus.Registry
	// Now is the clock (time.Now when nil).
	Now func() time.Time
	// PageSecret keys the CSRF tokens of the buyer's request page; replicas
	// must share it (serve derives it from the secret key). Random when
	// empty.
	PageSecret []byte
}

// Server is the http.Handler of the service.
type Server struct {
	svc       *invoicing.Service
	sandbox   http.Handler
	dashboard http.Handler
	limiter   einvoice.RateLimiter
	logger    *slog.Logger
	registry  *prometheus.Registry
	metrics   *metrics
	now       func() time.Time
	mux       *http.ServeMux
	// pageSecret keys the request page's CSRF tokens.
	pageSecret []byte
}

// New returns the handler of every route.
func New(o Options) *Server {
	s := &Server{svc: o.Service, sandbox: o.Sandbox, dashboard: o.Dashboard, limiter: o.Limiter, logger: o.Logger, registry: o.Registry, now: o.Now, mux: http.NewServeMux(), pageSecret: o.PageSecret}
	if len(s.pageSecret) == 0 {
		s.pageSecret = newPageSecret()
	}
	if s.now == nil {
		s.now = time.Now
	}
	if s.logger == nil {
		s.logger = slog.New(slog.DiscardHandler)
	}
	if s.registry == nil {
		s.registry = prometheus.NewRegistry()
	}
	s.metrics = newMetrics(s.registry)
	s.routes()
	return s
}

// apiFunc is the handler of an authenticated /api/v1 route. An error it
// returns is written as the error body.
type apiFunc func(w http.ResponseWriter, r *http.Request, k *einvoice.APIKey) error

type ctxKey int

const requestIDKey ctxKey = iota

func requestID(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey).(string)
	return id
}
