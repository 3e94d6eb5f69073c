package invoicing_test

import (
	"testing"

	"github.com/einvoice/einvoice/internal/einvoice"
	"github.com/einvoice/einvoice/internal/money"
)

// TestPreviewDocument: the amounts of create's autoCalculate, nothing
// stored; a refused document still gets its amounts, with the field
// errors of create; another tenant's buyer is refused like a missing one.
func TestPreviewDocument(t *testing.T) {
	w := newWorld(t, sqliteDSN(t))
	ctx := t.Context()
	num := func(s string) *money.Number { n := money.MustNumber(s); return &n }
	doc := func(buyer string) *einvoice.Document {
		return &einvoice.Document{BuyerID: buyer, InvoiceSerialNumber: "P-1",
			Lines: []einvoice.Line{{Classifications: []string{"001"}, ProductDescription: "Stand", Quantity: num("3"),
				UnitCode: "H87", UnitPrice: num("10.00"), Taxes: []einvoice.LineTax{{TaxType: "01", TaxRate: num("8")}}}}}
	}
	got, err := w.svc.PreviewDocument(ctx, w.tenant.ID, einvoice.KindInvoice, doc(w.buyer.ID))
	if err != nil || got.TotalPayableAmount.String() != "32.40" || got.Lines[0].TaxAmount.String() != "2.40" {
		t.Fatalf("preview: %+v, %v", got, err)
	}
	if page, err := w.svc.ListDocuments(ctx, w.tenant.ID, einvoice.DocumentFilter{PageRequest: einvoice.PageRequest{Page: 1, PerPage: 10}}); err != nil || page.Total != 0 {
		t.Fatalf("a preview stored a document: %d, %v", page.Total, err)
	}
	got, err = w.svc.PreviewDocument(ctx, w.tenant.ID, einvoice.KindInvoice, doc(newID()))
	if err == nil || einvoice.ErrorCode(err) != einvoice.CodeValidationFailed || got == nil || got.TotalPayableAmount.String() != "32.40" {
		t.Fatalf("preview of an unknown buyer: %+v, %v", got, err)
	}
	bad := doc(w.buyer.ID)
	bad.Lines[0].UnitCode = "NOPE"
	if got, err := w.svc.PreviewDocument(ctx, w.tenant.ID, einvoice.KindInvoice, bad); got == nil || got.TotalPayableAmount == nil || err == nil {
		t.Fatalf("preview of a bad unit: %+v, %v", got, err)
	}
}
