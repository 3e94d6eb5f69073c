package received

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/einvoice/einvoice/internal/einvoice"
)

// View is a received document as the API shows it.
type View struct {
	ID                   string                  `json:"id"`
	UUID                 string                  `json:"uuid"`
	SubmissionUID        string                  `json:"submissionUid"`
	LongID               string                  `json:"longId,omitempty"`
	DocumentType         string                  `json:"documentType"`
	DocumentTypeName     string                  `json:"documentTypeName"`
	DocumentVersion      string                  `json:"documentVersion"`
	Number               string                  `json:"number"`
	Issuer               Party                   `json:"issuer"`
	Receiver             Party                   `json:"receiver"`
	IssuedAt             time.Time               `json:"issuedAt"`
	SubmittedAt          time.Time               `json:"submittedAt"`
	ValidatedAt          *time.Time              `json:"validatedAt"`
	Status               string                  `json:"status"`
	CancelledAt          *time.Time              `json:"cancelledAt"`
	RejectionRequestedAt *time.Time              `json:"rejectionRequestedAt"`
	RejectableUntil      *time.Time              `json:"rejectableUntil"`
	Rejectable           bool                    `json:"rejectable"`
	StatusReason         string                  `json:"statusReason,omitempty"`
	Currency             string                  `json:"currency"`
	Totals               Totals                  `json:"totals"`
	Lines                []einvoice.ReceivedLine `json:"lines"`
	Parsed               bool                    `json:"parsed"`
	ParseError           string                  `json:"parseError,omitempty"`
	CreatedAt            time.Time               `json:"createdAt"`
	UpdatedAt            time.Time               `json:"updatedAt"`
}

// Party is the issuer or receiver of a received document.
type Party struct {
	TIN  string `json:"tin"`
	Name string `json:"name"`
}

// Totals are a received document's totals, as decimal strings.
type Totals struct {
	ExcludingTax *string `json:"excludingTax"`
	Tax          *string `json:"tax"`
	IncludingTax *string `json:"includingTax"`
	Payable      *string `json:"payable"`
}

// orNull is s, or nil when it is empty (a total the document did not give).
func orNull(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// ViewOf returns the API's view of d at now.
func ViewOf(d *einvoice.ReceivedDocument, now time.Time) *View {
	until := d.RejectableUntil()
	lines := d.Lines
	if lines == nil {
		lines = []einvoice.ReceivedLine{}
	}
	return &View{
		ID: d.ID, UUID: d.UUID, SubmissionUID: d.SubmissionUID, LongID: d.LongID,
		DocumentType: d.TypeCode, DocumentTypeName: d.TypeName, DocumentVersion: d.TypeVersion, Number: d.Number,
		Issuer: Party{TIN: d.IssuerTIN, Name: d.IssuerName}, Receiver: Party{TIN: d.ReceiverTIN, Name: d.ReceiverName},
		IssuedAt: d.IssuedAt, SubmittedAt: d.SubmittedAt, ValidatedAt: d.ValidatedAt, Status: d.Status,
		CancelledAt: d.CancelledAt, RejectionRequestedAt: d.RejectionRequestedAt, RejectableUntil: until,
		Rejectable:   d.Status == einvoice.ReceivedValid && d.RejectionRequestedAt == nil && until != nil && now.Before(*until),
		StatusReason: d.StatusReason, Currency: d.Currency,
		Totals: Totals{ExcludingTax: orNull(d.TotalExcludingTax), Tax: orNull(d.TotalTax), IncludingTax: orNull(d.TotalIncludingTax),
			Payable: orNull(d.TotalPayableAmount)},
		Lines: lines, Parsed: d.Parsed, ParseError: d.ParseError, CreatedAt: d.CreatedAt, UpdatedAt: d.UpdatedAt,
	}
}

// Statuses are the statuses the list filters by.
var Statuses = []string{einvoice.ReceivedValid, einvoice.ReceivedCancelled}

// ListReceived returns one page of the tenant's received documents.
func (s *Service) ListReceived(ctx context.Context, tenantID string, f einvoice.ReceivedFilter) (einvoice.Page[*View], error) {
	out := einvoice.Page[*View]{PageRequest: f.PageRequest, Items: []*View{}}
	fe := einvoice.FieldErrors{}
	if f.Status != "" {
		ok := false
		for _, st := range Statuses {
			if strings.EqualFold(st, f.Status) {
				f.Status, ok = st, true
			}
		}
		if !ok {
			fe.Add("status", "must be Valid or Cancelled")
		}
	}
	if utf8.RuneCountInString(f.Search) > 200 {
		fe.Add("search", "must have at most 200 characters")
	}
	if err := fe.Err(); err != nil {
		return out, err
	}
	p, err := s.store.ListReceived(ctx, tenantID, f)
	if err != nil {
		return out, fmt.Errorf("list received documents: %w", err)
	}
	out.Total = p.Total
	now := s.now()
	for _, d := range p.Items {
		out.Items = append(out.Items, ViewOf(d, now))
	}
	return out, nil
}

// ReceivedDocument reads one received document (by our id or the authority's uuid).
func (s *Service) ReceivedDocument(ctx context.Context, tenantID, id string) (*einvoice.ReceivedDocument, error) {
	d, err := s.store.GetReceived(ctx, tenantID, id)
	if errors.Is(err, einvoice.ErrNotFound) {
		return nil, einvoice.Errorf(einvoice.CodeReceivedNotFound, "No received document has the id %q.", einvoice.Truncate(id, 60))
	}
	if err != nil {
		return nil, fmt.Errorf("get received document: %w", err)
	}
	return d, nil
}

// GetReceived returns one received document.
func (s *Service) GetReceived(ctx context.Context, tenantID, id string) (*View, error) {
	d, err := s.ReceivedDocument(ctx, tenantID, id)
	if err != nil {
		return nil, err
	}
	return ViewOf(d, s.now()), nil
}

// ReceivedRaw returns a received document's raw document, as the authority
// gave it.
func (s *Service) ReceivedRaw(ctx context.Context, tenantID, id string) ([]byte, error) {
	d, err := s.ReceivedDocument(ctx, tenantID, id)
	if err != nil {
		return nil, err
	}
	raw, err := s.store.GetReceivedRaw(ctx, tenantID, d.ID)
	if err != nil {
		return nil, fmt.Errorf("get received raw: %w", err)
	}
	if len(raw) == 0 {
		return nil, einvoice.Errorf(einvoice.CodeReceivedNotFound, "The authority did not give this document's raw form; see its parseError.")
	}
	return raw, nil
}

// RejectReceived asks the authority to reject a received document, within
// 72 hours of its validation.
func (s *Service) RejectReceived(ctx context.Context, tenantID, id, reason string) (*View, error) {
	if n := utf8.RuneCountInString(strings.TrimSpace(reason)); n == 0 || utf8.RuneCountInString(reason) > 300 {
		return nil, einvoice.FieldErrors{"reason": {"is required, 1 to 300 characters"}}.Err()
	}
	d, err := s.ReceivedDocument(ctx, tenantID, id)
	if err != nil {
		return nil, err
	}
	if d.Status != einvoice.ReceivedValid {
		return nil, einvoice.Errorf(einvoice.CodeDocumentNotValid, "Only a Valid received document can be rejected; this one is %s.", d.Status)
	}
	if d.RejectionRequestedAt != nil {
		return nil, einvoice.Errorf(einvoice.CodeDocumentNotValid, "A rejection of this document was already requested at %s.",
			einvoice.FormatMYT(*d.RejectionRequestedAt))
	}
	now := s.now()
	if until := d.RejectableUntil(); until == nil || !now.Before(*until) {
		return nil, einvoice.Errorf(einvoice.CodeRejectWindowClosed,
			"The document was validated more than 72 hours ago: it can no longer be rejected. Ask its issuer for a credit note.")
	}
	api := s.authority
	if api == nil {
		return nil, &einvoice.Error{Code: einvoice.CodeAuthorityUnavailable, Message: "No tax authority is configured."}
	}
	t, err := s.tenant(ctx, tenantID)
	if err != nil {
		return nil, err
	}
	creds, err := s.credentials(t)
	if err != nil {
		return nil, err
	}
	callCtx, cancel := context.WithTimeout(ctx, s.wait)
	err = api.RejectDocument(callCtx, creds, d.UUID, reason)
	cancel()
	if err != nil {
		return nil, einvoice.AuthorityCallError(err, "rejection")
	}
	d.RejectionRequestedAt, d.StatusReason, d.UpdatedAt = &now, reason, now
	if err := s.store.UpdateReceived(context.WithoutCancel(ctx), einvoice.ReceivedWrite{Doc: d}); err != nil {
		return nil, fmt.Errorf("record rejection: %w", err)
	}
	return ViewOf(d, now), nil
}
