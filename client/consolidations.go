package client

import (
	"context"
	"iter"
	"net/http"
	"net/url"
	"time"
)

// ConsolidationStatus is where a consolidation stands.
type ConsolidationStatus string

// The statuses of a consolidation.
const (
	// ConsolidationRunning: documents are being made and submitted (a
	// consolidation cut short by a crash completes on restart).
	ConsolidationRunning ConsolidationStatus = "running"
	// ConsolidationCompleted: every document is made and submitted.
	ConsolidationCompleted ConsolidationStatus = "completed"
)

// EventConsolidationCompleted is the event of a completed consolidation
// (its data is the Consolidation).
const EventConsolidationCompleted = "consolidation.completed"

// Consolidation is a month's receipts made consolidated invoices.
type Consolidation struct {
	ID     string              `json:"id"`
	Month  string              `json:"month"`
	Status ConsolidationStatus `json:"status"`
	// Sequence is the consolidation's number within its month; a
	// Supplementary one (Sequence > 1) carries receipts recorded after the
	// month's first consolidation.
	Sequence      int                     `json:"sequence"`
	Supplementary bool                    `json:"supplementary"`
	Documents     []ConsolidationDocument `json:"documents"`
	ReceiptCount  int                     `json:"receiptCount"`
	ExcludedCount int                     `json:"excludedCount"`
	// ExcludedReceipts are the month's receipts the authority does not
	// allow in a consolidation, with the reason.
	ExcludedReceipts []ExcludedReceipt `json:"excludedReceipts"`
	// Deadline is the last day (YYYY-MM-DD, Malaysian time) to issue the
	// month's consolidated e-invoices.
	Deadline    string     `json:"deadline"`
	CreatedAt   time.Time  `json:"createdAt"`
	CompletedAt *time.Time `json:"completedAt"`
}

// ConsolidationDocument is one consolidated invoice of a consolidation.
type ConsolidationDocument struct {
	ID                  string `json:"id"`
	InvoiceSerialNumber string `json:"invoiceSerialNumber"`
	Status              Status `json:"status"`
	ReceiptCount        int    `json:"receiptCount"`
}

// ExcludedReceipt is a receipt left out of the consolidation, and why.
type ExcludedReceipt struct {
	ID            string `json:"id"`
	ReceiptNumber string `json:"receiptNumber"`
	Reason        string `json:"reason"`
}

// ConsolidationListOptions filter a list of consolidations.
type ConsolidationListOptions struct {
	// Month keeps one month, YYYY-MM.
	Month string
	ListOptions
}

func (o *ConsolidationListOptions) query() url.Values {
	q := url.Values{}
	if o.Month != "" {
		q.Set("month", o.Month)
	}
	return o.ListOptions.query(q)
}

// ConsolidationService runs and reads the tenant's consolidations.
type ConsolidationService struct{ c *Client }

func consolidationPath(id string) string { return "/api/v1/consolidations/" + escape(id) }

// Create consolidates the month's receipts (YYYY-MM, Malaysian time):
// CodeNothingToConsolidate when none is left, a 422 for a month malformed
// or not yet ended.
func (s *ConsolidationService) Create(ctx context.Context, month string, opts ...CallOption) (*Consolidation, error) {
	var out Consolidation
	body := struct {
		Month string `json:"month"`
	}{month}
	if _, err := s.c.call(ctx, http.MethodPost, "/api/v1/consolidations", nil, body, &out, opts); err != nil {
		return nil, err
	}
	return &out, nil
}

// List returns one page of consolidations, newest first.
func (s *ConsolidationService) List(ctx context.Context, opts *ConsolidationListOptions) (*Page[Consolidation], error) {
	if opts == nil {
		opts = &ConsolidationListOptions{}
	}
	return list[Consolidation](ctx, s.c, "/api/v1/consolidations", opts.query())
}

// All iterates over every consolidation the options match.
func (s *ConsolidationService) All(ctx context.Context, opts *ConsolidationListOptions) iter.Seq2[Consolidation, error] {
	o := ConsolidationListOptions{}
	if opts != nil {
		o = *opts
	}
	fetch := func(ctx context.Context, page int) (*Page[Consolidation], error) {
		o.Page = page
		return s.List(ctx, &o)
	}
	return all(ctx, fetch, o.Page, func(c Consolidation) string { return c.ID })
}

// Get returns one consolidation, its documents' statuses as they are now.
func (s *ConsolidationService) Get(ctx context.Context, id string) (*Consolidation, error) {
	var out Consolidation
	if _, err := s.c.call(ctx, http.MethodGet, consolidationPath(id), nil, nil, &out, nil); err != nil {
		return nil, err
	}
	return &out, nil
}

// CreditNote makes the return of a consolidated receipt a credit note on
// its consolidated invoice, validated and submitted: lines are the indexes
// of the receipt's lines returned (all when none). CodeReceiptNotConsolidated
// for a receipt that is not consolidated.
func (s *ReceiptService) CreditNote(ctx context.Context, id string, lines []int, opts ...CallOption) (*Document, error) {
	var out Document
	body := struct {
		Lines []int `json:"lines,omitempty"`
	}{lines}
	if _, err := s.c.call(ctx, http.MethodPost, receiptPath(id)+"/credit-note", nil, body, &out, opts); err != nil {
		return nil, err
	}
	return &out, nil
}
