// Package webhook is the HTTP adapter of webhook deliveries
// (einvoice.WebhookSender): every request bounded in time and in the size
// of the answer read, redirects not followed, and, unless allowed, no
// connection to a loopback, private, link-local or unspecified address,
// checked on the address actually dialled (after DNS resolution).
package webhook

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"syscall"
	"time"

	"github.com/einvoice/einvoice/internal/einvoice"
)

// MaxResponse is how much of a receiver's answer is read; a longer answer
// fails the attempt.
const MaxResponse = 64 << 10

// Timeout bounds one delivery, connection included.
const Timeout = 10 * time.Second

// errPrivate is the refusal of a private address.
var errPrivate = errors.New("the address is loopback, private, link-local or unspecified: refused (serve --webhook-allow-private allows it)")

// Sender delivers webhook requests.
type Sender struct {
	client       *http.Client
	allowPrivate bool
}

var _ einvoice.WebhookSender = (*Sender)(nil)

// New returns a Sender; allowPrivate lets it reach private addresses.
func New(allowPrivate bool) *Sender {
	dialer := &net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}
	if !allowPrivate {
		dialer.Control = func(_, address string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(address)
			if err != nil {
				return fmt.Errorf("dial %s: %w", address, err)
			}
			if !einvoice.PublicAddr(ap.Addr()) {
				return fmt.Errorf("dial %s: %w", address, errPrivate)
			}
			return nil
		}
	}
	tr := &http.Transport{
		Proxy:                  nil, // a proxy would dial for us, unchecked
		DialContext:            dialer.DialContext,
		TLSHandshakeTimeout:    5 * time.Second,
		ResponseHeaderTimeout:  Timeout,
		MaxIdleConns:           256,
		MaxIdleConnsPerHost:    64,
		IdleConnTimeout:        90 * time.Second,
		MaxResponseHeaderBytes: 64 << 10,
	}
	return &Sender{allowPrivate: allowPrivate, client: &http.Client{
		Transport: tr,
		Timeout:   Timeout,
		// A redirect is the receiver's answer (3xx, a failure), never
		// followed: it could lead anywhere.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
}

// Send POSTs body to rawURL and returns the status code. An answer longer
// than MaxResponse is an error (with its status code).
func (s *Sender) Send(ctx context.Context, rawURL string, headers map[string]string, body []byte) (int, error) {
	if msg := einvoice.CheckWebhookURL(rawURL, s.allowPrivate); msg != "" {
		return 0, fmt.Errorf("url %s", msg)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, rawURL, bytes.NewReader(body))
	if err != nil {
		return 0, fmt.Errorf("make request: %w", err)
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := s.client.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // the URL is the webhook's own: no need to repeat it
		}
		return 0, fmt.Errorf("post: %w", err)
	}
	defer resp.Body.Close()
	n, err := io.Copy(io.Discard, io.LimitReader(resp.Body, MaxResponse+1))
	if err != nil {
		return resp.StatusCode, fmt.Errorf("read the answer: %w", err)
	}
	if n > MaxResponse {
		return resp.StatusCode, fmt.Errorf("answer longer than %d bytes", MaxResponse)
	}
	return resp.StatusCode, nil
}

// CheckURL resolves the URL's host and refuses it when any of its addresses
// is private. A name that does not resolve now is accepted (it is checked
// again at every delivery).
func (s *Sender) CheckURL(ctx context.Context, rawURL string) error {
	if s.allowPrivate {
		return nil
	}
	u, err := url.Parse(rawURL)
	if err != nil {
		return fmt.Errorf("must be an absolute http or https URL")
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	addrs, err := net.DefaultResolver.LookupNetIP(ctx, "ip", u.Hostname())
	if err != nil {
		return nil
	}
	for _, a := range addrs {
		if !einvoice.PublicAddr(a) {
			return fmt.Errorf("must not point at a loopback, private or link-local address (%s resolves to %s)", u.Hostname(), a)
		}
	}
	return nil
}
