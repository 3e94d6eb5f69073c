package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/einvoice/einvoice/client"
	"github.com/einvoice/einvoice/internal/einvoice"
	"github.com/einvoice/einvoice/internal/servetest"
)

// docFixture is a running service with a buyer and an on-behalf seller.
type docFixture struct {
	svc      *service
	c        *rawClient
	api      *client.Client
	buyerID  string
	sellerID string
}

func newDocFixture(t *testing.T, dsn string) *docFixture {
	t.Helper()
	svc := startService(t, dsn)
	f := &docFixture{svc: svc, c: svc.client(t, svc.DemoKey), api: svc.api(t, svc.DemoKey)}
	buyer, err := f.api.Buyers.Create(t.Context(), readyBuyer("Hebat Group"))
	f.buyerID = must(t, buyer, err).ID
	seller := readyBuyer("Supplier Sdn. Bhd.")
	seller.MSICCode, seller.BusinessActivityDescription = "46510", "Wholesale"
	s, err := f.api.Sellers.Create(t.Context(), seller)
	f.sellerID = must(t, s, err).ID
	return f
}

func line(price string, taxType string, rate any) map[string]any {
	return map[string]any{
		"classifications": []string{"001"}, "productDescription": "Widget", "quantity": 1, "unitCode": "H87",
		"unitPrice": jsonNumber(price), "invoiceLineTaxes": []any{map[string]any{"taxType": taxType, "taxRate": rate}},
	}
}

// docLine is line for the typed client.
func docLine(price, taxType, rate string) client.Line {
	return client.Line{Classifications: []string{"001"}, ProductDescription: "Widget", Quantity: "1", UnitCode: "H87",
		UnitPrice: client.Decimal(price), Taxes: []client.LineTax{{TaxType: taxType, TaxRate: client.Decimal(rate)}}}
}

// jsonNumber is a number written into JSON as given.
type jsonNumber string

func (n jsonNumber) MarshalJSON() ([]byte, error) { return []byte(n), nil }

func (f *docFixture) invoice(serial string, lines ...map[string]any) map[string]any {
	ls := make([]any, len(lines))
	for i, l := range lines {
		ls[i] = l
	}
	return map[string]any{"buyerId": f.buyerID, "invoiceSerialNumber": serial, "currencyCode": "MYR",
		"autoCalculate": true, "invoiceLines": ls,
		"payment": map[string]any{"paymentMode": "03", "paymentTerms": "30 days"}}
}

// doc is invoice for the typed client.
func (f *docFixture) doc(serial string, lines ...client.Line) *client.Document {
	return &client.Document{BuyerID: f.buyerID, InvoiceSerialNumber: serial, CurrencyCode: "MYR",
		AutoCalculate: true, Lines: lines, Payment: &client.Payment{PaymentMode: "03", PaymentTerms: "30 days"}}
}

// typedFrom is a body written as a map (the shared samples) as the client's
// type T: the same fields, which the typed client then sends. A key T does
// not have ends the test, so that nothing of the body is lost.
func typedFrom[T any](t *testing.T, body map[string]any) *T {
	t.Helper()
	raw, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	var v T
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("%s as %T: %v", raw, v, err)
	}
	return &v
}

// typedPassed is a validation through the typed client that must pass.
func typedPassed(t *testing.T, api *client.Client, what, id string) {
	t.Helper()
	v, err := api.Documents.Validate(t.Context(), id)
	must(t, v, err)
	if v.ID != id || v.Status != client.StatusReady || !v.ValidationPassed || v.Message != passedMessage {
		t.Errorf("%s: validate = %+v, want ready and passed", what, v)
	}
	if len(v.Errors) != 0 || len(v.Problems) != 0 {
		t.Errorf("%s: a passed validation has errors %v, problems %v", what, v.Errors, v.Problems)
	}
}

// typedReadyInvoice is the sample invoice to the buyer, created and
// validated through the typed client.
func typedReadyInvoice(t *testing.T, api *client.Client, serial, buyerID string) string {
	t.Helper()
	doc := typedFrom[client.Document](t, singleLineBody(serial))
	doc.BuyerID = buyerID
	d, err := api.Documents.Create(t.Context(), doc)
	id := must(t, d, err).ID
	typedPassed(t, api, serial, id)
	return id
}

// typedSubmit submits a ready document, which the authority must accept at
// once (200, not 202).
func typedSubmit(t *testing.T, api *client.Client, id string) *client.Submission {
	t.Helper()
	sub, err := api.Documents.Submit(t.Context(), id)
	if must(t, sub, err).Pending {
		t.Errorf("submit of %s answered 202, want 200: %+v", id, sub)
	}
	return sub
}

// typedWaitStatus asks for the status through the typed client until it is
// want (or the time is up).
func typedWaitStatus(t *testing.T, api *client.Client, id string, want client.Status, within time.Duration) *client.SubmissionStatus {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		st, err := api.Documents.Status(t.Context(), id)
		must(t, st, err)
		if st.Status == want {
			return st
		}
		if time.Now().After(deadline) {
			t.Fatalf("document %s is %v after %s, want %s: %+v", id, st.Status, within, want, st)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// TestDocumentLifecycle creates each of the nine kinds, reads, lists,
// edits and deletes them, with the amounts computed by autoCalculate.
func TestDocumentLifecycle(t *testing.T) {
	eachEngine(t, func(t *testing.T, dsn string) {
		f := newDocFixture(t, dsn)
		ctx := t.Context()
		c, api := f.c, f.api
		// Two lines of 9.42 at 6 %: tax is rounded per line, 0.57 + 0.57.
		inv, err := api.Documents.Create(ctx, f.doc("INV-0001", docLine("9.42", "01", "6"), docLine("9.42", "01", "6")))
		must(t, inv, err)
		for k, v := range map[string][2]string{"type": {string(inv.Type), "invoice"}, "typeCode": {inv.TypeCode, "01"},
			"status": {string(inv.Status), "draft"}, "subtotal": {string(inv.Subtotal), "18.84"},
			"totalTaxAmount": {string(inv.TotalTaxAmount), "1.14"}, "totalIncludingTax": {string(inv.TotalIncludingTax), "19.98"},
			"totalPayableAmount": {string(inv.TotalPayableAmount), "19.98"}, "roundingAmount": {string(inv.RoundingAmount), "0.00"},
			"buyerId": {inv.BuyerID, f.buyerID}, "currencyCode": {inv.CurrencyCode, "MYR"}} {
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
			body := f.doc("DOC-"+string(k.Kind), docLine("100", "02", "8"))
			body.Type = client.DocumentType(k.Kind) // the kind's endpoint, k.Path
			switch {
			case k.SelfBilled:
				body.BuyerID, body.OnBehalfSellerID = "", f.sellerID
			case k.Consolidated:
				body.BuyerID = ""
			}
			if k.Note {
				body.References = ref
			}
			d, err := api.Documents.Create(ctx, body)
			if must(t, d, err); string(d.Type) != string(k.Kind) || d.TypeCode != k.TypeCode || d.TotalTaxAmount != "8.00" {
				t.Errorf("%s: type %v typeCode %v tax %v", k.Path, d.Type, d.TypeCode, d.TotalTaxAmount)
			}
			got, err := api.Documents.Get(ctx, d.ID)
			if must(t, got, err).InvoiceSerialNumber != "DOC-"+string(k.Kind) {
				t.Errorf("GET %s = %v", k.Path, got.InvoiceSerialNumber)
			}
		}
		// Filters.
		list := func(o client.DocumentListOptions) (int, []client.Document) {
			p, err := api.Documents.List(ctx, &o)
			must(t, p, err)
			return p.Meta.Total, p.Items
		}
		if n, _ := list(client.DocumentListOptions{}); n != 10 {
			t.Errorf("all documents = %d, want 10", n)
		}
		if n, items := list(client.DocumentListOptions{Type: client.TypeSelfBilledCreditNote}); n != 1 || items[0].OnBehalfSellerID != f.sellerID {
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
		wantErr(t, err, 422, client.CodeValidationFailed)
		_, err = api.Documents.List(ctx, &client.DocumentListOptions{Type: "receipt"})
		wantErr(t, err, 422, client.CodeValidationFailed)

		// Edit: amounts recomputed; autoCalculate false stores the client's
		// amounts as given. Written out: money as a JSON number and as
		// decimal strings.
		edit := f.invoice("INV-0001", line("10", "01", 10))
		edit["autoCalculate"] = false
		edit["subtotal"], edit["totalTaxAmount"], edit["invoiceDiscountAmount"] = 10.1, "1.00", "0.5"
		got := c.do("PUT", "/api/v1/invoices/"+invID, edit).want(t, 200, "").data()
		if got["subtotal"] != "10.10" || got["totalTaxAmount"] != "1.00" || got["invoiceDiscountAmount"] != "0.50" || got["totalPayableAmount"] != nil {
			t.Errorf("manual amounts = subtotal %v tax %v discount %v payable %v", got["subtotal"], got["totalTaxAmount"], got["invoiceDiscountAmount"], got["totalPayableAmount"])
		}
		// The buyer is in use.
		wantErr(t, api.Buyers.Delete(ctx, f.buyerID), 409, client.CodeBuyerInUse)
		wantErr(t, api.Sellers.Delete(ctx, f.sellerID), 409, client.CodeBuyerInUse)

		// A submitted document is frozen: PUT (whatever its body) and DELETE are 409.
		setStatus(t, dsn, invID, einvoice.StatusSubmitted)
		c.do("PUT", "/api/v1/invoices/"+invID, "not even JSON").want(t, 409, "DOCUMENT_NOT_DRAFT")
		wantErr(t, api.Documents.Delete(ctx, invID), 409, client.CodeDocumentNotDraft)
		// An Invalid one may be edited, and goes back to draft, with history.
		setStatus(t, dsn, invID, einvoice.StatusInvalid)
		edited, err := api.Documents.Update(ctx, invID, f.doc("INV-0001", docLine("10", "01", "10")))
		if h := must(t, edited, err).History; edited.Status != client.StatusDraft || len(h) != 4 || h[3].Note != "edited while Invalid" {
			t.Errorf("edit of an Invalid document: status %v history %+v", edited.Status, edited.History)
		}
		// Delete a draft.
		if err := api.Documents.Delete(ctx, invID); err != nil {
			t.Errorf("delete a draft: %v", err)
		}
		_, err = api.Documents.Get(ctx, invID)
		wantErr(t, err, 404, client.CodeDocumentNotFound)
	})
}

// setStatus moves a document to a status the API cannot reach yet (the
// authority's), through the store.
func setStatus(t *testing.T, dsn, id string, status einvoice.Status) {
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
	if err := s.UpdateDocument(ctx, d, einvoice.Statuses, &einvoice.Event{ID: newID(), Status: status, Note: "test", At: d.UpdatedAt}); err != nil {
		t.Fatal(err)
	}
}

// TestDocumentBadInput: every refusal of DECISIONS section 5 gets its error
// and the field at fault, and stores nothing. The bodies a typed client can
// send go through it; wrong JSON types, unknown fields, keys twice, lone
// surrogates, a time not in RFC 3339 and money written as a string are
// written out.
func TestDocumentBadInput(t *testing.T) {
	eachEngine(t, func(t *testing.T, dsn string) {
		f := newDocFixture(t, dsn)
		ctx := t.Context()
		c, api := f.c, f.api
		dup, err := api.Documents.Create(ctx, f.doc("DUP-1", docLine("1", "01", "6")))
		must(t, dup, err)
		_, tenantB, _ := servetest.Run(t, dsn, "tenant", "create", "--name", "Other", "--tin", "C1234567890")
		_, keyB, _ := servetest.Run(t, dsn, "key", "create", "--tenant", strings.TrimSpace(tenantB))
		theirs, err := f.svc.api(t, strings.TrimSpace(keyB)).Buyers.Create(ctx, readyBuyer("Theirs"))
		foreignBuyer := must(t, theirs, err).ID

		mod := func(change func(d map[string]any)) map[string]any {
			d := f.invoice("X-1", line("1", "01", 6))
			change(d)
			return d
		}
		lineOf := func(d map[string]any) map[string]any { return d["invoiceLines"].([]any)[0].(map[string]any) }
		many := make([]client.Line, 1001)
		for i := range many {
			many[i] = docLine("1", "06", "0")
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
			{"a seller as buyer", func(d *client.Document, l *client.Line) { d.BuyerID = f.sellerID }, 422, "VALIDATION_FAILED", "buyerId"},
			{"no buyer", func(d *client.Document, l *client.Line) { d.BuyerID = "" }, 422, "VALIDATION_FAILED", "buyerId"},
			{"self-billed with a buyerId", func(d *client.Document, l *client.Line) { d.Type = client.TypeSelfBilledInvoice }, 422, "VALIDATION_FAILED", "buyerId"},
			{"invoice with a seller", func(d *client.Document, l *client.Line) { d.OnBehalfSellerID = f.sellerID }, 422, "VALIDATION_FAILED", "onBehalfSellerId"},
			{"consolidated with a buyer", func(d *client.Document, l *client.Line) { d.Type = client.TypeConsolidatedInvoice }, 422, "VALIDATION_FAILED", "buyerId"},
			{"note without references", func(d *client.Document, l *client.Line) { d.Type = client.TypeCreditNote }, 422, "VALIDATION_FAILED", "documentReferences"},
			{"self-billed note without references", func(d *client.Document, l *client.Line) {
				d.Type, d.BuyerID, d.OnBehalfSellerID = client.TypeSelfBilledDebitNote, "", f.sellerID
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
			{"buyerId twice", "/api/v1/invoices", `{"buyerId": "` + f.buyerID + `", "invoiceSerialNumber": "X-2", "buyerId": "` + foreignBuyer + `"}`, 400, "MALFORMED_JSON", "buyerId"},
			{"a line's key twice", "/api/v1/invoices", `{"buyerId": "` + f.buyerID + `", "invoiceLines": [{"unitCode": "H87"},
				{"unitCode": "H87", "invoiceLineTaxes": [{"taxType": "01", "taxRate": 6, "taxRate": 0}]}]}`, 400, "MALFORMED_JSON", "invoiceLines.1.invoiceLineTaxes.0.taxRate"},
			{"lone surrogate in a line", "/api/v1/invoices", `{"buyerId": "` + f.buyerID + `", "invoiceLines": [{"productDescription": "USB \ud83d cable"}]}`, 400, "MALFORMED_JSON", "invoiceLines.0.productDescription"},
		}
		before := c.do("GET", "/api/v1/invoices", nil).Raw
		for _, tc := range typed {
			t.Run(tc.name, func(t *testing.T) {
				d := f.doc("X-1", docLine("1", "01", "6"))
				tc.change(d, &d.Lines[0])
				_, err := api.Documents.Create(ctx, d)
				e := wantErr(t, err, tc.status, tc.code)
				if _, ok := e.Fields[tc.field]; !ok {
					t.Errorf("errors = %v, want %q named", e.Fields, tc.field)
				}
			})
		}
		for _, tc := range raw {
			t.Run(tc.name, func(t *testing.T) {
				cc := *c
				cc.t = t
				r := cc.do("POST", tc.path, tc.body).want(t, tc.status, tc.code)
				if _, ok := r.fieldErrors()[tc.field]; !ok {
					t.Errorf("errors = %v, want %q named", r.fieldErrors(), tc.field)
				}
			})
		}
		if after := c.do("GET", "/api/v1/invoices", nil).Raw; string(before) != string(after) {
			t.Errorf("bad requests stored documents")
		}
		// A credit note may reuse an invoice's serial number (another type code).
		note := f.doc("DUP-1", docLine("1", "01", "6"))
		note.Type, note.References = client.TypeCreditNote, []client.DocumentReference{{ReferenceNumber: "DUP-1", UUID: "NA"}}
		cn, err := api.Documents.Create(ctx, note)
		must(t, cn, err)
		// Money inputs also take decimal strings; quantities are echoed as
		// given (the JSON text of the answer).
		ok := mod(func(d map[string]any) {
			d["invoiceDiscountAmount"] = "2.50"
			lineOf(d)["quantity"] = jsonNumber("1.500")
		})
		d := c.do("POST", "/api/v1/invoices", ok).want(t, 201, "")
		if !strings.Contains(string(d.Raw), `"quantity":1.500`) || d.data()["totalDiscountAmount"] != "2.50" {
			t.Errorf("echo: %s", d.Raw)
		}
	})
}
