package web

import (
	"fmt"
	"log/slog"
	"net/http"
	"reflect"
	"runtime/debug"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/einvoice/einvoice/internal/einvoice"
)

// RootOptions are the dependencies of the root handler.
type RootOptions struct {
	// Logger receives the access log and every error (discarded when nil).
	Logger *slog.Logger
	// Registry receives the HTTP metrics (a new one when nil).
	Registry *prometheus.Registry
}

// Root is the http.Handler of the whole service: the surfaces register
// their routes on it (Handle for JSON answers, HandlePage for HTML), and
// it does what every request needs once.
type Root struct {
	mux      *http.ServeMux
	logger   *slog.Logger
	registry *prometheus.Registry
	metrics  *metrics
	// pages are the patterns registered by HandlePage: their panics are
	// answered with an HTML page.
	pages map[string]bool
	// quiet are the patterns registered by HandleQuiet: their access lines
	// are logged at debug level.
	quiet map[string]bool
}

// NewRoot returns a root handler with no routes.
func NewRoot(o RootOptions) *Root {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Registry == nil {
		o.Registry = prometheus.NewRegistry()
	}
	return &Root{mux: http.NewServeMux(), logger: o.Logger, registry: o.Registry, metrics: newMetrics(o.Registry), pages: map[string]bool{}, quiet: map[string]bool{}}
}

// Handle registers a route answering JSON (the API, the operations
// endpoints, the sandbox): a panic there is answered with the JSON 500.
func (rt *Root) Handle(pattern string, h http.Handler) { rt.mux.Handle(pattern, h) }

// HandleFunc is Handle for a function.
func (rt *Root) HandleFunc(pattern string, h http.HandlerFunc) { rt.mux.Handle(pattern, h) }

// HandlePage registers a route answering HTML to people (the dashboard,
// the request page): a panic there is answered with an HTML page that
// names the request id.
func (rt *Root) HandlePage(pattern string, h http.Handler) {
	rt.mux.Handle(pattern, h)
	rt.pages[pattern] = true
}

// HandleQuiet registers a route answering JSON whose access lines are
// logged at debug level, not info: the built-in sandbox, which the
// service's own pollers call every few seconds (an idle service then logs
// nothing).
func (rt *Root) HandleQuiet(pattern string, h http.Handler) {
	rt.mux.Handle(pattern, h)
	rt.quiet[pattern] = true
}

// Registry is where the metrics are kept (served at /metrics).
func (rt *Root) Registry() *prometheus.Registry { return rt.registry }

// Logger is the root's logger.
func (rt *Root) Logger() *slog.Logger { return rt.logger }

// redirectType is the type of the handler with which ServeMux answers a
// path it would clean (//x, /a/../b) or a subtree without its slash.
var redirectType = reflect.TypeOf(http.RedirectHandler("/", http.StatusTemporaryRedirect))

// ServeHTTP gives every request an id (X-Request-Id, in its context and
// every log line), sets the headers every answer carries, refuses
// oversized headers (431), answers unknown routes and methods in our JSON
// shape (never a redirect: a path is matched as sent), recovers panics
// (JSON or an HTML page, as the route was registered), and records the
// access log and the metrics, labelled by the matched route pattern.
func (rt *Root) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	id := newRequestID(r)
	setCommonHeaders(w.Header(), id)
	r = r.WithContext(WithRequestID(r.Context(), id))
	rec := &statusRecorder{ResponseWriter: w}

	handler, pattern := rt.mux.Handler(r)
	redirect := reflect.TypeOf(handler) == redirectType
	route := pattern
	if route == "" || redirect {
		route = "unmatched"
	}
	defer func() {
		if v := recover(); v != nil {
			if v == http.ErrAbortHandler {
				panic(v)
			}
			rt.logger.ErrorContext(r.Context(), "panic", "request_id", id, "route", route, "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
			if !rec.wrote {
				rt.panicAnswer(rec, r, pattern, v)
			}
		}
		elapsed := time.Since(start)
		rt.metrics.observe(r.Method, route, rec.status, elapsed)
		level := slog.LevelInfo
		if rt.quiet[pattern] {
			level = slog.LevelDebug
		}
		rt.logger.Log(r.Context(), level, "request", "request_id", id, "method", r.Method, "route", route,
			"status", rec.status, "duration_ms", float64(elapsed.Microseconds())/1000, "bytes", rec.bytes)
	}()
	switch {
	case headerSize(r) > MaxHeaderBytes:
		WriteError(rec, r, rt.logger, headersTooLarge())
	case redirect:
		WriteError(rec, r, rt.logger, einvoice.Errorf(einvoice.CodeNotFound,
			"No route for %s %s: paths are matched as sent, never cleaned or redirected (no empty, . or .. segment).", r.Method, r.URL.Path))
	case pattern == "":
		rt.unmatched(rec, r, handler)
	default:
		rt.mux.ServeHTTP(rec, r)
	}
}

// panicAnswer answers a request whose handler panicked, before it wrote
// anything: the plain HTML page on a page route, the JSON 500 elsewhere;
// both name the request id and nothing of the panic.
func (rt *Root) panicAnswer(w http.ResponseWriter, r *http.Request, pattern string, v any) {
	err := fmt.Errorf("panic: %v", v)
	if rt.pages[pattern] {
		id := RequestID(r.Context())
		PlainPage(w, r, http.StatusInternalServerError, "Something went wrong",
			"Something went wrong on our side; it was logged. Quote request id "+id+" when reporting it.")
		return
	}
	WriteError(w, r, rt.logger, err)
}

// unmatched answers a request no route pattern matched: the mux's own
// answer tells a wrong method (405, with Allow) from an unknown path (404).
func (rt *Root) unmatched(w http.ResponseWriter, r *http.Request, h http.Handler) {
	probe := &probeWriter{header: http.Header{}}
	h.ServeHTTP(probe, r)
	if probe.status == http.StatusMethodNotAllowed {
		w.Header().Set("Allow", probe.header.Get("Allow"))
		WriteError(w, r, rt.logger, einvoice.Errorf(einvoice.CodeMethodNotAllowed,
			"%s is not allowed on %s; allowed: %s.", r.Method, r.URL.Path, probe.header.Get("Allow")))
		return
	}
	WriteError(w, r, rt.logger, einvoice.Errorf(einvoice.CodeNotFound, "No route for %s %s.", r.Method, r.URL.Path))
}

// probeWriter records what the mux's fallback handler would answer.
type probeWriter struct {
	header http.Header
	status int
}

func (p *probeWriter) Header() http.Header { return p.header }
func (p *probeWriter) Write(b []byte) (int, error) {
	if p.status == 0 {
		p.status = http.StatusOK
	}
	return len(b), nil
}
func (p *probeWriter) WriteHeader(status int) { p.status = status }

// statusRecorder remembers the status and size of a response.
type statusRecorder struct {
	http.ResponseWriter
	status int
	bytes  int
	wrote  bool
}

func (s *statusRecorder) WriteHeader(code int) {
	if !s.wrote {
		s.status, s.wrote = code, true
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusRecorder) Write(b []byte) (int, error) {
	if !s.wrote {
		s.status, s.wrote = http.StatusOK, true
	}
	n, err := s.ResponseWriter.Write(b)
	s.bytes += n
	return n, err
}

// Unwrap lets http.ResponseController reach the connection.
func (s *statusRecorder) Unwrap() http.ResponseWriter { return s.ResponseWriter }
