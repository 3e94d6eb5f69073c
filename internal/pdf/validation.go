package pdf

import (
	"strings"

	"github.com/einvoice/einvoice/internal/einvoice"
)

// qrSize is the side of the QR code, in mm.
const qrSize = 27.0

// validationRows are the validation band: the authority's uuid, the time of
// validation and the QR code with its link for a validated document, a
// "NOT YET VALIDATED" mark otherwise.
func (r *renderer) validationRows() []row {
	if r.doc.Status == einvoice.StatusCancelled {
		return []row{gap(3), r.cancelledRow()}
	}
	if r.in.Validation == nil {
		return []row{gap(3), r.notValidatedRow()}
	}
	return []row{gap(3), r.validatedRow()}
}

// notValidatedRow marks a document without validation details: it is not a
// valid e-invoice yet, so it carries no QR code.
func (r *renderer) notValidatedRow() row {
	text := "This document has not been validated by the Malaysian tax authority (LHDN MyInvois). " +
		"It is not a valid e-invoice yet and has no validation link or QR code."
	switch r.doc.Status {
	case "":
		text += " Status: draft."
	case einvoice.StatusValid: // valid, but the caller gave no validation details
	default:
		text += " Status: " + string(r.doc.Status) + "."
	}
	return r.alarmRow(notValidated, text)
}

// cancelledRow marks a document the issuer cancelled at the authority: it
// is no longer a valid e-invoice, so it carries no QR code.
func (r *renderer) cancelledRow() row {
	text := "This e-Invoice was cancelled at the Malaysian tax authority (LHDN MyInvois) and is no longer valid."
	if a := r.doc.Authority; a != nil {
		if a.DocumentUUID != "" {
			text += " UUID: " + a.DocumentUUID + "."
		}
		if a.CancelledAt != nil {
			text += " Cancelled: " + formatTime(*a.CancelledAt) + "."
		}
		if a.CancelReason != "" {
			text += " Reason: " + a.CancelReason
		}
	}
	return r.alarmRow(cancelled, text)
}

// alarmRow is a red band: mark in large bold type, text wrapped under it.
func (r *renderer) alarmRow(mark, text string) row {
	markSt := style{size: 14, bold: true, color: alarm}
	lines := r.c.wrap(text, contentW-8, body)
	h := 3 + markSt.lineHeight() + float64(len(lines))*body.lineHeight() + 3
	return row{h: h, draw: func(top float64) {
		r.c.rect(marginL, top, contentW, h, alarmBg)
		r.c.box(marginL, top, contentW, h, 0.5, alarm)
		y := top + 3
		r.c.text(marginL+4, y, mark, markSt)
		y += markSt.lineHeight()
		for _, l := range lines {
			r.c.text(marginL+4, y, l, body)
			y += body.lineHeight()
		}
	}}
}

func (r *renderer) validatedRow() row {
	v := r.in.Validation
	textW := contentW - qrSize - 14
	fields := r.fieldRows(marginL+4, textW, 24, []field{
		{"UUID", orDash(v.UUID)},
		{"Validated", formatTime(v.ValidatedAt)},
	}, body)
	note := r.c.wrap("This is a visual representation of an e-Invoice validated by the Malaysian tax authority "+
		"(LHDN MyInvois). Scan the QR code or open the link to verify it.", textW, small)
	url, urlSt := r.fitURL(strings.TrimSpace(v.URL))
	title := style{size: 11, bold: true, color: okBorder}

	textH := title.lineHeight() + 1 + float64(len(fields))*body.lineHeight() + 1 + float64(len(note))*small.lineHeight()
	urlH := float64(len(url)) * urlSt.lineHeight()
	h := 3 + max(textH, qrSize) + 1 + urlH + 3
	return row{h: h, draw: func(top float64) {
		r.c.rect(marginL, top, contentW, h, okBg)
		r.c.box(marginL, top, contentW, h, 0.5, okBorder)
		y := top + 3
		r.c.text(marginL+4, y, "VALIDATED e-INVOICE", title)
		y += title.lineHeight() + 1
		for _, f := range fields {
			f.draw(y)
			y += f.h
		}
		y++
		for _, l := range note {
			r.c.text(marginL+4, y, l, small)
			y += small.lineHeight()
		}
		qrX := right - 4 - qrSize
		if len(v.QRPNG) > 0 {
			r.c.image("qr", v.QRPNG, qrX, top+3, qrSize, qrSize)
		}
		// The link, under the QR code, ending at its right edge.
		y = top + 3 + max(textH, qrSize) + 1
		for _, l := range url {
			r.c.textRight(right-4, y, l, urlSt)
			y += urlSt.lineHeight()
		}
	}}
}

// fitURL returns the link in a size that fits one line of the band (down
// to 5 pt), or broken into lines when even that is too wide.
func (r *renderer) fitURL(url string) ([]string, style) {
	st := style{size: 7.5, color: accent}
	w := contentW - 8
	if url == "" {
		return []string{dash}, st
	}
	for ; st.size > 5; st.size -= 0.5 {
		if r.c.width(url, st) <= w {
			return []string{url}, st
		}
	}
	return r.c.wrap(url, w, st), st
}
