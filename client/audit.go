package client

import (
	"context"
	"iter"
	"net/url"
	"strconv"
	"time"
)

// The outcomes of an audit entry (AuditEntry.Outcome).
const (
	AuditOK      = "ok"
	AuditRefused = "refused"
	AuditFailed  = "failed"
)

// AuditEntry is one change of the audit log: when, who, from where, what,
// on which resource, how it ended, and its place in the log's hash chain.
type AuditEntry struct {
	// Seq is the entry's place in the chain (over the whole service: a
	// tenant's entries are not contiguous).
	Seq       int64         `json:"seq"`
	At        time.Time     `json:"at"`
	Actor     AuditActor    `json:"actor"`
	Address   string        `json:"address"`
	UserAgent string        `json:"userAgent"`
	Action    string        `json:"action"`
	Resource  AuditResource `json:"resource"`
	// Outcome is AuditOK, AuditRefused or AuditFailed; Status the HTTP
	// status of the answer (0 for the service's own changes).
	Outcome  string `json:"outcome"`
	Status   int    `json:"status"`
	Detail   string `json:"detail"`
	PrevHash string `json:"prevHash"`
	Hash     string `json:"hash"`
}

// AuditActor is who made a change: Kind is user, key, request_page, cli or
// service.
type AuditActor struct {
	Kind  string `json:"kind"`
	ID    string `json:"id"`
	Name  string `json:"name"`
	Email string `json:"email"`
}

// AuditResource is what a change was made to.
type AuditResource struct {
	Type string `json:"type"`
	ID   string `json:"id"`
}

// AuditListOptions filter a list of audit entries.
type AuditListOptions struct {
	// Actor is an actor's id, an e-mail, or a kind (user, key, ...).
	Actor  string
	Action string
	// Resource is a type ("document") or type:id.
	Resource string
	// From (included) and To (excluded) bound the entries' times.
	From, To time.Time
	// Before and After, a Seq, page by keyset: the entries before it,
	// newest first, or after it, oldest first.
	Before, After int64
	ListOptions
}

func (o *AuditListOptions) query() url.Values {
	q := url.Values{}
	for name, v := range map[string]string{"actor": o.Actor, "action": o.Action, "resource": o.Resource} {
		if v != "" {
			q.Set(name, v)
		}
	}
	if !o.From.IsZero() {
		q.Set("from", o.From.Format(time.RFC3339Nano))
	}
	if !o.To.IsZero() {
		q.Set("to", o.To.Format(time.RFC3339Nano))
	}
	if o.Before > 0 {
		q.Set("before", strconv.FormatInt(o.Before, 10))
	}
	if o.After > 0 {
		q.Set("after", strconv.FormatInt(o.After, 10))
	}
	return o.ListOptions.query(q)
}

// AuditLogService reads the tenant's audit log.
type AuditLogService struct{ c *Client }

// List returns one page of the audit log, newest first (oldest first with
// After).
func (s *AuditLogService) List(ctx context.Context, opts *AuditListOptions) (*Page[AuditEntry], error) {
	if opts == nil {
		opts = &AuditListOptions{}
	}
	return list[AuditEntry](ctx, s.c, "/api/v1/audit-log", opts.query())
}

// All iterates over every entry the options match, from opts.Page on.
func (s *AuditLogService) All(ctx context.Context, opts *AuditListOptions) iter.Seq2[AuditEntry, error] {
	o := AuditListOptions{}
	if opts != nil {
		o = *opts
	}
	fetch := func(ctx context.Context, page int) (*Page[AuditEntry], error) {
		o.Page = page
		return s.List(ctx, &o)
	}
	return all(ctx, fetch, o.Page, func(e AuditEntry) string { return strconv.FormatInt(e.Seq, 10) })
}
