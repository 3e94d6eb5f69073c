package pdf

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/einvoice/einvoice/internal/einvoice"
)

// Input is everything one PDF shows.
type Input struct {
	Doc      *einvoice.Document
	Supplier einvoice.PartySnapshot
	Customer einvoice.PartySnapshot
	// Validation is set when the document is Valid; nil prints a clear
	// "NOT YET VALIDATED" mark (as real text, so text extractors read it).
	Validation *Validation
	// Received marks a document another taxpayer issued to the tenant
	// ("RECEIVED e-INVOICE" in the header, "received" in the footer).
	Received bool
}

// Validation is the tax authority's validation of a Valid document.
type Validation struct {
	UUID        string
	LongID      string
	ValidatedAt time.Time
	URL         string // the validation link the QR encodes
	QRPNG       []byte // the QR code as PNG, drawn as an image with the URL printed under it
}

// notValidated is the mark of a document without a validation.
const notValidated = "NOT YET VALIDATED"

// cancelled is the mark of a document cancelled at the authority.
const cancelled = "CANCELLED"

// Render writes the PDF of in to w. Nothing is written when it fails. Any
// field may be absent: a nil Doc renders an empty document, absent values a
// dash.
func Render(w io.Writer, in Input) error {
	r := newRenderer(in)
	r.layout()
	if err := r.c.write(w, r.meta()); err != nil {
		return fmt.Errorf("pdf: rendering %q: %w", r.doc.InvoiceSerialNumber, err)
	}
	return nil
}

// Filename is a safe file name from the serial number, e.g.
// "INV-2026-0001.pdf": characters other than [A-Za-z0-9._-] become "_";
// "document.pdf" when serial is empty.
func Filename(serial string) string {
	if serial == "" {
		return "document.pdf"
	}
	var b strings.Builder
	for _, r := range serial {
		switch {
		case r >= 'A' && r <= 'Z', r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '.', r == '_', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	return b.String() + ".pdf"
}

// renderer lays one document out.
type renderer struct {
	page
	in    Input
	doc   *einvoice.Document
	title string
	// cur is the document's currency code; foreign is set when it is not MYR.
	cur     string
	foreign bool
}

func newRenderer(in Input) *renderer {
	doc := in.Doc
	if doc == nil {
		doc = &einvoice.Document{}
	}
	cur := strings.TrimSpace(doc.CurrencyCode)
	if cur == "" {
		cur = "MYR"
	}
	r := &renderer{page: page{c: &canvas{}}, in: in, doc: doc, title: kindTitle(doc), cur: cur, foreign: cur != "MYR"}
	r.runningHeader = r.drawRunningHeader
	return r
}

// layout draws the whole document on the canvas.
func (r *renderer) layout() {
	r.newPage()
	r.flow(r.headerRows())
	r.flow(r.partyRows())
	r.flow(r.referenceRows())
	r.flow(r.validationRows())
	r.lineTable()
	r.flow(r.summaryRows())
	left := r.title + " " + orDash(r.doc.InvoiceSerialNumber)
	if r.in.Received {
		left += " · received"
	}
	switch {
	case r.doc.Status == einvoice.StatusCancelled:
		r.footers(left, cancelled, style{size: 7, bold: true, color: alarm})
	case r.in.Validation != nil:
		r.footers(left+" · validated e-Invoice", "", small)
	default:
		r.footers(left, notValidated, style{size: 7, bold: true, color: alarm})
	}
}

// meta is the PDF's document information.
func (r *renderer) meta() meta {
	created := r.doc.UpdatedAt
	if r.in.Validation != nil && !r.in.Validation.ValidatedAt.IsZero() {
		created = r.in.Validation.ValidatedAt
	}
	return meta{
		title:   r.title + " " + r.doc.InvoiceSerialNumber,
		author:  r.in.Supplier.Name,
		subject: "e-Invoice",
		created: created,
	}
}

// kindTitles are the documents' titles by kind.
var kindTitles = map[einvoice.DocumentKind]string{
	einvoice.KindInvoice:              "Invoice",
	einvoice.KindCreditNote:           "Credit Note",
	einvoice.KindDebitNote:            "Debit Note",
	einvoice.KindRefundNote:           "Refund Note",
	einvoice.KindConsolidatedInvoice:  "Consolidated Invoice",
	einvoice.KindSelfBilledInvoice:    "Self-billed Invoice",
	einvoice.KindSelfBilledCreditNote: "Self-billed Credit Note",
	einvoice.KindSelfBilledDebitNote:  "Self-billed Debit Note",
	einvoice.KindSelfBilledRefundNote: "Self-billed Refund Note",
}

// kindTitle is the document's title: "Invoice", "Credit Note", ... When the
// kind is unknown, the first kind of einvoice.Kinds with the document's type
// code gives it (01 is an invoice, not a consolidated one); "e-Invoice" when
// neither is known.
func kindTitle(d *einvoice.Document) string {
	if t, ok := kindTitles[d.Kind]; ok {
		return t
	}
	for _, k := range einvoice.Kinds {
		if k.TypeCode == d.TypeCode {
			if t, ok := kindTitles[k.Kind]; ok {
				return t
			}
		}
	}
	return "e-Invoice"
}
