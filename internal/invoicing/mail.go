package invoicing

import (
	"context"
	"strings"

	"github.com/einvoice/einvoice/internal/einvoice"
	"github.com/einvoice/einvoice/internal/invoicing/mail"
)

// mailDocument is what the mail capability needs of d: its recipient (the
// buyer, or the on-behalf seller of a self-billed kind, as frozen at
// submission) and its templates' fields.
func (s *Service) mailDocument(t *einvoice.Tenant, d *einvoice.Document, supplier, customer einvoice.PartySnapshot) *mail.Document {
	info, _ := einvoice.InfoOf(d.Kind)
	md := &mail.Document{ID: d.ID, TenantID: d.TenantID, Valid: d.Status == einvoice.StatusValid,
		Recipient: customer.Contact.Email, RecipientRole: "buyer"}
	buyer := customer.Name
	if info.SelfBilled {
		md.Recipient, md.RecipientRole, buyer = supplier.Contact.Email, "seller", supplier.Name
	}
	f := mail.Fields{Number: d.InvoiceSerialNumber, Kind: kindTitle(d.Kind), Supplier: t.Profile.Name, Buyer: buyer}
	if d.TotalPayableAmount != nil {
		f.Total = d.CurrencyCode + " " + d.TotalPayableAmount.String()
	}
	if day := d.IssueDate(); !day.IsZero() {
		f.IssueDate = day.Format("2006-01-02")
	}
	if d.Authority != nil {
		f.UUID = d.Authority.DocumentUUID
	}
	f.ValidationURL = s.ValidationURL(t, d)
	md.Fields = f
	return md
}

// kindTitle is a kind as a person reads it: "Self Billed Credit Note".
func kindTitle(k einvoice.DocumentKind) string {
	words := strings.Split(string(k), "_")
	for i, w := range words {
		if w != "" {
			words[i] = strings.ToUpper(w[:1]) + w[1:]
		}
	}
	return strings.Join(words, " ")
}

// documentMail returns the message that shares d, just turned Valid, with
// its buyer: written with that change. nil when it cannot be made (logged).
func (s *Service) documentMail(ctx context.Context, d *einvoice.Document) *einvoice.MailMessage {
	t, err := s.tenant(ctx, d.TenantID)
	if err != nil {
		s.log.ErrorContext(ctx, "no mail for a Valid document: its tenant cannot be read", "document_id", d.ID, "error", err)
		return nil
	}
	var supplier, customer einvoice.PartySnapshot
	if d.Frozen != nil {
		supplier, customer = d.Frozen.Supplier, d.Frozen.Customer
	} else {
		p, err := s.party(ctx, d)
		if err != nil {
			s.log.ErrorContext(ctx, "no mail for a Valid document: its party cannot be read", "document_id", d.ID, "error", err)
			return nil
		}
		supplier, customer = einvoice.Parties(d, t.Profile, p)
	}
	return s.mailService.ForDocument(ctx, s.mailDocument(t, d, supplier, customer))
}

// mailDocumentOf is the mail capability's view of a stored document.
func (s *Service) mailDocumentOf(ctx context.Context, tenantID, id string) (*mail.Document, error) {
	v, err := s.visual(ctx, tenantID, id)
	if err != nil {
		return nil, err
	}
	t, err := s.tenant(ctx, tenantID)
	if err != nil {
		return nil, err
	}
	return s.mailDocument(t, v.doc, v.supplier, v.customer), nil
}

// mailPDF is the attachment of a document's message: its visual e-invoice.
func (s *Service) mailPDF(ctx context.Context, tenantID, id string) (einvoice.MailAttachment, error) {
	f, err := s.PDF(ctx, tenantID, id)
	if err != nil {
		return einvoice.MailAttachment{}, err
	}
	return einvoice.MailAttachment{Name: f.Name, ContentType: "application/pdf", Data: f.Body}, nil
}
