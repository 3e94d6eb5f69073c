package cli

import (
	"crypto/hmac"
	"crypto/sha256"
	"log/slog"
	"net/http"
	"time"

	"github.com/einvoice/einvoice/internal/dashboard"
	"github.com/einvoice/einvoice/internal/invoicing"
)

// newDashboard makes the web dashboard of serve. Its CSRF key is derived
// from the request page's (itself derived from the secret key), so replicas
// sharing the secret key accept each other's forms.
func newDashboard(svc *invoicing.Service, pageSecret []byte, now func() time.Time, logger *slog.Logger) http.Handler {
	m := hmac.New(sha256.New, pageSecret)
	m.Write([]byte("einvoice dashboard csrf v1"))
	return dashboard.New(dashboard.Options{Service: svc, Secret: m.Sum(nil), Now: now, Logger: logger})
}
