package client

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	mrand "math/rand/v2"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Version is the version of the API this client speaks (the /api/v1 of
// its paths), sent in its User-Agent ("einvoice-go/v1").
const Version = "v1"

// maxResponse bounds what the client reads of one answer (a PDF or a UBL
// document is far smaller).
const maxResponse = 64 << 20

// Client calls one einvoice service with one API key. It is safe for
// concurrent use; make one and share it.
type Client struct {
	// Buyers are the tenant's buyers (/api/v1/buyers).
	Buyers *PartyService
	// Sellers are the sellers a tenant issues self-billed documents for
	// (/api/v1/on-behalf-sellers).
	Sellers *PartyService
	// Documents are the e-invoice documents of every kind, their
	// validation, submission, status, cancellation and visual forms.
	Documents *DocumentService
	// Profile is the tenant's own profile and tax-authority settings.
	Profile *ProfileService
	// Codes are the reference code lists (states, countries, tax types...).
	Codes *CodeService
	// Events are the tenant's events (/api/v1/events), kept 30 days.
	Events *EventService
	// Webhooks are the tenant's webhook endpoints and their deliveries.
	Webhooks *WebhookService
	// ReceivedDocuments are the documents others issued to the tenant.
	ReceivedDocuments *ReceivedDocumentService
	// Receipts are the tenant's B2C receipts (/api/v1/receipts).
	Receipts *ReceiptService
	// Consolidations make the month's receipts consolidated invoices
	// (/api/v1/consolidations).
	Consolidations *ConsolidationService
	// Mail is the tenant's mail outbox and mailbox, where Valid documents
	// are mailed to their buyers, and its mail settings (/api/v1/mail).
	Mail *MailService
	// AuditLog is the tenant's audit log (/api/v1/audit-log): every change
	// and who made it; read-write keys only.
	AuditLog *AuditLogService

	base      *url.URL
	key       string
	http      *http.Client
	userAgent string
	retries   int
	minWait   time.Duration
	maxWait   time.Duration
}

// Option configures a Client.
type Option func(*Client)

// WithHTTPClient makes the client send its requests through h (its
// transport, timeout and proxy settings). The default is an http.Client
// with a 60-second timeout.
func WithHTTPClient(h *http.Client) Option { return func(c *Client) { c.http = h } }

// WithRetries sets how many times a request is retried when that is safe
// (see the package documentation); 0 turns retries off. The default is 2.
func WithRetries(n int) Option { return func(c *Client) { c.retries = max(n, 0) } }

// WithBackoff sets the first wait between retries and the longest one; each
// retry waits a random time up to twice the previous bound. The defaults are
// 250 ms and 10 s. A Retry-After from the service longer than max is not
// waited for: the error is returned with it (Error.RetryAfter).
func WithBackoff(first, max time.Duration) Option {
	return func(c *Client) { c.minWait, c.maxWait = first, max }
}

// WithUserAgent sets the User-Agent sent with every request, before the
// client's own ("einvoice-go/v1").
func WithUserAgent(ua string) Option { return func(c *Client) { c.userAgent = ua + " " + c.userAgent } }

// New returns a client of the service at baseURL (for example
// "http://localhost:8080", without /api/v1) using apiKey. An empty key sends
// no Authorization header (the health and documentation endpoints need none).
// It panics if baseURL is not an absolute http or https URL, which is a
// programming error.
func New(baseURL, apiKey string, opts ...Option) *Client {
	u, err := url.Parse(strings.TrimRight(baseURL, "/"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		panic(fmt.Sprintf("client.New: base URL %q is not an absolute http(s) URL", baseURL))
	}
	c := &Client{base: u, key: apiKey, http: &http.Client{Timeout: 60 * time.Second},
		userAgent: "einvoice-go/" + Version, retries: 2, minWait: 250 * time.Millisecond, maxWait: 10 * time.Second}
	for _, o := range opts {
		o(c)
	}
	c.Buyers = &PartyService{c: c, path: "/api/v1/buyers"}
	c.Sellers = &PartyService{c: c, path: "/api/v1/on-behalf-sellers"}
	c.Documents = &DocumentService{c: c}
	c.Profile = &ProfileService{c: c}
	c.Codes = &CodeService{c: c}
	c.Events = &EventService{c: c}
	c.Webhooks = &WebhookService{c: c}
	c.ReceivedDocuments = &ReceivedDocumentService{c: c}
	c.Receipts = &ReceiptService{c: c}
	c.Consolidations = &ConsolidationService{c: c}
	c.Mail = &MailService{c: c}
	c.AuditLog = &AuditLogService{c: c}
	return c
}

// CallOption adjusts one call.
type CallOption func(*Request)

// IdempotencyKey sends key as the request's Idempotency-Key (1 to 255
// printable ASCII characters) instead of the random one the client makes
// for every POST: the service answers a repeated request with the same key,
// method, path and body with the first answer (header Idempotent-Replayed:
// true) instead of acting twice, for 24 hours. Give your own key to an
// operation you mean to happen once and keep it with your record of the
// operation, so that a retry after a crash of your program sends the same
// one; the client's own key covers only its own retries of one call. An
// empty key sends none (the POST is then retried only when it cannot have
// been sent).
func IdempotencyKey(key string) CallOption {
	return func(r *Request) {
		if r.Header == nil {
			r.Header = http.Header{}
		}
		r.Header.Set(idempotencyHeader, key)
	}
}

// Request is one call of Do.
type Request struct {
	// Method and Path (from the root of the service: "/api/v1/buyers").
	Method string
	Path   string
	// Query is added to the path's own query.
	Query url.Values
	// Body is nil (no body), a []byte, json.RawMessage or string sent as
	// it is, or any other value sent as its JSON encoding.
	Body any
	// Header replaces the client's headers of the same names; a name
	// given with no value, or with the one value "", removes the client's
	// header (for example Authorization).
	Header http.Header
	// Accept is the Accept header; "application/json" when empty.
	Accept string
}

// Response is the service's answer to Do.
type Response struct {
	StatusCode int
	Header     http.Header
	// Body is the answer as received.
	Body []byte
	// Meta is the paging of a list answer decoded into Do's out; nil for
	// other answers, and when out is nil.
	Meta *Meta
}

// RequestID returns the id the service gave the request (X-Request-Id),
// the one to quote when reporting a problem.
func (r *Response) RequestID() string { return r.Header.Get("X-Request-Id") }

// Do sends one request and returns the answer. When out is not nil, the
// answer's data is decoded into it (and its paging into Response.Meta);
// with out nil the answer's bytes are left undecoded. Any status but
// 2xx is returned as an *Error, with the Response too. Do is the way to call
// an operation this client does not wrap yet; it retries as the package
// documentation says.
func (c *Client) Do(ctx context.Context, req *Request, out any) (*Response, error) {
	body, err := encodeBody(req.Body)
	if err != nil {
		return nil, fmt.Errorf("einvoice: %s %s: encode body: %w", req.Method, req.Path, err)
	}
	req = withIdempotencyKey(req)
	retryable := req.Method == http.MethodGet || req.Method == http.MethodHead || req.Method == http.MethodPut ||
		req.Method == http.MethodDelete || req.Header.Get(idempotencyHeader) != ""
	for attempt := 0; ; attempt++ {
		resp, err := c.send(ctx, req, body)
		if err == nil && resp.StatusCode < 300 {
			if err := decodeData(resp, out); err != nil {
				return resp, fmt.Errorf("einvoice: %s %s: %w", req.Method, req.Path, err)
			}
			return resp, nil
		}
		wait, again := c.retryAfter(attempt, err, resp, retryable)
		again = again && ctx.Err() == nil
		if !again || !sleep(ctx, wait) {
			if err != nil {
				return nil, fmt.Errorf("einvoice: %s %s: %w", req.Method, req.Path, err)
			}
			e := newError(resp)
			e.Method, e.Path = req.Method, req.Path
			return resp, e
		}
	}
}

// retryAfter says whether to try again after this outcome, and after how
// long.
func (c *Client) retryAfter(attempt int, err error, resp *Response, retryable bool) (time.Duration, bool) {
	if attempt >= c.retries {
		return 0, false
	}
	bound := c.minWait << attempt
	if bound > c.maxWait || bound <= 0 {
		bound = c.maxWait
	}
	wait := time.Duration(mrand.Int64N(int64(bound)) + 1)
	switch {
	case err != nil:
		if notSent(err) || retryable {
			return wait, true
		}
		return 0, false
	case retryable && resp.StatusCode == http.StatusConflict && errorCode(resp) == CodeIdempotencyKeyInUse:
		// The key's first attempt is still running: wait a little, then
		// get its answer.
		return max(wait, c.minWait), true
	case resp.StatusCode == http.StatusTooManyRequests,
		retryable && (resp.StatusCode == http.StatusBadGateway || resp.StatusCode == http.StatusServiceUnavailable || resp.StatusCode == http.StatusGatewayTimeout):
		if ra, ok := parseRetryAfter(resp.Header.Get("Retry-After")); ok {
			if ra > c.maxWait {
				return 0, false
			}
			wait = ra
		}
		return wait, true
	}
	return 0, false
}

// idempotencyHeader is the request header of an idempotency key.
const idempotencyHeader = "Idempotency-Key"

// withIdempotencyKey returns req with a new random Idempotency-Key when it
// is a POST without one (and without the header removed by the caller):
// every attempt of the call then sends the same key, so that the service
// acts once however often the call is retried. req itself is not changed.
func withIdempotencyKey(req *Request) *Request {
	if req.Method != http.MethodPost {
		return req
	}
	if _, given := req.Header[idempotencyHeader]; given {
		return req
	}
	r := *req
	r.Header = req.Header.Clone()
	if r.Header == nil {
		r.Header = http.Header{}
	}
	r.Header.Set(idempotencyHeader, rand.Text())
	return &r
}

// errorCode returns the error_code of a JSON error answer, or "".
func errorCode(resp *Response) string {
	if !isJSON(resp) {
		return ""
	}
	var body struct {
		Code string `json:"error_code"`
	}
	_ = json.Unmarshal(resp.Body, &body)
	return body.Code
}

// notSent reports whether err happened before the request could reach the
// service (so that no method can have run).
func notSent(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}

func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// send makes one attempt.
func (c *Client) send(ctx context.Context, req *Request, body []byte) (*Response, error) {
	// The path is appended as written (not resolved), so that what is sent
	// is what the caller wrote.
	target := c.base.String() + req.Path
	if len(req.Query) > 0 {
		sep := "?"
		if strings.Contains(req.Path, "?") {
			sep = "&"
		}
		target += sep + req.Query.Encode()
	}
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	hr, err := http.NewRequestWithContext(ctx, req.Method, target, rd)
	if err != nil {
		return nil, err
	}
	accept := req.Accept
	if accept == "" {
		accept = "application/json"
	}
	hr.Header.Set("Accept", accept)
	hr.Header.Set("User-Agent", c.userAgent)
	if body != nil {
		hr.Header.Set("Content-Type", "application/json")
	}
	if c.key != "" {
		hr.Header.Set("Authorization", "Bearer "+c.key)
	}
	for name, vs := range req.Header {
		if len(vs) == 0 || (len(vs) == 1 && vs[0] == "") {
			hr.Header.Del(name)
			continue
		}
		hr.Header[http.CanonicalHeaderKey(name)] = vs
	}
	hresp, err := c.http.Do(hr)
	if err != nil {
		return nil, err
	}
	defer hresp.Body.Close()
	raw, err := readBody(hresp)
	if err != nil {
		return nil, fmt.Errorf("read answer: %w", err)
	}
	if len(raw) > maxResponse {
		return nil, fmt.Errorf("answer larger than %d bytes", maxResponse)
	}
	return &Response{StatusCode: hresp.StatusCode, Header: hresp.Header, Body: raw}, nil
}

// readBody reads an answer whole, at most maxResponse+1 bytes, in one
// buffer when its length is known.
func readBody(resp *http.Response) ([]byte, error) {
	if n := resp.ContentLength; n >= 0 && n <= maxResponse {
		buf := make([]byte, n)
		if _, err := io.ReadFull(resp.Body, buf); err != nil {
			return nil, err
		}
		return buf, nil
	}
	return io.ReadAll(io.LimitReader(resp.Body, maxResponse+1))
}

// encodeBody turns a Request's Body into bytes, once, so that a retry sends
// the same ones.
func encodeBody(b any) ([]byte, error) {
	switch v := b.(type) {
	case nil:
		return nil, nil
	case []byte:
		return v, nil
	case json.RawMessage:
		return v, nil
	case string:
		return []byte(v), nil
	default:
		return json.Marshal(v)
	}
}

// isJSON reports whether the answer is JSON.
func isJSON(resp *Response) bool {
	ct := resp.Header.Get("Content-Type")
	return strings.HasPrefix(ct, "application/json") || strings.HasSuffix(strings.SplitN(ct, ";", 2)[0], "+json")
}

// decodeData decodes a success answer's envelope in one pass: its data
// into out and its meta into resp.Meta. With out nil nothing is decoded (a
// caller that wants the bytes alone pays nothing for them).
func decodeData(resp *Response, out any) error {
	if out == nil {
		return nil
	}
	if !isJSON(resp) {
		return fmt.Errorf("answer is %q, not JSON", resp.Header.Get("Content-Type"))
	}
	env := struct {
		Data any   `json:"data"`
		Meta *Meta `json:"meta"`
	}{Data: out}
	if err := json.Unmarshal(resp.Body, &env); err != nil {
		return fmt.Errorf("decode answer: %w", err)
	}
	resp.Meta = env.Meta
	return nil
}

// parseRetryAfter reads a Retry-After header: seconds or an HTTP date.
func parseRetryAfter(v string) (time.Duration, bool) {
	if v == "" {
		return 0, false
	}
	if s, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && s >= 0 {
		return time.Duration(s) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(time.Until(t), 0), true
	}
	return 0, false
}

// call is Do for the typed methods: path and query, a JSON body, the data
// decoded into out.
func (c *Client) call(ctx context.Context, method, path string, query url.Values, body, out any, opts []CallOption) (*Response, error) {
	req := &Request{Method: method, Path: path, Query: query, Body: body}
	for _, o := range opts {
		o(req)
	}
	return c.Do(ctx, req, out)
}

// raw is Do for the answers that are not JSON envelopes (UBL, PDF, images,
// metrics): the body as received.
func (c *Client) raw(ctx context.Context, path, accept string, query url.Values) ([]byte, error) {
	resp, err := c.Do(ctx, &Request{Method: http.MethodGet, Path: path, Query: query, Accept: accept}, nil)
	if err != nil {
		return nil, err
	}
	return resp.Body, nil
}

// file is raw for the visual forms, with their media type and file name.
func (c *Client) file(ctx context.Context, path, accept string, query url.Values) (*File, error) {
	resp, err := c.Do(ctx, &Request{Method: http.MethodGet, Path: path, Query: query, Accept: accept}, nil)
	if err != nil {
		return nil, err
	}
	f := &File{ContentType: resp.Header.Get("Content-Type"), Data: resp.Body}
	if _, params, err := mime.ParseMediaType(resp.Header.Get("Content-Disposition")); err == nil {
		f.Filename = params["filename"]
	}
	return f, nil
}

// escape makes an id safe as one path segment.
func escape(id string) string { return url.PathEscape(id) }
