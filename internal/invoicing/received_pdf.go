package invoicing

import (
	"bytes"
	"context"
	"fmt"

	"github.com/einvoice/einvoice/internal/einvoice"
	"github.com/einvoice/einvoice/internal/money"
	"github.com/einvoice/einvoice/internal/pdf"
	"github.com/einvoice/einvoice/internal/qr"
)

// ReceivedPDF renders our visual e-invoice of a received document, marked
// as received: its parties, lines and totals as read from its UBL, and its
// validation link and QR code while Valid.
func (s *Service) ReceivedPDF(ctx context.Context, tenantID, id string) (*PDFFile, error) {
	d, err := s.ReceivedDocument(ctx, tenantID, id)
	if err != nil {
		return nil, err
	}
	t, err := s.tenant(ctx, tenantID)
	if err != nil {
		return nil, err
	}
	doc := receivedAsDocument(d)
	issuer := einvoice.PartySnapshot{Name: d.IssuerName, TIN: d.IssuerTIN}
	receiver := einvoice.PartySnapshot{Name: d.ReceiverName, TIN: d.ReceiverTIN}
	in := pdf.Input{Doc: doc, Supplier: issuer, Customer: receiver, Received: true}
	if d.TypeCode >= "11" {
		// Self-billed: the issuer is the buyer.
		in.Supplier, in.Customer = receiver, issuer
	}
	if _, portal, err := s.Endpoint(t.Authority.Environment); err == nil && d.Status == einvoice.ReceivedValid && d.LongID != "" && d.ValidatedAt != nil {
		url := portal + "/" + d.UUID + "/share/" + d.LongID
		img, err := qr.PNG(url, pdfQRSize)
		if err != nil {
			return nil, fmt.Errorf("qr png: %w", err)
		}
		in.Validation = &pdf.Validation{UUID: d.UUID, LongID: d.LongID, URL: url, QRPNG: img, ValidatedAt: *d.ValidatedAt}
	}
	var buf bytes.Buffer
	if err := pdf.Render(&buf, in); err != nil {
		return nil, fmt.Errorf("render received pdf: %w", err)
	}
	return &PDFFile{Name: pdf.Filename(d.Number), Body: buf.Bytes()}, nil
}

// receivedAsDocument is a received document in the shape the PDF draws;
// amounts it cannot read are left out (a dash).
func receivedAsDocument(d *einvoice.ReceivedDocument) *einvoice.Document {
	kind := einvoice.KindInvoice
	for _, ki := range einvoice.Kinds {
		if ki.TypeCode == d.TypeCode && !ki.Consolidated {
			kind = ki.Kind
		}
	}
	doc := &einvoice.Document{ID: d.ID, Kind: kind, TypeCode: d.TypeCode, Status: einvoice.StatusValid,
		InvoiceSerialNumber: d.Number, CurrencyCode: d.Currency, CreatedAt: d.CreatedAt, UpdatedAt: d.UpdatedAt,
		Authority: &einvoice.AuthorityRecord{DocumentUUID: d.UUID, LongID: d.LongID, SubmissionUID: d.SubmissionUID,
			IssuedAt: &d.IssuedAt, SubmittedAt: &d.SubmittedAt, ValidatedAt: d.ValidatedAt, CancelledAt: d.CancelledAt}}
	if d.Status == einvoice.ReceivedCancelled {
		doc.Status = einvoice.StatusCancelled
	}
	doc.TotalExcludingTax, doc.TotalTaxAmount = amountOf(d.TotalExcludingTax), amountOf(d.TotalTax)
	doc.TotalIncludingTax, doc.TotalPayableAmount = amountOf(d.TotalIncludingTax), amountOf(d.TotalPayableAmount)
	for _, l := range d.Lines {
		line := einvoice.Line{ProductDescription: l.Description, UnitCode: l.UnitCode, Quantity: numberOf(l.Quantity),
			UnitPrice: numberOf(l.UnitPrice), TotalExcludingTax: amountOf(l.LineExtensionAmount), TaxAmount: amountOf(l.TaxAmount)}
		line.Subtotal = line.TotalExcludingTax
		doc.Lines = append(doc.Lines, line)
	}
	return doc
}

// amountOf reads a decimal as an amount, nil when it is not one.
func amountOf(s string) *money.Amount {
	a, err := money.ParseAmount(s)
	if s == "" || err != nil {
		return nil
	}
	return &a
}

// numberOf reads a decimal as a number, nil when it is not one.
func numberOf(s string) *money.Number {
	n, err := money.ParseNumber(s)
	if s == "" || err != nil {
		return nil
	}
	return &n
}
