package cli

import (
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/einvoice/einvoice/internal/dashboard"
	"github.com/einvoice/einvoice/internal/einvoice"
	"github.com/einvoice/einvoice/internal/httpapi"
	"github.com/einvoice/einvoice/internal/invoicing"
	"github.com/einvoice/einvoice/internal/requestpage"
	"github.com/einvoice/einvoice/internal/web"
)

// surfaces are what the web surfaces of serve are made of.
type surfaces struct {
	svc     *invoicing.Service
	sandbox http.Handler // the built-in sandbox, or nil
	limiter einvoice.RateLimiter
	logger  *slog.Logger
	reg     *prometheus.Registry
	// secret keys the CSRF tokens of every HTML form (webSecret).
	secret []byte
	// now is the dashboard's clock (the cancel window it shows).
	now func() time.Time
}

// routes mounts every surface of the service on one root handler, which
// gives each request its id, log line and metrics (web.Root):
//
//	/api/v1/...                    the JSON API (httpapi)
//	/healthz /readyz /metrics
//	/openapi.json /docs            the operations endpoints (httpapi)
//	/app, /app/...                 the dashboard (dashboard)
//	/r/{token}, /r/{token}/pdf     the buyer's request page (requestpage)
//	/sandbox/...                   the built-in tax-authority sandbox, when on
//	                               (its access lines at debug level: the
//	                               service's own pollers call it)
func routes(o surfaces) http.Handler {
	root := web.NewRoot(web.RootOptions{Logger: o.logger, Registry: o.reg})
	httpapi.New(httpapi.Options{Service: o.svc, Limiter: o.limiter, Logger: o.logger}).Mount(root)
	dashboard.New(dashboard.Options{Service: o.svc, Secret: o.secret, Now: o.now, Logger: o.logger}).Mount(root)
	requestpage.New(requestpage.Options{Service: o.svc, Limiter: o.limiter, Logger: o.logger, Secret: o.secret}).Mount(root)
	if o.sandbox != nil {
		root.HandleQuiet("/sandbox/", http.StripPrefix("/sandbox", o.sandbox))
	}
	return root
}

// webSecret is the key of the CSRF tokens of every HTML form (each surface
// binds its tokens to a purpose of its own): derived from the secret key,
// so that replicas sharing the key accept each other's forms, and never
// the key itself.
func webSecret(cfg Config, logger *slog.Logger) ([]byte, error) {
	key, err := loadSecretKey(cfg, logger)
	if err != nil {
		return nil, fmt.Errorf("web secret: %w", err)
	}
	return web.DeriveKey(key, "einvoice web csrf v1"), nil
}
