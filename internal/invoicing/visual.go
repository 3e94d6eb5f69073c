package invoicing

import (
	"bytes"
	"context"
	"fmt"

	"github.com/einvoice/einvoice/internal/einvoice"
	"github.com/einvoice/einvoice/internal/pdf"
	"github.com/einvoice/einvoice/internal/qr"
)

// The sizes of a QR code, in pixels: what GET /documents/{id}/qr takes.
const (
	QRMinSize     = qr.MinSize
	QRMaxSize     = qr.MaxSize
	QRDefaultSize = qr.DefaultSize
)

// pdfQRSize is the size of the QR code drawn into a PDF.
const pdfQRSize = 256

// QRFormat is the image format of a QR code.
type QRFormat int

// The QR code's image formats.
const (
	QRPNG QRFormat = iota
	QRJPEG
)

// QRCode is the QR code of a Valid document's validation link.
type QRCode struct {
	Doc *einvoice.Document
	// URL is the authority's validation link the code holds.
	URL string
	// Image is the code, size pixels square, in the format asked for.
	Image []byte
}

// PDFFile is the visual e-invoice of a document.
type PDFFile struct {
	// Name is the file name to offer (from the serial number).
	Name string
	Body []byte
}

// visual is what the visual e-invoice (PDF, QR code) of a document shows:
// the document, its parties (frozen at submission, or as they are now), and
// its validation link once Valid.
type visual struct {
	doc      *einvoice.Document
	supplier einvoice.PartySnapshot
	customer einvoice.PartySnapshot
	// url is the authority's validation link; "" unless the document is Valid.
	url string
}

// visual reads what a document's PDF and QR code show.
func (s *Service) visual(ctx context.Context, tenantID, id string) (*visual, error) {
	t, d, err := s.tenantDocument(ctx, tenantID, id)
	if err != nil {
		return nil, err
	}
	v := &visual{doc: d}
	if d.Frozen != nil {
		v.supplier, v.customer = d.Frozen.Supplier, d.Frozen.Customer
	} else {
		p, err := s.party(ctx, d)
		if err != nil {
			return nil, err
		}
		v.supplier, v.customer = einvoice.Parties(d, t.Profile, p)
	}
	if d.Status == einvoice.StatusValid {
		v.url = s.ValidationURL(t, d)
	}
	return v, nil
}

// QR returns the QR code of a Valid document's validation link, size
// pixels square (QRMinSize to QRMaxSize); DOCUMENT_NOT_VALID before the
// authority validated it.
func (s *Service) QR(ctx context.Context, tenantID, id string, size int, format QRFormat) (*QRCode, error) {
	v, err := s.visual(ctx, tenantID, id)
	if err != nil {
		return nil, err
	}
	if v.url == "" {
		return nil, einvoice.Errorf(einvoice.CodeDocumentNotValid,
			"The document is %s: its QR code exists once the tax authority has validated it (status Valid).", v.doc.Status)
	}
	encode, name := qr.PNG, "png"
	if format == QRJPEG {
		encode, name = qr.JPEG, "jpeg"
	}
	img, err := encode(v.url, size)
	if err != nil {
		return nil, fmt.Errorf("qr %s: %w", name, err)
	}
	return &QRCode{Doc: v.doc, URL: v.url, Image: img}, nil
}

// PDF renders a document's visual e-invoice: an A4 PDF with, once the
// document is Valid, its validation link and QR code.
func (s *Service) PDF(ctx context.Context, tenantID, id string) (*PDFFile, error) {
	v, err := s.visual(ctx, tenantID, id)
	if err != nil {
		return nil, err
	}
	in := pdf.Input{Doc: v.doc, Supplier: v.supplier, Customer: v.customer}
	if v.url != "" {
		img, err := qr.PNG(v.url, pdfQRSize)
		if err != nil {
			return nil, fmt.Errorf("qr png: %w", err)
		}
		a := v.doc.Authority
		in.Validation = &pdf.Validation{UUID: a.DocumentUUID, LongID: a.LongID, URL: v.url, QRPNG: img}
		if a.ValidatedAt != nil {
			in.Validation.ValidatedAt = *a.ValidatedAt
		}
	}
	var buf bytes.Buffer
	if err := pdf.Render(&buf, in); err != nil {
		return nil, fmt.Errorf("render pdf: %w", err)
	}
	return &PDFFile{Name: pdf.Filename(v.doc.InvoiceSerialNumber), Body: buf.Bytes()}, nil
}
