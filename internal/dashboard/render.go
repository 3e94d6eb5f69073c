package dashboard

import (
	"embed"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"path"
	"strings"

	"github.com/einvoice/einvoice/internal/einvoice"
	"github.com/einvoice/einvoice/internal/web"
)

//go:embed templates
var templateFS embed.FS

// pages are the parsed templates: one set per page, each the layout (and
// the shared partials) with the page's own file defining "content".
type pages struct {
	byName map[string]*template.Template
}

// loadPages parses every templates/pages/*.html with the layout; a
// template error is a bug found by any test, so it panics.
func loadPages() *pages {
	base := template.Must(template.New("base").Funcs(funcs).ParseFS(templateFS, "templates/*.html"))
	files, err := fs.Glob(templateFS, "templates/pages/*.html")
	if err != nil {
		panic(err)
	}
	p := &pages{byName: map[string]*template.Template{}}
	for _, f := range files {
		t := template.Must(template.Must(base.Clone()).ParseFS(templateFS, f))
		p.byName[strings.TrimSuffix(path.Base(f), ".html")] = t
	}
	return p
}

// view is what every page's template receives: the layout's fields, and
// the page's own in Data.
type view struct {
	Title string
	// Nav is the nav entry to mark current ("documents", ...).
	Nav  string
	User *user
	// CSRF is the session's token, for the hidden field of every form
	// ({{template "csrf" .}}).
	CSRF  string
	Flash *flash
	// Form holds what was typed and the errors beside each field.
	Form *form
	// RequestID is the request's id, shown on the error pages.
	RequestID string
	Data      any
}

// render writes the page name with status and the layout's fields.
func (d *Dashboard) render(w http.ResponseWriter, r *http.Request, status int, name string, v view) {
	t, ok := d.pages.byName[name]
	if !ok {
		d.serverError(w, r, fmt.Errorf("no page template %q", name))
		return
	}
	if v.User != nil {
		v.CSRF = d.csrfToken(v.User.sessionID())
	}
	if v.Flash == nil {
		v.Flash = takeFlash(w, r)
	}
	if v.Form == nil {
		v.Form = &form{}
	}
	v.RequestID = web.RequestID(r.Context())
	web.RenderHTML(w, r, d.logger, status, t, "layout", v)
}

// renderError shows err as a page with the status of web's one table:
// the service's 404 and 403 as such, a 409 as a 409, a 429 or 503 as
// "try again later" (with Retry-After), any other refusal with its own
// status and message; anything else is a 500, logged.
func (d *Dashboard) renderError(w http.ResponseWriter, r *http.Request, u *user, err error) {
	status, e := web.StatusOf(err)
	switch {
	case e == nil:
		d.serverError(w, r, err)
	case isNotFound(err):
		d.render(w, r, http.StatusNotFound, "error", view{Title: "Not found", User: u, Data: "Nothing here: " + errorMessage(err)})
	case status == http.StatusForbidden:
		d.forbidden(w, r, u, errorMessage(err))
	case status == http.StatusTooManyRequests || status == http.StatusServiceUnavailable:
		if w.Header().Get("Retry-After") == "" {
			w.Header().Set("Retry-After", "30")
		}
		d.render(w, r, status, "error", view{Title: "Try again later", User: u, Data: errorMessage(err)})
	default:
		d.render(w, r, status, "error", view{Title: "Not done", User: u, Data: errorMessage(err)})
	}
}

// errorMessage is the sentence of a service error.
func errorMessage(err error) string {
	var e *einvoice.Error
	if errors.As(err, &e) && e.Message != "" {
		return e.Message
	}
	return "Something went wrong."
}

// forbidden renders the 403 page.
func (d *Dashboard) forbidden(w http.ResponseWriter, r *http.Request, u *user, msg string) {
	d.render(w, r, http.StatusForbidden, "error", view{Title: "Not allowed", User: u, Data: msg})
}

// notFound renders the 404 page of a path no route knows.
func (d *Dashboard) notFound(w http.ResponseWriter, r *http.Request) {
	u, _ := d.currentUser(r.Context(), r)
	d.render(w, r, http.StatusNotFound, "error", view{Title: "Not found", User: u, Data: "There is no page at this address."})
}

// serverError logs err and answers web's plain 500 page, which names the
// request id (never a template, which might be what failed).
func (d *Dashboard) serverError(w http.ResponseWriter, r *http.Request, err error) {
	web.ServerErrorPage(w, r, d.logger, fmt.Errorf("dashboard %s: %w", r.URL.Path, err))
}

// isNotFound reports whether err is one of the service's not-found errors
// (NOT_FOUND, DOCUMENT_NOT_FOUND, ...): another tenant's ids among them.
func isNotFound(err error) bool {
	return strings.HasSuffix(string(einvoice.ErrorCode(err)), "NOT_FOUND")
}
