package pdf

import (
	"strings"

	"github.com/einvoice/einvoice/internal/einvoice"
	"github.com/einvoice/einvoice/internal/refdata"
)

// Title and details columns of the first page.
const (
	detailsX      = 112.0
	detailsW      = right - detailsX
	detailsLabelW = 33.0
)

// headerRows are the title (left) and the document details (right), drawn
// as one block.
func (r *renderer) headerRows() []row {
	titleSt := style{size: 18, bold: true, color: accent}
	title := r.c.wrap(r.title, detailsX-marginL-4, titleSt)
	titleH := small.lineHeight() + float64(len(title))*titleSt.lineHeight()
	details := r.fieldRows(detailsX, detailsW, detailsLabelW, r.detailFields(), body)
	h := max(titleH, height(details))
	return []row{{h: h, draw: func(top float64) {
		label := "e-INVOICE"
		if r.in.Received {
			label = "RECEIVED e-INVOICE"
		}
		r.c.text(marginL, top, label, smallBold)
		y := top + small.lineHeight()
		for _, l := range title {
			r.c.text(marginL, y, l, titleSt)
			y += titleSt.lineHeight()
		}
		y = top
		for _, d := range details {
			d.draw(y)
			y += d.h
		}
	}}, {h: 4, draw: func(top float64) {
		r.c.line(marginL, top+2, right, top+2, 0.6, accent)
	}}}
}

// detailFields are the document number, issue time, type, currency, rate,
// billing period, the trade references (customs forms, free trade
// agreement, Incoterms, bill reference) and status.
func (r *renderer) detailFields() []field {
	d := r.doc
	issuedLabel, issued := "Created", formatTime(d.CreatedAt)
	switch {
	case d.Authority != nil && d.Authority.IssuedAt != nil:
		issuedLabel, issued = "Issued", formatTime(*d.Authority.IssuedAt)
	case d.ErpIssuedAt != nil:
		issuedLabel, issued = "Issued (ERP)", formatTime(*d.ErpIssuedAt)
	}
	typeCode := d.TypeCode
	if info, ok := einvoice.InfoOf(d.Kind); ok && typeCode == "" {
		typeCode = info.TypeCode
	}
	eType := orDash(typeCode)
	if d.Authority != nil && d.Authority.Version != "" {
		eType += " · version " + d.Authority.Version
	}
	currency := r.cur
	if name, ok := refdata.Currencies.Name(r.cur); ok {
		currency += " (" + name + ")"
	}
	fields := []field{
		{"Number", orDash(d.InvoiceSerialNumber)},
		{issuedLabel, issued},
		{"e-Invoice type", eType},
		{"Currency", currency},
	}
	if d.ExchangeRate != nil && (r.foreign || formatNumber(d.ExchangeRate) != "1") {
		fields = append(fields, field{"Exchange rate", "1 " + r.cur + " = " + formatNumber(d.ExchangeRate) + " MYR"})
	} else if r.foreign {
		fields = append(fields, field{"Exchange rate", dash})
	}
	if p := d.InvoicePeriod; p != nil {
		period := joinNonEmpty(" to ", p.BillingPeriodStartDate, p.BillingPeriodEndDate)
		if f := strings.TrimSpace(p.FrequencyOfBilling); f != "" {
			period = joinNonEmpty(" · ", period, f)
		}
		fields = append(fields, field{"Billing period", orDash(period)})
	}
	for _, f := range []field{
		{"Customs Form 1/9", d.CustomsFormReference},
		{"Customs Form 2 (K2)", d.CustomsForm2Reference},
		{"Free trade agreement", d.FreeTradeAgreement},
		{"Incoterms", d.Incoterms},
		{"Bill reference", d.BillReferenceNumber},
	} {
		if strings.TrimSpace(f.value) != "" {
			fields = append(fields, f)
		}
	}
	if d.Status != "" {
		fields = append(fields, field{"Status", string(d.Status)})
	}
	return fields
}

// referenceRows list the documents a note refers to.
func (r *renderer) referenceRows() []row {
	refs := r.doc.References
	if len(refs) == 0 && !r.doc.IsPreEinvoicing {
		return nil
	}
	rows := []row{gap(2), {h: heading.lineHeight(), keep: true, draw: func(top float64) {
		r.c.text(marginL, top, "ORIGINAL DOCUMENTS", heading)
	}}}
	if len(refs) == 0 {
		return append(rows, r.textRows(marginL, contentW, "Issued before e-invoicing", body)...)
	}
	for _, ref := range refs {
		var s string
		switch uuid := strings.TrimSpace(ref.UUID); {
		case strings.EqualFold(uuid, "NA") || uuid == "" && r.doc.IsPreEinvoicing:
			s = orDash(ref.ReferenceNumber) + " · issued before e-invoicing"
		case uuid == "":
			s = orDash(ref.ReferenceNumber)
		default:
			s = orDash(ref.ReferenceNumber) + " · UUID " + uuid
		}
		rows = append(rows, r.textRows(marginL, contentW, s, body)...)
	}
	return rows
}

// drawRunningHeader heads the pages after the first with the title, number
// and supplier.
func (r *renderer) drawRunningHeader() {
	left := r.title + " " + orDash(r.doc.InvoiceSerialNumber)
	r.c.text(marginL, r.y, left, bodyBold)
	name := r.c.wrap(r.in.Supplier.Name, contentW/2, small)
	if len(name) > 0 {
		r.c.textRight(right, r.y, name[0], small)
	}
	r.y += bodyBold.lineHeight() + 1
	r.c.line(marginL, r.y, right, r.y, 0.4, accent)
	r.y += 2
}
