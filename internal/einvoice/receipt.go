package einvoice

import (
	"context"
	"time"

	"github.com/einvoice/einvoice/internal/money"
)

// ReceiptStatus is where a receipt stands (DECISIONS 17).
type ReceiptStatus string

// The statuses of a receipt: open (awaiting a buyer's request or the
// month's consolidation), converted (a buyer asked: an invoice of its own,
// InvoiceID), consolidated (in a consolidated invoice, ConsolidationID and
// ConsolidatedDocumentID), excluded (the authority does not allow it in a
// consolidation, ExcludedReason; it may still be converted).
const (
	ReceiptOpen         ReceiptStatus = "open"
	ReceiptConverted    ReceiptStatus = "converted"
	ReceiptConsolidated ReceiptStatus = "consolidated"
	ReceiptExcluded     ReceiptStatus = "excluded"
)

// ReceiptStatuses lists every status (the values of the status filter).
var ReceiptStatuses = []ReceiptStatus{ReceiptOpen, ReceiptConverted, ReceiptConsolidated, ReceiptExcluded}

// ReceiptDeletable lists the statuses in which a receipt may be deleted:
// neither converted nor consolidated (a document stands on it then).
var ReceiptDeletable = []ReceiptStatus{ReceiptOpen, ReceiptExcluded}

// MaxReceiptsPerBulk is the most receipts one bulk create takes.
const MaxReceiptsPerBulk = 1000

// MaxReceiptNumberLen bounds a receipt number (the authority's e-invoice
// number limit, which a consolidated line names).
const MaxReceiptNumberLen = 50

// ReceiptInput is what a client gives to record a receipt: the sale, never
// its amounts (they are always computed, as autoCalculate computes a
// document's).
type ReceiptInput struct {
	ReceiptNumber string `json:"receiptNumber"`
	// IssuedAt is when the sale was made (RFC 3339 with an offset).
	IssuedAt     *time.Time    `json:"issuedAt"`
	CurrencyCode string        `json:"currencyCode"`
	ExchangeRate *money.Number `json:"exchangeRate"`
	Lines        []Line        `json:"invoiceLines"`
	Payment      *Payment      `json:"payment"`
}

// Receipt is a sale to the public (B2C) recorded by a tenant, awaiting
// either its buyer's request for an e-invoice or the month's consolidated
// e-invoice (DECISIONS 17). Its amounts are always those of Calculate.
type Receipt struct {
	ID            string    `json:"id"`
	TenantID      string    `json:"-"`
	ReceiptNumber string    `json:"receiptNumber"`
	IssuedAt      time.Time `json:"issuedAt"`
	// Month is the Malaysian calendar month of IssuedAt, YYYY-MM.
	Month        string        `json:"month"`
	CurrencyCode string        `json:"currencyCode"`
	ExchangeRate *money.Number `json:"exchangeRate,omitempty"`
	Lines        []Line        `json:"invoiceLines"`
	Payment      *Payment      `json:"payment"`

	Totals

	Status ReceiptStatus `json:"status"`
	// RequestURL is the buyer's request page: the service's public base
	// URL, then /r/ and Token. The service sets it when answering; it is
	// not stored.
	RequestURL string `json:"requestUrl"`
	// InvoiceID is the invoice a buyer's request made (converted).
	InvoiceID string `json:"invoiceId,omitempty"`
	// ConsolidationID and ConsolidatedDocumentID name the consolidation and
	// the consolidated invoice that carry the receipt (consolidated).
	ConsolidationID        string `json:"consolidationId,omitempty"`
	ConsolidatedDocumentID string `json:"consolidatedDocumentId,omitempty"`
	// ExcludedReason says why the receipt may not be consolidated.
	ExcludedReason string `json:"excludedReason,omitempty"`

	// Token is the secret of RequestURL: at least 128 random bits,
	// URL-safe, unique. Never in the API's JSON.
	Token string `json:"-"`
	// DeletedAt is set on a deleted receipt: a tombstone, hidden from the
	// API but found by its token, so that its request page can say so.
	DeletedAt *time.Time `json:"-"`

	CreatedAt time.Time `json:"createdAt"`
	UpdatedAt time.Time `json:"updatedAt"`
}

// ReceiptMonth is the Malaysian calendar month (UTC+8) of t, as YYYY-MM.
func ReceiptMonth(t time.Time) string { return t.In(MYT).Format("2006-01") }

// ParseReceiptMonth reads a month as YYYY-MM, and returns its first moment
// in Malaysian time; false when s is not a month.
func ParseReceiptMonth(s string) (time.Time, bool) {
	if len(s) != 7 {
		return time.Time{}, false
	}
	t, err := time.ParseInLocation("2006-01", s, MYT)
	if err != nil {
		return time.Time{}, false
	}
	return t, true
}

// ReceiptFilter selects a page of receipts: Month (YYYY-MM), Status, and
// Search, a case-insensitive prefix of the receipt number. Deleted
// receipts are never listed.
type ReceiptFilter struct {
	Month  string
	Status ReceiptStatus
	Search string
	PageRequest
}

// ReceiptTransition is a conditional change of receipts' status: from one
// of From to To, with the ids of what they became part of. Empty id fields
// are written as empty (a transition back to open clears them).
type ReceiptTransition struct {
	From                   []ReceiptStatus
	To                     ReceiptStatus
	InvoiceID              string
	ConsolidationID        string
	ConsolidatedDocumentID string
	ExcludedReason         string
	At                     time.Time
}

// ReceiptStore keeps receipts, scoped to a tenant (another tenant's id is
// ErrNotFound).
type ReceiptStore interface {
	// CreateReceipt inserts r; ErrConflict when its receipt number is taken
	// by another (not deleted) receipt of the tenant.
	CreateReceipt(ctx context.Context, r *Receipt) error
	// CreateReceipts inserts rs in one transaction, skipping each whose
	// receipt number is taken (by a stored receipt or an earlier one of rs):
	// taken[i] tells which were skipped. The others are stored together.
	CreateReceipts(ctx context.Context, rs []*Receipt) (taken []bool, err error)
	// GetReceipt returns a receipt that is not deleted, or ErrNotFound.
	GetReceipt(ctx context.Context, tenantID, id string) (*Receipt, error)
	// ReceiptByToken returns the receipt of a request token, deleted ones
	// included (DeletedAt set), or ErrNotFound.
	ReceiptByToken(ctx context.Context, token string) (*Receipt, error)
	// ListReceipts returns one page, newest issued first (ties by receipt
	// number, then id, descending).
	ListReceipts(ctx context.Context, tenantID string, f ReceiptFilter) (Page[*Receipt], error)
	// DeleteReceipt makes the receipt a tombstone when its status is one of
	// from; ErrNotFound (also when already deleted), or ErrWrongState.
	DeleteReceipt(ctx context.Context, tenantID, id string, from []ReceiptStatus, at time.Time) error
	// TransitionReceipt applies t to one receipt that is not deleted;
	// ErrNotFound, or ErrWrongState when its status is not in t.From.
	TransitionReceipt(ctx context.Context, tenantID, id string, t ReceiptTransition) error
	// TransitionReceipts applies t to each of ids that is not deleted and
	// whose status is in t.From, in one transaction, and returns how many
	// changed.
	TransitionReceipts(ctx context.Context, tenantID string, ids []string, t ReceiptTransition) (int, error)
	// ConvertReceipt records a buyer's request of a receipt in one
	// transaction: the receipt moves from one of c.From to converted with
	// the invoice's id, c.Buyer (when not nil) is inserted, and c.Invoice
	// with its first event c.Event. Either all is written or nothing:
	// ErrNotFound when the receipt is unknown or deleted, ErrWrongState when
	// its status is not in c.From (another request converted it first),
	// ErrConflict when the invoice's serial number is taken.
	ConvertReceipt(ctx context.Context, c ReceiptConversion) error
}

// ReceiptConversion is what ConvertReceipt writes.
type ReceiptConversion struct {
	TenantID, ReceiptID string
	From                []ReceiptStatus
	Buyer               *Party
	Invoice             *Document
	Event               Event
	At                  time.Time
}
