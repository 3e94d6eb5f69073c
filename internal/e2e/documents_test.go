package e2e

import (
	"context"
	"strings"
	"testing"

	"github.com/einvoice/einvoice/internal/einvoice"
	"github.com/einvoice/einvoice/internal/servetest"
)

// docFixture is a running service with a buyer and an on-behalf seller.
type docFixture struct {
	svc      *service
	c        *rawClient
	buyerID  string
	sellerID string
}

func newDocFixture(t *testing.T, dsn string) *docFixture {
	t.Helper()
	svc := startService(t, dsn)
	c := svc.client(t, svc.DemoKey)
	f := &docFixture{svc: svc, c: c}
	f.buyerID = str(c.do("POST", "/api/v1/buyers", validBuyer("Hebat Group")).want(t, 201, "").data()["id"])
	seller := validBuyer("Supplier Sdn. Bhd.")
	seller["msicCode"], seller["businessActivityDescription"] = "46510", "Wholesale"
	f.sellerID = str(c.do("POST", "/api/v1/on-behalf-sellers", seller).want(t, 201, "").data()["id"])
	return f
}

func line(price string, taxType string, rate any) map[string]any {
	return map[string]any{
		"classifications": []string{"001"}, "productDescription": "Widget", "quantity": 1, "unitCode": "H87",
		"unitPrice": jsonNumber(price), "invoiceLineTaxes": []any{map[string]any{"taxType": taxType, "taxRate": rate}},
	}
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

// TestDocumentLifecycle creates each of the nine kinds, reads, lists,
// edits and deletes them, with the amounts computed by autoCalculate.
func TestDocumentLifecycle(t *testing.T) {
	eachEngine(t, func(t *testing.T, dsn string) {
		f := newDocFixture(t, dsn)
		c := f.c
		// Two lines of 9.42 at 6 %: tax is rounded per line, 0.57 + 0.57.
		inv := c.do("POST", "/api/v1/invoices", f.invoice("INV-0001", line("9.42", "01", 6), line("9.42", "01", 6))).want(t, 201, "").data()
		for k, want := range map[string]any{"type": "invoice", "typeCode": "01", "status": "draft", "subtotal": "18.84",
			"totalTaxAmount": "1.14", "totalIncludingTax": "19.98", "totalPayableAmount": "19.98", "roundingAmount": "0.00",
			"buyerId": f.buyerID, "currencyCode": "MYR"} {
			if inv[k] != want {
				t.Errorf("invoice %s = %v, want %v", k, inv[k], want)
			}
		}
		if l0 := inv["invoiceLines"].([]any)[0].(map[string]any); l0["taxAmount"] != "0.57" || l0["unitPrice"] != 9.42 {
			t.Errorf("line 0 = %v", l0)
		}
		if h := inv["history"].([]any); len(h) != 1 || h[0].(map[string]any)["status"] != "draft" {
			t.Errorf("history = %v", h)
		}
		invID := str(inv["id"])
		ref := []any{map[string]any{"referenceNumber": "INV-0001", "uuid": "F9D425P6DS7D8IU"}}
		for _, k := range einvoice.Kinds {
			body := f.invoice("DOC-"+string(k.Kind), line("100", "02", 8))
			switch {
			case k.SelfBilled:
				delete(body, "buyerId")
				body["onBehalfSellerId"] = f.sellerID
			case k.Consolidated:
				delete(body, "buyerId")
			}
			if k.Note {
				body["documentReferences"] = ref
			}
			d := c.do("POST", "/api/v1"+k.Path, body).want(t, 201, "").data()
			if d["type"] != string(k.Kind) || d["typeCode"] != k.TypeCode || d["totalTaxAmount"] != "8.00" {
				t.Errorf("%s: type %v typeCode %v tax %v", k.Path, d["type"], d["typeCode"], d["totalTaxAmount"])
			}
			got := c.do("GET", "/api/v1/invoices/"+str(d["id"]), nil).want(t, 200, "").data()
			if got["invoiceSerialNumber"] != "DOC-"+string(k.Kind) {
				t.Errorf("GET %s = %v", k.Path, got["invoiceSerialNumber"])
			}
		}
		// Filters.
		list := func(q string) (int, []any) {
			r := c.do("GET", "/api/v1/invoices?"+q, nil).want(t, 200, "")
			return int(r.Body["meta"].(map[string]any)["total"].(float64)), r.Body["data"].([]any)
		}
		if n, _ := list(""); n != 10 {
			t.Errorf("all documents = %d, want 10", n)
		}
		if n, items := list("type=self_billed_credit_note"); n != 1 || items[0].(map[string]any)["onBehalfSellerId"] != f.sellerID {
			t.Errorf("type filter = %d", n)
		}
		if n, _ := list("search=doc-self"); n != 4 {
			t.Errorf("search doc-self = %d, want the 4 self-billed", n)
		}
		if n, _ := list("search=inv-0001&status=draft"); n != 1 {
			t.Errorf("search inv-0001 = %d, want 1", n)
		}
		if n, _ := list("status=Valid"); n != 0 {
			t.Errorf("status Valid = %d, want 0", n)
		}
		c.do("GET", "/api/v1/invoices?status=valid", nil).want(t, 422, "VALIDATION_FAILED")
		c.do("GET", "/api/v1/invoices?type=receipt", nil).want(t, 422, "VALIDATION_FAILED")

		// Edit: amounts recomputed; autoCalculate false stores the client's amounts as given.
		edit := f.invoice("INV-0001", line("10", "01", 10))
		edit["autoCalculate"] = false
		edit["subtotal"], edit["totalTaxAmount"], edit["invoiceDiscountAmount"] = 10.1, "1.00", "0.5"
		got := c.do("PUT", "/api/v1/invoices/"+invID, edit).want(t, 200, "").data()
		if got["subtotal"] != "10.10" || got["totalTaxAmount"] != "1.00" || got["invoiceDiscountAmount"] != "0.50" || got["totalPayableAmount"] != nil {
			t.Errorf("manual amounts = subtotal %v tax %v discount %v payable %v", got["subtotal"], got["totalTaxAmount"], got["invoiceDiscountAmount"], got["totalPayableAmount"])
		}
		// The buyer is in use.
		c.do("DELETE", "/api/v1/buyers/"+f.buyerID, nil).want(t, 409, "BUYER_IN_USE")
		c.do("DELETE", "/api/v1/on-behalf-sellers/"+f.sellerID, nil).want(t, 409, "BUYER_IN_USE")

		// A submitted document is frozen: PUT (whatever its body) and DELETE are 409.
		setStatus(t, dsn, invID, einvoice.StatusSubmitted)
		c.do("PUT", "/api/v1/invoices/"+invID, "not even JSON").want(t, 409, "DOCUMENT_NOT_DRAFT")
		c.do("DELETE", "/api/v1/invoices/"+invID, nil).want(t, 409, "DOCUMENT_NOT_DRAFT")
		// An Invalid one may be edited, and goes back to draft, with history.
		setStatus(t, dsn, invID, einvoice.StatusInvalid)
		got = c.do("PUT", "/api/v1/invoices/"+invID, f.invoice("INV-0001", line("10", "01", 10))).want(t, 200, "").data()
		if h := got["history"].([]any); got["status"] != "draft" || len(h) != 4 || h[3].(map[string]any)["note"] != "edited while Invalid" {
			t.Errorf("edit of an Invalid document: status %v history %v", got["status"], got["history"])
		}
		// Delete a draft.
		c.do("DELETE", "/api/v1/invoices/"+invID, nil).want(t, 200, "")
		c.do("GET", "/api/v1/invoices/"+invID, nil).want(t, 404, "DOCUMENT_NOT_FOUND")
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
// and the field at fault, and stores nothing.
func TestDocumentBadInput(t *testing.T) {
	eachEngine(t, func(t *testing.T, dsn string) {
		f := newDocFixture(t, dsn)
		c := f.c
		c.do("POST", "/api/v1/invoices", f.invoice("DUP-1", line("1", "01", 6))).want(t, 201, "")
		_, tenantB, _ := servetest.Run(t, dsn, "tenant", "create", "--name", "Other", "--tin", "C1234567890")
		_, keyB, _ := servetest.Run(t, dsn, "key", "create", "--tenant", strings.TrimSpace(tenantB))
		foreignBuyer := str(f.svc.client(t, strings.TrimSpace(keyB)).do("POST", "/api/v1/buyers", validBuyer("Theirs")).want(t, 201, "").data()["id"])

		mod := func(change func(d map[string]any)) map[string]any {
			d := f.invoice("X-1", line("1", "01", 6))
			change(d)
			return d
		}
		lineOf := func(d map[string]any) map[string]any { return d["invoiceLines"].([]any)[0].(map[string]any) }
		many := make([]any, 1001)
		for i := range many {
			many[i] = line("1", "06", 0)
		}
		cases := []struct {
			name, path string
			body       any
			status     int
			code       string
			field      string
		}{
			{"too many decimals", "/api/v1/invoices", mod(func(d map[string]any) { lineOf(d)["unitPrice"] = jsonNumber("1.1234567") }), 422, "VALIDATION_FAILED", "invoiceLines.0.unitPrice"},
			{"money with 3 decimals", "/api/v1/invoices", mod(func(d map[string]any) { d["invoiceDiscountAmount"] = jsonNumber("1.234") }), 422, "VALIDATION_FAILED", "invoiceDiscountAmount"},
			{"1e400", "/api/v1/invoices", mod(func(d map[string]any) { lineOf(d)["quantity"] = jsonNumber("1e400") }), 422, "VALIDATION_FAILED", "invoiceLines.0.quantity"},
			{"negative quantity", "/api/v1/invoices", mod(func(d map[string]any) { lineOf(d)["quantity"] = -1 }), 422, "VALIDATION_FAILED", "invoiceLines.0.quantity"},
			{"negative price", "/api/v1/invoices", mod(func(d map[string]any) { lineOf(d)["unitPrice"] = -1 }), 422, "VALIDATION_FAILED", "invoiceLines.0.unitPrice"},
			{"rate 101", "/api/v1/invoices", mod(func(d map[string]any) { lineOf(d)["discountRate"] = 101 }), 422, "VALIDATION_FAILED", "invoiceLines.0.discountRate"},
			{"tax rate 101", "/api/v1/invoices", mod(func(d map[string]any) {
				lineOf(d)["invoiceLineTaxes"] = []any{map[string]any{"taxType": "02", "taxRate": 101}}
			}), 422, "VALIDATION_FAILED", "invoiceLines.0.invoiceLineTaxes.0.taxRate"},
			{"string for number", "/api/v1/invoices", mod(func(d map[string]any) { lineOf(d)["quantity"] = "2" }), 400, "MALFORMED_JSON", "invoiceLines.0.quantity"},
			{"object for money", "/api/v1/invoices", mod(func(d map[string]any) { d["invoiceFeeAmount"] = map[string]any{} }), 400, "MALFORMED_JSON", "invoiceFeeAmount"},
			{"tax type not in list", "/api/v1/invoices", mod(func(d map[string]any) {
				lineOf(d)["invoiceLineTaxes"] = []any{map[string]any{"taxType": "07", "taxRate": 6}}
			}), 422, "VALIDATION_FAILED", "invoiceLines.0.invoiceLineTaxes.0.taxType"},
			{"unit not in list", "/api/v1/invoices", mod(func(d map[string]any) { lineOf(d)["unitCode"] = "UNT" }), 422, "VALIDATION_FAILED", "invoiceLines.0.unitCode"},
			{"classification not in list", "/api/v1/invoices", mod(func(d map[string]any) { lineOf(d)["classifications"] = []string{"045"} }), 422, "VALIDATION_FAILED", "invoiceLines.0.classifications.0"},
			{"currency not in list", "/api/v1/invoices", mod(func(d map[string]any) { d["currencyCode"] = "ZZZ" }), 422, "VALIDATION_FAILED", "currencyCode"},
			{"bad date", "/api/v1/invoices", mod(func(d map[string]any) { d["payment"].(map[string]any)["prepaymentDate"] = "22/11/2026" }), 422, "VALIDATION_FAILED", "payment.prepaymentDate"},
			{"bad date-time", "/api/v1/invoices", mod(func(d map[string]any) { d["erpIssuedAt"] = "2026-11-22 10:00" }), 422, "VALIDATION_FAILED", "erpIssuedAt"},
			{"buyer of another tenant", "/api/v1/invoices", mod(func(d map[string]any) { d["buyerId"] = foreignBuyer }), 422, "VALIDATION_FAILED", "buyerId"},
			{"malformed buyer id", "/api/v1/invoices", mod(func(d map[string]any) { d["buyerId"] = "nope" }), 422, "VALIDATION_FAILED", "buyerId"},
			{"a seller as buyer", "/api/v1/invoices", mod(func(d map[string]any) { d["buyerId"] = f.sellerID }), 422, "VALIDATION_FAILED", "buyerId"},
			{"no buyer", "/api/v1/invoices", mod(func(d map[string]any) { delete(d, "buyerId") }), 422, "VALIDATION_FAILED", "buyerId"},
			{"self-billed with a buyerId", "/api/v1/self-billed-invoices", mod(func(d map[string]any) {}), 422, "VALIDATION_FAILED", "buyerId"},
			{"invoice with a seller", "/api/v1/invoices", mod(func(d map[string]any) { d["onBehalfSellerId"] = f.sellerID }), 422, "VALIDATION_FAILED", "onBehalfSellerId"},
			{"consolidated with a buyer", "/api/v1/consolidated-invoices", mod(func(d map[string]any) {}), 422, "VALIDATION_FAILED", "buyerId"},
			{"note without references", "/api/v1/credit-notes", mod(func(d map[string]any) {}), 422, "VALIDATION_FAILED", "documentReferences"},
			{"self-billed note without references", "/api/v1/self-billed-debit-notes", mod(func(d map[string]any) {
				delete(d, "buyerId")
				d["onBehalfSellerId"] = f.sellerID
			}), 422, "VALIDATION_FAILED", "documentReferences"},
			{"duplicate serial", "/api/v1/invoices", mod(func(d map[string]any) { d["invoiceSerialNumber"] = "DUP-1" }), 409, "DUPLICATE_SERIAL_NUMBER", "invoiceSerialNumber"},
			{"duplicate serial, consolidated shares 01", "/api/v1/consolidated-invoices", mod(func(d map[string]any) {
				delete(d, "buyerId")
				d["invoiceSerialNumber"] = "DUP-1"
			}), 409, "DUPLICATE_SERIAL_NUMBER", "invoiceSerialNumber"},
			{"1,001 lines", "/api/v1/invoices", mod(func(d map[string]any) { d["invoiceLines"] = many }), 422, "VALIDATION_FAILED", "invoiceLines"},
			{"unknown field", "/api/v1/invoices", mod(func(d map[string]any) { lineOf(d)["vat"] = 6 }), 422, "VALIDATION_FAILED", "invoiceLines.0.vat"},
			// DECISIONS 12 (TestDocumentAmountLimits has every field and PUT).
			{"computed amount beyond 10^12", "/api/v1/invoices", mod(func(d map[string]any) {
				lineOf(d)["quantity"], lineOf(d)["unitPrice"] = jsonNumber(tera), jsonNumber(tera)
			}), 422, "VALIDATION_FAILED", "invoiceLines.0.subtotal"},
			{"negative discount", "/api/v1/invoices", mod(func(d map[string]any) { d["invoiceDiscountAmount"] = -5 }), 422, "VALIDATION_FAILED", "invoiceDiscountAmount"},
			{"negative fee", "/api/v1/invoices", mod(func(d map[string]any) { d["invoiceFeeAmount"] = "-5" }), 422, "VALIDATION_FAILED", "invoiceFeeAmount"},
			{"negative prepayment", "/api/v1/invoices", mod(func(d map[string]any) { d["payment"].(map[string]any)["prepaymentAmount"] = -5 }), 422, "VALIDATION_FAILED", "payment.prepaymentAmount"},
			{"negative discount, manual amounts", "/api/v1/invoices", mod(func(d map[string]any) {
				d["autoCalculate"], d["invoiceDiscountAmount"], d["totalDiscountAmount"] = false, -5, -5
			}), 422, "VALIDATION_FAILED", "invoiceDiscountAmount"},
			{"tax type twice on a line", "/api/v1/invoices", mod(func(d map[string]any) {
				lineOf(d)["invoiceLineTaxes"] = []any{map[string]any{"taxType": "01", "taxRate": 6}, map[string]any{"taxType": "02", "taxRate": 8},
					map[string]any{"taxType": "01", "taxRate": 10}}
			}), 422, "VALIDATION_FAILED", "invoiceLines.0.invoiceLineTaxes.2.taxType"},
			{"buyerId twice", "/api/v1/invoices", `{"buyerId": "` + f.buyerID + `", "invoiceSerialNumber": "X-2", "buyerId": "` + foreignBuyer + `"}`, 400, "MALFORMED_JSON", "buyerId"},
			{"a line's key twice", "/api/v1/invoices", `{"buyerId": "` + f.buyerID + `", "invoiceLines": [{"unitCode": "H87"},
				{"unitCode": "H87", "invoiceLineTaxes": [{"taxType": "01", "taxRate": 6, "taxRate": 0}]}]}`, 400, "MALFORMED_JSON", "invoiceLines.1.invoiceLineTaxes.0.taxRate"},
			{"lone surrogate in a line", "/api/v1/invoices", `{"buyerId": "` + f.buyerID + `", "invoiceLines": [{"productDescription": "USB \ud83d cable"}]}`, 400, "MALFORMED_JSON", "invoiceLines.0.productDescription"},
		}
		before := c.do("GET", "/api/v1/invoices", nil).Raw
		for _, tc := range cases {
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
		note := mod(func(d map[string]any) {
			d["invoiceSerialNumber"] = "DUP-1"
			d["documentReferences"] = []any{map[string]any{"referenceNumber": "DUP-1", "uuid": "NA"}}
		})
		c.do("POST", "/api/v1/credit-notes", note).want(t, 201, "")
		// Money inputs also take decimal strings; quantities are echoed as given.
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
