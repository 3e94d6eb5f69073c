package requestpage

import "net/url"

// publicHost is the host of the service's public URL, which a form post
// may name as its origin besides the request's own host (a proxy in
// front).
func (s *Pages) publicHost() string {
	if pub, err := url.Parse(s.svc.ReceiptRequestURL("")); err == nil {
		return pub.Host
	}
	return ""
}
