package sandbox

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"
)

// invoiceNamespace is the _D of every document type (notes and self-billed
// documents use the Invoice root too).
const invoiceNamespace = "urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"

// Structure-check bounds.
const (
	maxStructErrors = 20
	maxDepth        = 64
)

// typeNames are the document types by InvoiceTypeCode.
var typeNames = map[string]string{
	"01": "Invoice",
	"02": "Credit Note",
	"03": "Debit Note",
	"04": "Refund Note",
	"11": "Self-billed Invoice",
	"12": "Self-billed Credit Note",
	"13": "Self-billed Debit Note",
	"14": "Self-billed Refund Note",
}

// versions are the accepted InvoiceTypeCode/@listVersionID values.
var versions = []string{"1.0", "1.1", "1.2", "1.3"}

// structError is one violation of the UBL JSON form.
type structError struct {
	Code string // ArrayExpected, ObjectExpected, PropertyRequired, ...
	Path string // e.g. Invoice[0].InvoiceTypeCode[0].listVersionID
}

func (e structError) message() string { return e.Code + ": #/" + e.Path }

// docInfo is what the sandbox reads from a document.
type docInfo struct {
	ID, IssueDate, IssueTime, TypeCode, Version string
	SupplierTIN, SupplierName                   string
	BuyerTIN, BuyerName                         string
	// Totals are decimal text ("0" when absent or not a plain number).
	TotalExcludingTax, TotalDiscount, TotalNet, TotalPayable string
	// References are the BillingReference/InvoiceDocumentReference UUIDs
	// (other than "NA"), in document order, without repeats.
	References []string
	// HasNA tells that an InvoiceDocumentReference UUID is "NA" (an
	// original from before e-invoicing).
	HasNA bool
	// IsNote tells a credit, debit or refund note (which must reference an
	// original).
	IsNote bool
	// RecipientTINs are the TINs of the Delivery/DeliveryParty parties (the
	// shipping recipients), in document order.
	RecipientTINs []string
	// Consolidated tells that a line is classified 004 (Consolidated
	// e-Invoice), the mark of a consolidated invoice.
	Consolidated bool
}

// selfBilled reports whether the buyer issues the document (types 11-14).
func (d docInfo) selfBilled() bool { return strings.HasPrefix(d.TypeCode, "1") }

// issuer returns the issuing party's TIN and name: the supplier, or the
// buyer for self-billed types.
func (d docInfo) issuer() (tin, name string) {
	if d.selfBilled() {
		return d.BuyerTIN, d.BuyerName
	}
	return d.SupplierTIN, d.SupplierName
}

// receiver returns the other party's TIN and name.
func (d docInfo) receiver() (tin, name string) {
	if d.selfBilled() {
		return d.SupplierTIN, d.SupplierName
	}
	return d.BuyerTIN, d.BuyerName
}

// errNotJSON is a document that is not one JSON value.
var errNotJSON = errors.New("JSON is not valid")

// parseDocument decodes a UBL JSON document and checks its form: the root
// (_D, _A, _B and one Invoice), every element an array of objects, leaves
// objects with "_" and string attributes, and the mandatory elements. It
// returns errNotJSON for text that is not JSON.
func parseDocument(raw []byte) (docInfo, []structError, error) {
	if !utf8.Valid(raw) {
		return docInfo{}, nil, errNotJSON
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var root any
	if err := dec.Decode(&root); err != nil {
		return docInfo{}, nil, errNotJSON
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return docInfo{}, nil, errNotJSON
	}
	info, serrs := checkTree(root)
	return info, serrs, nil
}

// checkTree checks a decoded UBL JSON tree (maps, slices, strings,
// json.Numbers and bools, as from JSON or from convertXML) and reads its
// docInfo.
func checkTree(root any) (docInfo, []structError) {
	c := &checker{}
	top, ok := root.(map[string]any)
	if !ok {
		c.add("ObjectExpected", "")
		return docInfo{}, c.errs
	}
	c.root(top)
	if len(c.errs) > 0 {
		return docInfo{}, c.errs
	}
	inv := top["Invoice"].([]any)[0].(map[string]any)
	c.aggregate(inv, "Invoice[0]", 1)
	c.mandatory(inv)
	if len(c.errs) > 0 {
		return docInfo{}, c.errs
	}
	return extract(inv), nil
}

type checker struct{ errs []structError }

func (c *checker) add(code, path string) {
	if len(c.errs) < maxStructErrors {
		c.errs = append(c.errs, structError{code, path})
	}
}

// root checks the top level: the namespaces and one Invoice object.
func (c *checker) root(top map[string]any) {
	for _, k := range sortedKeys(top) {
		switch {
		case k == "Invoice":
		case strings.HasPrefix(k, "_"):
			if _, ok := top[k].(string); !ok {
				c.add("StringExpected", k)
			}
		default:
			c.add("PropertyNotAllowed", k)
		}
	}
	for _, k := range []string{"_D", "_A", "_B", "Invoice"} {
		if _, ok := top[k]; !ok {
			c.add("PropertyRequired", k)
		}
	}
	if d, ok := top["_D"].(string); ok && d != invoiceNamespace {
		c.add("InvalidValue", "_D")
	}
	if v, ok := top["Invoice"]; ok {
		arr, isArr := v.([]any)
		switch {
		case !isArr:
			c.add("ArrayExpected", "Invoice")
		case len(arr) != 1:
			c.add("SingleItemExpected", "Invoice")
		default:
			if _, ok := arr[0].(map[string]any); !ok {
				c.add("ObjectExpected", "Invoice[0]")
			}
		}
	}
}

// aggregate checks an aggregate element: every property an array of
// objects, each a leaf (with "_") or an aggregate. The signature parts
// (UBLExtensions, Signature) are left to the signature check.
func (c *checker) aggregate(obj map[string]any, path string, depth int) {
	if depth > maxDepth {
		c.add("MaximumDepthExceeded", path)
		return
	}
	for _, k := range sortedKeys(obj) {
		p := path + "." + k
		arr, ok := obj[k].([]any)
		if !ok {
			c.add("ArrayExpected", p)
			continue
		}
		if depth == 1 && (k == "UBLExtensions" || k == "Signature") {
			continue
		}
		for i, e := range arr {
			pi := p + "[" + itoa(i) + "]"
			m, ok := e.(map[string]any)
			if !ok {
				c.add("ObjectExpected", pi)
				continue
			}
			if _, leaf := m["_"]; leaf {
				c.leaf(m, pi)
			} else {
				c.aggregate(m, pi, depth+1)
			}
		}
	}
}

// leaf checks a leaf: a scalar "_" and string attributes.
func (c *checker) leaf(m map[string]any, path string) {
	switch m["_"].(type) {
	case string, json.Number, bool:
	default:
		c.add("ScalarExpected", path+"._")
	}
	for _, k := range sortedKeys(m) {
		if k == "_" {
			continue
		}
		if _, ok := m[k].(string); !ok {
			c.add("StringExpected", path+"."+k)
		}
	}
}

// mandatory checks the elements every document must carry.
func (c *checker) mandatory(inv map[string]any) {
	for _, k := range []string{"ID", "IssueDate", "IssueTime", "InvoiceTypeCode", "DocumentCurrencyCode"} {
		if v, ok := leafAt(inv, k); !ok || strings.TrimSpace(v) == "" {
			c.add("PropertyRequired", "Invoice[0]."+k)
		}
	}
	if code, ok := leafAt(inv, "InvoiceTypeCode"); ok && code != "" {
		if _, known := typeNames[code]; !known {
			c.add("InvalidValue", "Invoice[0].InvoiceTypeCode[0]._")
		}
		tc := first(inv, "InvoiceTypeCode")
		switch v, ok := tc["listVersionID"].(string); {
		case !ok:
			c.add("PropertyRequired", "Invoice[0].InvoiceTypeCode[0].listVersionID")
		case !slices.Contains(versions, v):
			c.add("InvalidValue", "Invoice[0].InvoiceTypeCode[0].listVersionID")
		}
	}
	for _, k := range []string{"AccountingSupplierParty", "AccountingCustomerParty", "TaxTotal", "LegalMonetaryTotal", "InvoiceLine"} {
		if m := first(inv, k); m == nil || isLeaf(m) {
			c.add("PropertyRequired", "Invoice[0]."+k)
		}
	}
	for _, k := range []string{"AccountingSupplierParty", "AccountingCustomerParty"} {
		if first(inv, k) == nil {
			continue
		}
		if partyTIN(inv, k) == "" {
			c.add("PropertyRequired", "Invoice[0]."+k+"[0].Party[0].PartyIdentification[schemeID=TIN].ID")
		}
	}
}

// extract reads docInfo from a checked document.
func extract(inv map[string]any) docInfo {
	d := docInfo{}
	d.ID, _ = leafAt(inv, "ID")
	d.IssueDate, _ = leafAt(inv, "IssueDate")
	d.IssueTime, _ = leafAt(inv, "IssueTime")
	d.TypeCode, _ = leafAt(inv, "InvoiceTypeCode")
	d.Version, _ = first(inv, "InvoiceTypeCode")["listVersionID"].(string)
	d.IsNote = d.TypeCode != "01" && d.TypeCode != "11"
	d.SupplierTIN = partyTIN(inv, "AccountingSupplierParty")
	d.BuyerTIN = partyTIN(inv, "AccountingCustomerParty")
	d.SupplierName = partyName(inv, "AccountingSupplierParty")
	d.BuyerName = partyName(inv, "AccountingCustomerParty")
	lmt := first(inv, "LegalMonetaryTotal")
	d.TotalExcludingTax = amount(lmt, "TaxExclusiveAmount")
	d.TotalDiscount = amount(lmt, "AllowanceTotalAmount")
	d.TotalNet = amount(lmt, "LineExtensionAmount")
	d.TotalPayable = amount(lmt, "PayableAmount")
	for _, dl := range all(inv, "Delivery") {
		if tin := partyTINOf(first(dl, "DeliveryParty")); tin != "" {
			d.RecipientTINs = append(d.RecipientTINs, tin)
		}
	}
	for _, line := range all(inv, "InvoiceLine") {
		for _, cc := range all(first(line, "Item"), "CommodityClassification") {
			for _, ic := range all(cc, "ItemClassificationCode") {
				if v, _ := leafText(ic); strings.TrimSpace(v) == "004" {
					if l, _ := ic["listID"].(string); strings.EqualFold(l, "CLASS") {
						d.Consolidated = true
					}
				}
			}
		}
	}
	for _, br := range all(inv, "BillingReference") {
		for _, ref := range all(br, "InvoiceDocumentReference") {
			u, _ := leafAt(ref, "UUID")
			u = strings.TrimSpace(u)
			if strings.EqualFold(u, "NA") {
				d.HasNA = true
			}
			if u != "" && !strings.EqualFold(u, "NA") && !slices.Contains(d.References, u) {
				d.References = append(d.References, u)
			}
		}
	}
	return d
}

// first returns the first object of obj's array property k, or nil.
func first(obj map[string]any, k string) map[string]any {
	if obj == nil {
		return nil
	}
	arr, _ := obj[k].([]any)
	if len(arr) == 0 {
		return nil
	}
	m, _ := arr[0].(map[string]any)
	return m
}

// all returns the objects of obj's array property k.
func all(obj map[string]any, k string) []map[string]any {
	arr, _ := obj[k].([]any)
	var out []map[string]any
	for _, e := range arr {
		if m, ok := e.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

func isLeaf(m map[string]any) bool {
	_, ok := m["_"]
	return ok
}

// leafAt returns the text of the first leaf of property k.
func leafAt(obj map[string]any, k string) (string, bool) {
	m := first(obj, k)
	if m == nil {
		return "", false
	}
	return leafText(m)
}

// leafText returns a leaf's value as text, with NULs removed (they cannot
// be stored).
func leafText(m map[string]any) (string, bool) {
	var s string
	switch v := m["_"].(type) {
	case string:
		s = v
	case json.Number:
		s = v.String()
	case bool:
		if v {
			s = "true"
		} else {
			s = "false"
		}
	default:
		return "", false
	}
	return strings.ReplaceAll(s, "\x00", ""), true
}

// partyTIN returns the TIN of a party (property k of the invoice).
func partyTIN(inv map[string]any, k string) string {
	return partyTINOf(first(first(inv, k), "Party"))
}

// partyTINOf returns the TIN among a party's PartyIdentification IDs.
func partyTINOf(party map[string]any) string {
	for _, pid := range all(party, "PartyIdentification") {
		id := first(pid, "ID")
		if id == nil {
			continue
		}
		if scheme, _ := id["schemeID"].(string); strings.EqualFold(scheme, "TIN") {
			v, _ := leafText(id)
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// partyName returns a party's registration name.
func partyName(inv map[string]any, k string) string {
	party := first(first(inv, k), "Party")
	name, _ := leafAt(first(party, "PartyLegalEntity"), "RegistrationName")
	return strings.TrimSpace(name)
}

var plainDecimal = regexp.MustCompile(`^-?[0-9]{1,30}(\.[0-9]{1,20})?$`)

// amount returns a plain decimal amount of obj, "0" when absent or odd.
func amount(obj map[string]any, k string) string {
	v, ok := leafAt(obj, k)
	if !ok || !plainDecimal.MatchString(v) {
		return "0"
	}
	return v
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
