package myinvois

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/einvoice/einvoice/internal/einvoice"
)

// Options configure a Client. The zero value is usable.
type Options struct {
	// HTTPClient sends the requests; nil: a client with dial, TLS and
	// response-header timeouts that does not follow redirects. Its own
	// Timeout, if any, also applies.
	HTTPClient *http.Client
	// Timeout bounds each HTTP exchange (sending, and reading the answer);
	// default 10s. The call's context bounds everything, including waits for
	// a rate budget or a shared login.
	Timeout time.Duration
	// Now is the wall clock for token lifetimes, search windows, the TIN
	// cache, Retry-After dates and the budgets' send times; default
	// time.Now. Waits use real time: a test clock must advance with it.
	Now func() time.Time
	// Budgets keeps the client under the authority's requests per minute per
	// client ID and endpoint (see RequestsPerMinute): a call waits for its
	// slot, at most MaxBudgetWait and within its context; a slot further
	// away is not taken, and the call fails unsent (ErrThrottled, with the
	// time to the slot as RetryAfter) so that the caller does other work
	// meanwhile. After a 429 the endpoint waits, for that client, until
	// Retry-After has passed.
	Budgets bool
	// Budget keeps the budgets; nil: in this client's memory. serve gives
	// the database's (sqlstore.AuthorityBudget), which every replica shares.
	Budget einvoice.AuthorityBudget
	// MaxBudgetWait is the longest wait for a budget's slot; default
	// DefaultMaxBudgetWait.
	MaxBudgetWait time.Duration
	// OnBudget, when set, is called for each call the budget held back, with
	// the endpoint and the time to its slot: waited for (waited), or too far
	// away and refused.
	OnBudget func(endpoint string, wait time.Duration, waited bool)
	// Logger receives one record per exchange (Debug; Warn for 429, 5xx and
	// no answer); nil: slog.Default(). Secrets and tokens are never logged.
	Logger *slog.Logger
	// OnCall, when set, is called after each exchange with the endpoint (one
	// of the Endpoint constants), the HTTP status (0 for no answer) and the
	// exchange's duration.
	OnCall func(endpoint string, status int, d time.Duration)
	// TINCacheTTL is how long ValidateTIN remembers an answer (found or not
	// found); default 24h, negative: no cache.
	TINCacheTTL time.Duration
	// TINCacheSize bounds the TIN cache's entries; default 10,000.
	TINCacheSize int

	// Tests only: the budgets' window and limits.
	budgetWindow time.Duration
	budgetLimits map[string]int
}

// Client speaks the MyInvois protocol. It is safe for concurrent use.
type Client struct {
	http    *http.Client
	timeout time.Duration
	now     func() time.Time
	log     *slog.Logger
	onCall  func(string, int, time.Duration)
	budgets *budgets
	tokens  *tokenCache
	tins    *tinCache
}

var _ einvoice.AuthorityAPI = (*Client)(nil)

// New returns a Client.
func New(o Options) *Client {
	c := &Client{
		http:    o.HTTPClient,
		timeout: o.Timeout,
		now:     o.Now,
		log:     o.Logger,
		onCall:  o.OnCall,
		tokens:  newTokenCache(),
		tins:    newTINCache(o.TINCacheTTL, o.TINCacheSize),
	}
	if c.http == nil {
		c.http = defaultHTTPClient()
	}
	if c.timeout <= 0 {
		c.timeout = 10 * time.Second
	}
	if c.now == nil {
		c.now = time.Now
	}
	if c.log == nil {
		c.log = slog.Default()
	}
	c.budgets = newBudgets(o, c.now, c.log)
	return c
}

func defaultHTTPClient() *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.DialContext = (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext
	t.TLSHandshakeTimeout = 5 * time.Second
	t.ResponseHeaderTimeout = 30 * time.Second
	t.IdleConnTimeout = 90 * time.Second
	t.MaxIdleConnsPerHost = 16
	return &http.Client{
		Transport: t,
		// A redirect is answered as it is (a CallError): following it would
		// turn a POST into a GET and could send the token elsewhere.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// Answers are read up to maxAnswer bytes (a larger 2xx answer is an error);
// error answers are read up to maxErrorAnswer bytes and the rest ignored.
const (
	maxAnswer      = 8 << 20
	maxErrorAnswer = 64 << 10
)

// request is one HTTP exchange with the authority.
type request struct {
	endpoint    string // an Endpoint constant
	op          string // the CallError's Op
	method      string
	path        string // escaped, from the BaseURL on
	query       url.Values
	body        []byte
	contentType string
}

// answer is what came back.
type answer struct {
	status int
	header http.Header
	body   []byte
}

func (a answer) ok() bool { return a.status >= 200 && a.status < 300 }

// checkCredentials refuses what cannot log in, before anything is sent.
func checkCredentials(c einvoice.Credentials) error {
	u, err := url.Parse(c.BaseURL)
	switch {
	case err != nil:
		return fmt.Errorf("%w: BaseURL: %v", ErrCredentials, err)
	case u.Scheme != "http" && u.Scheme != "https" || u.Host == "":
		return fmt.Errorf("%w: BaseURL %q is not an absolute http(s) URL", ErrCredentials, c.BaseURL)
	case c.ClientID == "" || c.ClientSecret == "":
		return fmt.Errorf("%w: no client id or secret", ErrCredentials)
	}
	return nil
}

// do makes an authenticated call: it logs in (or reuses the cached token),
// waits for the endpoint's budget and sends; an answer 401 drops the token
// and the call is made once more. A non-2xx answer is returned as a
// *einvoice.CallError; a 429 also holds the endpoint back (with budgets).
func (c *Client) do(ctx context.Context, cred einvoice.Credentials, r request) (answer, error) {
	if err := checkCredentials(cred); err != nil {
		return answer{}, fmt.Errorf("%s: %w", r.op, err)
	}
	for attempt := 0; ; attempt++ {
		// Log in first, so that the budget's slot is not spent waiting for a
		// login; after the wait, take the token again (it may have been
		// renewed or dropped meanwhile).
		if _, err := c.token(ctx, cred, r.op); err != nil {
			return answer{}, err
		}
		if err := c.budgets.wait(ctx, cred, r.endpoint, r.op); err != nil {
			return answer{}, err
		}
		tok, err := c.token(ctx, cred, r.op)
		if err != nil {
			return answer{}, err
		}
		a, err := c.exchange(ctx, cred, r, tok)
		if err != nil {
			return a, &einvoice.CallError{Op: r.op, Err: err}
		}
		if a.status == http.StatusUnauthorized && attempt == 0 {
			c.tokens.drop(cred, tok)
			c.log.LogAttrs(ctx, slog.LevelInfo, "myinvois: token refused, logging in again", slog.String("endpoint", r.endpoint))
			continue
		}
		if a.ok() {
			return a, nil
		}
		ce := callError(r.op, a, c.now())
		if a.status == http.StatusTooManyRequests {
			c.budgets.block(ctx, cred, r.endpoint, ce.RetryAfter)
		}
		return a, ce
	}
}

// exchange sends one request within the client's timeout and reads the
// answer. An error means no usable answer: the request failed, or a 2xx
// answer could not be read whole.
func (c *Client) exchange(ctx context.Context, cred einvoice.Credentials, r request, token string) (answer, error) {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()

	u := strings.TrimRight(cred.BaseURL, "/") + r.path
	if len(r.query) > 0 {
		u += "?" + r.query.Encode()
	}
	var body io.Reader
	if r.body != nil {
		body = bytes.NewReader(r.body)
	}
	req, err := http.NewRequestWithContext(ctx, r.method, u, body)
	if err != nil {
		return answer{}, fmt.Errorf("building the request: %w", err)
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("Accept-Language", "en")
	if r.body != nil {
		req.Header.Set("Content-Type", r.contentType)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if cred.OnBehalfOf != "" {
		req.Header.Set("onbehalfof", cred.OnBehalfOf)
	}

	start := time.Now()
	resp, err := c.http.Do(req)
	if err != nil {
		c.observe(ctx, r, 0, "", start)
		return answer{}, fmt.Errorf("%s %s: %w", r.method, r.path, unwrapURLError(err))
	}
	defer resp.Body.Close()
	a := answer{status: resp.StatusCode, header: resp.Header}
	limit := int64(maxErrorAnswer)
	if a.ok() {
		limit = maxAnswer
	}
	a.body, err = io.ReadAll(io.LimitReader(resp.Body, limit+1))
	c.observe(ctx, r, a.status, resp.Header.Get("correlationId"), start)
	switch {
	case a.ok() && err != nil:
		return answer{}, fmt.Errorf("%s %s: reading the HTTP %d answer: %w", r.method, r.path, a.status, err)
	case a.ok() && int64(len(a.body)) > limit:
		return answer{}, fmt.Errorf("%s %s: the HTTP %d answer is over %d bytes", r.method, r.path, a.status, limit)
	case int64(len(a.body)) > limit:
		a.body = a.body[:limit]
	}
	return a, nil
}

// unwrapURLError drops *url.Error's repetition of the method and URL (the
// URL may carry a TIN or an id value).
func unwrapURLError(err error) error {
	if ue, ok := err.(*url.Error); ok {
		return ue.Err
	}
	return err
}

// observe logs an exchange and reports it to OnCall.
func (c *Client) observe(ctx context.Context, r request, status int, correlationID string, start time.Time) {
	d := time.Since(start)
	if c.onCall != nil {
		c.onCall(r.endpoint, status, d)
	}
	level := slog.LevelDebug
	if status == 0 || status == http.StatusTooManyRequests || status >= 500 {
		level = slog.LevelWarn
	}
	attrs := []slog.Attr{
		slog.String("endpoint", r.endpoint),
		slog.String("method", r.method),
		slog.String("path", r.path),
		slog.Int("status", status),
		slog.Duration("duration", d),
	}
	if correlationID != "" {
		attrs = append(attrs, slog.String("correlation_id", correlationID))
	}
	c.log.LogAttrs(ctx, level, "myinvois call", attrs...)
}

// decode reads a 2xx answer's JSON body. An answer that cannot be read is
// treated as no answer (Status 0): what the authority did is unknown.
func decode(op string, a answer, v any) error {
	if err := json.Unmarshal(a.body, v); err != nil {
		return &einvoice.CallError{Op: op, Err: fmt.Errorf("reading the HTTP %d answer: %w", a.status, err)}
	}
	return nil
}

// getJSON is an authenticated GET whose 2xx answer is decoded into v.
func (c *Client) getJSON(ctx context.Context, cred einvoice.Credentials, endpoint, op, path string, q url.Values, v any) error {
	a, err := c.do(ctx, cred, request{endpoint: endpoint, op: op, method: http.MethodGet, path: path, query: q})
	if err != nil {
		return err
	}
	return decode(op, a, v)
}
