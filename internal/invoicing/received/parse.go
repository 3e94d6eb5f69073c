package received

import (
	"bytes"

	"github.com/einvoice/einvoice/internal/einvoice"
	"github.com/einvoice/einvoice/internal/ubl"
)

// typeCodes maps the authority's type names to their codes.
var typeCodes = map[string]string{
	"Invoice": "01", "Credit Note": "02", "Debit Note": "03", "Refund Note": "04",
	"Self-billed Invoice": "11", "Self-billed Credit Note": "12", "Self-billed Debit Note": "13", "Self-billed Refund Note": "14",
}

// parseReceived fills d's type, currency, totals and lines from its raw
// document with our UBL reader. A document it cannot read (XML, or JSON our
// model refuses) is kept with Parsed false and the reason.
func parseReceived(d *einvoice.ReceivedDocument, raw []byte) {
	d.Parsed, d.ParseError = false, ""
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) == 0 || trimmed[0] != '{' {
		d.ParseError = "the document is not UBL JSON (our reader reads the JSON form only)"
		return
	}
	inv, err := ubl.Parse(trimmed)
	if err != nil {
		d.ParseError = err.Error()
		return
	}
	b := inv.Body()
	if b == nil {
		d.ParseError = ubl.ErrNoInvoice.Error()
		return
	}
	if len(b.InvoiceTypeCode) > 0 {
		d.TypeCode = b.InvoiceTypeCode[0].Value
	}
	if len(b.DocumentCurrencyCode) > 0 {
		d.Currency = b.DocumentCurrencyCode[0].Value
	}
	if len(b.LegalMonetaryTotal) > 0 {
		t := b.LegalMonetaryTotal[0]
		d.TotalExcludingTax = amountText(t.TaxExclusiveAmount)
		d.TotalIncludingTax = amountText(t.TaxInclusiveAmount)
		d.TotalPayableAmount = amountText(t.PayableAmount)
	}
	if len(b.TaxTotal) > 0 {
		d.TotalTax = amountText(b.TaxTotal[0].TaxAmount)
	}
	d.Lines = d.Lines[:0]
	for _, l := range b.InvoiceLine {
		line := einvoice.ReceivedLine{LineExtensionAmount: amountText(l.LineExtensionAmount)}
		if len(l.ID) > 0 {
			line.ID = l.ID[0].Value
		}
		if len(l.Item) > 0 && len(l.Item[0].Description) > 0 {
			line.Description = l.Item[0].Description[0].Value
		}
		if len(l.InvoicedQuantity) > 0 {
			line.Quantity, line.UnitCode = l.InvoicedQuantity[0].Value.String(), l.InvoicedQuantity[0].UnitCode
		}
		if len(l.Price) > 0 {
			line.UnitPrice = amountText(l.Price[0].PriceAmount)
		}
		if len(l.TaxTotal) > 0 {
			line.TaxAmount = amountText(l.TaxTotal[0].TaxAmount)
		}
		d.Lines = append(d.Lines, line)
	}
	d.Parsed = true
}

// amountText is the first amount's decimal text, or "".
func amountText(a []ubl.Amount) string {
	if len(a) == 0 {
		return ""
	}
	return a[0].Value.String()
}
