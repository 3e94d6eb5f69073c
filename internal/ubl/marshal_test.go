package ubl_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/einvoice/einvoice/internal/einvoice"
	"github.com/einvoice/einvoice/internal/ubl"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// marshal returns the fixture's UBL, failing the test on error.
func marshal(t testing.TB, f fixture) []byte {
	t.Helper()
	out, err := ubl.Marshal(f.input())
	if err != nil {
		t.Fatalf("%s: Marshal: %v", f.name, err)
	}
	return out
}

// indent is the golden form of a document: the same bytes, indented.
func indent(t testing.TB, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := json.Indent(&buf, b, "", "  "); err != nil {
		t.Fatalf("indent: %v", err)
	}
	buf.WriteByte('\n')
	return buf.Bytes()
}

// TestGolden compares each fixture's UBL with testdata/<name>.json, the
// exact bytes of Marshal indented (go test -update rewrites them).
func TestGolden(t *testing.T) {
	for _, f := range fixtures() {
		t.Run(f.name, func(t *testing.T) {
			got := indent(t, marshal(t, f))
			path := filepath.Join("testdata", f.name+".json")
			if *update {
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if diff := cmp.Diff(string(want), string(got)); diff != "" {
				t.Errorf("UBL differs from %s (-want +got):\n%s", path, diff)
			}
		})
	}
}

// TestFixturesAreValid checks that the fixtures are documents the service
// would send: they pass its validation.
func TestFixturesAreValid(t *testing.T) {
	for _, f := range fixtures() {
		if ps := einvoice.ValidateDocument(f.validation()); len(ps) > 0 {
			t.Errorf("%s: validation problems: %+v", f.name, ps)
		}
	}
}

// TestMarshalMinified: no whitespace, no HTML escaping, one root.
func TestMarshalMinified(t *testing.T) {
	for _, f := range fixtures() {
		out := marshal(t, f)
		var buf bytes.Buffer
		if err := json.Compact(&buf, out); err != nil {
			t.Fatalf("%s: not JSON: %v", f.name, err)
		}
		if !bytes.Equal(buf.Bytes(), out) {
			t.Errorf("%s: not minified", f.name)
		}
		if bytes.Contains(out, []byte(`\u003c`)) || bytes.Contains(out, []byte(`\u0026`)) {
			t.Errorf("%s: HTML-escaped", f.name)
		}
		prefix := `{"_D":"urn:oasis:names:specification:ubl:schema:xsd:Invoice-2","_A":"urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2","_B":"urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2","Invoice":[{"ID":[{"_":"` + f.doc.InvoiceSerialNumber + `"}],"IssueDate":[{"_":"2026-11-20"}],"IssueTime":[{"_":"23:15:00Z"}],"InvoiceTypeCode":[{"_":"` + f.doc.TypeCode + `","listVersionID":"` + f.version + `"}]`
		if !bytes.HasPrefix(out, []byte(prefix)) {
			t.Errorf("%s: starts\n%.400s\nwant\n%s", f.name, out, prefix)
		}
		if bytes.Contains(out, []byte("UBLExtensions")) || bytes.Contains(out, []byte(`"Signature"`)) {
			t.Errorf("%s: has a signature element", f.name)
		}
	}
	out := marshal(t, fixtures()[0])
	if !bytes.Contains(out, []byte(`"Laptop 14-inch, 16 GB <refurbished> & tested"`)) {
		t.Errorf("description not written verbatim")
	}
}

// body marshals the fixture and parses it back.
func body(t *testing.T, f fixture) *ubl.InvoiceBody {
	t.Helper()
	inv, err := ubl.Parse(marshal(t, f))
	if err != nil {
		t.Fatalf("%s: Parse: %v", f.name, err)
	}
	return inv.Body()
}

func fixtureNamed(t testing.TB, name string) fixture {
	t.Helper()
	for _, f := range fixtures() {
		if f.name == name {
			return f
		}
	}
	t.Fatalf("no fixture %s", name)
	return fixture{}
}

// jsonOf renders part of the model for comparisons.
func jsonOf(t *testing.T, v any) string {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return strings.TrimSuffix(buf.String(), "\n")
}

// TestMarshalMapping checks the mapping rules one by one, on the model read
// back from the bytes.
func TestMarshalMapping(t *testing.T) {
	check := func(t *testing.T, what string, got any, want string) {
		t.Helper()
		if g := jsonOf(t, got); g != want {
			t.Errorf("%s:\n got %s\nwant %s", what, g, want)
		}
	}
	t.Run("invoice", func(t *testing.T) {
		b := body(t, fixtureNamed(t, "invoice"))
		check(t, "TaxCurrencyCode (MYR document)", b.TaxCurrencyCode, `null`)
		check(t, "TaxExchangeRate (MYR document)", b.TaxExchangeRate, `null`)
		check(t, "InvoicePeriod", b.InvoicePeriod, `[{"StartDate":[{"_":"2026-11-01"}],"EndDate":[{"_":"2026-11-30"}],"Description":[{"_":"Monthly"}]}]`)
		sup := b.AccountingSupplierParty[0].Party[0]
		check(t, "supplier MSIC", sup.IndustryClassificationCode, `[{"_":"46510","name":"Wholesale of computer hardware, software and peripherals"}]`)
		check(t, "supplier ids", sup.PartyIdentification, `[{"ID":[{"_":"C2584563200","schemeID":"TIN"}]},{"ID":[{"_":"202001012345","schemeID":"BRN"}]},{"ID":[{"_":"W10-1808-32000032","schemeID":"SST"}]},{"ID":[{"_":"NA","schemeID":"TTX"}]}]`)
		check(t, "supplier address", sup.PostalAddress, `[{"CityName":[{"_":"Kuala Lumpur"}],"PostalZone":[{"_":"50480"}],"CountrySubentityCode":[{"_":"14"}],"AddressLine":[{"Line":[{"_":"Lot 66, Bangunan Merdeka"}]},{"Line":[{"_":"Persiaran Jaya"}]}],"Country":[{"IdentificationCode":[{"_":"MYS","listID":"ISO3166-1","listAgencyID":"6"}]}]}]`)
		check(t, "supplier contact", sup.Contact, `[{"Telephone":[{"_":"+60312345678"}],"ElectronicMail":[{"_":"billing@majujaya.example"}]}]`)
		cus := b.AccountingCustomerParty[0].Party[0]
		check(t, "customer ids (no TTX, SST NA)", cus.PartyIdentification, `[{"ID":[{"_":"C20880050010","schemeID":"TIN"}]},{"ID":[{"_":"201901234567","schemeID":"BRN"}]},{"ID":[{"_":"NA","schemeID":"SST"}]}]`)
		check(t, "customer address lines (empty line 2 left out)", cus.PostalAddress[0].AddressLine, `[{"Line":[{"_":"Lot 7, Jalan Ampang"}]},{"Line":[{"_":"Ampang Point"}]}]`)
		check(t, "customer contact (no e-mail)", cus.Contact, `[{"Telephone":[{"_":"+60123456789"}]}]`)
		check(t, "delivery", b.Delivery, `[{"DeliveryParty":[{"PartyLegalEntity":[{"RegistrationName":[{"_":"Hebat Group Warehouse"}]}],"PostalAddress":[{"CityName":[{"_":"Klang"}],"PostalZone":[{"_":"41200"}],"CountrySubentityCode":[{"_":"10"}],"AddressLine":[{"Line":[{"_":"Lot 12, Jalan Perigi"}]}],"Country":[{"IdentificationCode":[{"_":"MYS","listID":"ISO3166-1","listAgencyID":"6"}]}]}],"PartyIdentification":[{"ID":[{"_":"C20880050010","schemeID":"TIN"}]},{"ID":[{"_":"201901234567","schemeID":"BRN"}]}]}]}]`)
		check(t, "payment means", b.PaymentMeans, `[{"PaymentMeansCode":[{"_":"01"}],"PayeeFinancialAccount":[{"ID":[{"_":"1234567890123"}]}]}]`)
		check(t, "payment terms", b.PaymentTerms, `[{"Note":[{"_":"Cash on delivery"}]}]`)
		check(t, "prepaid payment", b.PrepaidPayment, `[{"ID":[{"_":"PRE-0007"}],"PaidAmount":[{"_":100.00,"currencyID":"MYR"}],"PaidDate":[{"_":"2026-11-15"}]}]`)
		check(t, "document allowance and charge", b.AllowanceCharge, `[{"ChargeIndicator":[{"_":false}],"AllowanceChargeReason":[{"_":"Loyalty discount"}],"Amount":[{"_":50.00,"currencyID":"MYR"}]},{"ChargeIndicator":[{"_":true}],"AllowanceChargeReason":[{"_":"Delivery"}],"Amount":[{"_":25.00,"currencyID":"MYR"}]}]`)
		// 2 x 3299.00 = 6598.00, -5 % = 6268.10, 10 % = 626.81; 4500 +2.5 % = 4612.50,
		// 8 % = 369.00; 10 x 62.45 = 624.50, no tax.
		check(t, "tax total", b.TaxTotal, `[{"TaxAmount":[{"_":995.81,"currencyID":"MYR"}],"TaxSubtotal":[`+
			`{"TaxableAmount":[{"_":6268.10,"currencyID":"MYR"}],"TaxAmount":[{"_":626.81,"currencyID":"MYR"}],"Percent":[{"_":10}],"TaxCategory":[{"ID":[{"_":"01"}],"TaxScheme":[{"ID":[{"_":"OTH","schemeID":"UN/ECE 5153","schemeAgencyID":"6"}]}]}]},`+
			`{"TaxableAmount":[{"_":4612.50,"currencyID":"MYR"}],"TaxAmount":[{"_":369.00,"currencyID":"MYR"}],"Percent":[{"_":8}],"TaxCategory":[{"ID":[{"_":"02"}],"TaxScheme":[{"ID":[{"_":"OTH","schemeID":"UN/ECE 5153","schemeAgencyID":"6"}]}]}]},`+
			`{"TaxableAmount":[{"_":624.50,"currencyID":"MYR"}],"TaxAmount":[{"_":0.00,"currencyID":"MYR"}],"Percent":[{"_":0}],"TaxCategory":[{"ID":[{"_":"06"}],"TaxScheme":[{"ID":[{"_":"OTH","schemeID":"UN/ECE 5153","schemeAgencyID":"6"}]}]}]}]}]`)
		// 11505.10 - 50 + 25 = 11480.10; + 995.81 = 12475.91; - 100 prepaid =
		// 12375.91, cash-rounded to 12375.90.
		check(t, "monetary total", b.LegalMonetaryTotal, `[{"LineExtensionAmount":[{"_":11505.10,"currencyID":"MYR"}],"TaxExclusiveAmount":[{"_":11480.10,"currencyID":"MYR"}],"TaxInclusiveAmount":[{"_":12475.91,"currencyID":"MYR"}],"AllowanceTotalAmount":[{"_":50.00,"currencyID":"MYR"}],"ChargeTotalAmount":[{"_":25.00,"currencyID":"MYR"}],"PayableRoundingAmount":[{"_":-0.01,"currencyID":"MYR"}],"PayableAmount":[{"_":12375.90,"currencyID":"MYR"}]}]`)
		l := b.InvoiceLine
		check(t, "line IDs", []any{l[0].ID, l[1].ID, l[2].ID}, `[[{"_":"1"}],[{"_":"2"}],[{"_":"3"}]]`)
		check(t, "line 1 quantity (PCE -> H87)", l[0].InvoicedQuantity, `[{"_":2,"unitCode":"H87"}]`)
		check(t, "line 3 quantity (1e1, BOX -> XBX)", l[2].InvoicedQuantity, `[{"_":10,"unitCode":"XBX"}]`)
		check(t, "line 1 discount", l[0].AllowanceCharge, `[{"ChargeIndicator":[{"_":false}],"AllowanceChargeReason":[{"_":"Year-end promotion"}],"MultiplierFactorNumeric":[{"_":0.05}],"Amount":[{"_":329.90,"currencyID":"MYR"}]}]`)
		check(t, "line 2 fee", l[1].AllowanceCharge, `[{"ChargeIndicator":[{"_":true}],"AllowanceChargeReason":[{"_":"Service charge"}],"MultiplierFactorNumeric":[{"_":0.025}],"Amount":[{"_":112.50,"currencyID":"MYR"}]}]`)
		check(t, "line 1 amounts", []any{l[0].LineExtensionAmount, l[0].Price, l[0].ItemPriceExtension}, `[[{"_":6268.10,"currencyID":"MYR"}],[{"PriceAmount":[{"_":3299,"currencyID":"MYR"}]}],[{"Amount":[{"_":6598.00,"currencyID":"MYR"}]}]]`)
		check(t, "line 1 item (019 and 022 both -> 022, once)", l[0].Item, `[{"CommodityClassification":[{"ItemClassificationCode":[{"_":"022","listID":"CLASS"}]}],"Description":[{"_":"Laptop 14-inch, 16 GB <refurbished> & tested"}]}]`)
		check(t, "line 2 item (007 -> 018)", l[1].Item[0].CommodityClassification, `[{"ItemClassificationCode":[{"_":"018","listID":"CLASS"}]}]`)
		check(t, "line 1 tax", l[0].TaxTotal, `[{"TaxAmount":[{"_":626.81,"currencyID":"MYR"}],"TaxSubtotal":[{"TaxableAmount":[{"_":6268.10,"currencyID":"MYR"}],"TaxAmount":[{"_":626.81,"currencyID":"MYR"}],"Percent":[{"_":10}],"TaxCategory":[{"ID":[{"_":"01"}],"TaxScheme":[{"ID":[{"_":"OTH","schemeID":"UN/ECE 5153","schemeAgencyID":"6"}]}]}]}]}]`)
	})
	t.Run("notes", func(t *testing.T) {
		check(t, "credit note reference", body(t, fixtureNamed(t, "credit_note")).BillingReference,
			`[{"InvoiceDocumentReference":[{"ID":[{"_":"INV-2026-0042"}],"UUID":[{"_":"F9D425P6DS7D8IU3MTNX2KVPJG"}]}]}]`)
		check(t, "two references", body(t, fixtureNamed(t, "debit_note")).BillingReference,
			`[{"InvoiceDocumentReference":[{"ID":[{"_":"INV-2026-0042"}],"UUID":[{"_":"F9D425P6DS7D8IU3MTNX2KVPJG"}]}]},{"InvoiceDocumentReference":[{"ID":[{"_":"INV-2026-0043"}],"UUID":[{"_":"R7TB3N9WCE6HJD5AQK2M8ZP41X"}]}]}]`)
		check(t, "pre-e-invoicing reference", body(t, fixtureNamed(t, "refund_note")).BillingReference,
			`[{"InvoiceDocumentReference":[{"ID":[{"_":"INV-2023-0815"}],"UUID":[{"_":"NA"}]}]}]`)
		check(t, "type code", body(t, fixtureNamed(t, "self_billed_refund_note")).InvoiceTypeCode, `[{"_":"14","listVersionID":"1.0"}]`)
		f := fixtureNamed(t, "refund_note")
		f.doc.References = []einvoice.DocumentReference{{ReferenceNumber: "INV-2023-0815"}, {ReferenceNumber: "NA", UUID: "NA"}, {}}
		check(t, "pre-e-invoicing references without uuid or number", body(t, f).BillingReference,
			`[{"InvoiceDocumentReference":[{"ID":[{"_":"INV-2023-0815"}],"UUID":[{"_":"NA"}]}]},{"InvoiceDocumentReference":[{"ID":[{"_":"NA"}],"UUID":[{"_":"NA"}]}]},{"InvoiceDocumentReference":[{"ID":[{"_":"NA"}],"UUID":[{"_":"NA"}]}]}]`)
	})
	t.Run("consolidated", func(t *testing.T) {
		b := body(t, fixtureNamed(t, "consolidated_invoice"))
		check(t, "type code", b.InvoiceTypeCode, `[{"_":"01","listVersionID":"1.1"}]`)
		check(t, "general public", b.AccountingCustomerParty, `[{"Party":[{"PostalAddress":[{"CityName":[{"_":"NA"}],"CountrySubentityCode":[{"_":"17"}],"AddressLine":[{"Line":[{"_":"NA"}]}],"Country":[{"IdentificationCode":[{"_":"MYS","listID":"ISO3166-1","listAgencyID":"6"}]}]}],"PartyLegalEntity":[{"RegistrationName":[{"_":"General Public"}]}],"PartyIdentification":[{"ID":[{"_":"EI00000000010","schemeID":"TIN"}]},{"ID":[{"_":"NA","schemeID":"BRN"}]},{"ID":[{"_":"NA","schemeID":"SST"}]}],"Contact":[{"Telephone":[{"_":"NA"}],"ElectronicMail":[{"_":"NA"}]}]}]}]`)
		for _, l := range b.InvoiceLine {
			check(t, "line classification", l.Item[0].CommodityClassification, `[{"ItemClassificationCode":[{"_":"004","listID":"CLASS"}]}]`)
		}
	})
	t.Run("self-billed", func(t *testing.T) {
		b := body(t, fixtureNamed(t, "self_billed_invoice"))
		check(t, "type code", b.InvoiceTypeCode, `[{"_":"11","listVersionID":"1.1"}]`)
		sup := b.AccountingSupplierParty[0].Party[0]
		check(t, "supplier is the seller", sup.PartyIdentification, `[{"ID":[{"_":"EI00000000030","schemeID":"TIN"}]},{"ID":[{"_":"NA","schemeID":"BRN"}]},{"ID":[{"_":"NA","schemeID":"SST"}]},{"ID":[{"_":"NA","schemeID":"TTX"}]}]`)
		check(t, "customer is the tenant", b.AccountingCustomerParty[0].Party[0].PartyLegalEntity, `[{"RegistrationName":[{"_":"Maju Jaya Trading Sdn. Bhd."}]}]`)
		check(t, "payment mode 07 -> 08", b.PaymentMeans, `[{"PaymentMeansCode":[{"_":"08"}]}]`)
	})
	t.Run("foreign currency", func(t *testing.T) {
		b := body(t, fixtureNamed(t, "foreign_currency"))
		check(t, "currencies", []any{b.DocumentCurrencyCode, b.TaxCurrencyCode}, `[[{"_":"USD"}],[{"_":"MYR"}]]`)
		check(t, "exchange rate", b.TaxExchangeRate, `[{"SourceCurrencyCode":[{"_":"USD"}],"TargetCurrencyCode":[{"_":"MYR"}],"CalculationRate":[{"_":4.4725}]}]`)
		check(t, "supplier TTX", b.AccountingSupplierParty[0].Party[0].PartyIdentification[3], `{"ID":[{"_":"141-1902-21000010","schemeID":"TTX"}]}`)
		// Room: 360.00 USD, 8 % = 28.80 USD = 128.81 MYR; tourism 3 x 2.50 =
		// 7.50 USD = 33.54 MYR. Spa 85.00 exempt, breakfast 31.00.
		check(t, "tax total in MYR", b.TaxTotal, `[{"TaxAmount":[{"_":162.35,"currencyID":"MYR"}],"TaxSubtotal":[`+
			`{"TaxableAmount":[{"_":360.00,"currencyID":"USD"}],"TaxAmount":[{"_":128.81,"currencyID":"MYR"}],"Percent":[{"_":8}],"TaxCategory":[{"ID":[{"_":"02"}],"TaxScheme":[{"ID":[{"_":"OTH","schemeID":"UN/ECE 5153","schemeAgencyID":"6"}]}]}]},`+
			`{"TaxableAmount":[{"_":360.00,"currencyID":"USD"}],"TaxAmount":[{"_":33.54,"currencyID":"MYR"}],"PerUnitAmount":[{"_":2.5,"currencyID":"USD"}],"TaxCategory":[{"ID":[{"_":"03"}],"TaxScheme":[{"ID":[{"_":"OTH","schemeID":"UN/ECE 5153","schemeAgencyID":"6"}]}]}]},`+
			`{"TaxableAmount":[{"_":85.00,"currencyID":"USD"}],"TaxAmount":[{"_":0.00,"currencyID":"MYR"}],"TaxCategory":[{"ID":[{"_":"E"}],"TaxExemptionReason":[{"_":"Exempt under Service Tax (Exemption) Order 2018, item 3"}],"TaxScheme":[{"ID":[{"_":"OTH","schemeID":"UN/ECE 5153","schemeAgencyID":"6"}]}]}]},`+
			`{"TaxableAmount":[{"_":31.00,"currencyID":"USD"}],"TaxAmount":[{"_":0.00,"currencyID":"MYR"}],"Percent":[{"_":0}],"TaxCategory":[{"ID":[{"_":"06"}],"TaxScheme":[{"ID":[{"_":"OTH","schemeID":"UN/ECE 5153","schemeAgencyID":"6"}]}]}]}]}]`)
		check(t, "totals in USD", b.LegalMonetaryTotal, `[{"LineExtensionAmount":[{"_":476.00,"currencyID":"USD"}],"TaxExclusiveAmount":[{"_":476.00,"currencyID":"USD"}],"TaxInclusiveAmount":[{"_":512.30,"currencyID":"USD"}],"AllowanceTotalAmount":[{"_":0.00,"currencyID":"USD"}],"ChargeTotalAmount":[{"_":0.00,"currencyID":"USD"}],"PayableRoundingAmount":[{"_":0.00,"currencyID":"USD"}],"PayableAmount":[{"_":512.30,"currencyID":"USD"}]}]`)
		check(t, "room line tax", b.InvoiceLine[0].TaxTotal, `[{"TaxAmount":[{"_":162.35,"currencyID":"MYR"}],"TaxSubtotal":[`+
			`{"TaxableAmount":[{"_":360.00,"currencyID":"USD"}],"TaxAmount":[{"_":128.81,"currencyID":"MYR"}],"Percent":[{"_":8}],"TaxCategory":[{"ID":[{"_":"02"}],"TaxScheme":[{"ID":[{"_":"OTH","schemeID":"UN/ECE 5153","schemeAgencyID":"6"}]}]}]},`+
			`{"TaxableAmount":[{"_":360.00,"currencyID":"USD"}],"TaxAmount":[{"_":33.54,"currencyID":"MYR"}],"BaseUnitMeasure":[{"_":3,"unitCode":"DAY"}],"PerUnitAmount":[{"_":2.5,"currencyID":"USD"}],"TaxCategory":[{"ID":[{"_":"03"}],"TaxScheme":[{"ID":[{"_":"OTH","schemeID":"UN/ECE 5153","schemeAgencyID":"6"}]}]}]}]}]`)
		check(t, "spa line tax", b.InvoiceLine[1].TaxTotal[0].TaxSubtotal[0].TaxCategory, `[{"ID":[{"_":"E"}],"TaxExemptionReason":[{"_":"Exempt under Service Tax (Exemption) Order 2018, item 3"}],"TaxScheme":[{"ID":[{"_":"OTH","schemeID":"UN/ECE 5153","schemeAgencyID":"6"}]}]}]`)
		check(t, "price in USD", b.InvoiceLine[2].Price, `[{"PriceAmount":[{"_":15.5,"currencyID":"USD"}]}]`)
	})
}

// TestMarshalMissing: a nil required amount is an error wrapping
// ErrMissing that names the field; nothing panics.
func TestMarshalMissing(t *testing.T) {
	cases := []struct {
		field string
		spoil func(d *einvoice.Document)
	}{
		{"subtotal", func(d *einvoice.Document) { d.Subtotal = nil }},
		{"totalExcludingTax", func(d *einvoice.Document) { d.TotalExcludingTax = nil }},
		{"totalIncludingTax", func(d *einvoice.Document) { d.TotalIncludingTax = nil }},
		{"totalPayableAmount", func(d *einvoice.Document) { d.TotalPayableAmount = nil }},
		{"totalTaxAmount", func(d *einvoice.Document) { d.TotalTaxAmount = nil }},
		{"taxSubtotals", func(d *einvoice.Document) { d.TaxSubtotals = nil }},
		{"taxSubtotals.1.taxableAmount", func(d *einvoice.Document) { d.TaxSubtotals[1].TaxableAmount = nil }},
		{"taxSubtotals.0.taxAmount", func(d *einvoice.Document) { d.TaxSubtotals[0].TaxAmount = nil }},
		{"invoiceLines", func(d *einvoice.Document) { d.Lines = nil }},
		{"invoiceLines.1.quantity", func(d *einvoice.Document) { d.Lines[1].Quantity = nil }},
		{"invoiceLines.1.unitPrice", func(d *einvoice.Document) { d.Lines[1].UnitPrice = nil }},
		{"invoiceLines.2.subtotal", func(d *einvoice.Document) { d.Lines[2].Subtotal = nil }},
		{"invoiceLines.0.totalExcludingTax", func(d *einvoice.Document) { d.Lines[0].TotalExcludingTax = nil }},
		{"invoiceLines.0.taxAmount", func(d *einvoice.Document) { d.Lines[0].TaxAmount = nil }},
		{"invoiceLines.1.invoiceLineTaxes.0.taxAmount", func(d *einvoice.Document) { d.Lines[1].Taxes[0].TaxAmount = nil }},
		{"invoiceSerialNumber", func(d *einvoice.Document) { d.InvoiceSerialNumber = "" }},
		{"typeCode", func(d *einvoice.Document) { d.TypeCode, d.Kind = "", "" }},
	}
	for _, c := range cases {
		t.Run(c.field, func(t *testing.T) {
			f := fixtureNamed(t, "invoice")
			c.spoil(f.doc)
			_, err := ubl.Marshal(f.input())
			if !errors.Is(err, ubl.ErrMissing) || !strings.Contains(err.Error(), " "+c.field+": ") {
				t.Errorf("Marshal error %v, want ErrMissing naming %s", err, c.field)
			}
		})
	}
	foreign := []struct {
		field string
		spoil func(d *einvoice.Document)
	}{
		{"exchangeRate", func(d *einvoice.Document) { d.ExchangeRate = nil }},
		{"totalTaxAmountMyr", func(d *einvoice.Document) { d.TotalTaxAmountMyr = nil }},
		{"taxSubtotals.2.taxAmountMyr", func(d *einvoice.Document) { d.TaxSubtotals[2].TaxAmountMyr = nil }},
		{"invoiceLines.0.taxAmountMyr", func(d *einvoice.Document) { d.Lines[0].TaxAmountMyr = nil }},
		{"invoiceLines.0.invoiceLineTaxes.1.taxAmountMyr", func(d *einvoice.Document) { d.Lines[0].Taxes[1].TaxAmountMyr = nil }},
	}
	for _, c := range foreign {
		t.Run(c.field, func(t *testing.T) {
			f := fixtureNamed(t, "foreign_currency")
			c.spoil(f.doc)
			_, err := ubl.Marshal(f.input())
			if !errors.Is(err, ubl.ErrMissing) || !strings.Contains(err.Error(), " "+c.field+": ") {
				t.Errorf("Marshal error %v, want ErrMissing naming %s", err, c.field)
			}
		})
	}
	t.Run("issuedAt", func(t *testing.T) {
		in := fixtureNamed(t, "invoice").input()
		in.IssuedAt = time.Time{}
		if _, err := ubl.Marshal(in); !errors.Is(err, ubl.ErrMissing) {
			t.Errorf("zero IssuedAt: %v, want ErrMissing", err)
		}
	})
	t.Run("nil document", func(t *testing.T) {
		if out, err := ubl.Marshal(ubl.Input{Version: "1.1"}); !errors.Is(err, ubl.ErrMissing) || out != nil {
			t.Errorf("nil Doc: %q, %v; want ErrMissing", out, err)
		}
	})
	t.Run("version", func(t *testing.T) {
		for _, v := range []string{"", "1", "2.0"} {
			in := fixtureNamed(t, "invoice").input()
			in.Version = v
			if _, err := ubl.Marshal(in); !errors.Is(err, ubl.ErrVersion) {
				t.Errorf("version %q: %v, want ErrVersion", v, err)
			}
		}
	})
	t.Run("empty document", func(t *testing.T) {
		if _, err := ubl.Marshal(ubl.Input{Doc: &einvoice.Document{}, Version: "1.0"}); !errors.Is(err, ubl.ErrMissing) {
			t.Errorf("empty document: %v, want ErrMissing", err)
		}
	})
}

// TestMarshalNeverPanics sets every pointer, slice and map of each fixture's
// document to nil in turn: Marshal returns bytes or an error, never panics.
func TestMarshalNeverPanics(t *testing.T) {
	for _, f := range fixtures() {
		in := f.input()
		n := 0
		var walk func(v reflect.Value, path string)
		walk = func(v reflect.Value, path string) {
			switch v.Kind() {
			case reflect.Pointer:
				if v.IsNil() {
					return
				}
				walk(v.Elem(), path)
				if v.CanSet() {
					n++
					saved := reflect.ValueOf(v.Interface())
					v.Set(reflect.Zero(v.Type()))
					marshalNoPanic(t, in, f.name+path)
					v.Set(saved)
				}
			case reflect.Slice:
				for i := 0; i < v.Len(); i++ {
					walk(v.Index(i), path+"["+strconv.Itoa(i)+"]")
				}
				if v.CanSet() && !v.IsNil() {
					n++
					saved := reflect.ValueOf(v.Interface())
					v.Set(reflect.Zero(v.Type()))
					marshalNoPanic(t, in, f.name+path)
					v.Set(saved)
				}
			case reflect.Struct:
				for i := 0; i < v.NumField(); i++ {
					if v.Type().Field(i).IsExported() {
						walk(v.Field(i), path+"."+v.Type().Field(i).Name)
					}
				}
			}
		}
		walk(reflect.ValueOf(f.doc), "")
		if n < 20 {
			t.Errorf("%s: only %d values spoiled", f.name, n)
		}
	}
}

func marshalNoPanic(t *testing.T, in ubl.Input, what string) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			t.Errorf("%s nil: Marshal panics: %v", what, r)
		}
	}()
	if _, err := ubl.Marshal(in); err != nil && !errors.Is(err, ubl.ErrMissing) {
		t.Errorf("%s nil: error %v does not wrap ErrMissing", what, err)
	}
}
