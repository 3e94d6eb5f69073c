package pdf

import (
	"strings"

	"github.com/einvoice/einvoice/internal/einvoice"
	"github.com/einvoice/einvoice/internal/refdata"
)

// Party columns: the supplier on the left, the buyer on the right.
const (
	partyW      = (contentW - 8) / 2
	partyLabelW = 24.0
	buyerX      = marginL + partyW + 8
)

// partyRows are the supplier and buyer blocks, side by side.
func (r *renderer) partyRows() []row {
	left := r.party(marginL, "SUPPLIER", r.in.Supplier, true)
	right := r.party(buyerX, "BUYER", r.in.Customer, false)
	if fields := deliveryFields(r.doc.Delivery); fields != nil {
		right = append(append(right, gap(3)), r.blockHeading(buyerX, "DELIVER TO")...)
		right = append(right, r.fieldRows(buyerX, partyW, partyLabelW, fields, body)...)
	}
	return append([]row{gap(2)}, r.beside(left, right)...)
}

// party lays out one party: heading, name, identifiers, address, contact.
func (r *renderer) party(x float64, title string, p einvoice.PartySnapshot, supplier bool) []row {
	nameSt := style{size: 9.5, bold: true, color: ink}
	rows := []row{{h: heading.lineHeight(), keep: true, draw: func(top float64) {
		r.c.text(x, top, title, heading)
	}}}
	rows = append(rows, keepAll(r.textRows(x, partyW, orDash(p.Name), nameSt))...)
	rows[len(rows)-1].keep = true
	fields := []field{
		{"TIN", orDash(p.TIN)},
		{"Registration", orDash(joinNonEmpty(" ", p.IDType, p.IDValue))},
		{"SST no.", orDash(p.SSTRegistrationNumber)},
		{"Tourism tax no.", strings.TrimSpace(p.TourismTaxRegistrationNumber)},
	}
	if supplier && (p.MSICCode != "" || p.BusinessActivityDescription != "") {
		fields = append(fields, field{"MSIC", joinNonEmpty(" · ", p.MSICCode, p.BusinessActivityDescription)})
	}
	fields = append(fields,
		field{"Address", orDash(formatAddress(p.Address))},
		field{"Phone", orDash(p.Contact.Phone)},
		field{"E-mail", orDash(p.Contact.Email)},
	)
	if c := strings.TrimSpace(p.Contact.Name); c != "" {
		fields = append(fields, field{"Contact", c})
	}
	return append(rows, r.fieldRows(x, partyW, partyLabelW, fields, body)...)
}

// formatAddress writes an address on lines: street lines, post code and
// city, state name, country name. State 17 ("Not Applicable") is left out.
func formatAddress(a einvoice.Address) string {
	state := ""
	if s := strings.TrimSpace(a.State); s != "" && s != "17" {
		state = codeName(refdata.States, s)
	}
	country := ""
	if c := strings.TrimSpace(a.CountryCode); c != "" {
		country = codeName(refdata.Countries, c)
	}
	return joinNonEmpty("\n", a.Line1, a.Line2, a.Line3, joinNonEmpty(" ", a.PostCode, a.City), state, country)
}

// deliveryFields describe the shipping recipient, nil when there is none.
func deliveryFields(d *einvoice.Delivery) []field {
	if d == nil {
		return nil
	}
	var addr string
	if d.RecipientAddress != nil {
		addr = formatAddress(*d.RecipientAddress)
	}
	fields := []field{
		{"Recipient", strings.TrimSpace(d.RecipientName)},
		{"TIN", strings.TrimSpace(d.RecipientTin)},
		{"Registration", joinNonEmpty(" ", d.RecipientIDType, d.RecipientIDValue)},
		{"Address", addr},
	}
	for _, f := range fields {
		if f.value != "" {
			return fields
		}
	}
	return nil
}
