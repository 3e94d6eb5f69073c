package ubl_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/einvoice/einvoice/internal/ubl"
)

func readFile(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// samplePaths lists the authority's JSON samples: 1.0-*.json, 1.1-*.json
// and the signed sample-ul-invoice-2.1-signed.min.json.
func samplePaths(t testing.TB) []string {
	t.Helper()
	dir := shared(t, "myinvois-samples")
	var paths []string
	for _, pattern := range []string{"1.0-*.json", "1.1-*.json", "sample-ul-invoice-2.1-signed.min.json"} {
		m, err := filepath.Glob(filepath.Join(dir, pattern))
		if err != nil {
			t.Fatal(err)
		}
		paths = append(paths, m...)
	}
	sort.Strings(paths)
	if len(paths) != 23 {
		t.Fatalf("%d samples in %s, want 23", len(paths), dir)
	}
	return paths
}

// sampleTypeCode is the InvoiceTypeCode a sample's file name promises.
func sampleTypeCode(name string) string {
	for _, c := range []struct{ part, code string }{
		{"Self-Billed-Invoice", "11"}, {"Self-Billed-Credit", "12"}, {"Self-Billed-Debit", "13"}, {"Self-Billed-Refund", "14"},
		{"Credit-Note", "02"}, {"Debit-Note", "03"}, {"Refund-Note", "04"},
	} {
		if strings.Contains(name, c.part) {
			return c.code
		}
	}
	return "01"
}

// TestParseSamples reads every official sample into the model.
func TestParseSamples(t *testing.T) {
	for _, path := range samplePaths(t) {
		name := filepath.Base(path)
		t.Run(name, func(t *testing.T) {
			inv, err := ubl.Parse(readFile(t, path))
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if inv.D != ubl.NamespaceInvoice || inv.A != ubl.NamespaceAggregate || inv.B != ubl.NamespaceBasic {
				t.Errorf("namespaces %q %q %q", inv.D, inv.A, inv.B)
			}
			b := inv.Body()
			if len(b.ID) != 1 || b.ID[0].Value == "" {
				t.Errorf("ID %+v", b.ID)
			}
			if len(b.InvoiceTypeCode) != 1 || b.InvoiceTypeCode[0].Value != sampleTypeCode(name) {
				t.Errorf("InvoiceTypeCode %+v, want %s", b.InvoiceTypeCode, sampleTypeCode(name))
			}
			wantVersion := "1.1"
			if strings.HasPrefix(name, "1.0-") {
				wantVersion = "1.0"
			}
			if b.InvoiceTypeCode[0].ListVersionID != wantVersion {
				t.Errorf("listVersionID %q, want %s", b.InvoiceTypeCode[0].ListVersionID, wantVersion)
			}
			sup := b.AccountingSupplierParty[0].Party[0]
			if id := sup.PartyIdentification[0].ID[0]; id.SchemeID != "TIN" || id.Value == "" {
				t.Errorf("supplier TIN %+v", id)
			}
			if id := b.AccountingCustomerParty[0].Party[0].PartyIdentification[0].ID[0]; id.SchemeID != "TIN" || id.Value == "" {
				t.Errorf("customer TIN %+v", id)
			}
			if len(b.InvoiceLine) == 0 {
				t.Fatal("no lines")
			}
			for i, l := range b.InvoiceLine {
				if len(l.LineExtensionAmount) != 1 || l.LineExtensionAmount[0].CurrencyID == "" || len(l.Item) != 1 || len(l.Price) != 1 {
					t.Errorf("line %d incomplete: %+v", i, l)
				}
			}
			payable := b.LegalMonetaryTotal[0].PayableAmount[0]
			if payable.Value.Decimal().IsZero() || payable.CurrencyID == "" {
				t.Errorf("PayableAmount %+v", payable)
			}
			signed := strings.HasPrefix(name, "1.1-") || strings.HasPrefix(name, "sample-")
			if signed != (len(b.UBLExtensions) > 0 && len(b.Signature) > 0) {
				t.Errorf("signed %v, but UBLExtensions %d bytes, Signature %d bytes", signed, len(b.UBLExtensions), len(b.Signature))
			}
		})
	}
}

// TestParseSampleValues spot-checks exact values of the foreign-currency
// and multi-line samples.
func TestParseSampleValues(t *testing.T) {
	dir := shared(t, "myinvois-samples")
	inv, err := ubl.Parse(readFile(t, filepath.Join(dir, "1.1-Invoice-ForeignCurrency-Sample.json")))
	if err != nil {
		t.Fatal(err)
	}
	b := inv.Body()
	if got := b.TaxExchangeRate[0].CalculationRate[0].Value.String(); got != "4.72" {
		t.Errorf("CalculationRate %s, want 4.72", got)
	}
	if got := b.TaxTotal[0].TaxAmount[0]; got.Value.String() != "87.63" || got.CurrencyID != "MYR" {
		t.Errorf("TaxAmount %+v, want 87.63 MYR", got)
	}
	if got := b.LegalMonetaryTotal[0].PayableAmount[0]; got.Value.String() != "1436.5" || got.CurrencyID != "USD" {
		t.Errorf("PayableAmount %+v, want 1436.5 USD", got)
	}
	inv, err = ubl.Parse(readFile(t, filepath.Join(dir, "1.0-Invoice-MultiLineItem-Sample.json")))
	if err != nil {
		t.Fatal(err)
	}
	s := inv.Body().InvoiceLine[0].TaxTotal[0].TaxSubtotal[0]
	if s.BaseUnitMeasure[0].UnitCode != "C62" || s.BaseUnitMeasure[0].Value.String() != "1" || s.PerUnitAmount[0].Value.String() != "10.00" {
		t.Errorf("per-unit tax %+v %+v", s.BaseUnitMeasure, s.PerUnitAmount)
	}
	if c := inv.Body().InvoiceLine[0].Item[0].CommodityClassification; c[0].ItemClassificationCode[0].ListID != "PTC" || c[1].ItemClassificationCode[0].Value != "003" {
		t.Errorf("classifications %+v", c)
	}
}

// TestParseEncodeSamples: the model holds every element of the samples:
// encoding what Parse read gives the sample back, the same keys in the
// same order with the same values. (1.0-Invoice-MultiLineItem-Sample.json
// repeats the key TaxSubtotal in one object; the comparison is with the
// sample as encoding/json reads it, the last value winning.)
func TestParseEncodeSamples(t *testing.T) {
	for _, path := range samplePaths(t) {
		orig := readFile(t, path)
		inv, err := ubl.Parse(orig)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out, err := ubl.Encode(inv)
		if err != nil {
			t.Fatalf("%s: Encode: %v", path, err)
		}
		want, err := dedupe(orig)
		if err != nil {
			t.Fatal(err)
		}
		if msg := sameTokens(want, out); msg != "" {
			t.Errorf("%s: encoding what Parse read differs: %s", filepath.Base(path), msg)
		}
	}
}

// TestEncodeSignedSample: without UBLExtensions and Signature, the
// authority's signed sample encodes to exactly the bytes whose SHA-256 its
// signature carries as the document digest; with them, to the sample
// minified.
func TestEncodeSignedSample(t *testing.T) {
	orig := readFile(t, filepath.Join(shared(t, "myinvois-samples"), "sample-ul-invoice-2.1-signed.min.json"))
	inv, err := ubl.Parse(orig)
	if err != nil {
		t.Fatal(err)
	}
	out, err := ubl.Encode(inv)
	if err != nil {
		t.Fatal(err)
	}
	var min bytes.Buffer
	if err := json.Compact(&min, orig); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out, min.Bytes()) {
		t.Errorf("signed sample not reproduced byte for byte: %s", sameTokens(min.Bytes(), out))
	}

	// The digest of the Reference with URI "" in SignedInfo.
	var ext []struct {
		UBLExtension []struct {
			ExtensionContent []struct {
				UBLDocumentSignatures []struct {
					SignatureInformation []struct {
						Signature []struct {
							SignedInfo []struct {
								Reference []struct {
									URI         string
									DigestValue []struct {
										V string `json:"_"`
									}
								}
							}
						}
					}
				}
			}
		}
	}
	b := inv.Body()
	if err := json.Unmarshal(b.UBLExtensions, &ext); err != nil {
		t.Fatal(err)
	}
	want := ""
	for _, r := range ext[0].UBLExtension[0].ExtensionContent[0].UBLDocumentSignatures[0].SignatureInformation[0].Signature[0].SignedInfo[0].Reference {
		if r.URI == "" {
			want = r.DigestValue[0].V
		}
	}
	if want != "vMs/IdnS7isftqrBDr4F1LK/CkvBkW5Gb3Wn6OVzAxo=" {
		t.Fatalf("sample's document digest %q", want)
	}
	b.UBLExtensions, b.Signature = nil, nil
	unsigned, err := ubl.Encode(inv)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(unsigned)
	if got := base64.StdEncoding.EncodeToString(sum[:]); got != want {
		t.Errorf("digest of the unsigned encoding %s, want %s", got, want)
	}
}

// sameTokens compares two JSON texts token by token (object keys in order,
// numbers by exact value), and describes the first difference.
func sameTokens(a, b []byte) string {
	da, db := json.NewDecoder(bytes.NewReader(a)), json.NewDecoder(bytes.NewReader(b))
	da.UseNumber()
	db.UseNumber()
	for i := 0; ; i++ {
		ta, ea := da.Token()
		tb, eb := db.Token()
		if ea == io.EOF && eb == io.EOF {
			return ""
		}
		if ea != nil || eb != nil {
			return "token " + itoa(i) + ": errors " + errString(ea) + " / " + errString(eb)
		}
		if na, ok := ta.(json.Number); ok {
			nb, ok := tb.(json.Number)
			if !ok || !decimal.RequireFromString(string(na)).Equal(decimal.RequireFromString(string(nb))) {
				return "token " + itoa(i) + ": " + string(na) + " vs " + jsonText(tb)
			}
			continue
		}
		if ta != tb {
			return "token " + itoa(i) + ": " + jsonText(ta) + " vs " + jsonText(tb)
		}
	}
}

func errString(err error) string {
	if err == nil {
		return "none"
	}
	return err.Error()
}

func jsonText(v any) string { b, _ := json.Marshal(v); return string(b) }

func itoa(i int) string { return decimal.NewFromInt(int64(i)).String() }

// TestRoundTrip: Parse(Marshal(x)) encodes to Marshal(x), byte for byte.
func TestRoundTrip(t *testing.T) {
	for _, f := range fixtures() {
		out := marshal(t, f)
		inv, err := ubl.Parse(out)
		if err != nil {
			t.Fatalf("%s: Parse: %v", f.name, err)
		}
		again, err := ubl.Encode(inv)
		if err != nil {
			t.Fatalf("%s: Encode: %v", f.name, err)
		}
		if !bytes.Equal(again, out) {
			t.Errorf("%s: re-marshalled bytes differ: %s", f.name, sameTokens(out, again))
		}
	}
}

// TestParseRefuses: not JSON, wrong types, no Invoice element.
func TestParseRefuses(t *testing.T) {
	for _, bad := range []string{
		``, `[]`, `{`, `{}`, `{"Invoice":[]}`, `{"Invoice":[{},{}]}`,
		`{"Invoice":[{"ID":"x"}]}`,
		`{"Invoice":[{"LegalMonetaryTotal":[{"PayableAmount":[{"_":"12.30","currencyID":"MYR"}]}]}]}`,
		`{"Invoice":[{"LegalMonetaryTotal":[{"PayableAmount":[{"_":1e400,"currencyID":"MYR"}]}]}]}`,
		`{"Invoice":[{"AllowanceCharge":[{"ChargeIndicator":[{"_":"false"}]}]}]}`,
	} {
		if inv, err := ubl.Parse([]byte(bad)); err == nil {
			t.Errorf("Parse(%s) = %+v, want an error", bad, inv)
		}
	}
	if _, err := ubl.Parse([]byte(`{"_D":"x","Invoice":[]}`)); !errors.Is(err, ubl.ErrNoInvoice) {
		t.Errorf("no Invoice element: %v, want ErrNoInvoice", err)
	}
}
