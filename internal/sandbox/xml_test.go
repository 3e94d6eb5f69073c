package sandbox_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/einvoice/einvoice/internal/dsig"
	"github.com/einvoice/einvoice/internal/sandbox"
)

// xmlEnvelope is a submission body built as reference 1.5 writes it: each
// document base64 of its exact bytes, documentHash the lower-case hex
// SHA-256 of the same bytes, in the given format.
func xmlEnvelope(format string, docs ...doc) []byte {
	var list []map[string]string
	for _, d := range docs {
		h := sha256.Sum256(d.body)
		list = append(list, map[string]string{"format": format, "document": base64.StdEncoding.EncodeToString(d.body),
			"documentHash": hex.EncodeToString(h[:]), "codeNumber": d.code})
	}
	b, _ := json.Marshal(map[string]any{"documents": list})
	return b
}

// submitXML posts XML documents as one submission and wants a 202.
func (c *client) submitXML(docs ...doc) submitResult {
	c.t.Helper()
	r := c.do(http.MethodPost, "/api/v1.0/documentsubmissions/", xmlEnvelope("XML", docs...))
	if r.Status != http.StatusAccepted {
		c.t.Fatalf("submit XML: %d %s", r.Status, r.Body)
	}
	var res submitResult
	if err := json.Unmarshal(r.Body, &res); err != nil {
		c.t.Fatal(err)
	}
	return res
}

// xmlSample reads an official XML sample, skipping when absent.
func xmlSample(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(samplesDir, name))
	if os.IsNotExist(err) {
		t.Skipf("official samples not found in %s", samplesDir)
	}
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// patchXML rewrites the text of the elements for which set returns a new
// value (given the local names from the root down, and the element's
// attributes), byte for byte, leaving the rest of the document as it is.
func patchXML(t *testing.T, raw []byte, set func(path []string, attrs []xml.Attr) (string, bool)) []byte {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(raw))
	type edit struct {
		start, end int64
		text       string
	}
	var edits []edit
	var path []string
	var attrs [][]xml.Attr
	for {
		off := dec.InputOffset()
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		switch tk := tok.(type) {
		case xml.StartElement:
			path = append(path, tk.Name.Local)
			attrs = append(attrs, tk.Attr)
		case xml.EndElement:
			path, attrs = path[:len(path)-1], attrs[:len(attrs)-1]
		case xml.CharData:
			if len(path) == 0 {
				continue
			}
			if v, ok := set(path, attrs[len(attrs)-1]); ok {
				edits = append(edits, edit{off, dec.InputOffset(), xmlEscape(v)})
			}
		}
	}
	var out []byte
	pos := int64(0)
	for _, e := range edits {
		out = append(out, raw[pos:e.start]...)
		out = append(out, e.text...)
		pos = e.end
	}
	return append(out, raw[pos:]...)
}

func xmlEscape(s string) string {
	var b strings.Builder
	_ = xml.EscapeText(&b, []byte(s))
	return b.String()
}

// patchXMLSample sets what patchSample sets, in an XML document: the ID,
// issue date and time, the party TINs (when not "": the buyer's also the
// shipping recipient's) and the UUIDs of the
// original-document references.
func patchXMLSample(t *testing.T, raw []byte, code string, issued time.Time, supplier, buyer, ref string) doc {
	t.Helper()
	body := patchXML(t, raw, func(p []string, attrs []xml.Attr) (string, bool) {
		at := strings.Join(p, "/")
		switch at {
		case "Invoice/ID":
			return code, true
		case "Invoice/IssueDate":
			return issued.UTC().Format("2006-01-02"), true
		case "Invoice/IssueTime":
			return issued.UTC().Format("15:04:05Z"), true
		case "Invoice/BillingReference/InvoiceDocumentReference/UUID":
			return ref, true
		}
		isTIN := slices.ContainsFunc(attrs, func(a xml.Attr) bool { return a.Name.Local == "schemeID" && a.Value == "TIN" })
		switch {
		case isTIN && supplier != "" && at == "Invoice/AccountingSupplierParty/Party/PartyIdentification/ID":
			return supplier, true
		case isTIN && buyer != "" && (at == "Invoice/AccountingCustomerParty/Party/PartyIdentification/ID" || at == "Invoice/Delivery/DeliveryParty/PartyIdentification/ID"):
			// The shipping recipient is the buyer, as patchSample has it.
			return buyer, true
		}
		return "", false
	})
	return doc{code: code, body: body}
}

// sampleTIN reads a party's TIN from a JSON sample (its placeholder).
func sampleTIN(root map[string]any, partyKey string) string {
	inv := root["Invoice"].([]any)[0].(map[string]any)
	party := inv[partyKey].([]any)[0].(map[string]any)["Party"].([]any)[0].(map[string]any)
	for _, pid := range party["PartyIdentification"].([]any) {
		id := pid.(map[string]any)["ID"].([]any)[0].(map[string]any)
		if id["schemeID"] == "TIN" {
			s, _ := id["_"].(string)
			return s
		}
	}
	return ""
}

// TestSubmitXMLSamples resends every official XML sample with a fresh issue
// time, and its JSON twin likewise, and wants the same verdict (status and
// failed steps) for both: once with the samples' own (placeholder) TINs,
// once with well-formed ones, where both must be Valid. Notes reference the
// original of their own format. A Valid XML document's raw is the XML as
// submitted, and details and search show it as they show the JSON twin.
func TestSubmitXMLSamples(t *testing.T) {
	t.Parallel()
	eachEngine(t, func(t *testing.T, e *env) {
		_, hs := e.server()
		_, verifying := e.server(func(o *sandbox.Options) { o.VerifySignature, o.VerifyXMLSignature = dsig.Verify, dsig.VerifyXML })
		start := e.clock.Now()
		issued := start.Add(-10 * time.Minute)
		sec := 0
		next := func() time.Time { sec++; return issued.Add(time.Duration(sec) * time.Second) }
		for _, mode := range []string{"placeholder TINs", "real TINs", "verified signatures"} {
			// The issuer logs in: the supplier, or the buyer of the
			// self-billed kinds (the authority refuses a submission of
			// another TIN's documents).
			sellerC := login(t, hs.URL, "erp-1", "")
			buyerC := loginAs(t, hs.URL, "erp-buyer-1", buyerTIN)
			if mode == "verified signatures" {
				// The samples' signatures do not survive the new issue
				// time: both formats' 1.1 documents fail Step08 alike.
				sellerC = login(t, verifying.URL, "erp-2", "")
				buyerC = loginAs(t, verifying.URL, "erp-buyer-2", buyerTIN)
			}
			for _, v := range []string{"1.0", "1.1"} {
				orig := map[string]string{} // "JSON 01", "XML 11", ...
				for _, name := range []string{
					"Invoice", "Invoice-MultiLineItem", "Invoice-ForeignCurrency", "Invoice-Consolidated", "Self-Billed-Invoice",
					"Credit-Note", "Debit-Note", "Refund-Note", "Self-Billed-Credit", "Self-Billed-Debit", "Self-Billed-Refund",
				} {
					root := sample(t, v+"-"+name+"-Sample.json")
					rawXML := xmlSample(t, v+"-"+name+"-Sample.xml")
					supplier, buyer := sampleTIN(root, "AccountingSupplierParty"), sampleTIN(root, "AccountingCustomerParty")
					xmlSupplier, xmlBuyer := "", ""
					if mode != "placeholder TINs" {
						supplier, buyer, xmlSupplier, xmlBuyer = supplierTIN, buyerTIN, supplierTIN, buyerTIN
						if name == "Invoice-Consolidated" {
							buyer, xmlBuyer = "EI00000000010", "EI00000000010"
						}
					}
					kind, c := "01", sellerC
					if strings.HasPrefix(name, "Self-Billed") {
						kind, c = "11", buyerC
					}
					if mode == "placeholder TINs" {
						// The issuer's TIN is the logged-in one; the other
						// party keeps the sample's placeholder.
						if kind == "11" {
							buyer, xmlBuyer = buyerTIN, buyerTIN
						} else {
							supplier, xmlSupplier = supplierTIN, supplierTIN
						}
					}
					code := mode[:4] + "-" + v + "-" + name
					jd := patchSample(root, "J-"+code, next(), supplier, buyer, orig["JSON "+kind])
					xd := patchXMLSample(t, rawXML, "X-"+code, next(), xmlSupplier, xmlBuyer, orig["XML "+kind])
					ju := c.submitOne(jd)
					res := c.submitXML(xd)
					if len(res.Accepted) != 1 {
						t.Fatalf("%s XML: accepted %+v, rejected %+v", code, res.Accepted, res.Rejected)
					}
					xu := res.Accepted[0].UUID
					js, xs := c.status(ju), c.status(xu)
					jf, xf := c.failedSteps(ju), c.failedSteps(xu)
					if js != xs || !slices.Equal(sorted(jf), sorted(xf)) {
						t.Errorf("%s: JSON %s %v, XML %s %v", code, js, jf, xs, xf)
					}
					if mode == "real TINs" || (mode == "verified signatures" && v == "1.0") {
						if xs != "Valid" {
							t.Errorf("%s: XML %s %v, want Valid", code, xs, xf)
						}
						issuer := supplierTIN
						if kind == "11" {
							issuer = buyerTIN
						}
						if got := c.details(xu)["issuerTin"]; got != issuer {
							t.Errorf("%s: XML issuerTin %v, want %s", code, got, issuer)
						}
					}
					if mode == "verified signatures" && v == "1.1" && (xs != "Invalid" || !slices.Contains(xf, "Step08-Document Signature Validator/DS322")) {
						t.Errorf("%s: XML %s %v, want Invalid with DS322", code, xs, xf)
					}
					if name == "Invoice" || name == "Self-Billed-Invoice" {
						orig["JSON "+kind], orig["XML "+kind] = ju, xu
					}
					if xs != "Valid" {
						continue
					}
					r := c.do(http.MethodGet, "/api/v1.0/documents/"+xu+"/raw", nil)
					if r.Status != http.StatusOK {
						t.Fatalf("%s raw: %d %s", code, r.Status, r.Body)
					}
					raw := r.JSON(t)
					if raw["document"] != string(xd.body) || raw["internalId"] != xd.code || raw["status"] != "Valid" {
						t.Errorf("%s raw: internalId %v status %v, document as submitted: %v", code, raw["internalId"], raw["status"], raw["document"] == string(xd.body))
					}
				}
			}
		}
		// Search finds an XML document by its internal number, as a JSON one.
		q := url.Values{"submissionDateFrom": {start.Add(-time.Minute).Format(time.RFC3339)}, "submissionDateTo": {e.clock.Now().Add(time.Minute).Format(time.RFC3339)},
			"searchQuery": {"X-real-1.1-Invoice"}}
		r := login(t, hs.URL, "erp-1", "").do(http.MethodGet, "/api/v1.0/documents/search?"+q.Encode(), nil)
		if r.Status != http.StatusOK {
			t.Fatalf("search: %d %s", r.Status, r.Body)
		}
		found := r.JSON(t)["result"].([]any)
		if len(found) != 1 || found[0].(map[string]any)["internalId"] != "X-real-1.1-Invoice" || found[0].(map[string]any)["status"] != "Valid" {
			t.Errorf("search X-real-1.1-Invoice: %v", found)
		}
	})
}

// xmlInvoice is a small well-formed UBL XML invoice with the given body
// between the header and the parties (for tests that break it).
func xmlInvoice(code string, issued time.Time, extra string) doc {
	s := `<?xml version="1.0" encoding="UTF-8"?>
<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2" xmlns:cac="urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2" xmlns:cbc="urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2">
<cbc:ID>` + code + `</cbc:ID><cbc:IssueDate>` + issued.UTC().Format("2006-01-02") + `</cbc:IssueDate><cbc:IssueTime>` + issued.UTC().Format("15:04:05Z") + `</cbc:IssueTime>
<cbc:InvoiceTypeCode listVersionID="1.0">01</cbc:InvoiceTypeCode><cbc:DocumentCurrencyCode>MYR</cbc:DocumentCurrencyCode>` + extra + `
<cac:AccountingSupplierParty><cac:Party><cac:PartyIdentification><cbc:ID schemeID="TIN">` + supplierTIN + `</cbc:ID></cac:PartyIdentification>
<cac:PartyLegalEntity><cbc:RegistrationName>Supplier &amp; Co</cbc:RegistrationName></cac:PartyLegalEntity></cac:Party></cac:AccountingSupplierParty>
<cac:AccountingCustomerParty><cac:Party><cac:PartyIdentification><cbc:ID schemeID="TIN">` + buyerTIN + `</cbc:ID></cac:PartyIdentification>
<cac:PartyLegalEntity><cbc:RegistrationName>Buyer</cbc:RegistrationName></cac:PartyLegalEntity></cac:Party></cac:AccountingCustomerParty>
<cac:TaxTotal><cbc:TaxAmount currencyID="MYR">6.00</cbc:TaxAmount></cac:TaxTotal>
<cac:LegalMonetaryTotal><cbc:PayableAmount currencyID="MYR">106.00</cbc:PayableAmount></cac:LegalMonetaryTotal>
<cac:InvoiceLine><cbc:ID>1</cbc:ID><cbc:LineExtensionAmount currencyID="MYR">100.00</cbc:LineExtensionAmount></cac:InvoiceLine>
</Invoice>`
	return doc{code: code, body: []byte(s)}
}

// TestSubmitXMLRejected: malformed XML, entity declarations (billion
// laughs, external entities), deep nesting, a wrong root or namespace and
// broken UBL structure are rejected per document with the authority's
// ValidationError and a detail code, never a 5xx; XML and JSON documents
// in one submission are refused whole (400 BadStructure).
func TestSubmitXMLRejected(t *testing.T) {
	t.Parallel()
	eachEngine(t, func(t *testing.T, e *env) {
		_, hs := e.server()
		c := login(t, hs.URL, "erp-1", "")
		now := e.clock.Now()
		good := xmlInvoice("X-1", now, "")
		raw := func(s string) doc { return doc{code: "X-1", body: []byte(s)} }
		laughs := `<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">` +
			`<!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;"><!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]>` +
			`<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"><ID>&lol3;</ID></Invoice>`
		xxe := `<?xml version="1.0"?><!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]><Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2">&x;</Invoice>`
		deep := `<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2">` + strings.Repeat("<a>", 5000) + strings.Repeat("</a>", 5000) + `</Invoice>`
		big := xmlInvoice("X-1", now, "<cbc:Note>"+strings.Repeat("x", 301<<10)+"</cbc:Note>")
		for _, tc := range []struct {
			name   string
			d      doc
			detail string
			path   string
		}{
			{"not XML", raw(`{"_D": 1}`), "InvalidXML", ""},
			{"unclosed", raw(string(good.body[:len(good.body)-3])), "InvalidXML", ""},
			{"mismatched tags", raw(`<Invoice><ID>X-1</Invoice></ID>`), "InvalidXML", ""},
			{"two roots", raw(string(good.body) + "<Invoice/>"), "InvalidXML", ""},
			{"text after the root", raw(string(good.body) + "trailing"), "InvalidXML", ""},
			{"empty", raw(" "), "InvalidXML", ""},
			{"undeclared entity", raw(`<Invoice>&nbsp;</Invoice>`), "InvalidXML", ""},
			{"billion laughs", raw(laughs), "InvalidXML", ""},
			{"external entity", raw(xxe), "InvalidXML", ""},
			{"not UTF-8", raw("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><Invoice>\xe9</Invoice>"), "InvalidXML", ""},
			{"other encoding declared", raw(`<?xml version="1.0" encoding="UTF-16"?><Invoice/>`), "InvalidXML", ""},
			{"deep nesting", raw(deep), "MaximumDepthExceeded", "#/Invoice[0]" + strings.Repeat(".a[0]", 64)},
			{"wrong root", doc{"X-1", bytes.Replace(bytes.Replace(good.body, []byte("<Invoice "), []byte("<CreditNote "), 1), []byte("</Invoice>"), []byte("</CreditNote>"), 1)},
				"PropertyNotAllowed", "#/CreditNote"},
			{"wrong namespace", doc{"X-1", bytes.Replace(good.body, []byte("xsd:Invoice-2"), []byte("xsd:CreditNote-2"), 1)}, "InvalidValue", "#/_D"},
			{"no namespace", raw(`<Invoice><cbc:ID>X-1</cbc:ID></Invoice>`), "InvalidValue", "#/_D"},
			{"missing ID", doc{"X-1", bytes.Replace(good.body, []byte("<cbc:ID>X-1</cbc:ID>"), nil, 1)}, "PropertyRequired", "#/Invoice[0].ID"},
			{"no supplier TIN", doc{"X-1", bytes.Replace(good.body, []byte(`schemeID="TIN">`+supplierTIN), []byte(`schemeID="BRN">`+supplierTIN), 1)},
				"PropertyRequired", "#/Invoice[0].AccountingSupplierParty[0].Party[0].PartyIdentification[schemeID=TIN].ID"},
			{"bad version", doc{"X-1", bytes.Replace(good.body, []byte(`listVersionID="1.0"`), []byte(`listVersionID="9.9"`), 1)},
				"InvalidValue", "#/Invoice[0].InvoiceTypeCode[0].listVersionID"},
			{"mixed content", xmlInvoice("X-1", now, "<cac:InvoicePeriod>text<cbc:StartDate>2026-01-01</cbc:StartDate></cac:InvoicePeriod>"),
				"StringExpected", "#/Invoice[0].InvoicePeriod[0].StartDate"},
			{"codeNumber not ID", doc{"X-2", good.body}, "CodeNumberMismatch", ""},
			{"over 300 KB", big, "MaximumSizeExceeded", ""},
		} {
			r := c.do(http.MethodPost, "/api/v1.0/documentsubmissions/", xmlEnvelope("XML", tc.d))
			if r.Status != http.StatusAccepted {
				t.Errorf("%s: %d %s", tc.name, r.Status, r.Body)
				continue
			}
			var res submitResult
			if err := json.Unmarshal(r.Body, &res); err != nil {
				t.Fatal(err)
			}
			if len(res.Accepted) != 0 || len(res.Rejected) != 1 || res.Rejected[0].Error.Code != "ValidationError" || len(res.Rejected[0].Error.Details) == 0 {
				t.Errorf("%s: %s", tc.name, r.Body)
				continue
			}
			det := res.Rejected[0].Error.Details[0]
			if det.Code != tc.detail || (tc.path != "" && det.PropertyPath != tc.path) {
				t.Errorf("%s: detail %s %s, want %s %s", tc.name, det.Code, det.PropertyPath, tc.detail, tc.path)
			}
		}

		// A hash of the base64 text rather than the bytes is refused, as for JSON.
		var env struct{ Documents []map[string]string }
		_ = json.Unmarshal(xmlEnvelope("XML", good), &env)
		h := sha256.Sum256([]byte(env.Documents[0]["document"]))
		env.Documents[0]["documentHash"] = hex.EncodeToString(h[:])
		res := c.submitRaw(mustJSON(env))
		if len(res.Rejected) != 1 || res.Rejected[0].Error.Details[0].Code != "DocumentHashMismatch" {
			t.Errorf("hash of the base64: %+v", res.Rejected)
		}

		// XML and JSON documents in one submission: 400 BadStructure.
		var mixed struct{ Documents []map[string]string }
		_ = json.Unmarshal(xmlEnvelope("XML", good), &mixed)
		var j struct{ Documents []map[string]string }
		_ = json.Unmarshal(envelope(invoice(invoiceOpts{code: "J-1", issued: now})), &j)
		for _, docs := range [][]map[string]string{{mixed.Documents[0], j.Documents[0]}, {j.Documents[0], mixed.Documents[0]}} {
			r := c.do(http.MethodPost, "/api/v1.0/documentsubmissions/", mustJSON(map[string]any{"documents": docs}))
			if r.Status != http.StatusBadRequest || r.errorCode(t) != "BadStructure" {
				t.Errorf("mixed formats: %d %s", r.Status, r.Body)
			}
		}

		// The good one, in lower-case "xml", is accepted and Valid; its
		// amounts are read as the JSON form's.
		lower := bytes.Replace(xmlEnvelope("XML", good), []byte(`"format":"XML"`), []byte(`"format":"xml"`), 1)
		res = c.submitRaw(lower)
		if len(res.Accepted) != 1 {
			t.Fatalf("good XML: %+v", res.Rejected)
		}
		d := c.details(res.Accepted[0].UUID)
		if d["status"] != "Valid" || d["totalPayableAmount"] != 106.0 || d["issuerName"] != "Supplier & Co" || d["internalId"] != "X-1" {
			t.Errorf("good XML details: %v", d)
		}
		// A UTF-8 byte order mark before the document is fine.
		bom := xmlInvoice("X-BOM", now, "")
		bom.body = append([]byte("\xef\xbb\xbf"), bom.body...)
		res = c.submitXML(bom)
		if len(res.Accepted) != 1 || c.status(res.Accepted[0].UUID) != "Valid" {
			t.Errorf("XML with a byte order mark: %+v", res)
		}
	})
}

// submitRaw posts a raw submission body and wants a 202.
func (c *client) submitRaw(body []byte) submitResult {
	c.t.Helper()
	r := c.do(http.MethodPost, "/api/v1.0/documentsubmissions/", body)
	if r.Status != http.StatusAccepted {
		c.t.Fatalf("submit: %d %s", r.Status, r.Body)
	}
	var res submitResult
	if err := json.Unmarshal(r.Body, &res); err != nil {
		c.t.Fatal(err)
	}
	return res
}

// TestXMLSignature: the JSON verifier never sees an XML document; without
// an XML verifier a signed-version (1.1) XML document's signature is not
// checked (Valid), and with one its failure is Step08 with the verifier's
// code, as for JSON.
func TestXMLSignature(t *testing.T) {
	t.Parallel()
	eachEngine(t, func(t *testing.T, e *env) {
		var jsonCalls int
		jsonVerifier := func(o *sandbox.Options) {
			o.VerifySignature = func([]byte) error { jsonCalls++; return errors.New("DS300: not this verifier") }
		}
		now := e.clock.Now()
		signed := func(code string) doc {
			d := xmlInvoice(code, now, "")
			d.body = bytes.Replace(d.body, []byte(`listVersionID="1.0"`), []byte(`listVersionID="1.1"`), 1)
			return d
		}
		_, hs := e.server(jsonVerifier)
		c := login(t, hs.URL, "erp-1", "")
		res := c.submitXML(signed("S-1"))
		if len(res.Accepted) != 1 {
			t.Fatalf("S-1: %+v", res.Rejected)
		}
		if st := c.status(res.Accepted[0].UUID); st != "Valid" || jsonCalls != 0 {
			t.Errorf("unchecked XML 1.1: %s, JSON verifier called %d times", st, jsonCalls)
		}

		var seen []byte
		_, hs2 := e.server(jsonVerifier, func(o *sandbox.Options) {
			o.VerifyXMLSignature = func(doc []byte) error {
				seen = doc
				return fmt.Errorf("verify: %w", &dsig.VerifyError{Code: dsig.CodeDocDigest, Message: "document digest does not match"})
			}
		})
		c2 := login(t, hs2.URL, "erp-2", "")
		d := signed("S-2")
		res = c2.submitXML(d)
		if len(res.Accepted) != 1 {
			t.Fatalf("S-2: %+v", res.Rejected)
		}
		if got := c2.failedSteps(res.Accepted[0].UUID); !slices.Equal(got, []string{"Step08-Document Signature Validator/DS322"}) || jsonCalls != 0 {
			t.Errorf("XML verifier failure: %v, JSON verifier called %d times", got, jsonCalls)
		}
		if !bytes.Equal(seen, d.body) {
			t.Errorf("XML verifier got %q, want the document as submitted", seen)
		}
	})
}

// sorted is a sorted copy of codes (the certificate rules' order is not
// part of the verdict).
func sorted(codes []string) []string {
	return slices.Sorted(slices.Values(codes))
}
