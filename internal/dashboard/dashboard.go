// Package dashboard is the web dashboard of DECISIONS 18, served under /app:
// server-rendered HTML (html/template, embedded) over invoicing.Service, the
// same use cases as the API and no other way to the data. A person signs in
// with an API key; the browser then holds a session cookie (sessions live in
// the database, so replicas share them). Every form carries a CSRF token;
// every answer carries a strict Content-Security-Policy; there is no script.
//
// Adding a page: see dashboard-HOWTO.md at the root of the repository.
package dashboard

import (
	"log/slog"
	"net/http"
	"time"

	"github.com/einvoice/einvoice/internal/invoicing"
)

// Options configures the dashboard.
type Options struct {
	// Service is the application: every page calls it, and nothing else.
	Service *invoicing.Service
	// Secret keys the CSRF tokens; replicas must share it. Random when
	// empty (one process only).
	Secret []byte
	// Now is the clock of what the pages decide by the time (whether the
	// cancel window is open); time.Now when nil.
	Now func() time.Time
	// Logger receives the errors no page can show (slog.Default when nil).
	Logger *slog.Logger
}

// Dashboard is the http.Handler of /app and everything under it.
type Dashboard struct {
	svc    *invoicing.Service
	secret []byte
	now    func() time.Time
	logger *slog.Logger
	pages  *pages
	mux    *http.ServeMux
}

// New returns the dashboard's handler.
func New(o Options) *Dashboard {
	d := &Dashboard{svc: o.Service, secret: o.Secret, now: o.Now, logger: o.Logger, pages: loadPages(), mux: http.NewServeMux()}
	if len(d.secret) == 0 {
		d.secret = randomSecret()
	}
	if d.now == nil {
		d.now = time.Now
	}
	if d.logger == nil {
		d.logger = slog.Default()
	}
	d.routes()
	return d
}

// ServeHTTP sets the security headers of every answer, then routes.
func (d *Dashboard) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	setSecurityHeaders(w.Header())
	d.mux.ServeHTTP(w, r)
}
