package einvoice

import (
	"context"
	"time"
)

// AuditOutcome is how a change recorded in the audit log ended.
type AuditOutcome string

// The outcomes of an audited change.
const (
	// AuditOK: the change was made (an HTTP status below 400).
	AuditOK AuditOutcome = "ok"
	// AuditRefused: refused, nothing changed (a 4xx to an authenticated
	// actor: a rule, a permission, a wrong state).
	AuditRefused AuditOutcome = "refused"
	// AuditFailed: the service failed (a 5xx, an error of a command).
	AuditFailed AuditOutcome = "failed"
)

// AuditOutcomeOf is the outcome of an HTTP status.
func AuditOutcomeOf(status int) AuditOutcome {
	switch {
	case status >= 500:
		return AuditFailed
	case status >= 400:
		return AuditRefused
	}
	return AuditOK
}

// Audit field limits, in bytes: longer values are cut (at a character
// boundary) before an entry is hashed.
const (
	MaxAuditField  = 200 // names, e-mails, ids, actions, addresses
	MaxAuditAgent  = 300 // the user agent
	MaxAuditDetail = 500
)

// AuditEntry is one entry of the audit log (DECISIONS 20): a change made
// through the API, the dashboard, the request page, the CLI or by the
// service itself; when, who, from where, what, on which resource, and how
// it ended. Entries form one hash chain over the whole database (every
// tenant): Seq counts from 1 without gaps, PrevHash is the Hash of the
// entry before (GenesisAuditHash for the first), and Hash is AuditHash of
// the entry. The store sets Seq, PrevHash and Hash as it appends.
type AuditEntry struct {
	Seq int64
	// At is when the change was made, in microseconds (UTC).
	At       time.Time
	TenantID string
	// The actor (Actor's fields): its kind, id, name and e-mail.
	ActorKind  ActorKind
	ActorID    string
	ActorName  string
	ActorEmail string
	// Address and UserAgent are where the change came from.
	Address   string
	UserAgent string
	// Action is what was done: an API route pattern ("POST
	// /api/v1/documents/{id}/submit"), or a verb of the service or the CLI
	// ("document.valid", "key.create").
	Action string
	// ResourceType and ResourceID name what the change was made to
	// ("document", "0190..."); ResourceID is "" when unknown (a create
	// that was refused).
	ResourceType string
	ResourceID   string
	Outcome      AuditOutcome
	// Status is the HTTP status of the answer (0 for changes that were no
	// request's).
	Status int
	// Detail is a short text (a command, an error code).
	Detail string
	// PrevHash and Hash are lowercase hex SHA-256 digests.
	PrevHash string
	Hash     string
}

// AuditFilter selects a page of a tenant's audit log. Actor is an actor
// id (a key's or a user's), an e-mail (with an @), or an actor kind (user,
// key, request_page, cli, service). ResourceID needs ResourceType. From
// (included) and To (excluded) bound At when not zero.
//
// Without Before or After the page is the newest entries first, by page
// number (by Seq; with From or To, by At then Seq: the same order but
// for entries of one moment). Keyset paging, which costs the same on any page however long the
// log: Before (a Seq) selects the entries before it, newest first; After
// the entries after it, oldest first (as events' after=). Page numbers
// count from there.
type AuditFilter struct {
	Actor        string
	Action       string
	ResourceType string
	ResourceID   string
	From, To     time.Time
	Before       int64
	After        int64
	PageRequest
}

// AuditStore keeps the audit log: appended to, never changed.
type AuditStore interface {
	// AppendAudit appends the entries, in order, at the end of the chain in
	// one transaction, setting each one's Seq, PrevHash and Hash. Appends
	// of several processes on one database make one chain.
	AppendAudit(ctx context.Context, entries ...*AuditEntry) error
	// ListAudit returns one page of a tenant's entries (AuditFilter).
	ListAudit(ctx context.Context, tenantID string, f AuditFilter) (Page[*AuditEntry], error)
	// WalkAudit calls fn with every entry of the chain up to Seq through,
	// by Seq, as stored (not checked), until fn returns an error, which it
	// returns.
	WalkAudit(ctx context.Context, through int64, fn func(*AuditEntry) error) error
	// AuditHead returns the Seq and Hash of the last entry appended, as the
	// store keeps them apart from the entries (0 and GenesisAuditHash for
	// an empty log): so that removing the last entries is detected too.
	AuditHead(ctx context.Context) (seq int64, hash string, err error)
}
