package einvoice

import (
	"context"
	"encoding/json"
	"time"
)

// Store is everything the service keeps. The sqlstore package implements it
// on SQLite and on PostgreSQL; one conformance suite tests both.
type Store interface {
	TenantStore
	APIKeyStore
	PartyStore
	DocumentStore
	SubmissionStore
	EventStore
	WebhookStore
	ReceivedStore
	ReceiptStore
	ConsolidationStore
	SessionStore
	UserStore
	MailStore
	AuditStore
	// Ping reports whether the database answers.
	Ping(ctx context.Context) error
	// Close releases the database.
	Close() error
}

// TenantStore keeps tenants. Secrets of Authority are encrypted at rest.
type TenantStore interface {
	// CreateTenant inserts t (its ID set by the caller).
	CreateTenant(ctx context.Context, t *Tenant) error
	// GetTenant returns the tenant, or ErrNotFound.
	GetTenant(ctx context.Context, id string) (*Tenant, error)
	// ListTenants returns every tenant, oldest first.
	ListTenants(ctx context.Context) ([]*Tenant, error)
	// UpdateTenant replaces the profile and authority settings of t, or
	// returns ErrNotFound.
	UpdateTenant(ctx context.Context, t *Tenant) error
	// Bootstrap creates t, k, the owner (a member of t) and the owner's
	// one-time link in one transaction if, and only if, no bootstrap has
	// happened on this database before (so that one of several replicas
	// starting together creates the demo tenant). It reports whether it
	// created them.
	Bootstrap(ctx context.Context, t *Tenant, k *APIKey, owner *User, link *UserToken) (bool, error)
}

// APIKeyStore keeps API keys (their hashes).
type APIKeyStore interface {
	// CreateAPIKey inserts k; ErrNotFound when its tenant does not exist.
	CreateAPIKey(ctx context.Context, k *APIKey) error
	// APIKeyByHash returns the key with that hash, revoked or not, or ErrNotFound.
	APIKeyByHash(ctx context.Context, hash []byte) (*APIKey, error)
	// ListAPIKeys returns the keys of a tenant, oldest first.
	ListAPIKeys(ctx context.Context, tenantID string) ([]*APIKey, error)
	// RevokeAPIKey marks the key revoked at the given time (keeping an
	// earlier revocation), or returns ErrNotFound.
	RevokeAPIKey(ctx context.Context, id string, at time.Time) error
	// TouchAPIKey records when the key was last used.
	TouchAPIKey(ctx context.Context, id string, at time.Time) error
}

// PartyStore keeps buyers and on-behalf sellers, always scoped to a tenant:
// another tenant's id is ErrNotFound.
type PartyStore interface {
	// CreateParty inserts p (ID, TenantID, Kind and timestamps set).
	CreateParty(ctx context.Context, p *Party) error
	// GetParty returns the party, or ErrNotFound.
	GetParty(ctx context.Context, tenantID string, kind PartyKind, id string) (*Party, error)
	// UpdateParty replaces every writable field of p, or returns ErrNotFound.
	UpdateParty(ctx context.Context, p *Party) error
	// DeleteParty removes the party; ErrNotFound, or ErrInUse while
	// documents reference it.
	DeleteParty(ctx context.Context, tenantID string, kind PartyKind, id string) error
	// ListParties returns one page, newest first (ties by id).
	ListParties(ctx context.Context, tenantID string, kind PartyKind, f PartyFilter) (Page[*Party], error)
}

// DocumentStore keeps documents and their history, scoped to a tenant.
type DocumentStore interface {
	// CreateDocument inserts d with its first event; ErrConflict when its
	// serial number is taken for its type code, ErrNotFound when a party it
	// names is gone.
	CreateDocument(ctx context.Context, d *Document, e Event) error
	// GetDocument returns the document; ErrNotFound, or ErrUnreadable when
	// its stored row does not decode.
	GetDocument(ctx context.Context, tenantID, id string) (*Document, error)
	// UpdateDocument replaces d when its stored status is one of from,
	// recording e when not nil; ErrNotFound, ErrWrongState, ErrConflict.
	UpdateDocument(ctx context.Context, d *Document, from []Status, e *Event) error
	// DeleteDocument removes the document when its status is one of from;
	// ErrNotFound or ErrWrongState.
	DeleteDocument(ctx context.Context, tenantID, id string, from []Status) error
	// ListDocuments returns one page, newest first (ties by id). A row that
	// does not decode is left out of Items and named in Unreadable.
	ListDocuments(ctx context.Context, tenantID string, f DocumentFilter) (Page[*Document], error)
	// CountDocumentsByStatus returns how many documents f selects at each
	// status (f.Status and paging ignored), in one query.
	CountDocumentsByStatus(ctx context.Context, tenantID string, f DocumentFilter) (map[Status]int, error)
	// GetDocumentJSON and ListDocumentsJSON are GetDocument and
	// ListDocuments with each document as its JSON rendering (what
	// json.Marshal makes of the Document GetDocument returns), which a
	// store may keep as it writes the document rather than render on read.
	GetDocumentJSON(ctx context.Context, tenantID, id string) (json.RawMessage, error)
	ListDocumentsJSON(ctx context.Context, tenantID string, f DocumentFilter) (Page[json.RawMessage], error)
	// TransitionDocument moves the document from one status to another,
	// provided it is still at that status and unchanged since version (its
	// UpdatedAt), recording e; ErrNotFound or ErrWrongState.
	TransitionDocument(ctx context.Context, tenantID, id string, from Status, version time.Time, e Event) error
	// DocumentsBySerial returns the tenant's documents with exactly that
	// serial number, of any type; ErrUnreadable when one does not decode.
	DocumentsBySerial(ctx context.Context, tenantID, serial string) ([]*Document, error)
	// DocumentHistory returns the events of a document, oldest first.
	DocumentHistory(ctx context.Context, tenantID, id string) ([]Event, error)
}

// DocumentFilter selects a page of documents. Search is a case-insensitive
// prefix of the serial number. From and To, when not zero, bound the
// documents' issue date (Document.IssueDate), both ends included: each
// stands for its calendar date in UTC (the API gives midnight UTC), its time
// of day ignored.
type DocumentFilter struct {
	Status Status
	Kind   DocumentKind
	Search string
	From   time.Time
	To     time.Time
	// Total, when above 0, is how many documents the filter selects as the
	// caller counted them a moment ago (CountDocumentsByStatus): the store
	// reads the page without counting them again.
	Total int
	PageRequest
}

// Event is one entry of a document's history: a status it reached, when,
// and who caused it: the API key ("" for the service itself or a person),
// or the person (By: name and e-mail) signed in to the dashboard.
type Event struct {
	ID     string    `json:"-"`
	Status Status    `json:"status"`
	KeyID  string    `json:"keyId"`
	By     string    `json:"by,omitempty"`
	Note   string    `json:"note"`
	At     time.Time `json:"at"`
}

// ByOf is how an event names the actor of ctx when it is a person (name
// and e-mail); "" otherwise (a key is named by its id).
func ByOf(ctx context.Context) string {
	if a, ok := ActorOf(ctx); ok && a.Kind == ActorUser {
		return PersonLabel(a.Name, a.Email)
	}
	return ""
}

// PersonLabel is how the history and the audit name a person: "Name <e-mail>".
func PersonLabel(name, email string) string { return name + " <" + email + ">" }

// RateLimiter counts requests per API key in fixed windows opened by a
// key's first request after the previous window closed.
type RateLimiter interface {
	// Allow counts one request of the key at now and returns the decision.
	Allow(ctx context.Context, keyID string, now time.Time) (RateDecision, error)
}

// RateDecision is the outcome of one counted request.
type RateDecision struct {
	Allowed   bool
	Limit     int
	Remaining int
	// Reset is when the current window closes.
	Reset time.Time
}
