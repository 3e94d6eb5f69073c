package einvoice

import (
	"context"
	"time"
)

// RejectWindow is how long after its validation a received document may
// be rejected by its buyer (the authority's 72 hours).
const RejectWindow = 72 * time.Hour

// The statuses of a received document: as the authority reports it.
const (
	ReceivedValid     = "Valid"
	ReceivedCancelled = "Cancelled"
)

// ReceivedDocument is a document another taxpayer issued to a tenant,
// as the poller found it at the authority (DECISIONS 16): its summary from
// the authority, and the fields our UBL reader found in its raw document
// (Parsed false, with ParseError, when it could not read it).
type ReceivedDocument struct {
	ID            string
	TenantID      string
	UUID          string
	SubmissionUID string
	LongID        string
	// TypeCode is the document type (01-04, 11-14); TypeName as the
	// authority lists it.
	TypeCode    string
	TypeName    string
	TypeVersion string
	// Number is the issuer's own number (the authority's internalId).
	Number       string
	IssuerTIN    string
	IssuerName   string
	ReceiverTIN  string
	ReceiverName string
	IssuedAt     time.Time
	SubmittedAt  time.Time
	ValidatedAt  *time.Time
	Status       string
	CancelledAt  *time.Time
	// RejectionRequestedAt is when a rejection was asked (by this tenant,
	// or seen at the authority), with its reason.
	RejectionRequestedAt *time.Time
	StatusReason         string
	// Currency and the totals are the raw document's (decimal text).
	Currency           string
	TotalExcludingTax  string
	TotalTax           string
	TotalIncludingTax  string
	TotalPayableAmount string
	// Lines are the parsed lines (JSON of ReceivedLine).
	Lines      []ReceivedLine
	Parsed     bool
	ParseError string
	CreatedAt  time.Time
	UpdatedAt  time.Time
}

// ReceivedLine is one line of a received document, amounts as decimal text.
type ReceivedLine struct {
	ID                  string `json:"id"`
	Description         string `json:"description"`
	Quantity            string `json:"quantity,omitempty"`
	UnitCode            string `json:"unitCode,omitempty"`
	UnitPrice           string `json:"unitPrice,omitempty"`
	LineExtensionAmount string `json:"lineExtensionAmount,omitempty"`
	TaxAmount           string `json:"taxAmount,omitempty"`
}

// RejectableUntil is the end of the buyer's rejection window, or nil when
// the document has no validation time.
func (d *ReceivedDocument) RejectableUntil() *time.Time {
	if d.ValidatedAt == nil {
		return nil
	}
	t := d.ValidatedAt.Add(RejectWindow)
	return &t
}

// ReceivedFilter selects a page of received documents: Status (Valid,
// Cancelled), Search (issuer name part, issuer TIN or number), issue date
// From (inclusive) and To (exclusive).
type ReceivedFilter struct {
	Status string
	Search string
	From   *time.Time
	To     *time.Time
	PageRequest
}

// ReceivedWrite stores a received document (new by UUID, or a change of
// its status) with its raw document (on creation) and the events of the
// change, in one transaction. Created reports whether it was new.
type ReceivedWrite struct {
	Doc    *ReceivedDocument
	Raw    []byte
	Notify []*APIEvent
}

// ReceivedPoll is a tenant's received-documents poller state: Cursor is
// the submission time up to which every received document was stored.
type ReceivedPoll struct {
	TenantID string
	Cursor   time.Time
	Failures int
}

// ReceivedStore keeps the received documents and the pollers' progress.
type ReceivedStore interface {
	// SaveReceived inserts the document when its UUID is new to the tenant
	// (with Raw and Notify; created true), and otherwise does nothing.
	SaveReceived(ctx context.Context, w ReceivedWrite) (created bool, err error)
	// UpdateReceived writes a known document's status fields with the
	// events of the change.
	UpdateReceived(ctx context.Context, w ReceivedWrite) error
	// ReceivedUUIDs returns which of the uuids the tenant has, with their
	// stored status.
	ReceivedUUIDs(ctx context.Context, tenantID string, uuids []string) (map[string]string, error)
	// GetReceived returns one received document, or ErrNotFound.
	GetReceived(ctx context.Context, tenantID, id string) (*ReceivedDocument, error)
	// GetReceivedRaw returns its raw document as the authority gave it.
	GetReceivedRaw(ctx context.Context, tenantID, id string) ([]byte, error)
	// ListReceived returns one page, newest issued first.
	ListReceived(ctx context.Context, tenantID string, f ReceivedFilter) (Page[*ReceivedDocument], error)
	// ClaimReceivedPoll takes the tenant's poller lease when it is due and
	// free (a row made on first use with cursor start); ok false otherwise.
	ClaimReceivedPoll(ctx context.Context, tenantID, owner string, start, now, leaseUntil time.Time) (p ReceivedPoll, ok bool, err error)
	// FinishReceivedPoll records the cursor and failures, frees the lease
	// and makes the next pass due at next.
	FinishReceivedPoll(ctx context.Context, p ReceivedPoll, owner string, next time.Time) error
}

// ReceivedSummary is a received document as the authority lists it.
type ReceivedSummary struct {
	UUID, SubmissionUID, LongID, Number       string
	TypeName, TypeVersion                     string
	IssuerTIN, IssuerName                     string
	ReceiverTIN, ReceiverName                 string
	Status, StatusReason                      string
	IssuedAt, SubmittedAt                     time.Time
	ValidatedAt, CancelledAt, RejectionAt     *time.Time
	TotalExcludingTax, TotalNet, TotalPayable string
}

// ReceivedPage is one page of the authority's search of received documents.
type ReceivedPage struct {
	Documents  []ReceivedSummary
	TotalPages int
	TotalCount int
}

// ReceivedAPI is the part of the authority's protocol a buyer uses: the
// myinvois client implements it.
type ReceivedAPI interface {
	// SearchReceived lists one page (of 100) of the documents received
	// with submission times in [from, to) (at most 31 days), of one status
	// when status is set.
	SearchReceived(ctx context.Context, c Credentials, from, to time.Time, status string, page int) (ReceivedPage, error)
	// GetRawDocument returns a document's summary and its raw document.
	GetRawDocument(ctx context.Context, c Credentials, uuid string) (ReceivedSummary, []byte, error)
	// RejectDocument asks for the rejection of a received document.
	RejectDocument(ctx context.Context, c Credentials, uuid, reason string) error
	// Notifications lists the taxpayer's notifications created since then
	// (one page of 100, newest first).
	Notifications(ctx context.Context, c Credentials, since time.Time) ([]Notification, error)
}

// The notification types that tell the received-documents poller to look.
const (
	NotificationReceived  = "6"
	NotificationCancelled = "8"
)

// Notification is one of the authority's notifications to a taxpayer.
type Notification struct {
	ID     string
	TypeID string
	At     time.Time
}
