package httpapi

import (
	"context"
	"net/http"
	"time"

	"github.com/einvoice/einvoice/internal/apidoc"
	"github.com/einvoice/einvoice/internal/einvoice"
	"github.com/einvoice/einvoice/internal/refdata"
	"github.com/einvoice/einvoice/internal/web"
)

type health struct {
	Status string `json:"status"`
	Error  string `json:"error,omitempty"`
}

// healthz answers while the process is up.
func (s *Server) healthz(w http.ResponseWriter, r *http.Request) {
	web.WriteJSON(w, http.StatusOK, health{Status: "ok"})
}

// readyz answers 200 while the database answers, 503 otherwise.
func (s *Server) readyz(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	if err := s.svc.Ping(ctx); err != nil {
		s.logger.WarnContext(r.Context(), "readiness check failed", "error", err)
		web.WriteJSON(w, http.StatusServiceUnavailable, health{Status: "unavailable", Error: "database unreachable"})
		return
	}
	web.WriteJSON(w, http.StatusOK, health{Status: "ok"})
}

func (s *Server) openapi(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "public, max-age=300")
	_, _ = w.Write(apidoc.JSON())
}

func (s *Server) docs(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'")
	_, _ = w.Write(apidoc.HTML())
}

// referenceList answers one of the eight code lists, whole.
func (s *Server) referenceList(list *refdata.List) apiFunc {
	return func(w http.ResponseWriter, r *http.Request, _ *einvoice.APIKey) error {
		ok(w, http.StatusOK, list.Entries())
		return nil
	}
}
