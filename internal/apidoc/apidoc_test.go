package apidoc

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/einvoice/einvoice/internal/ubl"
)

func load(t *testing.T) *openapi3.T {
	t.Helper()
	doc, err := openapi3.NewLoader().LoadFromData(JSON())
	if err != nil {
		t.Fatalf("load openapi.json: %v", err)
	}
	return doc
}

func TestDocumentValidates(t *testing.T) {
	doc := load(t)
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatalf("openapi.json does not validate: %v", err)
	}
	if got, want := doc.OpenAPI, "3.1.0"; got != want {
		t.Errorf("openapi = %q, want %q", got, want)
	}
	if got, want := doc.Info.Version, "1.0.0"; got != want {
		t.Errorf("info.version = %q, want %q", got, want)
	}
}

// TestOperations checks what every operation shares: /api/v1 operations
// need the bearer key and document 401, 429 and 500, the operational
// endpoints need no key, every operation documents 431 (oversized headers
// are refused before routing), every response carries X-Request-Id, and
// each operation has one success response.
func TestOperations(t *testing.T) {
	doc := load(t)
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			security := doc.Security
			if op.Security != nil {
				security = *op.Security
			}
			api := strings.HasPrefix(path, "/api/v1/")
			if api && len(security) == 0 {
				t.Errorf("%s %s: no security requirement", method, path)
			}
			if !api && len(security) != 0 {
				t.Errorf("%s %s: security %v, want none", method, path, security)
			}
			for code, want := range map[string]bool{"401": api, "429": api, "500": api, "431": true} {
				if got := op.Responses.Value(code) != nil; got != want {
					t.Errorf("%s %s: response %s documented = %v, want %v", method, path, code, got, want)
				}
			}
			successes := 0
			for code, resp := range op.Responses.Map() {
				if resp.Value.Headers["X-Request-Id"] == nil {
					t.Errorf("%s %s: response %s does not declare X-Request-Id", method, path, code)
				}
				if len(resp.Value.Content) == 0 {
					t.Errorf("%s %s: response %s has no content", method, path, code)
				}
				if strings.HasPrefix(code, "2") {
					successes++
				}
			}
			// One success answer each; submit has two: 200 (accepted) and
			// 202 (recorded, the outcome awaits the worker).
			want := 1
			if op.OperationID == "submitDocument" {
				want = 2
			}
			if successes != want {
				t.Errorf("%s %s: %d success responses, want %d", method, path, successes, want)
			}
		}
	}
}

func TestHTML(t *testing.T) {
	page := string(HTML())
	if !strings.HasPrefix(page, "<!DOCTYPE html>") || strings.Contains(page, "cannot be rendered") {
		t.Fatalf("HTML() is not the rendered page: %.300s", page)
	}
	for _, external := range []string{"<script", "<link", " src=", "url(", "@import"} {
		if strings.Contains(page, external) {
			t.Errorf("HTML() contains %q: the page must be self-contained", external)
		}
	}
	doc := load(t)
	for _, path := range doc.Paths.InMatchingOrder() {
		if !strings.Contains(page, ">"+path+"<") {
			t.Errorf("HTML() does not mention path %s", path)
		}
	}
	for name := range doc.Components.Schemas {
		if !strings.Contains(page, `id="schema-`+name+`"`) {
			t.Errorf("HTML() has no section for schema %s", name)
		}
	}
	for _, want := range []string{`<a href="#schema-BuyerInput">BuyerInput</a>`, "at most 300 characters", "Bearer eik_"} {
		if !strings.Contains(page, want) {
			t.Errorf("HTML() does not contain %q", want)
		}
	}
	if first, second := HTML(), HTML(); &first[0] != &second[0] {
		t.Error("HTML() is rendered again on each call, want it cached")
	}
}

// sampleDocument is a Document as the server renders it: a foreign-currency
// invoice computed with autoCalculate, with its MYR tax amounts.
const sampleDocument = `{
  "id": "01a2013d-0372-7941-b300-de468057d5a8", "type": "invoice", "typeCode": "01", "status": "draft",
  "buyerId": "01a2013d-0366-734f-b19e-41d1c13669ab", "invoiceSerialNumber": "INV-1",
  "currencyCode": "USD", "exchangeRate": 4.7, "autoCalculate": true, "erpIssuedAt": "2026-01-02T10:00:00+08:00",
  "invoiceDiscountAmount": "1.50", "invoiceDiscountDescription": "", "invoiceFeeAmount": null, "invoiceFeeDescription": "",
  "invoiceLines": [{"classifications": ["001"], "productDescription": "x", "quantity": 2.5, "unitCode": "H87",
    "unitPrice": 1e1, "discountRate": 10, "discountDescription": "", "feeOrChargeRate": null, "feeOrChargeDescription": "",
    "invoiceLineTaxes": [{"taxType": "03", "taxRate": 10, "exemptionReason": "", "taxAmount": "25.00", "taxAmountMyr": "117.50"}],
    "subtotal": "25.00", "discountAmount": "2.50", "feeOrChargeAmount": "0.00", "totalExcludingTax": "22.50",
    "taxAmount": "25.00", "totalIncludingTax": "47.50", "taxAmountMyr": "117.50"}],
  "payment": {"paymentMode": "01", "paymentTerms": "", "supplierBankAccountNumber": "", "prepaymentAmount": null,
    "prepaymentDate": "", "prepaymentReferenceNumber": ""},
  "delivery": {"recipientName": "r", "recipientTin": "", "recipientIdType": "", "recipientIdValue": "", "recipientAddress": null},
  "invoicePeriod": null, "documentReferences": null, "isPreEinvoicing": false,
  "subtotal": "22.50", "totalDiscountAmount": "1.50", "totalFeeAmount": "0.00", "totalExcludingTax": "21.00",
  "totalTaxAmount": "25.00", "totalIncludingTax": "46.00", "prepaymentAmount": "0.00", "roundingAmount": "0.00",
  "totalPayableAmount": "46.00",
  "taxSubtotals": [{"taxType": "03", "taxRate": 10, "taxableAmount": "22.50", "taxAmount": "25.00", "taxAmountMyr": "117.50"}],
  "totalTaxAmountMyr": "117.50",
  "createdAt": "2026-11-22T03:11:45.516182Z", "updatedAt": "2026-11-22T03:11:45.516182Z",
  "history": [{"status": "draft", "keyId": "", "note": "created", "at": "2026-11-22T03:11:45.516182Z"}]
}`

// TestDocumentSchemas pins the choices of the document contract: history
// only in single-document responses, the MYR amounts and the parties' ids
// as optional keys (never null), money as two-decimal strings.
func TestDocumentSchemas(t *testing.T) {
	doc := load(t)
	schema := func(name string) *openapi3.Schema { return doc.Components.Schemas[name].Value }
	check := func(name string, edit func(d map[string]any), wrap func(d map[string]any) any, wantOK bool) {
		t.Helper()
		var d map[string]any
		if err := json.Unmarshal([]byte(sampleDocument), &d); err != nil {
			t.Fatal(err)
		}
		edit(d)
		v := wrap(d)
		// Round-trip so that the value has the types encoding/json gives.
		b, _ := json.Marshal(v)
		var value any
		_ = json.Unmarshal(b, &value)
		err := schema(name).VisitJSON(value, openapi3.EnableJSONSchema2020(), openapi3.VisitAsResponse())
		if (err == nil) != wantOK {
			t.Errorf("%s: valid = %v, want %v: %v", name, err == nil, wantOK, err)
		}
	}
	one := func(d map[string]any) any { return map[string]any{"success": true, "data": d} }
	list := func(d map[string]any) any {
		return map[string]any{"success": true, "data": []any{d},
			"meta": map[string]any{"page": 1, "per_page": 15, "total": 1, "last_page": 1}}
	}
	same := func(map[string]any) {}
	lines := func(d map[string]any) map[string]any { return d["invoiceLines"].([]any)[0].(map[string]any) }
	noMyr := func(d map[string]any) {
		delete(d, "totalTaxAmountMyr")
		delete(lines(d), "taxAmountMyr")
		delete(lines(d)["invoiceLineTaxes"].([]any)[0].(map[string]any), "taxAmountMyr")
		delete(d["taxSubtotals"].([]any)[0].(map[string]any), "taxAmountMyr")
	}

	check("DocumentResponse", same, one, true)
	check("DocumentList", same, list, true)
	check("DocumentResponse", func(d map[string]any) { delete(d, "history") }, one, false)
	check("DocumentList", func(d map[string]any) { delete(d, "history") }, list, true)
	check("DocumentResponse", noMyr, one, true)
	check("DocumentResponse", func(d map[string]any) { d["totalTaxAmountMyr"] = nil }, one, false)
	check("DocumentResponse", func(d map[string]any) { lines(d)["taxAmountMyr"] = nil }, one, false)
	check("DocumentResponse", func(d map[string]any) { delete(d, "buyerId") }, one, true)
	check("DocumentResponse", func(d map[string]any) { d["buyerId"] = "" }, one, false)
	check("DocumentResponse", func(d map[string]any) { d["subtotal"] = nil; d["payment"] = nil; d["invoiceLines"] = nil }, one, true)
	check("DocumentResponse", func(d map[string]any) { d["subtotal"] = "22.5" }, one, false)
	check("DocumentResponse", func(d map[string]any) { d["subtotal"] = 22.5 }, one, false)
	check("DocumentResponse", func(d map[string]any) { delete(d, "roundingAmount") }, one, false)
	check("DocumentResponse", func(d map[string]any) { d["status"] = "Draft" }, one, false)
	check("DocumentResponse", func(d map[string]any) { lines(d)["quantity"] = "2.5" }, one, false)
	check("DocumentResponse", func(d map[string]any) { lines(d)["extra"] = 1 }, one, false)
}

// TestInputsTakeResponsesBack: every property of a resource's response
// schema, at every depth, is a property of its input schema (DECISIONS 1 and
// 12: whatever a GET returns, a PUT takes back), whose input schemas refuse
// other properties.
func TestInputsTakeResponsesBack(t *testing.T) {
	doc := load(t)
	schemas := doc.Components.Schemas
	var check func(out, in string)
	check = func(out, in string) {
		o, i := schemas[out].Value, schemas[in].Value
		for name, prop := range o.Properties {
			inProp := i.Properties[name]
			if inProp == nil {
				t.Errorf("%s.%s is not a property of %s: a PUT of what a GET returns would be refused", out, name, in)
				continue
			}
			// Nested objects of the response and their inputs: the same check.
			for _, pair := range []struct{ out, in *openapi3.SchemaRef }{{prop, inProp}, {items(prop), items(inProp)}} {
				if pair.out != nil && pair.in != nil && pair.out.Ref != "" && pair.in.Ref != "" && pair.out.Ref != pair.in.Ref {
					check(strings.TrimPrefix(pair.out.Ref, "#/components/schemas/"), strings.TrimPrefix(pair.in.Ref, "#/components/schemas/"))
				}
			}
		}
	}
	for out, in := range map[string]string{"Buyer": "BuyerInput", "OnBehalfSeller": "OnBehalfSellerInput",
		"Profile": "ProfileInput", "Document": "DocumentInput"} {
		check(out, in)
	}
}

// items is the item schema of an array schema, or nil.
func items(s *openapi3.SchemaRef) *openapi3.SchemaRef {
	if s == nil || s.Value == nil {
		return nil
	}
	return s.Value.Items
}

// TestCodeMappingDocumented: the API reference lists every row of the UBL
// writer's code table.
func TestCodeMappingDocumented(t *testing.T) {
	doc := load(t)
	var text string
	for _, tag := range doc.Tags {
		if tag.Name == "Authority" {
			text = tag.Description
		}
	}
	for _, m := range ubl.Mapping() {
		row := fmt.Sprintf("| %s | %s | %s | %s %s |", m.List, m.Ours, m.OursName, m.Authority, m.AuthorityName)
		if !strings.Contains(text, row) {
			t.Errorf("the Authority tag's table lacks %q", row)
		}
	}
}
