package web

import (
	"net/http"
	"strings"
)

// ClientAddress is the address a request came from, as the surfaces rate
// limit and audit it: the peer's IP (a proxy's X-Forwarded-For is not
// trusted: it is the client's to write).
func ClientAddress(r *http.Request) string {
	host := r.RemoteAddr
	if i := strings.LastIndexByte(host, ':'); i >= 0 && !strings.HasSuffix(host, "]") {
		host = host[:i]
	}
	return strings.Trim(host, "[]")
}
