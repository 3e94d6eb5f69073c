package documents

import (
	"strings"
	"testing"

	"github.com/einvoice/einvoice/internal/e2e/e2etest"

	"github.com/einvoice/einvoice/client"
	"github.com/einvoice/einvoice/internal/einvoice"
	"github.com/einvoice/einvoice/internal/servetest"
)

func newDocFixture(t *testing.T, dsn string) *e2etest.DocFixture {
	t.Helper()
	svc := e2etest.StartService(t, dsn)
	f := &e2etest.DocFixture{Svc: svc, C: svc.Client(t, svc.DemoKey), API: svc.API(t, svc.DemoKey)}
	buyer, err := f.API.Buyers.Create(t.Context(), e2etest.ReadyBuyer("Hebat Group"))
	f.BuyerID = e2etest.Must(t, buyer, err).ID
	seller := e2etest.ReadyBuyer("Supplier Sdn. Bhd.")
	seller.MSICCode, seller.BusinessActivityDescription = "46510", "Wholesale"
	s, err := f.API.Sellers.Create(t.Context(), seller)
	f.SellerID = e2etest.Must(t, s, err).ID
	return f
}

// TestDocumentLifecycle creates each of the nine kinds, reads, lists,
// edits and deletes them, with the amounts computed by autoCalculate.
func TestDocumentLifecycle(t *testing.T) {
	t.Parallel()
	e2etest.EachEngine(t, func(t *testing.T, dsn string) {
		f := newDocFixture(t, dsn)
		ctx := t.Context()
		c, api := f.C, f.API
		// Two lines of 9.42 at 6 %: tax is rounded per line, 0.57 + 0.57.
		inv, err := api.Documents.Create(ctx, f.Doc("INV-0001", e2etest.DocLine("9.42", "01", "6"), e2etest.DocLine("9.42", "01", "6")))
		e2etest.Must(t, inv, err)
		for k, v := range map[string][2]string{"type": {string(inv.Type), "invoice"}, "typeCode": {inv.TypeCode, "01"},
			"status": {string(inv.Status), "draft"}, "subtotal": {string(inv.Subtotal), "18.84"},
			"totalTaxAmount": {string(inv.TotalTaxAmount), "1.14"}, "totalIncludingTax": {string(inv.TotalIncludingTax), "19.98"},
			"totalPayableAmount": {string(inv.TotalPayableAmount), "19.98"}, "roundingAmount": {string(inv.RoundingAmount), "0.00"},
			"buyerId": {inv.BuyerID, f.BuyerID}, "currencyCode": {inv.CurrencyCode, "MYR"}} {
			if v[0] != v[1] {
				t.Errorf("invoice %s = %v, want %v", k, v[0], v[1])
			}
		}
		if l0 := inv.Lines[0]; l0.TaxAmount != "0.57" || l0.UnitPrice != "9.42" {
			t.Errorf("line 0 = %+v", l0)
		}
		if h := inv.History; len(h) != 1 || h[0].Status != client.StatusDraft {
			t.Errorf("history = %+v", h)
		}
		invID := inv.ID
		ref := []client.DocumentReference{{ReferenceNumber: "INV-0001", UUID: "F9D425P6DS7D8IU"}}
		for _, k := range einvoice.Kinds {
			body := f.Doc("DOC-"+string(k.Kind), e2etest.DocLine("100", "02", "8"))
			body.Type = client.DocumentType(k.Kind) // the kind's endpoint, k.Path
			switch {
			case k.SelfBilled:
				body.BuyerID, body.OnBehalfSellerID = "", f.SellerID
			case k.Consolidated:
				body.BuyerID = ""
			}
			if k.Note {
				body.References = ref
			}
			d, err := api.Documents.Create(ctx, body)
			if e2etest.Must(t, d, err); string(d.Type) != string(k.Kind) || d.TypeCode != k.TypeCode || d.TotalTaxAmount != "8.00" {
				t.Errorf("%s: type %v typeCode %v tax %v", k.Path, d.Type, d.TypeCode, d.TotalTaxAmount)
			}
			got, err := api.Documents.Get(ctx, d.ID)
			if e2etest.Must(t, got, err).InvoiceSerialNumber != "DOC-"+string(k.Kind) {
				t.Errorf("GET %s = %v", k.Path, got.InvoiceSerialNumber)
			}
		}
		// Filters.
		list := func(o client.DocumentListOptions) (int, []client.Document) {
			p, err := api.Documents.List(ctx, &o)
			e2etest.Must(t, p, err)
			return p.Meta.Total, p.Items
		}
		if n, _ := list(client.DocumentListOptions{}); n != 10 {
			t.Errorf("all documents = %d, want 10", n)
		}
		if n, items := list(client.DocumentListOptions{Type: client.TypeSelfBilledCreditNote}); n != 1 || items[0].OnBehalfSellerID != f.SellerID {
			t.Errorf("type filter = %d", n)
		}
		if n, _ := list(client.DocumentListOptions{Search: "doc-self"}); n != 4 {
			t.Errorf("search doc-self = %d, want the 4 self-billed", n)
		}
		if n, _ := list(client.DocumentListOptions{Search: "inv-0001", Status: client.StatusDraft}); n != 1 {
			t.Errorf("search inv-0001 = %d, want 1", n)
		}
		if n, _ := list(client.DocumentListOptions{Status: client.StatusValid}); n != 0 {
			t.Errorf("status Valid = %d, want 0", n)
		}
		_, err = api.Documents.List(ctx, &client.DocumentListOptions{Status: "valid"})
		e2etest.WantErr(t, err, 422, client.CodeValidationFailed)
		_, err = api.Documents.List(ctx, &client.DocumentListOptions{Type: "receipt"})
		e2etest.WantErr(t, err, 422, client.CodeValidationFailed)

		// Edit: amounts recomputed; autoCalculate false stores the client's
		// amounts as given. Written out: money as a JSON number and as
		// decimal strings.
		edit := f.Invoice("INV-0001", e2etest.Line("10", "01", 10))
		edit["autoCalculate"] = false
		edit["subtotal"], edit["totalTaxAmount"], edit["invoiceDiscountAmount"] = 10.1, "1.00", "0.5"
		got := c.Do("PUT", "/api/v1/invoices/"+invID, edit).Want(t, 200, "").Data()
		if got["subtotal"] != "10.10" || got["totalTaxAmount"] != "1.00" || got["invoiceDiscountAmount"] != "0.50" || got["totalPayableAmount"] != nil {
			t.Errorf("manual amounts = subtotal %v tax %v discount %v payable %v", got["subtotal"], got["totalTaxAmount"], got["invoiceDiscountAmount"], got["totalPayableAmount"])
		}
		// The buyer is in use.
		e2etest.WantErr(t, api.Buyers.Delete(ctx, f.BuyerID), 409, client.CodeBuyerInUse)
		e2etest.WantErr(t, api.Sellers.Delete(ctx, f.SellerID), 409, client.CodeBuyerInUse)

		// A submitted document is frozen: PUT (whatever its body) and DELETE are 409.
		e2etest.SetStatus(t, dsn, invID, einvoice.StatusSubmitted)
		c.Do("PUT", "/api/v1/invoices/"+invID, "not even JSON").Want(t, 409, "DOCUMENT_NOT_DRAFT")
		e2etest.WantErr(t, api.Documents.Delete(ctx, invID), 409, client.CodeDocumentNotDraft)
		// An Invalid one may be edited, and goes back to draft, with history.
		e2etest.SetStatus(t, dsn, invID, einvoice.StatusInvalid)
		edited, err := api.Documents.Update(ctx, invID, f.Doc("INV-0001", e2etest.DocLine("10", "01", "10")))
		if h := e2etest.Must(t, edited, err).History; edited.Status != client.StatusDraft || len(h) != 4 || h[3].Note != "edited while Invalid" {
			t.Errorf("edit of an Invalid document: status %v history %+v", edited.Status, edited.History)
		}
		// Delete a draft.
		if err := api.Documents.Delete(ctx, invID); err != nil {
			t.Errorf("delete a draft: %v", err)
		}
		_, err = api.Documents.Get(ctx, invID)
		e2etest.WantErr(t, err, 404, client.CodeDocumentNotFound)
	})
}

// TestDocumentBadInput: every refusal of DECISIONS section 5 gets its error
// and the field at fault, and stores nothing. The bodies a typed client can
// send go through it; wrong JSON types, unknown fields, keys twice, lone
// surrogates, a time not in RFC 3339 and money written as a string are
// written out.
func TestDocumentBadInput(t *testing.T) {
	t.Parallel()
	e2etest.EachEngine(t, func(t *testing.T, dsn string) {
		f := newDocFixture(t, dsn)
		ctx := t.Context()
		c, api := f.C, f.API
		dup, err := api.Documents.Create(ctx, f.Doc("DUP-1", e2etest.DocLine("1", "01", "6")))
		e2etest.Must(t, dup, err)
		_, tenantB, _ := servetest.Run(t, dsn, "tenant", "create", "--name", "Other", "--tin", "C1234567890")
		_, keyB, _ := servetest.Run(t, dsn, "key", "create", "--tenant", strings.TrimSpace(tenantB))
		theirs, err := f.Svc.API(t, strings.TrimSpace(keyB)).Buyers.Create(ctx, e2etest.ReadyBuyer("Theirs"))
		foreignBuyer := e2etest.Must(t, theirs, err).ID

		mod := func(change func(d map[string]any)) map[string]any {
			d := f.Invoice("X-1", e2etest.Line("1", "01", 6))
			change(d)
			return d
		}
		lineOf := func(d map[string]any) map[string]any { return d["invoiceLines"].([]any)[0].(map[string]any) }
		many := make([]client.Line, 1001)
		for i := range many {
			many[i] = e2etest.DocLine("1", "06", "0")
		}
		// typed are the refusals a typed client can send: change edits the
		// document of f.doc("X-1", ...), whose Type chooses the endpoint.
		typed := []struct {
			name   string
			change func(d *client.Document, l *client.Line)
			status int
			code   string
			field  string
		}{
			{"too many decimals", func(d *client.Document, l *client.Line) { l.UnitPrice = "1.1234567" }, 422, "VALIDATION_FAILED", "invoiceLines.0.unitPrice"},
			{"money with 3 decimals", func(d *client.Document, l *client.Line) { d.InvoiceDiscountAmount = "1.234" }, 422, "VALIDATION_FAILED", "invoiceDiscountAmount"},
			{"1e400", func(d *client.Document, l *client.Line) { l.Quantity = "1e400" }, 422, "VALIDATION_FAILED", "invoiceLines.0.quantity"},
			{"negative quantity", func(d *client.Document, l *client.Line) { l.Quantity = "-1" }, 422, "VALIDATION_FAILED", "invoiceLines.0.quantity"},
			{"negative price", func(d *client.Document, l *client.Line) { l.UnitPrice = "-1" }, 422, "VALIDATION_FAILED", "invoiceLines.0.unitPrice"},
			{"rate 101", func(d *client.Document, l *client.Line) { l.DiscountRate = "101" }, 422, "VALIDATION_FAILED", "invoiceLines.0.discountRate"},
			{"tax rate 101", func(d *client.Document, l *client.Line) {
				l.Taxes = []client.LineTax{{TaxType: "02", TaxRate: "101"}}
			}, 422, "VALIDATION_FAILED", "invoiceLines.0.invoiceLineTaxes.0.taxRate"},
			{"tax type not in list", func(d *client.Document, l *client.Line) {
				l.Taxes = []client.LineTax{{TaxType: "07", TaxRate: "6"}}
			}, 422, "VALIDATION_FAILED", "invoiceLines.0.invoiceLineTaxes.0.taxType"},
			{"unit not in list", func(d *client.Document, l *client.Line) { l.UnitCode = "UNT" }, 422, "VALIDATION_FAILED", "invoiceLines.0.unitCode"},
			{"classification not in list", func(d *client.Document, l *client.Line) { l.Classifications = []string{"045"} }, 422, "VALIDATION_FAILED", "invoiceLines.0.classifications.0"},
			{"currency not in list", func(d *client.Document, l *client.Line) { d.CurrencyCode = "ZZZ" }, 422, "VALIDATION_FAILED", "currencyCode"},
			{"bad date", func(d *client.Document, l *client.Line) { d.Payment.PrepaymentDate = "22/11/2026" }, 422, "VALIDATION_FAILED", "payment.prepaymentDate"},
			{"buyer of another tenant", func(d *client.Document, l *client.Line) { d.BuyerID = foreignBuyer }, 422, "VALIDATION_FAILED", "buyerId"},
			{"malformed buyer id", func(d *client.Document, l *client.Line) { d.BuyerID = "nope" }, 422, "VALIDATION_FAILED", "buyerId"},
			{"a seller as buyer", func(d *client.Document, l *client.Line) { d.BuyerID = f.SellerID }, 422, "VALIDATION_FAILED", "buyerId"},
			{"no buyer", func(d *client.Document, l *client.Line) { d.BuyerID = "" }, 422, "VALIDATION_FAILED", "buyerId"},
			{"self-billed with a buyerId", func(d *client.Document, l *client.Line) { d.Type = client.TypeSelfBilledInvoice }, 422, "VALIDATION_FAILED", "buyerId"},
			{"invoice with a seller", func(d *client.Document, l *client.Line) { d.OnBehalfSellerID = f.SellerID }, 422, "VALIDATION_FAILED", "onBehalfSellerId"},
			{"consolidated with a buyer", func(d *client.Document, l *client.Line) { d.Type = client.TypeConsolidatedInvoice }, 422, "VALIDATION_FAILED", "buyerId"},
			{"note without references", func(d *client.Document, l *client.Line) { d.Type = client.TypeCreditNote }, 422, "VALIDATION_FAILED", "documentReferences"},
			{"self-billed note without references", func(d *client.Document, l *client.Line) {
				d.Type, d.BuyerID, d.OnBehalfSellerID = client.TypeSelfBilledDebitNote, "", f.SellerID
			}, 422, "VALIDATION_FAILED", "documentReferences"},
			{"duplicate serial", func(d *client.Document, l *client.Line) { d.InvoiceSerialNumber = "DUP-1" }, 409, "DUPLICATE_SERIAL_NUMBER", "invoiceSerialNumber"},
			{"duplicate serial, consolidated shares 01", func(d *client.Document, l *client.Line) {
				d.Type, d.BuyerID, d.InvoiceSerialNumber = client.TypeConsolidatedInvoice, "", "DUP-1"
			}, 409, "DUPLICATE_SERIAL_NUMBER", "invoiceSerialNumber"},
			{"1,001 lines", func(d *client.Document, l *client.Line) { d.Lines = many }, 422, "VALIDATION_FAILED", "invoiceLines"},
			// DECISIONS 12 (TestDocumentAmountLimits has every field and PUT).
			{"computed amount beyond 10^12", func(d *client.Document, l *client.Line) {
				l.Quantity, l.UnitPrice = tera, tera
			}, 422, "VALIDATION_FAILED", "invoiceLines.0.subtotal"},
			{"negative discount", func(d *client.Document, l *client.Line) { d.InvoiceDiscountAmount = "-5" }, 422, "VALIDATION_FAILED", "invoiceDiscountAmount"},
			{"negative prepayment", func(d *client.Document, l *client.Line) { d.Payment.PrepaymentAmount = "-5" }, 422, "VALIDATION_FAILED", "payment.prepaymentAmount"},
			{"negative discount, manual amounts", func(d *client.Document, l *client.Line) {
				d.AutoCalculate, d.InvoiceDiscountAmount, d.TotalDiscountAmount = false, "-5", "-5"
			}, 422, "VALIDATION_FAILED", "invoiceDiscountAmount"},
			{"tax type twice on a line", func(d *client.Document, l *client.Line) {
				l.Taxes = []client.LineTax{{TaxType: "01", TaxRate: "6"}, {TaxType: "02", TaxRate: "8"}, {TaxType: "01", TaxRate: "10"}}
			}, 422, "VALIDATION_FAILED", "invoiceLines.0.invoiceLineTaxes.2.taxType"},
		}
		raw := []struct {
			name, path string
			body       any
			status     int
			code       string
			field      string
		}{
			{"string for number", "/api/v1/invoices", mod(func(d map[string]any) { lineOf(d)["quantity"] = "2" }), 400, "MALFORMED_JSON", "invoiceLines.0.quantity"},
			{"object for money", "/api/v1/invoices", mod(func(d map[string]any) { d["invoiceFeeAmount"] = map[string]any{} }), 400, "MALFORMED_JSON", "invoiceFeeAmount"},
			{"bad date-time", "/api/v1/invoices", mod(func(d map[string]any) { d["erpIssuedAt"] = "2026-11-22 10:00" }), 422, "VALIDATION_FAILED", "erpIssuedAt"},
			{"unknown field", "/api/v1/invoices", mod(func(d map[string]any) { lineOf(d)["vat"] = 6 }), 422, "VALIDATION_FAILED", "invoiceLines.0.vat"},
			{"negative fee", "/api/v1/invoices", mod(func(d map[string]any) { d["invoiceFeeAmount"] = "-5" }), 422, "VALIDATION_FAILED", "invoiceFeeAmount"},
			{"buyerId twice", "/api/v1/invoices", `{"buyerId": "` + f.BuyerID + `", "invoiceSerialNumber": "X-2", "buyerId": "` + foreignBuyer + `"}`, 400, "MALFORMED_JSON", "buyerId"},
			{"a line's key twice", "/api/v1/invoices", `{"buyerId": "` + f.BuyerID + `", "invoiceLines": [{"unitCode": "H87"},
				{"unitCode": "H87", "invoiceLineTaxes": [{"taxType": "01", "taxRate": 6, "taxRate": 0}]}]}`, 400, "MALFORMED_JSON", "invoiceLines.1.invoiceLineTaxes.0.taxRate"},
			{"lone surrogate in a line", "/api/v1/invoices", `{"buyerId": "` + f.BuyerID + `", "invoiceLines": [{"productDescription": "USB \ud83d cable"}]}`, 400, "MALFORMED_JSON", "invoiceLines.0.productDescription"},
		}
		before := c.Do("GET", "/api/v1/invoices", nil).Raw
		for _, tc := range typed {
			t.Run(tc.name, func(t *testing.T) {
				d := f.Doc("X-1", e2etest.DocLine("1", "01", "6"))
				tc.change(d, &d.Lines[0])
				_, err := api.Documents.Create(ctx, d)
				e := e2etest.WantErr(t, err, tc.status, tc.code)
				if _, ok := e.Fields[tc.field]; !ok {
					t.Errorf("errors = %v, want %q named", e.Fields, tc.field)
				}
			})
		}
		for _, tc := range raw {
			t.Run(tc.name, func(t *testing.T) {
				cc := *c
				cc.T = t
				r := cc.Do("POST", tc.path, tc.body).Want(t, tc.status, tc.code)
				if _, ok := r.FieldErrors()[tc.field]; !ok {
					t.Errorf("errors = %v, want %q named", r.FieldErrors(), tc.field)
				}
			})
		}
		if after := c.Do("GET", "/api/v1/invoices", nil).Raw; string(before) != string(after) {
			t.Errorf("bad requests stored documents")
		}
		// A credit note may reuse an invoice's serial number (another type code).
		note := f.Doc("DUP-1", e2etest.DocLine("1", "01", "6"))
		note.Type, note.References = client.TypeCreditNote, []client.DocumentReference{{ReferenceNumber: "DUP-1", UUID: "NA"}}
		cn, err := api.Documents.Create(ctx, note)
		e2etest.Must(t, cn, err)
		// Money inputs also take decimal strings; quantities are echoed as
		// given (the JSON text of the answer).
		ok := mod(func(d map[string]any) {
			d["invoiceDiscountAmount"] = "2.50"
			lineOf(d)["quantity"] = e2etest.JSONNumber("1.500")
		})
		d := c.Do("POST", "/api/v1/invoices", ok).Want(t, 201, "")
		if !strings.Contains(string(d.Raw), `"quantity":1.500`) || d.Data()["totalDiscountAmount"] != "2.50" {
			t.Errorf("echo: %s", d.Raw)
		}
	})
}
