package web

import (
	"net/http"
	"net/url"
	"strings"
)

// SameOrigin reports whether a form post came from one of our own pages:
// its Origin header, or else (no Origin, or "null") its Referer, names
// the request's own host or one of hosts (the public URL's, behind a
// proxy), over http or https. A post that carries neither header is
// refused: every browser sends one of them with a form post of a page
// whose Referrer-Policy is same-origin, as ours are; two Origin headers
// are refused too.
func SameOrigin(r *http.Request, hosts ...string) bool {
	src := ""
	switch origin := r.Header.Values("Origin"); {
	case len(origin) > 1:
		return false
	case len(origin) == 1 && origin[0] != "" && origin[0] != "null":
		src = origin[0]
	default:
		referer := r.Header.Values("Referer")
		if len(referer) != 1 {
			return false
		}
		src = referer[0]
	}
	u, err := url.Parse(src)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return false
	}
	if strings.EqualFold(u.Host, r.Host) {
		return true
	}
	for _, h := range hosts {
		if h != "" && strings.EqualFold(u.Host, h) {
			return true
		}
	}
	return false
}
