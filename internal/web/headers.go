package web

import (
	"crypto/rand"
	"encoding/base64"
	"net/http"
)

// setCommonHeaders sets the headers every answer carries: its request id,
// no sniffing, no caching, no referrer (an HTML surface sets its own
// policy with SetPageHeaders).
func setCommonHeaders(h http.Header, requestID string) {
	h.Set("X-Request-Id", requestID)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", "no-store")
	h.Set("Referrer-Policy", "no-referrer")
}

// SetPageHeaders sets the security headers of an HTML answer with its own
// Content-Security-Policy (each page may carry a nonce of its own): no
// framing by another site, no caching, the referrer sent to our own origin
// only (so that a form post carries Origin, which SameOrigin checks, and
// a page whose URL holds a secret never leaks it elsewhere).
func SetPageHeaders(h http.Header, csp string) {
	h.Set("Content-Security-Policy", csp)
	h.Set("X-Frame-Options", "DENY")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "same-origin")
	h.Set("Cache-Control", "no-store")
	h.Set("Cross-Origin-Opener-Policy", "same-origin")
	h.Set("Cross-Origin-Resource-Policy", "same-origin")
	h.Set("Permissions-Policy", "camera=(), microphone=(), geolocation=(), payment=()")
}

// Nonce returns a fresh random nonce for one answer's CSP
// ('nonce-<value>'), base64url.
func Nonce() string {
	b := make([]byte, 18)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}
