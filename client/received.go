package client

import (
	"context"
	"iter"
	"net/http"
	"net/url"
	"time"
)

// The event types of received documents.
const (
	EventReceivedDocumentCreated   = "received_document.created"
	EventReceivedDocumentCancelled = "received_document.cancelled"
)

// ReceivedDocument is a document another taxpayer issued to the tenant, as
// the service found it at the authority. Parsed is false (with ParseError)
// when the service's UBL reader could not read it: its summary and raw
// document are still there.
type ReceivedDocument struct {
	ID                   string         `json:"id"`
	UUID                 string         `json:"uuid"`
	SubmissionUID        string         `json:"submissionUid"`
	LongID               string         `json:"longId,omitempty"`
	DocumentType         string         `json:"documentType"`
	DocumentTypeName     string         `json:"documentTypeName"`
	DocumentVersion      string         `json:"documentVersion"`
	Number               string         `json:"number"`
	Issuer               ReceivedParty  `json:"issuer"`
	Receiver             ReceivedParty  `json:"receiver"`
	IssuedAt             time.Time      `json:"issuedAt"`
	SubmittedAt          time.Time      `json:"submittedAt"`
	ValidatedAt          *time.Time     `json:"validatedAt"`
	Status               string         `json:"status"`
	CancelledAt          *time.Time     `json:"cancelledAt"`
	RejectionRequestedAt *time.Time     `json:"rejectionRequestedAt"`
	RejectableUntil      *time.Time     `json:"rejectableUntil"`
	Rejectable           bool           `json:"rejectable"`
	StatusReason         string         `json:"statusReason,omitempty"`
	Currency             string         `json:"currency"`
	Totals               ReceivedTotals `json:"totals"`
	Lines                []ReceivedLine `json:"lines"`
	Parsed               bool           `json:"parsed"`
	ParseError           string         `json:"parseError,omitempty"`
	CreatedAt            time.Time      `json:"createdAt"`
	UpdatedAt            time.Time      `json:"updatedAt"`
}

// ReceivedParty is the issuer or the receiver of a received document.
type ReceivedParty struct {
	TIN  string `json:"tin"`
	Name string `json:"name"`
}

// ReceivedTotals are a received document's totals; nil when the document
// does not give one (one not parsed).
type ReceivedTotals struct {
	ExcludingTax *Decimal `json:"excludingTax"`
	Tax          *Decimal `json:"tax"`
	IncludingTax *Decimal `json:"includingTax"`
	Payable      *Decimal `json:"payable"`
}

// ReceivedLine is one line of a received document.
type ReceivedLine struct {
	ID                  string  `json:"id"`
	Description         string  `json:"description"`
	Quantity            Decimal `json:"quantity,omitempty"`
	UnitCode            string  `json:"unitCode,omitempty"`
	UnitPrice           Decimal `json:"unitPrice,omitempty"`
	LineExtensionAmount Decimal `json:"lineExtensionAmount,omitempty"`
	TaxAmount           Decimal `json:"taxAmount,omitempty"`
}

// ReceivedListOptions filter a list of received documents.
type ReceivedListOptions struct {
	// Status is Valid or Cancelled.
	Status string
	// Search matches the issuer's name (a part), TIN or the document number.
	Search string
	// From and To bound the issue date (YYYY-MM-DD, inclusive).
	From, To string
	ListOptions
}

func (o *ReceivedListOptions) query() url.Values {
	q := url.Values{}
	for k, v := range map[string]string{"status": o.Status, "search": o.Search, "from": o.From, "to": o.To} {
		if v != "" {
			q.Set(k, v)
		}
	}
	return o.ListOptions.query(q)
}

// ReceivedDocumentService reads and rejects the documents others issued to
// the tenant.
type ReceivedDocumentService struct{ c *Client }

func receivedPath(id string) string { return "/api/v1/received-documents/" + escape(id) }

// List returns one page of received documents, newest issued first.
func (s *ReceivedDocumentService) List(ctx context.Context, opts *ReceivedListOptions) (*Page[ReceivedDocument], error) {
	if opts == nil {
		opts = &ReceivedListOptions{}
	}
	return list[ReceivedDocument](ctx, s.c, "/api/v1/received-documents", opts.query())
}

// All iterates over every received document the options match.
func (s *ReceivedDocumentService) All(ctx context.Context, opts *ReceivedListOptions) iter.Seq2[ReceivedDocument, error] {
	o := ReceivedListOptions{}
	if opts != nil {
		o = *opts
	}
	fetch := func(ctx context.Context, page int) (*Page[ReceivedDocument], error) {
		o.Page = page
		return s.List(ctx, &o)
	}
	return all(ctx, fetch, o.Page, func(d ReceivedDocument) string { return d.ID })
}

// Get returns one received document (by its id or the authority's uuid).
func (s *ReceivedDocumentService) Get(ctx context.Context, id string) (*ReceivedDocument, error) {
	var out ReceivedDocument
	if _, err := s.c.call(ctx, http.MethodGet, receivedPath(id), nil, nil, &out, nil); err != nil {
		return nil, err
	}
	return &out, nil
}

// UBL returns the received document as the authority gave it.
func (s *ReceivedDocumentService) UBL(ctx context.Context, id string) ([]byte, error) {
	return s.c.raw(ctx, receivedPath(id)+"/ubl", "application/json", nil)
}

// PDF returns the service's visual e-invoice of a received document,
// marked as received.
func (s *ReceivedDocumentService) PDF(ctx context.Context, id string) (*File, error) {
	return s.c.file(ctx, receivedPath(id)+"/pdf", "application/pdf", nil)
}

// Reject asks the authority to reject a received document, within 72 hours
// of its validation (CodeRejectWindowClosed after).
func (s *ReceivedDocumentService) Reject(ctx context.Context, id, reason string, opts ...CallOption) (*ReceivedDocument, error) {
	var out ReceivedDocument
	body := struct {
		Reason string `json:"reason"`
	}{reason}
	if _, err := s.c.call(ctx, http.MethodPost, receivedPath(id)+"/reject", nil, body, &out, opts); err != nil {
		return nil, err
	}
	return &out, nil
}
