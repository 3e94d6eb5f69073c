package sandbox

import (
	"crypto/subtle"
	"database/sql"
	"errors"
	"html/template"
	"net/http"
)

// PortalPath is where, under the sandbox's base URL, its portal serves the
// public validation links {portal}/{uuid}/share/{longId}.
const PortalPath = "/portal"

var portalPage = template.Must(template.New("portal").Parse(`<!doctype html>
<html><head><meta charset="utf-8"><title>Sandbox e-invoice {{.UUID}}</title></head>
<body><h1>{{.TypeName}} {{.InternalID}}</h1>
<p>Built-in MyInvois sandbox: not a tax authority record.</p>
<dl><dt>UUID</dt><dd>{{.UUID}}</dd><dt>Status</dt><dd>{{.Status}}</dd>
<dt>Issuer</dt><dd>{{.IssuerName}} ({{.IssuerTIN}})</dd><dt>Receiver</dt><dd>{{.ReceiverName}} ({{.ReceiverID}})</dd>
<dt>Issued</dt><dd>{{.DateTimeIssued}}</dd><dt>Validated</dt><dd>{{with .DateTimeValidated}}{{.}}{{end}}</dd>
<dt>Total payable</dt><dd>{{printf "%s" .TotalPayableAmount}}</dd></dl></body></html>
`))

// handlePortal is GET {PortalPath}/{uuid}/share/{longId}: the page a
// validation link (QR code) opens, for Valid and Cancelled documents.
func (s *Server) handlePortal(w http.ResponseWriter, r *http.Request) {
	id, longID := r.PathValue("uuid"), r.PathValue("longId")
	if !cleanText(id, maxIDParam) {
		http.NotFound(w, r)
		return
	}
	d, err := scanDoc(s.rdb.QueryRowContext(r.Context(), `SELECT `+docColumns+` FROM sandbox_documents WHERE uuid = $1`, id))
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		s.log.Error("sandbox: portal", "path", r.URL.Path, "correlationId", w.Header().Get("correlationId"), "err", err)
		http.Error(w, http.StatusText(http.StatusInternalServerError), http.StatusInternalServerError)
		return
	}
	if err != nil || d.LongID == "" || subtle.ConstantTimeCompare([]byte(d.LongID), []byte(longID)) != 1 {
		http.NotFound(w, r)
		return
	}
	sum := d.summary(s.now())
	if sum.Status != statusValid && sum.Status != statusCancelled {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if err := portalPage.Execute(w, sum); err != nil {
		s.log.Warn("sandbox: portal page", "err", err)
	}
}
