package documents

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/einvoice/einvoice/internal/e2e/e2etest"

	"github.com/einvoice/einvoice/client"
)

// The limits of DECISIONS section 6 as JSON numbers.
const (
	tera    = "1000000000000" // 10^12, the largest magnitude of any amount
	teraStr = tera + ".00"
)

// bigLine is a line of quantity x unitPrice with one tax entry.
func bigLine(qty, price, taxType, rate string) map[string]any {
	return map[string]any{
		"classifications": []string{"001"}, "productDescription": "Widget", "unitCode": "H87",
		"quantity": e2etest.JSONNumber(qty), "unitPrice": e2etest.JSONNumber(price),
		"invoiceLineTaxes": []any{map[string]any{"taxType": taxType, "taxRate": e2etest.JSONNumber(rate)}},
	}
}

// bigDocLine is bigLine for the typed client.
func bigDocLine(qty, price, taxType, rate string) client.Line {
	return client.Line{Classifications: []string{"001"}, ProductDescription: "Widget", UnitCode: "H87",
		Quantity: client.Decimal(qty), UnitPrice: client.Decimal(price),
		Taxes: []client.LineTax{{TaxType: taxType, TaxRate: client.Decimal(rate)}}}
}

// refusedAmountCase is a document with amounts DECISIONS 12 refuses, and
// every field at fault. doc is sent through the typed client; body, when
// set instead, is written out (money as a decimal string).
type refusedAmountCase struct {
	name   string
	doc    *client.Document
	body   map[string]any
	fields []string
}

// refusedAmountCases are the documents with the amounts DECISIONS 12
// refuses: computed amounts beyond 10^12, a negative discount, fee or
// prepayment, a tax type twice on a line.
func refusedAmountCases(f *e2etest.DocFixture) []refusedAmountCase {
	thousand := make([]client.Line, 1000)
	for i := range thousand {
		thousand[i] = bigDocLine("1", tera, "06", "0")
	}
	usd := f.Doc("BIG-USD", bigDocLine("1", "1000000000", "02", "100"))
	usd.CurrencyCode, usd.ExchangeRate = "USD", "1000000"
	prepaid := f.Doc("BIG-NEG", bigDocLine("1", "1", "06", "0"))
	prepaid.InvoiceDiscountAmount = tera
	prepaid.Payment.PrepaymentAmount = tera
	// The fee as a decimal string, the discount and prepayment as numbers.
	negative := f.Invoice("NEG-1", e2etest.Line("1", "01", 6))
	negative["invoiceDiscountAmount"], negative["invoiceFeeAmount"] = e2etest.JSONNumber("-5"), "-0.01"
	negative["payment"].(map[string]any)["prepaymentAmount"] = e2etest.JSONNumber("-5")
	twice := f.Doc("TWICE-1", e2etest.DocLine("1", "01", "6"))
	twice.Lines[0].Taxes = []client.LineTax{{TaxType: "01", TaxRate: "6"}, {TaxType: "01", TaxRate: "6"}}
	return []refusedAmountCase{
		// The hostile run's document: each input at the limit, the product 10^24.
		{"quantity x price", f.Doc("BIG-1", bigDocLine(tera, tera, "06", "0")), nil, []string{
			"invoiceLines.0.subtotal", "invoiceLines.0.totalExcludingTax", "invoiceLines.0.totalIncludingTax",
			"subtotal", "totalExcludingTax", "totalIncludingTax", "totalPayableAmount", "taxSubtotals.0.taxableAmount"}},
		// Each line at the limit, their sum 10^15.
		{"1,000 lines of 10^12", f.Doc("BIG-2", thousand...), nil, []string{
			"subtotal", "totalExcludingTax", "totalIncludingTax", "totalPayableAmount", "taxSubtotals.0.taxableAmount"}},
		// Tourism tax is per unit, not bounded by 100: 10^6 units x 10^7.
		{"tourism tax", f.Doc("BIG-3", bigDocLine("1000000", "1", "03", "10000000")), nil, []string{
			"invoiceLines.0.invoiceLineTaxes.0.taxAmount", "invoiceLines.0.taxAmount", "invoiceLines.0.totalIncludingTax",
			"totalTaxAmount", "totalIncludingTax", "totalPayableAmount", "taxSubtotals.0.taxAmount"}},
		// A tax of 10^9 USD at 10^6 MYR per USD.
		{"exchange rate", usd, nil, []string{
			"invoiceLines.0.invoiceLineTaxes.0.taxAmountMyr", "invoiceLines.0.taxAmountMyr", "totalTaxAmountMyr",
			"taxSubtotals.0.taxAmountMyr"}},
		// Negative totals are allowed, their magnitude is bounded: 1 - 10^12 - 10^12.
		{"negative payable", prepaid, nil, []string{"totalPayableAmount"}},
		{"negative discount, fee and prepayment", nil, negative, []string{"invoiceDiscountAmount", "invoiceFeeAmount", "payment.prepaymentAmount"}},
		{"tax type twice on a line", twice, nil, []string{"invoiceLines.0.invoiceLineTaxes.1.taxType"}},
	}
}

// TestDocumentAmountLimits (DECISIONS 12): a create or PUT whose computed
// amounts would pass 10^12, or with a negative discount, fee or prepayment,
// or a tax type twice on a line, is a 422 naming every field at fault, and
// changes nothing; amounts at the limit are fine.
func TestDocumentAmountLimits(t *testing.T) {
	t.Parallel()
	e2etest.EachEngine(t, func(t *testing.T, dsn string) {
		f := newDocFixture(t, dsn)
		ctx := t.Context()
		c, api := f.C, f.API
		existing, err := api.Documents.Create(ctx, f.Doc("KEEP-1", e2etest.DocLine("1", "01", "6")))
		id := e2etest.Must(t, existing, err).ID
		before := c.Do("GET", "/api/v1/invoices", nil).Want(t, 200, "").Raw
		for _, tc := range refusedAmountCases(f) {
			t.Run(tc.name, func(t *testing.T) {
				cc := *c
				cc.T = t
				for _, method := range []string{"POST", "PUT"} {
					var got []string
					var answer []byte
					if tc.doc != nil {
						var err error
						if method == "POST" {
							_, err = api.Documents.Create(ctx, tc.doc)
						} else {
							_, err = api.Documents.Update(ctx, id, tc.doc)
						}
						e := e2etest.WantErr(t, err, 422, client.CodeValidationFailed)
						got, answer = slices.Sorted(maps.Keys(e.Fields)), e.Body
					} else {
						path := map[string]string{"POST": "/api/v1/invoices", "PUT": "/api/v1/invoices/" + id}[method]
						r := cc.Do(method, path, tc.body).Want(t, 422, "VALIDATION_FAILED")
						got, answer = slices.Sorted(maps.Keys(r.FieldErrors())), r.Raw
					}
					want := slices.Sorted(slices.Values(tc.fields))
					if !slices.Equal(got, want) {
						t.Errorf("%s: errors name %v, want %v: %s", method, got, want, answer)
					}
				}
			})
		}
		if after := c.Do("GET", "/api/v1/invoices", nil).Want(t, 200, "").Raw; string(after) != string(before) {
			t.Errorf("refused requests changed the documents:\nbefore %s\nafter  %s", before, after)
		}

		// At the limit: 10^12 exactly, every amount; the document reads, lists,
		// renders and validates.
		atLimit := f.Doc("LIMIT-1", bigDocLine("1", tera, "06", "0"))
		atLimit.InvoiceFeeAmount = "0"
		d, err := api.Documents.Create(ctx, atLimit)
		if e2etest.Must(t, d, err); d.TotalPayableAmount != teraStr || d.Subtotal != teraStr {
			t.Errorf("at the limit: payable %v subtotal %v, want %s", d.TotalPayableAmount, d.Subtotal, teraStr)
		}
		limitID := d.ID
		got, err := api.Documents.Get(ctx, limitID)
		e2etest.Must(t, got, err)
		page, err := api.Documents.List(ctx, nil)
		e2etest.Must(t, page, err)
		ubl, err := api.Documents.UBL(ctx, limitID)
		e2etest.Must(t, ubl, err)
		pdf, err := api.Documents.PDF(ctx, limitID)
		e2etest.Must(t, pdf, err)
		v, err := api.Documents.Validate(ctx, limitID)
		e2etest.Must(t, v, err)
	})
}

// TestDocumentExtremeManualAmounts: an autoCalculate false document whose
// every input and amount is at the limits is stored as given; everything
// derived from it (validate's recomputation of 10^24, the UBL, the PDF, the
// list) answers without a 500, and PUT takes back what GET gave. The body is
// written out (its amounts as decimal strings), and so is the PUT of the
// GET's JSON; the typed client's GET and PUT of the same document follow.
func TestDocumentExtremeManualAmounts(t *testing.T) {
	t.Parallel()
	e2etest.EachEngine(t, func(t *testing.T, dsn string) {
		f := newDocFixture(t, dsn)
		ctx := t.Context()
		c, api := f.C, f.API
		l := bigLine(tera, tera, "03", tera)
		tax := l["invoiceLineTaxes"].([]any)[0].(map[string]any)
		tax["taxAmount"], tax["taxAmountMyr"] = tera, "-"+tera
		for _, k := range []string{"subtotal", "discountAmount", "feeOrChargeAmount", "totalExcludingTax", "taxAmount", "totalIncludingTax", "taxAmountMyr"} {
			l[k] = tera
		}
		l["discountRate"], l["feeOrChargeRate"] = e2etest.JSONNumber("100"), e2etest.JSONNumber("100")
		body := f.Invoice("MANUAL-1", l, l, l)
		body["autoCalculate"], body["currencyCode"], body["exchangeRate"] = false, "USD", e2etest.JSONNumber(tera)
		body["invoiceDiscountAmount"], body["invoiceFeeAmount"] = tera, tera
		body["payment"].(map[string]any)["prepaymentAmount"] = tera
		for _, k := range []string{"subtotal", "totalDiscountAmount", "totalFeeAmount", "totalExcludingTax", "totalTaxAmount",
			"totalIncludingTax", "prepaymentAmount", "roundingAmount", "totalTaxAmountMyr"} {
			body[k] = tera
		}
		body["totalPayableAmount"] = "-" + tera
		body["taxSubtotals"] = []any{map[string]any{"taxType": "03", "taxRate": e2etest.JSONNumber(tera), "taxableAmount": tera, "taxAmount": tera, "taxAmountMyr": tera}}
		d := c.Do("POST", "/api/v1/invoices", body).Want(t, 201, "").Data()
		id := e2etest.Str(d["id"])
		if d["subtotal"] != teraStr || d["totalPayableAmount"] != "-"+teraStr {
			t.Errorf("stored amounts: subtotal %v payable %v", d["subtotal"], d["totalPayableAmount"])
		}
		if page, err := api.Documents.List(ctx, nil); len(e2etest.Must(t, page, err).Items) != 1 {
			t.Errorf("the list has %d documents, want 1", len(page.Items))
		}
		ubl, err := api.Documents.UBL(ctx, id)
		e2etest.Must(t, ubl, err)
		pdf, err := api.Documents.PDF(ctx, id)
		e2etest.Must(t, pdf, err)
		v, err := api.Documents.Validate(ctx, id)
		if errs, _ := json.Marshal(e2etest.Must(t, v, err).Errors); v.ValidationPassed || !strings.Contains(string(errs), "1000000000000000000000000.00") {
			t.Errorf("validate does not report the recomputed 10^24 subtotal: %v", v.Errors)
		}
		got := c.Do("GET", "/api/v1/invoices/"+id, nil).Want(t, 200, "").Data()
		c.Do("PUT", "/api/v1/invoices/"+id, got).Want(t, 200, "")
		typed, err := api.Documents.Get(ctx, id)
		again, err := api.Documents.Update(ctx, id, e2etest.Must(t, typed, err))
		if e2etest.Must(t, again, err); again.Subtotal != teraStr || again.TotalPayableAmount != "-"+teraStr {
			t.Errorf("typed PUT of the GET: subtotal %v payable %v", again.Subtotal, again.TotalPayableAmount)
		}
	})
}

// TestDocumentAtLimitSubmitted: a document whose amounts are at 10^12 goes
// through validation, the UBL, the signature and the authority to Valid.
func TestDocumentAtLimitSubmitted(t *testing.T) {
	t.Parallel()
	e2etest.EachEngine(t, func(t *testing.T, dsn string) {
		svc, _ := e2etest.StartLifecycleService(t, dsn)
		ctx := t.Context()
		api := svc.API(t, svc.DemoKey)
		buyer, err := api.Buyers.Create(ctx, e2etest.TypedBody[client.Party](t, e2etest.SampleBuyer()))
		e2etest.Must(t, buyer, err)
		body := e2etest.TypedBody[client.Document](t, e2etest.SingleLineBody("LIMIT-SUBMIT-1"))
		body.BuyerID = buyer.ID
		body.Lines = []client.Line{bigDocLine("1", "999999999999", "06", "0"), bigDocLine("1", "1", "06", "0")}
		body.InvoiceDiscountAmount, body.InvoiceFeeAmount = "2", "2"
		d, err := api.Documents.Create(ctx, body)
		if e2etest.Must(t, d, err).TotalIncludingTax != teraStr {
			t.Fatalf("totalIncludingTax = %v, want %s", d.TotalIncludingTax, teraStr)
		}
		e2etest.WantValidationPassed(t, api, "at the limit", d.ID)
		e2etest.TypedSubmit(t, api, d.ID)
		e2etest.WaitStatusTyped(t, api, d.ID, client.StatusValid, 30*time.Second)
	})
}
