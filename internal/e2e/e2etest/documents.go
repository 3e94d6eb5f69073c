package e2etest

import (
	"context"
	"strings"
	"testing"

	"github.com/einvoice/einvoice/client"
	"github.com/einvoice/einvoice/internal/einvoice"
	"github.com/einvoice/einvoice/internal/servetest"
)

// DocFixture is a running service with a buyer and an on-behalf seller.
type DocFixture struct {
	Svc      *Service
	C        *RawClient
	API      *client.Client
	BuyerID  string
	SellerID string
}

func Line(price string, taxType string, rate any) map[string]any {
	return map[string]any{
		"classifications": []string{"001"}, "productDescription": "Widget", "quantity": 1, "unitCode": "H87",
		"unitPrice": JSONNumber(price), "invoiceLineTaxes": []any{map[string]any{"taxType": taxType, "taxRate": rate}},
	}
}

// DocLine is line for the typed client.
func DocLine(price, taxType, rate string) client.Line {
	return client.Line{Classifications: []string{"001"}, ProductDescription: "Widget", Quantity: "1", UnitCode: "H87",
		UnitPrice: client.Decimal(price), Taxes: []client.LineTax{{TaxType: taxType, TaxRate: client.Decimal(rate)}}}
}

// JSONNumber is a number written into JSON as given.
type JSONNumber string

func (n JSONNumber) MarshalJSON() ([]byte, error) { return []byte(n), nil }

func (f *DocFixture) Invoice(serial string, lines ...map[string]any) map[string]any {
	ls := make([]any, len(lines))
	for i, l := range lines {
		ls[i] = l
	}
	return map[string]any{"buyerId": f.BuyerID, "invoiceSerialNumber": serial, "currencyCode": "MYR",
		"autoCalculate": true, "invoiceLines": ls,
		"payment": map[string]any{"paymentMode": "03", "paymentTerms": "30 days"}}
}

// Doc is invoice for the typed client.
func (f *DocFixture) Doc(serial string, lines ...client.Line) *client.Document {
	return &client.Document{BuyerID: f.BuyerID, InvoiceSerialNumber: serial, CurrencyCode: "MYR",
		AutoCalculate: true, Lines: lines, Payment: &client.Payment{PaymentMode: "03", PaymentTerms: "30 days"}}
}

// TypedSubmit submits a ready document, which the authority must accept at
// once (200, not 202).
func TypedSubmit(t *testing.T, api *client.Client, id string) *client.Submission {
	t.Helper()
	sub, err := api.Documents.Submit(t.Context(), id)
	if Must(t, sub, err).Pending {
		t.Errorf("submit of %s answered 202, want 200: %+v", id, sub)
	}
	return sub
}

// SetStatus moves a document to a status the API cannot reach yet (the
// authority's), through the store.
func SetStatus(t *testing.T, dsn, id string, status einvoice.Status) {
	t.Helper()
	ctx := context.Background()
	s := servetest.Store(t, dsn)
	_, tenants, _ := servetest.Run(t, dsn, "tenant", "list")
	tenantID := strings.Fields(strings.Split(tenants, "\n")[1])[0]
	d, err := s.GetDocument(ctx, tenantID, id)
	if err != nil {
		t.Fatal(err)
	}
	d.Status = status
	if err := s.UpdateDocument(ctx, d, einvoice.Statuses, &einvoice.Event{ID: NewID(), Status: status, Note: "test", At: d.UpdatedAt}); err != nil {
		t.Fatal(err)
	}
}
