package golive

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/einvoice/einvoice/internal/e2e/e2etest"
	"github.com/einvoice/einvoice/internal/testdb/migrated"

	"github.com/einvoice/einvoice/client"
)

// The end-to-end tests of the authority's own codes and fields (DECISIONS
// 13): the list of its classification codes, the line's
// authorityClassification, tariffCode and countryOfOrigin, and the
// document's customs, FTA, Incoterms and bill reference fields.

// TestAuthorityCodesList: GET /authority-classifications answers the
// authority's 45 codes whole, in the shape of the other code lists.
func TestAuthorityCodesList(t *testing.T) {
	t.Parallel()
	svc := e2etest.StartService(t, migrated.SQLite(t))
	api := svc.API(t, svc.DemoKey)
	codes, err := api.Codes.AuthorityClassifications(t.Context())
	e2etest.Must(t, codes, err)
	if len(codes) != 45 || codes[0].Code != "001" || codes[44].Code != "045" || codes[3].Name != "Consolidated e-Invoice" {
		t.Errorf("authority classifications = %d codes, first %+v, last %+v", len(codes), codes[0], codes[len(codes)-1])
	}
	r := svc.Client(t, svc.DemoKey).Do("GET", "/api/v1/authority-classifications", nil).Want(t, 200, "")
	if r.Body["meta"] != nil {
		t.Errorf("a code list is answered whole: meta %v", r.Body["meta"])
	}
}

// tradeDoc is the single-line sample with every trade field and code.
func tradeDoc(serial, buyerID string) *client.Document {
	d := e2etest.SingleLineDoc(serial)
	d.BuyerID = buyerID
	d.CustomsFormReference, d.CustomsForm2Reference = "E23456789123,E98765432123", "E12345678912,E23456789123"
	d.FreeTradeAgreement, d.Incoterms, d.BillReferenceNumber = "ASEAN-Australia-New Zealand FTA (AANZFTA)", "CIF", "E12345678912"
	l := &d.Lines[0]
	l.AuthorityClassification, l.TariffCode, l.CountryOfOrigin = "003", "9800.00.0010", "MYS"
	return d
}

// ublStep is one hop of a path in a UBL JSON document: into key, keeping
// the elements whose leaf (or attribute) attr is want; with attr and no
// want, those without attr.
type ublStep struct{ key, attr, want string }

// ublValues returns the "_" values at the end of path from the Invoice
// element.
func ublValues(doc []byte, path ...ublStep) []string {
	var root map[string]any
	if json.Unmarshal(doc, &root) != nil {
		return nil
	}
	nodes := []map[string]any{root}
	for _, s := range append([]ublStep{{key: "Invoice"}}, path...) {
		var next []map[string]any
		for _, n := range nodes {
			arr, _ := n[s.key].([]any)
			for _, e := range arr {
				m, ok := e.(map[string]any)
				if !ok {
					continue
				}
				if s.attr != "" {
					v, has := m[s.attr].(string) // an attribute
					if !has {
						if leaf := e2etest.UBL(m, s.attr); leaf != nil {
							v, has = e2etest.Str(leaf["_"]), true
						}
					}
					if (s.want == "" && has) || (s.want != "" && v != s.want) {
						continue
					}
				}
				next = append(next, m)
			}
		}
		nodes = next
	}
	var out []string
	for _, n := range nodes {
		out = append(out, e2etest.Str(n["_"]))
	}
	return out
}

// TestAuthorityCodesFields: each field is stored and read back, written to
// the UBL where the authority's sample carries it, and the document goes
// to the built-in sandbox and comes out Valid.
func TestAuthorityCodesFields(t *testing.T) {
	t.Parallel()
	sample, err := os.ReadFile(filepath.Join(sharedDir(t), "1.1-Invoice-MultiLineItem-Sample.json"))
	if err != nil {
		t.Fatal(err)
	}
	e2etest.EachEngine(t, func(t *testing.T, dsn string) {
		ctx := t.Context()
		_, c := e2etest.StartLifecycleAPI(t, dsn)
		b, err := c.Buyers.Create(ctx, e2etest.PartyOf(t, e2etest.SampleBuyer()))
		buyer := e2etest.Must(t, b, err).ID
		d, err := c.Documents.Create(ctx, tradeDoc("TRADE-2026-0001", buyer))
		id := e2etest.Must(t, d, err).ID
		got, err := c.Documents.Get(ctx, id)
		e2etest.Must(t, got, err)
		want := tradeDoc("", "")
		l, wl := got.Lines[0], want.Lines[0]
		for _, f := range []struct{ name, got, want string }{
			{"customsFormReference", got.CustomsFormReference, want.CustomsFormReference},
			{"customsForm2Reference", got.CustomsForm2Reference, want.CustomsForm2Reference},
			{"freeTradeAgreement", got.FreeTradeAgreement, want.FreeTradeAgreement},
			{"incoterms", got.Incoterms, want.Incoterms},
			{"billReferenceNumber", got.BillReferenceNumber, want.BillReferenceNumber},
			{"invoiceLines.0.authorityClassification", l.AuthorityClassification, wl.AuthorityClassification},
			{"invoiceLines.0.tariffCode", l.TariffCode, wl.TariffCode},
			{"invoiceLines.0.countryOfOrigin", l.CountryOfOrigin, wl.CountryOfOrigin},
		} {
			if f.got != f.want {
				t.Errorf("%s read back %q, want %q", f.name, f.got, f.want)
			}
		}
		// The fields survive a read sent back (PUT of what GET answered).
		upd, err := c.Documents.Update(ctx, id, got)
		if e2etest.Must(t, upd, err).Incoterms != "CIF" || upd.Lines[0].TariffCode != wl.TariffCode {
			t.Errorf("update of the read document = %+v", upd)
		}

		e2etest.WantValidationPassed(t, c, "trade invoice", id)
		sub, err := c.Documents.Submit(ctx, id)
		e2etest.Want200(t, e2etest.Must(t, sub, err))
		e2etest.WantValidStatus(t, "trade invoice", e2etest.WaitStatusTyped(t, c, id, client.StatusValid, 20*time.Second))

		u, err := c.Documents.UBL(ctx, id)
		e2etest.Must(t, u, err)
		for _, p := range []struct {
			field string
			path  []ublStep
			want  string
		}{
			{"customsFormReference", []ublStep{{"AdditionalDocumentReference", "DocumentType", "CustomsImportForm"}, {key: "ID"}}, want.CustomsFormReference},
			{"customsForm2Reference", []ublStep{{"AdditionalDocumentReference", "DocumentType", "K2"}, {key: "ID"}}, want.CustomsForm2Reference},
			{"freeTradeAgreement", []ublStep{{"AdditionalDocumentReference", "DocumentType", "FreeTradeAgreement"}, {key: "DocumentDescription"}}, want.FreeTradeAgreement},
			{"incoterms", []ublStep{{"AdditionalDocumentReference", "DocumentType", ""}, {key: "ID"}}, want.Incoterms},
			{"billReferenceNumber", []ublStep{{key: "BillingReference"}, {key: "AdditionalDocumentReference"}, {key: "ID"}}, want.BillReferenceNumber},
			{"tariffCode", []ublStep{{key: "InvoiceLine"}, {key: "Item"}, {key: "CommodityClassification"}, {"ItemClassificationCode", "listID", "PTC"}}, wl.TariffCode},
			{"authorityClassification", []ublStep{{key: "InvoiceLine"}, {key: "Item"}, {key: "CommodityClassification"}, {"ItemClassificationCode", "listID", "CLASS"}}, wl.AuthorityClassification},
			{"countryOfOrigin", []ublStep{{key: "InvoiceLine"}, {key: "Item"}, {key: "OriginCountry"}, {key: "IdentificationCode"}}, wl.CountryOfOrigin},
		} {
			if in := ublValues(sample, p.path...); len(in) == 0 || slices.Contains(in, "") {
				t.Errorf("%s: the sample has %q at the path", p.field, in)
			}
			if ours := ublValues(u, p.path...); !slices.Equal(ours, []string{p.want}) {
				t.Errorf("%s: our UBL has %q at the sample's path, want %q", p.field, ours, p.want)
			}
		}
	})
}

// TestAuthorityCodesRefused: create and update refuse unknown codes (422
// naming the line's field); validate refuses codes the authority reserves
// for another kind, naming the code that fits, and judges the lengths.
func TestAuthorityCodesRefused(t *testing.T) {
	t.Parallel()
	e2etest.EachEngine(t, func(t *testing.T, dsn string) {
		ctx := t.Context()
		svc, c := e2etest.StartLifecycleAPI(t, dsn)
		raw := svc.Client(t, svc.DemoKey)
		b, err := c.Buyers.Create(ctx, e2etest.PartyOf(t, e2etest.SampleBuyer()))
		buyer := e2etest.Must(t, b, err).ID
		s, err := c.Sellers.Create(ctx, e2etest.PartyOf(t, e2etest.SampleSeller()))
		seller := e2etest.Must(t, s, err).ID

		// Unknown codes: 422, nothing stored.
		for _, bad := range []struct{ field, value string }{
			{"authorityClassification", "046"}, {"authorityClassification", "4"}, {"countryOfOrigin", "MY"},
		} {
			body := e2etest.DocBody(tradeDoc("BAD-"+bad.value, buyer))
			body["invoiceLines"].([]any)[0].(map[string]any)[bad.field] = bad.value
			r := raw.Do("POST", "/api/v1/invoices", body).Want(t, 422, client.CodeValidationFailed)
			if r.FieldErrors()["invoiceLines.0."+bad.field] == nil {
				t.Errorf("%s %q: errors %v, want invoiceLines.0.%s named", bad.field, bad.value, r.FieldErrors(), bad.field)
			}
		}
		d, err := c.Documents.Create(ctx, tradeDoc("TRADE-2026-0002", buyer))
		doc := e2etest.Must(t, d, err)
		doc.Lines[0].AuthorityClassification = "999"
		_, err = c.Documents.Update(ctx, doc.ID, doc)
		if e := e2etest.WantErr(t, err, 422, client.CodeValidationFailed); e.Field("invoiceLines.0.authorityClassification") == nil {
			t.Errorf("update with an unknown code: %v, want invoiceLines.0.authorityClassification named", e)
		}

		// Lengths are validate's: create takes them, validate refuses.
		doc.Lines[0].AuthorityClassification = "003"
		doc.Incoterms, doc.Lines[0].TariffCode = "CIFF", "9800.00.00101"
		upd, err := c.Documents.Update(ctx, doc.ID, doc)
		e2etest.Must(t, upd, err)
		e2etest.WantValidationFailed(t, c, "too long", doc.ID, e2etest.Problem{Rule: "TOO_LONG", Field: "incoterms"}, e2etest.Problem{Rule: "TOO_LONG", Field: "invoiceLines.0.tariffCode"})

		// Codes reserved for another kind.
		const at = "invoiceLines.0.authorityClassification"
		consolidated := &client.Document{Type: client.TypeConsolidatedInvoice, InvoiceSerialNumber: "CON-2026-11", AutoCalculate: true,
			Lines: []client.Line{e2etest.SampleLine("Receipt 001 - 100", "1", "C62", "100", e2etest.Tax("01", "10", ""))}}
		for _, c0 := range []struct {
			what string
			doc  *client.Document
			code string
			fits string // what the message says fits
		}{
			{"004 on an invoice", tradeDoc("CLS-1", buyer), "004", "use 022 (Others)"},
			{"034 on an invoice", tradeDoc("CLS-2", buyer), "034", "only for self-billed documents"},
			{"045 on a credit note", e2etest.NoteDoc(tradeDoc("CLS-3", buyer), e2etest.InvoiceSerial, e2etest.InvoiceUUID), "045", "use 022 (Others)"},
			{"004 on a self-billed invoice", func() *client.Document {
				d := tradeDoc("CLS-4", "")
				d.OnBehalfSellerID, d.Type = seller, client.TypeSelfBilledInvoice
				return d
			}(), "004", "use 036 (Self-billed - Others)"},
			{"022 on a consolidated invoice", consolidated, "022", "classified 004 (Consolidated e-Invoice)"},
		} {
			if c0.doc.Type == "" && len(c0.doc.References) > 0 {
				c0.doc.Type = client.TypeCreditNote
			}
			c0.doc.Lines[0].AuthorityClassification = c0.code
			d, err := c.Documents.Create(ctx, c0.doc)
			id := e2etest.Must(t, d, err).ID
			res := e2etest.WantValidationFailed(t, c, c0.what, id, e2etest.Problem{Rule: "CLASSIFICATION_WRONG_KIND", Field: at})
			if len(res.Problems) == 1 && !strings.Contains(res.Problems[0].Message, c0.fits) {
				t.Errorf("%s: message %q does not say %q", c0.what, res.Problems[0].Message, c0.fits)
			}
		}
		// The codes of the kind pass.
		sb := tradeDoc("CLS-5", "")
		sb.OnBehalfSellerID, sb.Type = seller, client.TypeSelfBilledInvoice
		sb.Lines[0].AuthorityClassification = "034"
		d, err = c.Documents.Create(ctx, sb)
		e2etest.WantValidationPassed(t, c, "034 on a self-billed invoice", e2etest.Must(t, d, err).ID)
	})
}
