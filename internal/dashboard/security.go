package dashboard

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"net/url"
)

// csp allows the service's own origin only: no inline script or style, no
// framing of our pages anywhere (frame-ancestors), our own PDF in an
// <iframe> of our own pages (frame-src), forms posted only to us.
const csp = "default-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'; object-src 'none'; frame-src 'self'; img-src 'self'"

// setSecurityHeaders sets the headers of every dashboard answer.
func setSecurityHeaders(h http.Header) {
	h.Set("Content-Security-Policy", csp)
	h.Set("X-Frame-Options", "DENY")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "same-origin")
	h.Set("Cache-Control", "no-store")
	h.Set("Cross-Origin-Opener-Policy", "same-origin")
}

// setPDFFrameHeaders lets our own pages frame an answer (the inline PDF):
// frame-ancestors 'self' instead of 'none'.
func setPDFFrameHeaders(h http.Header) {
	h.Set("Content-Security-Policy", "default-src 'none'; frame-ancestors 'self'; base-uri 'none'; object-src 'self'; plugin-types application/pdf")
	h.Set("X-Frame-Options", "SAMEORIGIN")
}

// randomSecret returns a key for the CSRF tokens of one process.
func randomSecret() []byte {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return b
}

// csrfToken is the CSRF token of a session: an HMAC of the session's id
// under the dashboard's secret, so it changes with every session and is
// never stored.
func (d *Dashboard) csrfToken(sessionID []byte) string {
	m := hmac.New(sha256.New, d.secret)
	m.Write([]byte("einvoice dashboard csrf v1\x00"))
	m.Write(sessionID)
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// validCSRF reports whether the request's csrf form field is the session's
// token.
func (d *Dashboard) validCSRF(r *http.Request, sessionID []byte) bool {
	got := r.PostFormValue("csrf")
	return got != "" && hmac.Equal([]byte(got), []byte(d.csrfToken(sessionID)))
}

// sameOrigin reports whether a POST came from one of our own pages: its
// Origin, or else its Referer, names this host. A POST naming neither is
// refused: every browser sends one of them with a form.
func sameOrigin(r *http.Request) bool {
	src := r.Header.Get("Origin")
	if src == "" || src == "null" {
		src = r.Header.Get("Referer")
	}
	if src == "" {
		return false
	}
	u, err := url.Parse(src)
	return err == nil && u.Host != "" && u.Host == r.Host && (u.Scheme == "http" || u.Scheme == "https")
}
