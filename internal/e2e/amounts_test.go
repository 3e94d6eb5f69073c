package e2e

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"
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
		"quantity": jsonNumber(qty), "unitPrice": jsonNumber(price),
		"invoiceLineTaxes": []any{map[string]any{"taxType": taxType, "taxRate": jsonNumber(rate)}},
	}
}

// refusedAmountCases are bodies with the amounts DECISIONS 12 refuses, each
// with every field at fault: computed amounts beyond 10^12, a negative
// discount, fee or prepayment, a tax type twice on a line.
func refusedAmountCases(f *docFixture) []struct {
	name   string
	body   map[string]any
	fields []string
} {
	thousand := make([]map[string]any, 1000)
	for i := range thousand {
		thousand[i] = bigLine("1", tera, "06", "0")
	}
	usd := f.invoice("BIG-USD", bigLine("1", "1000000000", "02", "100"))
	usd["currencyCode"], usd["exchangeRate"] = "USD", jsonNumber("1000000")
	prepaid := f.invoice("BIG-NEG", bigLine("1", "1", "06", "0"))
	prepaid["invoiceDiscountAmount"] = jsonNumber(tera)
	prepaid["payment"].(map[string]any)["prepaymentAmount"] = jsonNumber(tera)
	negative := f.invoice("NEG-1", line("1", "01", 6))
	negative["invoiceDiscountAmount"], negative["invoiceFeeAmount"] = jsonNumber("-5"), "-0.01"
	negative["payment"].(map[string]any)["prepaymentAmount"] = jsonNumber("-5")
	twice := f.invoice("TWICE-1", line("1", "01", 6))
	twice["invoiceLines"].([]any)[0].(map[string]any)["invoiceLineTaxes"] = []any{
		map[string]any{"taxType": "01", "taxRate": 6}, map[string]any{"taxType": "01", "taxRate": 6}}
	return []struct {
		name   string
		body   map[string]any
		fields []string
	}{
		// The hostile run's document: each input at the limit, the product 10^24.
		{"quantity x price", f.invoice("BIG-1", bigLine(tera, tera, "06", "0")), []string{
			"invoiceLines.0.subtotal", "invoiceLines.0.totalExcludingTax", "invoiceLines.0.totalIncludingTax",
			"subtotal", "totalExcludingTax", "totalIncludingTax", "totalPayableAmount", "taxSubtotals.0.taxableAmount"}},
		// Each line at the limit, their sum 10^15.
		{"1,000 lines of 10^12", f.invoice("BIG-2", thousand...), []string{
			"subtotal", "totalExcludingTax", "totalIncludingTax", "totalPayableAmount", "taxSubtotals.0.taxableAmount"}},
		// Tourism tax is per unit, not bounded by 100: 10^6 units x 10^7.
		{"tourism tax", f.invoice("BIG-3", bigLine("1000000", "1", "03", "10000000")), []string{
			"invoiceLines.0.invoiceLineTaxes.0.taxAmount", "invoiceLines.0.taxAmount", "invoiceLines.0.totalIncludingTax",
			"totalTaxAmount", "totalIncludingTax", "totalPayableAmount", "taxSubtotals.0.taxAmount"}},
		// A tax of 10^9 USD at 10^6 MYR per USD.
		{"exchange rate", usd, []string{
			"invoiceLines.0.invoiceLineTaxes.0.taxAmountMyr", "invoiceLines.0.taxAmountMyr", "totalTaxAmountMyr",
			"taxSubtotals.0.taxAmountMyr"}},
		// Negative totals are allowed, their magnitude is bounded: 1 - 10^12 - 10^12.
		{"negative payable", prepaid, []string{"totalPayableAmount"}},
		{"negative discount, fee and prepayment", negative, []string{"invoiceDiscountAmount", "invoiceFeeAmount", "payment.prepaymentAmount"}},
		{"tax type twice on a line", twice, []string{"invoiceLines.0.invoiceLineTaxes.1.taxType"}},
	}
}

// TestDocumentAmountLimits (DECISIONS 12): a create or PUT whose computed
// amounts would pass 10^12, or with a negative discount, fee or prepayment,
// or a tax type twice on a line, is a 422 naming every field at fault, and
// changes nothing; amounts at the limit are fine.
func TestDocumentAmountLimits(t *testing.T) {
	eachEngine(t, func(t *testing.T, dsn string) {
		f := newDocFixture(t, dsn)
		c := f.c
		existing := c.do("POST", "/api/v1/invoices", f.invoice("KEEP-1", line("1", "01", 6))).want(t, 201, "").data()
		id := str(existing["id"])
		before := c.do("GET", "/api/v1/invoices", nil).want(t, 200, "").Raw
		for _, tc := range refusedAmountCases(f) {
			t.Run(tc.name, func(t *testing.T) {
				cc := *c
				cc.t = t
				for _, rq := range []struct{ method, path string }{{"POST", "/api/v1/invoices"}, {"PUT", "/api/v1/invoices/" + id}} {
					r := cc.do(rq.method, rq.path, tc.body).want(t, 422, "VALIDATION_FAILED")
					var got []string
					for k := range r.fieldErrors() {
						got = append(got, k)
					}
					slices.Sort(got)
					want := slices.Sorted(slices.Values(tc.fields))
					if !slices.Equal(got, want) {
						t.Errorf("%s: errors name %v, want %v: %s", rq.method, got, want, r.Raw)
					}
				}
			})
		}
		if after := c.do("GET", "/api/v1/invoices", nil).want(t, 200, "").Raw; string(after) != string(before) {
			t.Errorf("refused requests changed the documents:\nbefore %s\nafter  %s", before, after)
		}

		// At the limit: 10^12 exactly, every amount; the document reads, lists,
		// renders and validates.
		atLimit := f.invoice("LIMIT-1", bigLine("1", tera, "06", "0"))
		atLimit["invoiceFeeAmount"] = jsonNumber("0")
		d := c.do("POST", "/api/v1/invoices", atLimit).want(t, 201, "").data()
		if d["totalPayableAmount"] != teraStr || d["subtotal"] != teraStr {
			t.Errorf("at the limit: payable %v subtotal %v, want %s", d["totalPayableAmount"], d["subtotal"], teraStr)
		}
		limitID := str(d["id"])
		c.do("GET", "/api/v1/invoices/"+limitID, nil).want(t, 200, "")
		c.do("GET", "/api/v1/invoices", nil).want(t, 200, "")
		c.do("GET", "/api/v1/documents/"+limitID+"/ubl", nil).want(t, 200, "")
		c.do("GET", "/api/v1/documents/"+limitID+"/pdf", nil, "Accept", "application/pdf").want(t, 200, "")
		c.do("POST", "/api/v1/documents/"+limitID+"/validate", nil).want(t, 200, "")
	})
}

// TestDocumentExtremeManualAmounts: an autoCalculate false document whose
// every input and amount is at the limits is stored as given; everything
// derived from it (validate's recomputation of 10^24, the UBL, the PDF, the
// list) answers without a 500, and PUT takes back what GET gave.
func TestDocumentExtremeManualAmounts(t *testing.T) {
	eachEngine(t, func(t *testing.T, dsn string) {
		f := newDocFixture(t, dsn)
		c := f.c
		l := bigLine(tera, tera, "03", tera)
		tax := l["invoiceLineTaxes"].([]any)[0].(map[string]any)
		tax["taxAmount"], tax["taxAmountMyr"] = tera, "-"+tera
		for _, k := range []string{"subtotal", "discountAmount", "feeOrChargeAmount", "totalExcludingTax", "taxAmount", "totalIncludingTax", "taxAmountMyr"} {
			l[k] = tera
		}
		l["discountRate"], l["feeOrChargeRate"] = jsonNumber("100"), jsonNumber("100")
		body := f.invoice("MANUAL-1", l, l, l)
		body["autoCalculate"], body["currencyCode"], body["exchangeRate"] = false, "USD", jsonNumber(tera)
		body["invoiceDiscountAmount"], body["invoiceFeeAmount"] = tera, tera
		body["payment"].(map[string]any)["prepaymentAmount"] = tera
		for _, k := range []string{"subtotal", "totalDiscountAmount", "totalFeeAmount", "totalExcludingTax", "totalTaxAmount",
			"totalIncludingTax", "prepaymentAmount", "roundingAmount", "totalTaxAmountMyr"} {
			body[k] = tera
		}
		body["totalPayableAmount"] = "-" + tera
		body["taxSubtotals"] = []any{map[string]any{"taxType": "03", "taxRate": jsonNumber(tera), "taxableAmount": tera, "taxAmount": tera, "taxAmountMyr": tera}}
		d := c.do("POST", "/api/v1/invoices", body).want(t, 201, "").data()
		id := str(d["id"])
		if d["subtotal"] != teraStr || d["totalPayableAmount"] != "-"+teraStr {
			t.Errorf("stored amounts: subtotal %v payable %v", d["subtotal"], d["totalPayableAmount"])
		}
		if n := len(c.do("GET", "/api/v1/invoices", nil).want(t, 200, "").Body["data"].([]any)); n != 1 {
			t.Errorf("the list has %d documents, want 1", n)
		}
		c.do("GET", "/api/v1/documents/"+id+"/ubl", nil).want(t, 200, "")
		c.do("GET", "/api/v1/documents/"+id+"/pdf", nil, "Accept", "application/pdf").want(t, 200, "")
		v := c.do("POST", "/api/v1/documents/"+id+"/validate", nil).want(t, 200, "").data()
		if errs, _ := json.Marshal(v["errors"]); v["validation_passed"] != false || !strings.Contains(string(errs), "1000000000000000000000000.00") {
			t.Errorf("validate does not report the recomputed 10^24 subtotal: %v", v["errors"])
		}
		got := c.do("GET", "/api/v1/invoices/"+id, nil).want(t, 200, "").data()
		c.do("PUT", "/api/v1/invoices/"+id, got).want(t, 200, "")
	})
}

// TestDocumentAtLimitSubmitted: a document whose amounts are at 10^12 goes
// through validation, the UBL, the signature and the authority to Valid.
func TestDocumentAtLimitSubmitted(t *testing.T) {
	eachEngine(t, func(t *testing.T, dsn string) {
		_, c := startLifecycleService(t, dsn)
		buyer := str(c.do("POST", "/api/v1/buyers", sampleBuyer()).want(t, 201, "").data()["id"])
		body := singleLineBody("LIMIT-SUBMIT-1")
		body["buyerId"] = buyer
		body["invoiceLines"] = []any{bigLine("1", "999999999999", "06", "0"), bigLine("1", "1", "06", "0")}
		body["invoiceDiscountAmount"], body["invoiceFeeAmount"] = jsonNumber("2"), jsonNumber("2")
		d := c.do("POST", "/api/v1/invoices", body).want(t, 201, "").data()
		if d["totalIncludingTax"] != teraStr {
			t.Fatalf("totalIncludingTax = %v, want %s", d["totalIncludingTax"], teraStr)
		}
		id := str(d["id"])
		c.wantPassed("at the limit", id)
		c.do("POST", "/api/v1/documents/"+id+"/submit", nil).want(t, 200, "")
		c.waitStatus(id, "Valid", 30*time.Second)
	})
}
