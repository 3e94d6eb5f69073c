package httpapi

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/einvoice/einvoice/internal/einvoice"
)

// keyActor is the actor of a request made with k: the key, by its name or,
// without one, its prefix.
func keyActor(k *einvoice.APIKey) einvoice.Actor {
	name := k.Name
	if name == "" {
		name = k.Prefix + "..."
	}
	return einvoice.Actor{Kind: einvoice.ActorKey, ID: k.ID, Name: name, TenantID: k.TenantID}
}

// auditTypes maps the API's collections to the audit log's resource types.
func auditTypes() map[string]string {
	t := map[string]string{
		"documents": "document", "submit-bulk": "document", "buyers": "buyer", "on-behalf-sellers": "seller",
		"receipts": "receipt", "bulk": "receipt", "consolidations": "consolidation", "received-documents": "received_document",
		"webhooks": "webhook", "settings": "mail_settings", "preview": "mail", "test": "mail", "profile": "profile",
	}
	for _, ki := range einvoice.Kinds {
		t[strings.TrimPrefix(ki.Path, "/")] = "document"
	}
	return t
}

// auditJSON is an entry of the audit log as the API shows it.
type auditJSON struct {
	Seq       int64             `json:"seq"`
	At        time.Time         `json:"at"`
	Actor     auditActorJSON    `json:"actor"`
	Address   string            `json:"address"`
	UserAgent string            `json:"userAgent"`
	Action    string            `json:"action"`
	Resource  auditResourceJSON `json:"resource"`
	Outcome   string            `json:"outcome"`
	Status    int               `json:"status"`
	Detail    string            `json:"detail"`
	PrevHash  string            `json:"prevHash"`
	Hash      string            `json:"hash"`
}

type auditActorJSON struct {
	Kind  string `json:"kind"`
	ID    string `json:"id"`
	Name  string `json:"name"`
	Email string `json:"email"`
}

type auditResourceJSON struct {
	Type string `json:"type"`
	ID   string `json:"id"`
}

func auditView(e *einvoice.AuditEntry) auditJSON {
	return auditJSON{Seq: e.Seq, At: e.At, Actor: auditActorJSON{Kind: string(e.ActorKind), ID: e.ActorID, Name: e.ActorName, Email: e.ActorEmail},
		Address: e.Address, UserAgent: e.UserAgent, Action: e.Action, Resource: auditResourceJSON{Type: e.ResourceType, ID: e.ResourceID},
		Outcome: string(e.Outcome), Status: e.Status, Detail: e.Detail, PrevHash: e.PrevHash, Hash: e.Hash}
}

// listAudit is GET /api/v1/audit-log: the tenant's entries, newest first,
// by page; filters actor (an id, an e-mail or a kind), action, resource
// (type or type:id), from and to (a date, or an RFC 3339 time); before and
// after (a seq) page by keyset, after oldest first as events' after=.
func (s *Server) listAudit(w http.ResponseWriter, r *http.Request, k *einvoice.APIKey) error {
	pr, fe := listPaging(r)
	q := r.URL.Query()
	f := einvoice.AuditFilter{Actor: q.Get("actor"), Action: q.Get("action"), PageRequest: pr}
	f.ResourceType, f.ResourceID, _ = strings.Cut(q.Get("resource"), ":")
	for name, v := range map[string]string{"actor": f.Actor, "action": f.Action, "resource": q.Get("resource")} {
		if len(v) > einvoice.MaxAuditField {
			fe.Add(name, "must be at most %d characters", einvoice.MaxAuditField)
		}
		fe.Merge("", renameSearch(checkSearch(v), name))
	}
	if q.Has("resource") && f.ResourceType == "" {
		fe.Add("resource", "must be a type, or type:id (e.g. document:0190...)")
	}
	f.From = queryInstant(q.Get("from"), "from", false, fe)
	f.To = queryInstant(q.Get("to"), "to", true, fe)
	if !f.From.IsZero() && !f.To.IsZero() && !f.From.Before(f.To) {
		fe.Add("to", "must be after from (%s)", q.Get("from"))
	}
	f.Before = querySeq(q.Get("before"), "before", fe)
	f.After = querySeq(q.Get("after"), "after", fe)
	if err := fe.Err(); err != nil {
		return err
	}
	page, err := s.svc.ListAudit(r.Context(), k.TenantID, f)
	if err != nil {
		return err
	}
	items := make([]auditJSON, len(page.Items))
	for i, e := range page.Items {
		items[i] = auditView(e)
	}
	okPage(w, page, items)
	return nil
}

// renameSearch names checkSearch's problem by the parameter it is about.
func renameSearch(f einvoice.FieldErrors, name string) einvoice.FieldErrors {
	if msgs, ok := f["search"]; ok {
		return einvoice.FieldErrors{name: msgs}
	}
	return nil
}

// queryInstant reads a time bound: a date (YYYY-MM-DD, UTC; as the end of
// a period, end true, the day included: the next midnight) or an RFC 3339
// time. The zero time when empty; a problem of name in f when neither.
func queryInstant(v, name string, end bool, f einvoice.FieldErrors) time.Time {
	if v == "" {
		return time.Time{}
	}
	if d, err := time.Parse(time.DateOnly, v); err == nil {
		if end {
			d = d.AddDate(0, 0, 1)
		}
		return d
	}
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		f.Add(name, "must be a date as YYYY-MM-DD or a time as RFC 3339 (e.g. 2026-01-31 or 2026-01-31T08:00:00Z)")
		return time.Time{}
	}
	return t
}

// querySeq reads a seq of the audit log (a positive integer); 0 when
// empty.
func querySeq(v, name string, f einvoice.FieldErrors) int64 {
	if v == "" {
		return 0
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 1 {
		f.Add(name, "must be the seq of an entry (a positive integer)")
		return 0
	}
	return n
}
