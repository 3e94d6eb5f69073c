package httpapi

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"net/url"
	"strings"
)

// newPageSecret is the key of the request page's CSRF tokens when none is
// given: random, so tokens live as long as the process (a single node).
func newPageSecret() []byte {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return b
}

// csrfToken is the request page's CSRF token for a receipt token: an
// HMAC-SHA256 of it under the server's secret (replicas that share the
// secret accept each other's), base64url.
func (s *Server) csrfToken(receiptToken string) string {
	m := hmac.New(sha256.New, s.pageSecret)
	m.Write([]byte("einvoice request page csrf\x00"))
	m.Write([]byte(receiptToken))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// checkCSRF reports whether got is the CSRF token of receiptToken
// (compared in constant time).
func (s *Server) checkCSRF(receiptToken, got string) bool {
	if got == "" || len(got) > 100 {
		return false
	}
	return hmac.Equal([]byte(got), []byte(s.csrfToken(receiptToken)))
}

// sameOrigin reports whether a form post may come from where it says: no
// Origin header (older browsers, non-browsers: the CSRF token decides), or
// one whose host is the request's own host or the public URL's.
func (s *Server) sameOrigin(r *http.Request) bool {
	origin := r.Header.Values("Origin")
	switch len(origin) {
	case 0:
		return true
	case 1:
	default:
		return false
	}
	u, err := url.Parse(origin[0])
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return false // "null" (a sandboxed frame, a redirect chain) and the like
	}
	if strings.EqualFold(u.Host, r.Host) {
		return true
	}
	if pub, err := url.Parse(s.svc.ReceiptRequestURL("")); err == nil && pub.Host != "" && strings.EqualFold(u.Host, pub.Host) {
		return true
	}
	return false
}
