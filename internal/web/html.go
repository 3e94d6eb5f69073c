package web

import (
	"bytes"
	"fmt"
	"html/template"
	"log/slog"
	"net/http"
	"strconv"
)

// plainCSP is the policy of the plain fallback pages: nothing but the
// page's own markup.
const plainCSP = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"

// RenderHTML executes template name of t with data into a buffer and
// writes it with status; when the template fails (a bug), the plain 500
// page is written instead, and the failure logged with the request id. The
// caller has set the page's headers (SetPageHeaders). A HEAD request gets
// the headers only.
func RenderHTML(w http.ResponseWriter, r *http.Request, logger *slog.Logger, status int, t *template.Template, name string, data any) {
	var buf bytes.Buffer
	if err := t.ExecuteTemplate(&buf, name, data); err != nil {
		ServerErrorPage(w, r, logger, fmt.Errorf("render %s: %w", name, err))
		return
	}
	writeHTML(w, r, status, buf.Bytes())
}

// ServerErrorPage logs err with the request id and answers the plain 500
// page, which names the request id and nothing of err. It is never a
// template: a template may be what failed.
func ServerErrorPage(w http.ResponseWriter, r *http.Request, logger *slog.Logger, err error) {
	id := RequestID(r.Context())
	logger.ErrorContext(r.Context(), "internal error", "request_id", id, "route", r.Pattern, "path", r.URL.Path, "error", err)
	PlainPage(w, r, http.StatusInternalServerError, "Something went wrong",
		"Something went wrong on our side; it was logged. Quote request id "+id+" when reporting it.")
}

// PlainPage answers a minimal HTML page with status, a title and one
// sentence, and the request id: the answer of last resort (a panic, a
// failed template) of every HTML surface.
func PlainPage(w http.ResponseWriter, r *http.Request, status int, title, message string) {
	var buf bytes.Buffer
	_ = plainPage.Execute(&buf, map[string]string{"Title": title, "Message": message, "RequestID": RequestID(r.Context())})
	SetPageHeaders(w.Header(), plainCSP)
	writeHTML(w, r, status, buf.Bytes())
}

var plainPage = template.Must(template.New("plain").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>{{.Title}}</title></head>
<body><main><h1>{{.Title}}</h1><p>{{.Message}}</p>{{if .RequestID}}<p>Request id: <code>{{.RequestID}}</code></p>{{end}}</main></body></html>
`))

// writeHTML writes an HTML body with status and its length.
func writeHTML(w http.ResponseWriter, r *http.Request, status int, body []byte) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		_, _ = w.Write(body)
	}
}
