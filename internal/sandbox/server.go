package sandbox

import (
	"bytes"
	"context"
	"crypto/x509"
	"database/sql"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// DefaultPortalURL is the base of the validation links when Options.PortalURL
// is empty: the sandbox's own portal (PortalPath) when the sandbox is mounted
// under /sandbox of a service on localhost:8080, as `einvoice serve` does.
const DefaultPortalURL = "http://localhost:8080/sandbox" + PortalPath

// Options configure a Server.
type Options struct {
	// DB is the database holding the sandbox_* tables (migrated by sqlstore);
	// on SQLite, the single-connection write pool.
	DB *sql.DB
	// ReadDB, when not nil, takes the read-only queries (token lookups,
	// submissions, documents, search, the portal, statistics) so that they
	// do not queue behind writes: on SQLite, a read-only pool of the same
	// database. nil: DB. Transactions, sweeps and rate-limit windows use DB.
	ReadDB *sql.DB
	// Postgres tells that DB is PostgreSQL (row locks are taken where the
	// engine has them); false for SQLite.
	Postgres bool
	// Now is the clock (nil: time.Now). Statuses, token expiry, the time
	// rules and rate-limit windows follow it.
	Now func() time.Time
	// Delay is how long an accepted document stays Submitted before its
	// verdict shows (0: at once).
	Delay time.Duration
	// PortalURL is the base of validation links,
	// {PortalURL}/{uuid}/share/{longId} (empty: DefaultPortalURL).
	PortalURL string
	// VerifySignature checks the signature of a version 1.1 (or 1.3)
	// document; nil: signatures are not checked. An error makes the
	// document Invalid (Step08-Document Signature Validator).
	VerifySignature func(doc []byte) error
	// VerifyXMLSignature is VerifySignature for XML documents; nil: their
	// signatures are not checked.
	VerifyXMLSignature func(doc []byte) error
	// RateLimits enforces the authority's per-client, per-endpoint requests
	// per minute with 429 and Retry-After; the windows live in the database
	// so that replicas share them.
	RateLimits bool
	// RateWindow is the length of a rate-limit window (default a minute,
	// as the authority's; tests shorten it).
	RateWindow time.Duration
	// Logger receives internal errors (nil: slog.Default()).
	Logger *slog.Logger
	// Clients, when not nil, finds the clients of a client id that is not
	// registered with AddClient: the built-in sandbox of `serve` looks it
	// up in the tenants' profiles, so that their credentials log in bound
	// to their TINs without registration. Several may come back (an
	// intermediary's tenants share its credentials).
	Clients func(ctx context.Context, clientID string) ([]Client, error)
	// Taxpayers, when not nil, finds taxpayers bound to clients beyond the
	// registered ones (the tenants' profiles of the built-in sandbox), for
	// the TIN check, search TIN and taxpayer QR info.
	Taxpayers func(ctx context.Context, q TaxpayerQuery) ([]Taxpayer, error)
	// Secrets seals the key of the sandbox's test certificate authority
	// in its table (nil: stored as PEM; never served either way).
	Secrets Sealer
	// TrustedCAs are certificate authorities trusted besides the
	// sandbox's own test CA: a signed document's certificate must chain to
	// one of them (DS329).
	TrustedCAs []*x509.Certificate
}

// Server is the sandbox: an http.Handler speaking the MyInvois protocol.
// Several Servers on one database behave as one authority.
type Server struct {
	db        *sql.DB
	rdb       *sql.DB
	postgres  bool
	now       func() time.Time
	delay     time.Duration
	portalURL string
	verify    func([]byte) error
	verifyXML func([]byte) error
	limits    bool
	window    time.Duration
	log       *slog.Logger
	mux       *http.ServeMux
	clients   func(context.Context, string) ([]Client, error)
	taxpayers func(context.Context, TaxpayerQuery) ([]Taxpayer, error)
	keys      signingKey

	secrets Sealer
	trusted []*x509.Certificate
	caMu    sync.Mutex
	caCache *testCA

	faults faultSet
	// swept is when expired rows were last removed (unix microseconds).
	swept atomic.Int64
}

var _ http.Handler = (*Server)(nil)

// New returns a Server on the database of o.DB, which must be migrated.
func New(o Options) *Server {
	s := &Server{
		db:        o.DB,
		rdb:       o.ReadDB,
		postgres:  o.Postgres,
		now:       o.Now,
		delay:     max(o.Delay, 0),
		portalURL: strings.TrimRight(o.PortalURL, "/"),
		verify:    o.VerifySignature,
		verifyXML: o.VerifyXMLSignature,
		limits:    o.RateLimits,
		window:    o.RateWindow,
		log:       o.Logger,
		clients:   o.Clients,
		taxpayers: o.Taxpayers,
		secrets:   o.Secrets,
		trusted:   o.TrustedCAs,
	}
	if s.rdb == nil {
		s.rdb = s.db
	}
	if s.now == nil {
		s.now = time.Now
	}
	if s.window <= 0 {
		s.window = time.Minute
	}
	if s.portalURL == "" {
		s.portalURL = DefaultPortalURL
	}
	if s.log == nil {
		s.log = slog.Default()
	}
	s.mux = s.routes()
	return s
}

// PortalURL returns the base of the validation links, without a trailing
// slash.
func (s *Server) PortalURL() string { return s.portalURL }

// routes is every route of the sandbox.
func (s *Server) routes() *http.ServeMux {
	m := http.NewServeMux()
	m.Handle("POST /connect/token", s.endpoint(epToken, false, s.handleToken))
	m.Handle("POST /api/v1.0/documentsubmissions/{$}", s.endpoint(epSubmit, true, s.handleSubmit))
	m.Handle("POST /api/v1.0/documentsubmissions", s.endpoint(epSubmit, true, s.handleSubmit))
	m.Handle("GET /api/v1.0/documentsubmissions/{uid}", s.endpoint(epSubmission, true, s.handleGetSubmission))
	m.Handle("GET /api/v1.0/documents/{uuid}/raw", s.endpoint(epRaw, true, s.handleRaw))
	m.Handle("GET /api/v1.0/documents/{uuid}/details", s.endpoint(epDetails, true, s.handleDetails))
	m.Handle("PUT /api/v1.0/documents/state/{uuid}/state", s.endpoint(epCancel, true, s.handleState))
	m.Handle("GET /api/v1.0/documents/search", s.endpoint(epSearch, true, s.handleSearch))
	m.Handle("GET /api/v1.0/taxpayer/validate/{tin}", s.endpoint(epTIN, true, s.handleValidateTIN))
	m.Handle("GET /api/v1.0/documents/recent", s.endpoint(epRecent, true, s.handleRecent))
	m.Handle("GET /api/v1.0/documenttypes", s.endpoint(epTypes, true, s.handleDocumentTypes))
	m.Handle("GET /api/v1.0/documenttypes/{id}", s.endpoint(epTypes, true, s.handleDocumentType))
	m.Handle("GET /api/v1.0/documenttypes/{id}/versions/{vid}", s.endpoint(epTypes, true, s.handleDocumentTypeVersion))
	m.Handle("GET /api/v1.0/notifications/taxpayer", s.endpoint(epNotices, true, s.handleNotifications))
	m.Handle("GET /api/v1.0/taxpayer/search/tin", s.endpoint(epTaxpayer, true, s.handleSearchTIN))
	m.Handle("GET /api/v1.0/taxpayers/qrcodeinfo/{qr}", s.endpoint(epTaxpayer, true, s.handleQRInfo))

	// The sandbox's own routes: faults and statistics (for tests), and the
	// page of validation links.
	m.HandleFunc("POST /sandbox/faults", s.handleAddFault)
	m.HandleFunc("DELETE /sandbox/faults", s.handleClearFaults)
	m.HandleFunc("GET /sandbox/stats", s.handleStats)
	m.HandleFunc("GET "+PortalPath+"/{uuid}/share/{longId}", s.handlePortal)

	m.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, apiError{Code: "NotFound", Message: "No such API: " + r.Method + " " + r.URL.Path})
	})
	return m
}

// ServeHTTP serves one request; a panic becomes a 500 and is logged.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	defer func() {
		if v := recover(); v != nil {
			if v == http.ErrAbortHandler {
				panic(v)
			}
			s.log.Error("sandbox: panic", "method", r.Method, "path", r.URL.Path, "panic", v)
			writeError(w, http.StatusInternalServerError, apiError{Code: "InternalServerError", Message: "Internal server error"})
		}
	}()
	w.Header().Set("correlationId", newCorrelationID())
	s.mux.ServeHTTP(w, r)
}

// caller is who a request comes from, as its token says.
type caller struct {
	ClientID   string
	OnBehalfOf string
	// Taxpayer is the TIN the client is bound to (an intermediary's own).
	Taxpayer string
}

// TIN is the taxpayer the caller acts as: the represented taxpayer's TIN
// (onbehalfof before any ':ROB') for an intermediary, else the client's.
func (c caller) TIN() string {
	if c.OnBehalfOf == "" {
		return c.Taxpayer
	}
	tin, _, _ := splitOnBehalfOf(c.OnBehalfOf)
	return tin
}

// receiver is the TIN whose received documents the caller sees: a
// taxpayer's own; none for an intermediary, which sees only the documents
// it submitted.
func (c caller) receiver() string {
	if c.OnBehalfOf != "" {
		return ""
	}
	return c.Taxpayer
}

// receives reports whether d is the caller's received document: issued by
// another client to the TIN the caller is bound to.
func (c caller) receives(d docRow) bool {
	return c.receiver() != "" && d.ClientID != c.ClientID && strings.EqualFold(c.receiver(), d.ReceiverTIN)
}

// splitOnBehalfOf splits an onbehalfof value, TIN or TIN:ROB; the TIN
// upper-cased.
func splitOnBehalfOf(v string) (tin, rob string, hasROB bool) {
	tin, rob, hasROB = strings.Cut(v, ":")
	return strings.ToUpper(strings.TrimSpace(tin)), strings.TrimSpace(rob), hasROB
}

type handlerFunc func(w http.ResponseWriter, r *http.Request, c caller)

// endpoint wraps a protocol handler: faults first (without processing, or
// around it), then the token (when auth), then the rate limit.
func (s *Server) endpoint(name string, auth bool, h handlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f, ok := s.faults.take(name)
		if ok {
			switch f.Kind {
			case FaultFail:
				writeError(w, http.StatusInternalServerError, apiError{Code: "InternalServerError", Message: "Injected failure"})
				return
			case FaultThrottle:
				ra := max(f.RetryAfter, 1)
				w.Header().Set("Retry-After", itoa(ra))
				writeError(w, http.StatusTooManyRequests, apiError{Code: "TooManyRequests", Message: "Injected throttling"})
				return
			case FaultDropBefore:
				s.drop(w)
				return
			case FaultLate:
				r = s.late(r, f.Delay)
			}
		}
		out := w
		var buf *bufferedWriter
		if ok && (f.Kind == FaultDelay || f.Kind == FaultDrop) {
			buf = newBufferedWriter(w)
			out = buf
		}
		s.serveEndpoint(out, r, name, auth, h)
		if buf == nil {
			return
		}
		if f.Kind == FaultDrop {
			s.drop(w)
			return
		}
		t := time.NewTimer(f.Delay)
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
		}
		buf.flush()
	})
}

func (s *Server) serveEndpoint(w http.ResponseWriter, r *http.Request, name string, auth bool, h handlerFunc) {
	var c caller
	if auth {
		var ok bool
		if c, ok = s.authenticate(w, r); !ok {
			return
		}
	} else {
		// The token endpoint's client is the form's client_id.
		r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
		if err := r.ParseForm(); err != nil {
			writeOAuthError(w, "invalid_request", "The request body is not a readable form.")
			return
		}
		c.ClientID = r.PostForm.Get("client_id")
	}
	if !s.allow(w, r, name, c.ClientID) {
		return
	}
	h(w, r, c)
}

// lateBodyLimit bounds the body FaultLate holds in memory: past the
// largest submission, so that the handler still refuses one too big.
const lateBodyLimit = maxSubmissionBytes + 1<<20

// late holds r for FaultLate: its body read whole, then delay waited out
// whatever the caller does; the request it returns is processed even if the
// caller has gone.
func (s *Server) late(r *http.Request, delay time.Duration) *http.Request {
	body, err := io.ReadAll(io.LimitReader(r.Body, lateBodyLimit))
	if err != nil {
		body = nil // the handler answers an unreadable (here: empty) body
	}
	time.Sleep(delay)
	r = r.WithContext(context.WithoutCancel(r.Context()))
	r.Body = io.NopCloser(bytes.NewReader(body))
	return r
}

// drop closes the client's connection without an answer.
func (s *Server) drop(w http.ResponseWriter) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		// HTTP/2 or a writer that cannot hijack: abort the stream instead.
		panic(http.ErrAbortHandler)
	}
	_ = conn.Close()
}

// internalError logs err and answers a generic 500. When the client has
// gone away (its request's context is done, so the error is most likely
// the cancelled query), it is no fault of the sandbox: logged at info.
func (s *Server) internalError(w http.ResponseWriter, r *http.Request, err error) {
	if r.Context().Err() != nil {
		s.log.Info("sandbox: client went away", "method", r.Method, "path", r.URL.Path,
			"correlationId", w.Header().Get("correlationId"), "err", err)
		writeError(w, http.StatusInternalServerError, apiError{Code: "InternalServerError", Message: "Internal server error"})
		return
	}
	s.log.Error("sandbox: internal error", "method", r.Method, "path", r.URL.Path,
		"correlationId", w.Header().Get("correlationId"), "err", err)
	writeError(w, http.StatusInternalServerError, apiError{Code: "InternalServerError", Message: "Internal server error"})
}

// readAll reads a body of at most limit bytes; tooBig tells the limit was passed.
func readAll(w http.ResponseWriter, r *http.Request, limit int64) (body []byte, tooBig bool, err error) {
	body, err = io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return nil, true, nil
	}
	return body, false, err
}
