package sandbox_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestSubmitSamples submits every official JSON sample (patched with real
// TINs, the current time and the uuid of the original for notes) and wants
// each accepted and Valid.
func TestSubmitSamples(t *testing.T) {
	t.Parallel()
	eachEngine(t, func(t *testing.T, e *env) {
		_, hs := e.server()
		c := login(t, hs.URL, "erp-1", "")
		// The buyer issues the self-billed documents.
		buyer := loginAs(t, hs.URL, "erp-buyer", buyerTIN)
		issued := e.clock.Now().Add(-time.Minute)
		for _, v := range []string{"1.0", "1.1"} {
			// Originals first, then the notes that reference them.
			orig := map[string]string{}
			for i, name := range []string{
				"Invoice", "Invoice-MultiLineItem", "Invoice-ForeignCurrency", "Invoice-Consolidated", "Self-Billed-Invoice",
				"Credit-Note", "Debit-Note", "Refund-Note", "Self-Billed-Credit", "Self-Billed-Debit", "Self-Billed-Refund",
			} {
				root := sample(t, v+"-"+name+"-Sample.json")
				code := v + "-" + name
				ref := orig["01"]
				if strings.HasPrefix(name, "Self-Billed") {
					ref = orig["11"]
				}
				d := patchSample(root, code, issued.Add(time.Duration(i)*time.Second), supplierTIN, buyerTIN, ref)
				c := c
				if strings.HasPrefix(name, "Self-Billed") {
					c = buyer
				}
				uuid := c.submitOne(d)
				if len(uuid) != 26 || strings.ToUpper(uuid) != uuid {
					t.Errorf("%s: uuid %q", code, uuid)
				}
				if got := c.status(uuid); got != "Valid" {
					t.Errorf("%s: status %s (%v), want Valid", code, got, c.failedSteps(uuid))
				}
				if name == "Invoice" {
					orig["01"] = uuid
				}
				if name == "Self-Billed-Invoice" {
					orig["11"] = uuid
				}
			}
		}
	})
}

// TestSubmitRejected covers each per-document rejection.
func TestSubmitRejected(t *testing.T) {
	t.Parallel()
	eachEngine(t, func(t *testing.T, e *env) {
		_, hs := e.server()
		c := login(t, hs.URL, "erp-1", "")
		now := e.clock.Now()
		good := invoice(invoiceOpts{code: "INV-1", issued: now})
		entry := func(d doc) map[string]string {
			var env struct{ Documents []map[string]string }
			_ = json.Unmarshal(envelope(d), &env)
			return env.Documents[0]
		}
		mutate := func(root func(inv map[string]any, top map[string]any)) doc {
			var top map[string]any
			_ = json.Unmarshal(good.body, &top)
			root(top["Invoice"].([]any)[0].(map[string]any), top)
			return docOf("INV-1", top)
		}
		big := invoice(invoiceOpts{code: "INV-1", issued: now, note: strings.Repeat("x", 301<<10)})
		for _, tc := range []struct {
			name   string
			entry  map[string]string
			detail string
			path   string
		}{
			{"bad base64", func() map[string]string { m := entry(good); m["document"] = "@@not base64@@"; return m }(), "InvalidBase64", ""},
			{"hash mismatch", func() map[string]string { m := entry(good); m["documentHash"] = strings.Repeat("ab", 32); return m }(), "DocumentHashMismatch", ""},
			{"hash upper-case is fine but wrong bytes", func() map[string]string {
				m := entry(good)
				m["documentHash"] = strings.ToUpper(entry(invoice(invoiceOpts{code: "OTHER", issued: now}))["documentHash"])
				return m
			}(), "DocumentHashMismatch", ""},
			{"over 300 KB", entry(big), "MaximumSizeExceeded", ""},
			{"XML not well-formed", func() map[string]string {
				m := entry(doc{"INV-1", []byte("<Invoice>")})
				m["format"] = "XML"
				return m
			}(), "InvalidXML", ""},
			{"not JSON", entry(doc{"INV-1", []byte(`{"_D": `)}), "InvalidJSON", ""},
			{"no codeNumber", func() map[string]string { m := entry(good); m["codeNumber"] = ""; return m }(), "CodeNumberRequired", ""},
			{"codeNumber not ID", func() map[string]string { m := entry(good); m["codeNumber"] = "INV-2"; return m }(), "CodeNumberMismatch", ""},
			{"missing ID", entry(mutate(func(inv, _ map[string]any) { delete(inv, "ID") })), "PropertyRequired", "#/Invoice[0].ID"},
			{"element not array", entry(mutate(func(inv, _ map[string]any) { inv["DocumentCurrencyCode"] = map[string]any{"_": "MYR"} })), "ArrayExpected", "#/Invoice[0].DocumentCurrencyCode"},
			{"leaf attribute not string", entry(mutate(func(inv, _ map[string]any) {
				inv["DocumentCurrencyCode"] = []any{map[string]any{"_": "MYR", "listID": 5}}
			})), "StringExpected", "#/Invoice[0].DocumentCurrencyCode[0].listID"},
			{"array item not object", entry(mutate(func(inv, _ map[string]any) { inv["Note"] = []any{"text"} })), "ObjectExpected", "#/Invoice[0].Note[0]"},
			{"no InvoiceLine", entry(mutate(func(inv, _ map[string]any) { delete(inv, "InvoiceLine") })), "PropertyRequired", "#/Invoice[0].InvoiceLine"},
			{"no listVersionID", entry(mutate(func(inv, _ map[string]any) {
				delete(inv["InvoiceTypeCode"].([]any)[0].(map[string]any), "listVersionID")
			})), "PropertyRequired", "#/Invoice[0].InvoiceTypeCode[0].listVersionID"},
			{"unknown type", entry(mutate(func(inv, _ map[string]any) { setLeaf(inv, "InvoiceTypeCode", "09") })), "InvalidValue", "#/Invoice[0].InvoiceTypeCode[0]._"},
			{"no buyer TIN", entry(mutate(func(inv, _ map[string]any) { setTIN(inv, "AccountingCustomerParty", "") })), "PropertyRequired", "#/Invoice[0].AccountingCustomerParty[0].Party[0].PartyIdentification[schemeID=TIN].ID"},
			{"no _D", entry(mutate(func(_, top map[string]any) { delete(top, "_D") })), "PropertyRequired", "#/_D"},
			{"two Invoices", entry(mutate(func(inv, top map[string]any) { top["Invoice"] = []any{inv, inv} })), "SingleItemExpected", "#/Invoice"},
			{"root not object", entry(doc{"INV-1", []byte(`[1]`)}), "ObjectExpected", "#/"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				body, _ := json.Marshal(map[string]any{"documents": []any{tc.entry}})
				r := c.do(http.MethodPost, "/api/v1.0/documentsubmissions/", body)
				var res submitResult
				if r.Status != http.StatusAccepted || json.Unmarshal(r.Body, &res) != nil {
					t.Fatalf("submit = %d %s", r.Status, r.Body)
				}
				if res.SubmissionUID != nil || len(res.Accepted) != 0 || len(res.Rejected) != 1 {
					t.Fatalf("submit = %s, want one rejection and a null submissionUid", r.Body)
				}
				rej := res.Rejected[0]
				if rej.CodeNumber != tc.entry["codeNumber"] || rej.Error.Code != "ValidationError" || len(rej.Error.Details) == 0 ||
					rej.Error.Details[0].Code != tc.detail || (tc.path != "" && rej.Error.Details[0].PropertyPath != tc.path) {
					t.Errorf("rejection = %s, want detail %s at %q", r.Body, tc.detail, tc.path)
				}
			})
		}

		// The same codeNumber twice: both copies refused, the others accepted.
		res := c.submit(good, good, invoice(invoiceOpts{code: "INV-3", issued: now}))
		if len(res.Rejected) != 2 || res.Rejected[0].Error.Details[0].Code != "DuplicateCodeNumber" ||
			len(res.Accepted) != 1 || res.Accepted[0].CodeNumber != "INV-3" || res.SubmissionUID == nil {
			t.Errorf("duplicate codeNumbers: %+v", res)
		}
	})
}

// TestSubmitOnBehalfOf checks the issuer rule: the issuer's TIN (the buyer's
// for self-billed documents) must be the logged-in taxpayer's, or the
// represented one's for an intermediary; otherwise the whole submission is
// refused, 403 IncorrectSubmitter. An intermediary logs in only for the TINs
// it represents.
func TestSubmitOnBehalfOf(t *testing.T) {
	t.Parallel()
	eachEngine(t, func(t *testing.T, e *env) {
		_, hs := e.server()
		now := e.clock.Now()
		supplier := login(t, hs.URL, "intermediary", supplierTIN+":202001234567")
		buyer := login(t, hs.URL, "intermediary", buyerTIN)
		taxpayer := loginAs(t, hs.URL, "erp-other", "C30000000010")
		for _, tc := range []struct {
			name   string
			c      *client
			d      doc
			accept bool
		}{
			{"supplier issues an invoice", supplier, invoice(invoiceOpts{code: "A1", issued: now}), true},
			{"buyer cannot issue an invoice", buyer, invoice(invoiceOpts{code: "A2", issued: now}), false},
			{"buyer issues a self-billed invoice", buyer, invoice(invoiceOpts{code: "A3", typeCode: "11", supplier: supplierTIN, buyer: buyerTIN, issued: now}), true},
			{"supplier cannot issue a self-billed invoice", supplier, invoice(invoiceOpts{code: "A4", typeCode: "11", supplier: supplierTIN, buyer: buyerTIN, issued: now}), false},
			{"a taxpayer cannot issue another's invoice", taxpayer, invoice(invoiceOpts{code: "A5", issued: now}), false},
		} {
			r := tc.c.do(http.MethodPost, "/api/v1.0/documentsubmissions/", envelope(tc.d))
			if tc.accept {
				var res submitResult
				_ = json.Unmarshal(r.Body, &res)
				if r.Status != http.StatusAccepted || len(res.Accepted) != 1 {
					t.Errorf("%s: %d %s", tc.name, r.Status, r.Body)
				}
				continue
			}
			wantIncorrectSubmitter(t, tc.name, r)
		}
		// One document of another issuer refuses the whole submission.
		r := supplier.do(http.MethodPost, "/api/v1.0/documentsubmissions/", envelope(invoice(invoiceOpts{code: "A6", issued: now}),
			invoice(invoiceOpts{code: "A7", issued: now, supplier: "C30000000010"})))
		wantIncorrectSubmitter(t, "mixed", r)
		if res := supplier.submit(invoice(invoiceOpts{code: "A6", issued: now})); len(res.Accepted) != 1 {
			t.Errorf("A6 alone: %+v", res)
		}
		// An intermediary cannot log in for a TIN it does not represent.
		form := url.Values{"client_id": {"intermediary"}, "client_secret": {"secret-intermediary"}, "grant_type": {"client_credentials"}}
		if r := newClient(t, hs.URL).loginRaw(form, "C40000000010"); r.Status != http.StatusBadRequest || r.JSON(t)["error"] != "unauthorized_client" {
			t.Errorf("intermediary for a stranger: %d %s", r.Status, r.Body)
		}
	})
}

// wantIncorrectSubmitter wants r to be the issuer rule's refusal.
func wantIncorrectSubmitter(t *testing.T, name string, r response) {
	t.Helper()
	body := r.JSON(t)
	e0, _ := body["error"].(map[string]any)
	details, _ := e0["details"].([]any)
	if r.Status != http.StatusForbidden || e0["code"] != "IncorrectSubmitter" || e0["message"] != "The authenticated TIN and documents TIN is not matching" ||
		len(details) == 0 || body["acceptedDocuments"] != nil {
		t.Errorf("%s: %d %s, want 403 IncorrectSubmitter", name, r.Status, r.Body)
	}
}

// TestSubmitEnvelope covers the whole-submission refusals.
func TestSubmitEnvelope(t *testing.T) {
	t.Parallel()
	eachEngine(t, func(t *testing.T, e *env) {
		_, hs := e.server()
		c := login(t, hs.URL, "erp-1", "")
		now := e.clock.Now()
		one := func(format string) map[string]string {
			var env struct{ Documents []map[string]string }
			_ = json.Unmarshal(envelope(invoice(invoiceOpts{code: "E-" + format, issued: now})), &env)
			env.Documents[0]["format"] = format
			return env.Documents[0]
		}
		var many []doc
		for i := range 101 {
			many = append(many, invoice(invoiceOpts{code: "M-" + strconv.Itoa(i), issued: now}))
		}
		huge, _ := json.Marshal(map[string]any{"documents": []any{map[string]string{
			"format": "JSON", "document": base64.StdEncoding.EncodeToString(bytes.Repeat([]byte(" "), 4<<20)), "documentHash": "x", "codeNumber": "H"}}})
		for _, tc := range []struct {
			name   string
			body   []byte
			status int
			code   string
		}{
			{"not JSON", []byte("nope"), 400, "BadStructure"},
			{"array", []byte("[]"), 400, "BadStructure"},
			{"no documents", []byte(`{}`), 400, "BadStructure"},
			{"empty documents", []byte(`{"documents": []}`), 400, "BadStructure"},
			{"documents not array", []byte(`{"documents": {"format": "JSON"}}`), 400, "BadStructure"},
			{"field of wrong type", []byte(`{"documents": [{"format": "JSON", "document": 5}]}`), 400, "BadStructure"},
			{"unknown format", mustJSON(map[string]any{"documents": []any{one("PDF")}}), 400, "BadStructure"},
			{"mixed formats", mustJSON(map[string]any{"documents": []any{one("JSON"), one("XML")}}), 400, "BadStructure"},
			{"101 documents", envelope(many...), 400, "MaximumSizeExceeded"},
			{"over 5 MB", huge, 400, "MaximumSizeExceeded"},
		} {
			r := c.do(http.MethodPost, "/api/v1.0/documentsubmissions/", tc.body)
			if r.Status != tc.status || r.errorCode(t) != tc.code {
				t.Errorf("%s: %d %s, want %d %s", tc.name, r.Status, r.Body, tc.status, tc.code)
			}
		}
		// Lower-case format and the path without the trailing slash work too.
		r := c.do(http.MethodPost, "/api/v1.0/documentsubmissions", mustJSON(map[string]any{"documents": []any{one("json")}}))
		if r.Status != http.StatusAccepted || !strings.Contains(string(r.Body), `"acceptedDocuments":[{`) {
			t.Errorf("lower-case json: %d %s", r.Status, r.Body)
		}
	})
}

// TestDuplicatePayload: the same body from the same client within 10
// minutes is refused with 422 and Retry-After; another client may send it.
func TestDuplicatePayload(t *testing.T) {
	t.Parallel()
	eachEngine(t, func(t *testing.T, e *env) {
		_, hs := e.server()
		c := login(t, hs.URL, "erp-1", "")
		body := envelope(invoice(invoiceOpts{code: "D-1", issued: e.clock.Now()}))
		if r := c.do(http.MethodPost, "/api/v1.0/documentsubmissions/", body); r.Status != http.StatusAccepted {
			t.Fatalf("first: %d %s", r.Status, r.Body)
		}
		e.clock.Advance(4 * time.Minute)
		r := c.do(http.MethodPost, "/api/v1.0/documentsubmissions/", body)
		if r.Status != http.StatusUnprocessableEntity || r.errorCode(t) != "DuplicateSubmission" || r.Header.Get("Retry-After") != "360" {
			t.Errorf("again after 4 minutes: %d %s Retry-After %q, want 422 DuplicateSubmission 360", r.Status, r.Body, r.Header.Get("Retry-After"))
		}
		other := login(t, hs.URL, "erp-2", "")
		if r := other.do(http.MethodPost, "/api/v1.0/documentsubmissions/", body); r.Status != http.StatusAccepted {
			t.Errorf("another client: %d %s", r.Status, r.Body)
		}
		e.clock.Advance(6 * time.Minute)
		if r := c.do(http.MethodPost, "/api/v1.0/documentsubmissions/", body); r.Status != http.StatusAccepted {
			t.Errorf("after 10 minutes: %d %s", r.Status, r.Body)
		}
	})
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}
