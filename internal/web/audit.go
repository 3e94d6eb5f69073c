package web

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/einvoice/einvoice/internal/einvoice"
)

// AuditRecorder records one entry of the audit log (the application's
// RecordAudit): made by a, with its tenant, address and user agent.
type AuditRecorder func(ctx context.Context, a einvoice.Actor, e einvoice.AuditEntry)

// Audit records every change a surface answers (DECISIONS 20): each
// request of an unsafe method (POST, PUT, PATCH, DELETE) whose actor the
// surface's authentication set (einvoice.WithActor) is recorded once
// answered: the route pattern as the action, the resource, the outcome by
// the status. A request no actor was set for (refused before
// authentication, a 401) is not recorded. Reads cost nothing.
type Audit struct {
	// Record records an entry; Wrap is a pass-through when nil.
	Record AuditRecorder
	// Types maps a path's collection segment ("invoices", "buyers") to a
	// resource type ("document", "buyer"); a segment not in it is the type
	// as it is.
	Types map[string]string
}

// maxAuditBody bounds the part of an answer kept to find the id of what a
// create made (data.id) or the error code of a refusal.
const maxAuditBody = 64 << 10

// auditNoteKey carries the resource a handler names (AuditResource).
type auditNoteKey struct{}

type auditNote struct{ typ, id, detail string }

// AuditResource names the resource of the request's change, in place of
// the one its path would give (the request page's path holds a token, not
// the receipt's id), and a short detail; either may be "". Outside an
// audited request it does nothing.
func AuditResource(ctx context.Context, typ, id, detail string) {
	if n, ok := ctx.Value(auditNoteKey{}).(*auditNote); ok {
		n.typ, n.id, n.detail = typ, id, detail
	}
}

// Wrap returns h audited.
func (au *Audit) Wrap(h http.Handler) http.Handler {
	if au == nil || au.Record == nil {
		return h
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodGet, http.MethodHead, http.MethodOptions:
			h.ServeHTTP(w, r)
			return
		}
		ctx, who := einvoice.WithActorBox(r.Context())
		note := &auditNote{}
		ctx = context.WithValue(ctx, auditNoteKey{}, note)
		rec := &auditWriter{ResponseWriter: w}
		r = r.WithContext(ctx)
		defer func() {
			v := recover()
			if v != nil {
				rec.status = http.StatusInternalServerError
			}
			if a, ok := who(); ok {
				au.Record(context.WithoutCancel(ctx), withOrigin(a, r), au.entry(r, rec, note))
			}
			if v != nil {
				panic(v)
			}
		}()
		h.ServeHTTP(rec, r)
	})
}

// withOrigin fills in the actor's address and user agent from r where the
// authenticating layer left them empty.
func withOrigin(a einvoice.Actor, r *http.Request) einvoice.Actor {
	if a.Address == "" {
		a.Address = ClientAddress(r)
	}
	if a.UserAgent == "" {
		a.UserAgent = r.UserAgent()
	}
	return a
}

// ClientAddress is the peer's IP address (a proxy's X-Forwarded-For is
// not trusted: it is the client's to write).
func ClientAddress(r *http.Request) string {
	host := r.RemoteAddr
	if i := strings.LastIndexByte(host, ':'); i >= 0 && !strings.HasSuffix(host, "]") {
		host = host[:i]
	}
	return strings.Trim(host, "[]")
}

// entry is the audit entry of an answered request.
func (au *Audit) entry(r *http.Request, rec *auditWriter, note *auditNote) einvoice.AuditEntry {
	status := rec.status
	if status == 0 {
		status = http.StatusOK
	}
	e := einvoice.AuditEntry{Action: r.Pattern, Status: status, Outcome: einvoice.AuditOutcomeOf(status), Detail: note.detail}
	if e.Action == "" {
		e.Action = r.Method + " " + r.URL.Path
	}
	e.ResourceType, e.ResourceID = au.resource(r, rec)
	if note.typ != "" || note.id != "" {
		e.ResourceType, e.ResourceID = note.typ, note.id
	}
	if e.Detail == "" && status >= 400 {
		var b ErrorBody
		if json.Unmarshal(rec.body.Bytes(), &b) == nil {
			e.Detail = string(b.ErrorCode)
		}
	}
	return e
}

// resource is the type and id of what r changed: the collection before the
// pattern's first wildcard and that wildcard's value ("/api/v1/buyers/{id}"
// -> buyer, its id); for a create (no wildcard), the last literal segment
// and the id of what was made (the answer's Location, or its data.id).
func (au *Audit) resource(r *http.Request, rec *auditWriter) (string, string) {
	_, path, _ := strings.Cut(r.Pattern, " ")
	segs := strings.Split(strings.Trim(path, "/"), "/")
	coll := ""
	for _, s := range segs {
		if strings.HasPrefix(s, "{") {
			name := strings.Trim(s, "{}.")
			return au.typeOf(coll), r.PathValue(name)
		}
		coll = s
	}
	return au.typeOf(coll), createdID(rec)
}

func (au *Audit) typeOf(segment string) string {
	if t, ok := au.Types[segment]; ok {
		return t
	}
	return segment
}

// createdID is the id of what a successful create made: the last segment
// of its Location, or the data.id of its JSON answer.
func createdID(rec *auditWriter) string {
	if rec.status >= 400 {
		return ""
	}
	if loc := rec.Header().Get("Location"); loc != "" {
		loc, _, _ = strings.Cut(loc, "?")
		return loc[strings.LastIndexByte(loc, '/')+1:]
	}
	body := rec.body.Bytes()
	// The envelope as WriteJSON writes it, the id its data's first field
	// (a document's, a party's): read without decoding the whole answer.
	if rest, ok := bytes.CutPrefix(body, []byte(`{"success":true,"data":{"id":"`)); ok {
		if end := bytes.IndexByte(rest, '"'); end > 0 && bytes.IndexByte(rest[:end], '\\') < 0 {
			return string(rest[:end])
		}
	}
	if !bytes.Contains(body, []byte(`"id"`)) {
		return ""
	}
	var v struct {
		Data struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	_ = json.Unmarshal(body, &v)
	return v.Data.ID
}

// auditWriter remembers the status and the start of the body of an
// answer.
type auditWriter struct {
	http.ResponseWriter
	status int
	body   bytes.Buffer
}

func (w *auditWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *auditWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	if room := maxAuditBody - w.body.Len(); room > 0 {
		w.body.Write(b[:min(room, len(b))])
	}
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (w *auditWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
