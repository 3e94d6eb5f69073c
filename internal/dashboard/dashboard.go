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
	"github.com/einvoice/einvoice/internal/web"
)

// Options configures the dashboard.
type Options struct {
	// Service is the application: every page calls it, and nothing else.
	Service *invoicing.Service
	// Secret keys the CSRF tokens (web.CSRF); replicas must share it.
	// Random when empty (one process only).
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
	csrf   *web.CSRF
	now    func() time.Time
	logger *slog.Logger
	pages  *pages
	// root is the handler the pages are registered on (Mount).
	root *web.Root
	// audit records the changes of the pages whose actor the sign-in set
	// (DECISIONS 20).
	audit *web.Audit
}

// New returns the dashboard's handler.
func New(o Options) *Dashboard {
	d := &Dashboard{svc: o.Service, csrf: web.NewCSRF(o.Secret, csrfPurpose), now: o.Now, logger: o.Logger, pages: loadPages()}
	if d.now == nil {
		d.now = time.Now
	}
	if d.logger == nil {
		d.logger = slog.Default()
	}
	if d.svc != nil {
		d.audit = &web.Audit{Record: d.svc.RecordAudit, Types: auditTypes}
	}
	return d
}

// Mount registers every page on root.
func (d *Dashboard) Mount(root *web.Root) {
	d.root = root
	d.routes()
}

// auditTypes maps the dashboard's collections to the audit log's resource
// types.
var auditTypes = map[string]string{"documents": "document", "buyers": "buyer", "sellers": "seller", "receipts": "receipt",
	"consolidations": "consolidation", "received": "received_document", "webhooks": "webhook", "keys": "key",
	"new": "document", "preview": "document", "settings": "mail_settings", "authority": "profile", "signin": "session", "signout": "session"}

// handle registers a page: its answers carry the dashboard's security
// headers, and a panic there is an HTML page (web.Root.HandlePage).
func (d *Dashboard) handle(pattern string, h http.Handler) {
	d.root.HandlePage(pattern, d.audit.Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		setSecurityHeaders(w.Header())
		h.ServeHTTP(w, r)
	})))
}
