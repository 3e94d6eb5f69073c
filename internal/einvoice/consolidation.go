package einvoice

import (
	"context"
	"time"
)

// ConsolidationStatus is where a consolidation stands: running until every
// document it makes is created and submitted, then completed.
type ConsolidationStatus string

// The statuses of a consolidation.
const (
	ConsolidationRunning   ConsolidationStatus = "running"
	ConsolidationCompleted ConsolidationStatus = "completed"
)

// ConsolidationDeadlineDays is how many days after the month's end its
// consolidated e-invoices are due (DECISIONS 17).
const ConsolidationDeadlineDays = 7

// Consolidation turns a month's open receipts into consolidated invoices
// (DECISIONS 17). The first of a month is its consolidation; a later one
// (Supplementary) carries the receipts recorded after it.
type Consolidation struct {
	ID       string              `json:"id"`
	TenantID string              `json:"-"`
	Month    string              `json:"month"`
	Status   ConsolidationStatus `json:"status"`
	// Seq is the consolidation's number within its month (1 for the first).
	Seq           int  `json:"sequence"`
	Supplementary bool `json:"supplementary"`
	// Documents are the consolidated invoices made so far, in order.
	Documents []ConsolidationDocument `json:"documents"`
	// ReceiptCount is how many receipts the documents carry.
	ReceiptCount int `json:"receiptCount"`
	// ExcludedCount and Excluded are the month's receipts the authority
	// does not allow in a consolidation, with the reason.
	ExcludedCount int               `json:"excludedCount"`
	Excluded      []ExcludedReceipt `json:"excludedReceipts"`
	// Deadline is the last day (Malaysian time, YYYY-MM-DD) to issue the
	// month's consolidated e-invoices: 7 days after the month's end.
	Deadline    string     `json:"deadline"`
	CreatedAt   time.Time  `json:"createdAt"`
	CompletedAt *time.Time `json:"completedAt"`
	// LeaseOwner and LeaseUntil say which process works the consolidation
	// and until when; another takes it over after.
	LeaseOwner string    `json:"-"`
	LeaseUntil time.Time `json:"-"`
}

// ConsolidationDocument is one consolidated invoice of a consolidation.
type ConsolidationDocument struct {
	ID                  string `json:"id"`
	InvoiceSerialNumber string `json:"invoiceSerialNumber"`
	Status              Status `json:"status"`
	ReceiptCount        int    `json:"receiptCount"`
}

// ExcludedReceipt is a receipt left out of a consolidation, and why.
type ExcludedReceipt struct {
	ID            string `json:"id"`
	ReceiptNumber string `json:"receiptNumber"`
	Reason        string `json:"reason"`
}

// ConsolidationDeadline is the last day to issue month's consolidated
// e-invoices (Malaysian time, YYYY-MM-DD); "" for a malformed month.
func ConsolidationDeadline(month string) string {
	start, ok := ParseReceiptMonth(month)
	if !ok {
		return ""
	}
	return start.AddDate(0, 1, ConsolidationDeadlineDays-1).Format(DateLayout)
}

// MonthEnded reports whether month (YYYY-MM) is over at now, in Malaysian
// time.
func MonthEnded(month string, now time.Time) bool {
	start, ok := ParseReceiptMonth(month)
	return ok && !now.Before(start.AddDate(0, 1, 0))
}

// PreviousMonth is the Malaysian month before the one of now, YYYY-MM, and
// the day of the month now is (Malaysian time).
func PreviousMonth(now time.Time) (string, int) {
	local := now.In(MYT)
	first := time.Date(local.Year(), local.Month(), 1, 0, 0, 0, 0, MYT)
	return first.AddDate(0, -1, 0).Format("2006-01"), local.Day()
}

// ConsolidationFilter selects a page of consolidations (Month, YYYY-MM).
type ConsolidationFilter struct {
	Month string
	PageRequest
}

// ConsolidatedDocumentWrite is one consolidated invoice created with the
// transition of the receipts it carries, in one transaction, provided
// every one of them is still open.
type ConsolidatedDocumentWrite struct {
	Doc        *Document
	Event      Event
	ReceiptIDs []string
	At         time.Time
}

// ConsolidationStore keeps consolidations, scoped to a tenant.
type ConsolidationStore interface {
	// CreateConsolidation inserts c (running, leased) with the next Seq of
	// its month; ErrConflict when the tenant has a running consolidation.
	CreateConsolidation(ctx context.Context, c *Consolidation) error
	// GetConsolidation returns the consolidation, or ErrNotFound.
	GetConsolidation(ctx context.Context, tenantID, id string) (*Consolidation, error)
	// ListConsolidations returns one page, newest first.
	ListConsolidations(ctx context.Context, tenantID string, f ConsolidationFilter) (Page[*Consolidation], error)
	// ClaimConsolidation leases a running consolidation whose lease has
	// expired (or is owner's) to owner until until; nil when there is none.
	ClaimConsolidation(ctx context.Context, owner string, now, until time.Time) (*Consolidation, error)
	// SaveConsolidation writes c's progress (documents, counts, excluded)
	// while owner holds it; ErrWrongState when it does not.
	SaveConsolidation(ctx context.Context, c *Consolidation) error
	// CompleteConsolidation marks c completed with its event, in one
	// transaction, while c.LeaseOwner holds it; ErrWrongState otherwise.
	CompleteConsolidation(ctx context.Context, c *Consolidation, e *APIEvent) error
	// CreateConsolidatedDocument inserts w.Doc (with w.Event) and moves the
	// receipts w.ReceiptIDs from open to consolidated (with the ids of
	// w.Doc and its consolidation), in one transaction; ErrWrongState (and
	// nothing written) when one of them is no longer open.
	CreateConsolidatedDocument(ctx context.Context, w ConsolidatedDocumentWrite, consolidationID string) error
	// MonthReceipts returns the month's receipts of the given
	// statuses (not deleted), in any order.
	MonthReceipts(ctx context.Context, tenantID, month string, statuses []ReceiptStatus) ([]*Receipt, error)
	// ConsolidationCounts returns, per consolidated invoice of the
	// consolidation, how many receipts it carries.
	ConsolidationCounts(ctx context.Context, tenantID, consolidationID string) (map[string]int, error)
	// DocumentReceipts returns the receipts a consolidated invoice carries.
	DocumentReceipts(ctx context.Context, tenantID, documentID string) ([]*Receipt, error)
	// ClaimSchedule records that the scheduler consolidates month for the
	// tenant; false when it was claimed before (on any replica).
	ClaimSchedule(ctx context.Context, tenantID, month string, at time.Time) (bool, error)
}
