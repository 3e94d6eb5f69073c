package dashboard

import (
	"net/http"

	"github.com/einvoice/einvoice/internal/web"
)

// csp allows the service's own origin only: no inline script or style, no
// framing of our pages anywhere (frame-ancestors), our own PDF in an
// <iframe> of our own pages (frame-src), forms posted only to us.
const csp = "default-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'; object-src 'none'; frame-src 'self'; img-src 'self'"

// setSecurityHeaders sets the headers of every dashboard answer (web's,
// with the dashboard's CSP).
func setSecurityHeaders(h http.Header) { web.SetPageHeaders(h, csp) }

// setPDFFrameHeaders lets our own pages frame an answer (the inline PDF):
// frame-ancestors 'self' instead of 'none'.
func setPDFFrameHeaders(h http.Header) {
	h.Set("Content-Security-Policy", "default-src 'none'; frame-ancestors 'self'; base-uri 'none'; object-src 'self'; plugin-types application/pdf")
	h.Set("X-Frame-Options", "SAMEORIGIN")
}

// csrfPurpose names the dashboard's CSRF tokens (web.CSRF).
const csrfPurpose = "einvoice dashboard csrf v1"

// csrfToken is the CSRF token of a session: bound to the session's id, so
// it changes with every session and is never stored.
func (d *Dashboard) csrfToken(sessionID []byte) string { return d.csrf.Token(sessionID) }

// validCSRF reports whether a POST came from one of our own pages (web's
// same-origin rule: Origin, else Referer, neither refused) and carries
// the token of subject.
func (d *Dashboard) validCSRF(r *http.Request, subject []byte) bool {
	return web.SameOrigin(r) && d.csrf.Valid(r, subject)
}
