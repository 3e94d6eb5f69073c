package httpapi

import (
	"log/slog"
	"net/http"

	"github.com/einvoice/einvoice/internal/einvoice"
	"github.com/einvoice/einvoice/internal/web"
)

// envelope is the success body.
type envelope struct {
	Success bool  `json:"success"`
	Data    any   `json:"data"`
	Meta    *meta `json:"meta,omitempty"`
}

// meta describes one page of a list.
type meta struct {
	Page     int `json:"page"`
	PerPage  int `json:"per_page"`
	Total    int `json:"total"`
	LastPage int `json:"last_page"`
	// Unreadable are the ids of the page's stored rows that could not be
	// read back, left out of data (and logged).
	Unreadable []string `json:"unreadable,omitempty"`
}

// ok writes a success envelope.
func ok(w http.ResponseWriter, status int, data any) {
	web.WriteJSON(w, status, envelope{Success: true, Data: data})
}

// okPage writes a list envelope.
func okPage[T any](w http.ResponseWriter, p einvoice.Page[T], data any) {
	m := &meta{Page: p.Page, PerPage: p.PerPage, Total: p.Total, LastPage: p.LastPage()}
	for _, u := range p.Unreadable {
		m.Unreadable = append(m.Unreadable, u.ID)
	}
	web.WriteJSON(w, http.StatusOK, envelope{Success: true, Data: data, Meta: m})
}

// logUnreadable logs, at error level, each row a list left out because it
// could not be read back: a bug to look into, named by its id.
func logUnreadable[T any](r *http.Request, logger *slog.Logger, p einvoice.Page[T]) {
	for _, u := range p.Unreadable {
		logger.ErrorContext(r.Context(), "unreadable row left out of a list", "request_id", web.RequestID(r.Context()),
			"route", r.Pattern, "id", u.ID, "error", u.Err)
	}
}
