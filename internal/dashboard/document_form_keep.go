package dashboard

import (
	"strconv"

	"github.com/einvoice/einvoice/internal/einvoice"
)

// keepUnshown copies into d, the edit form's document, what the form does
// not show of old, the stored one: an edit through the form must not drop
// the delivery, billing period, fee, customs references, a second tax of
// a line and such that the API set. A line of the form names the stored
// line it came from in its hidden input invoiceLines.N.from (moved with
// it when a line above is removed; absent on a line added).
func keepUnshown(d, old *einvoice.Document, vals map[string]string) {
	d.Delivery, d.InvoicePeriod, d.IsPreEinvoicing = old.Delivery, old.InvoicePeriod, old.IsPreEinvoicing
	d.InvoiceFee, d.InvoiceFeeDesc = old.InvoiceFee, old.InvoiceFeeDesc
	d.CustomsFormReference, d.CustomsForm2Reference = old.CustomsFormReference, old.CustomsForm2Reference
	d.FreeTradeAgreement, d.Incoterms, d.BillReferenceNumber = old.FreeTradeAgreement, old.Incoterms, old.BillReferenceNumber
	if p := old.Payment; p != nil {
		if d.Payment == nil {
			d.Payment = &einvoice.Payment{}
		}
		d.Payment.PrepaymentAmount, d.Payment.PrepaymentDate, d.Payment.PrepaymentReferenceNumber = p.PrepaymentAmount, p.PrepaymentDate, p.PrepaymentReferenceNumber
	}
	if len(old.References) > 1 {
		if len(d.References) == 0 {
			d.References = []einvoice.DocumentReference{{}}
		}
		d.References = append(d.References[:1], old.References[1:]...)
	}
	for i := range d.Lines {
		from, err := strconv.Atoi(vals[lineName(i, "from")])
		if err != nil || from < 0 || from >= len(old.Lines) {
			continue
		}
		l, o := &d.Lines[i], old.Lines[from]
		l.AuthorityClassification, l.TariffCode, l.CountryOfOrigin = o.AuthorityClassification, o.TariffCode, o.CountryOfOrigin
		l.DiscountDescription, l.FeeOrChargeRate, l.FeeOrChargeDescription = o.DiscountDescription, o.FeeOrChargeRate, o.FeeOrChargeDescription
		if len(o.Classifications) > 1 && len(l.Classifications) == 1 {
			l.Classifications = append(l.Classifications, o.Classifications[1:]...)
		}
		if len(o.Taxes) > 1 && len(l.Taxes) == 1 {
			l.Taxes = append(l.Taxes, o.Taxes[1:]...)
		}
	}
}
