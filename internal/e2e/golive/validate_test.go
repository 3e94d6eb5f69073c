package golive

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/einvoice/einvoice/internal/e2e/e2etest"

	"github.com/shopspring/decimal"

	"github.com/einvoice/einvoice/client"
	"github.com/einvoice/einvoice/internal/einvoice"
	"github.com/einvoice/einvoice/internal/servetest"
)

// The documents of TestValidateRealistic follow the authority's official
// samples (MyInvois SDK, version 1.1), read from the shared test data in
// place (never copied into the repository): the same parties, lines, taxes,
// currencies and references, with our own serial numbers, well-formed TINs
// where the samples hold placeholders ("Supplier's TIN"), and the codes of
// our API. TestValidateSamplesModelled checks the models against the files.
//
// Where a sample cannot be followed to the letter:
//   - addresses: the samples put Kuala Lumpur 50480 in state 10 (Selangor);
//     ours use 14 (W.P. Kuala Lumpur), where that postcode is;
//   - exempt (E) entries: the samples give them Percent 6; an exempt entry
//     has rate 0 here (and in the authority's computation: no tax);
//   - classifications: ours (001-022), not the authority's: the computer
//     goods and the consolidated receipts of a computer wholesaler are 004
//     (Electronics);
//   - the multi-line sample's per-unit tax (10.00 per unit, sales tax 01):
//     our API takes a per-unit rate for tourism tax (03) only, so that line
//     carries tourism tax at 10 per unit; its third line's sales-tax entry on
//     a taxable amount of 0 is left out (the line is exempt, as its tax total
//     of 0 says);
//   - the samples' line allowance and charge amounts and document totals are
//     placeholders (1436.50 for one item at 17.00); ours are computed
//     (autoCalculate), and match the samples where theirs add up
//     (multi-line 4,585.00, consolidated 33,000.00);
//   - the sample notes refer to "Reference Invoice UUID": ours give a
//     26-character uuid, the authority's format, and the invoice of ours
//     they refer to is marked Valid first (the authority flow does not exist
//     yet); the refund note is about a document issued before e-invoicing
//     (isPreEinvoicing, NA).
//
// The samples are written with the typed client (package client). The
// untyped forms (sampleProfile, sampleBuyer, sampleSeller, singleLineBody,
// realistic.body) are the same values as JSON objects, for the tests that
// send them through rawClient: derived from the typed ones, so that both
// always say the same.

// docLastEvent returns the document's status, the last entry of its
// history and the number of entries.
func docLastEvent(t *testing.T, c *client.Client, id string) (client.Status, client.Event, int) {
	t.Helper()
	d, err := c.Documents.Get(t.Context(), id)
	d = e2etest.Must(t, d, err)
	if len(d.History) == 0 {
		t.Fatalf("document %s has no history", id)
	}
	return d.Status, d.History[len(d.History)-1], len(d.History)
}

// startValidateService runs serve with a rate limit the many requests of a
// test do not reach, and returns it with the typed client of its demo key.
func startValidateService(t *testing.T, dsn string) (*e2etest.Service, *client.Client) {
	svc := e2etest.StartService(t, dsn, "--rate-limit", "100000")
	return svc, svc.API(t, svc.DemoKey)
}

// TestValidateRealistic builds, through the API, a document of each kind
// modelled on the authority's samples, and checks each validates: ready,
// with its history.
func TestValidateRealistic(t *testing.T) {
	t.Parallel()
	e2etest.EachEngine(t, func(t *testing.T, dsn string) {
		_, c := startValidateService(t, dsn)
		ctx := t.Context()
		prof, err := c.Profile.Update(ctx, e2etest.SampleSupplier(), nil)
		prof = e2etest.Must(t, prof, err)
		if !prof.IsReady {
			t.Fatalf("sample profile not ready: %v", prof.ReadinessErrors)
		}
		buyer, err := c.Buyers.Create(ctx, e2etest.SampleBuyerParty())
		buyer = e2etest.Must(t, buyer, err)
		seller, err := c.Sellers.Create(ctx, e2etest.SampleSellerParty())
		seller = e2etest.Must(t, seller, err)
		if !buyer.IsReady || !seller.IsReady {
			t.Fatalf("sample parties not ready: buyer %v, seller %v", buyer.ReadinessErrors, seller.ReadinessErrors)
		}
		ids := map[string]string{} // serial -> id
		kinds := map[einvoice.DocumentKind]bool{}
		for _, r := range e2etest.RealisticSet(buyer.ID, seller.ID) {
			info := e2etest.KindInfo(t, r.Kind)
			serial := r.Doc.InvoiceSerialNumber
			if info.Note {
				// The notes' invoice of ours is Valid at the authority by
				// now (the authority flow does not exist yet).
				if ref := r.Doc.References[0].ReferenceNumber; ids[ref] != "" {
					e2etest.SetStatus(t, dsn, ids[ref], einvoice.StatusValid)
				}
			}
			d, err := c.Documents.Create(ctx, r.Doc)
			d = e2etest.Must(t, d, err)
			// Created at the kind's endpoint (info.Path).
			if d.Type != client.DocumentType(r.Kind) || d.TypeCode != info.TypeCode {
				t.Errorf("%s (%s): created as %s (%s), want %s (%s)", serial, r.Sample, d.Type, d.TypeCode, r.Kind, info.TypeCode)
			}
			id := d.ID
			ids[serial] = id
			kinds[r.Kind] = true
			if d.TotalPayableAmount != client.Decimal(r.Payable) {
				t.Errorf("%s (%s): totalPayableAmount = %v, want %s", serial, r.Sample, d.TotalPayableAmount, r.Payable)
			}
			e2etest.WantValidationPassed(t, c, serial+" ("+r.Sample+")", id)
			status, last, n := docLastEvent(t, c, id)
			if status != client.StatusReady || last.Status != client.StatusReady || last.Note != "validation passed" || n != 2 {
				t.Errorf("%s: status %s, history %d entries ending %+v, want ready after validation passed", serial, status, n, last)
			}
			// Validating a ready document again changes nothing.
			e2etest.WantValidationPassed(t, c, serial+" again", id)
			if _, _, again := docLastEvent(t, c, id); again != n {
				t.Errorf("%s: validating again added history: %d entries, want %d", serial, again, n)
			}
		}
		if len(kinds) != len(einvoice.Kinds) {
			t.Errorf("the realistic set covers %d kinds, want %d", len(kinds), len(einvoice.Kinds))
		}
		ready, err := c.Documents.List(ctx, &client.DocumentListOptions{Status: client.StatusReady})
		if got := e2etest.Must(t, ready, err).Meta.Total; got != 9 {
			t.Errorf("ready documents = %v, want 9 (11 less the 2 marked Valid)", got)
		}
		usd, err := c.Documents.Get(ctx, ids["INV-2025-000103"])
		if d := e2etest.Must(t, usd, err); d.TotalTaxAmountMyr != "0.00" {
			t.Errorf("USD invoice: totalTaxAmountMyr = %v, want 0.00 (exempt)", d.TotalTaxAmountMyr)
		}
	})
}

// TestValidateFailures: what fails validation says why and leaves the
// document draft; what cannot be validated is refused.
func TestValidateFailures(t *testing.T) {
	t.Parallel()
	e2etest.EachEngine(t, func(t *testing.T, dsn string) {
		svc, c := startValidateService(t, dsn)
		ctx := t.Context()
		b, err := c.Buyers.Create(ctx, e2etest.ReadyBuyer("Hebat Group"))
		goodBuyer := e2etest.Must(t, b, err).ID
		s := e2etest.ReadyBuyer("Supplier Sdn. Bhd.")
		s.MSICCode, s.BusinessActivityDescription = "46510", "Wholesale"
		s, err = c.Sellers.Create(ctx, s)
		sellerID := e2etest.Must(t, s, err).ID
		// widgetLine and invoice are the typed forms of documents_test.go's
		// line and docFixture.invoice.
		widgetLine := func(price, taxType, rate string) client.Line {
			return client.Line{Classifications: []string{"001"}, ProductDescription: "Widget", Quantity: "1", UnitCode: "H87",
				UnitPrice: client.Decimal(price), Taxes: []client.LineTax{{TaxType: taxType, TaxRate: client.Decimal(rate)}}}
		}
		invoice := func(serial string, lines ...client.Line) *client.Document {
			return &client.Document{BuyerID: goodBuyer, InvoiceSerialNumber: serial, CurrencyCode: "MYR",
				AutoCalculate: true, Lines: lines, Payment: &client.Payment{PaymentMode: "03", PaymentTerms: "30 days"}}
		}
		create := func(d *client.Document) string {
			t.Helper()
			d, err := c.Documents.Create(ctx, d)
			return e2etest.Must(t, d, err).ID
		}
		exempt := func() client.Line {
			l := widgetLine("100", "E", "0")
			l.Taxes[0].ExemptionReason = "Exempt New Means of Transport"
			return l
		}

		// A buyer without a phone can only be a draft: two problems.
		noPhone := e2etest.ReadyBuyer("No Phone Sdn. Bhd.")
		noPhone.Contact = client.Contact{}
		noPhone.IsDraft = true
		b, err = c.Buyers.Create(ctx, noPhone)
		buyerID := e2etest.Must(t, b, err).ID
		doc := invoice("INV-F-1", widgetLine("100", "01", "10"))
		doc.BuyerID = buyerID
		id := create(doc)
		r := e2etest.WantValidationFailed(t, c, "buyer without phone", id,
			e2etest.Problem{Rule: "PARTY_NOT_READY", Field: "buyer.contact.phone"}, e2etest.Problem{Rule: "PARTY_NOT_READY", Field: "buyer.isDraft"})
		if !strings.Contains(r.Message, "buyer contact phone is required") {
			t.Errorf("message = %q, want it to name the buyer's phone", r.Message)
		}
		if status, _, n := docLastEvent(t, c, id); status != client.StatusDraft || n != 1 {
			t.Errorf("a failed validation of a draft: status %s, %d history entries, want draft and 1", status, n)
		}
		// Complete, but with a malformed phone: one problem.
		fixed := e2etest.ReadyBuyer("No Phone Sdn. Bhd.")
		fixed.Contact.Phone = "03-2345 6789"
		b, err = c.Buyers.Update(ctx, buyerID, fixed)
		e2etest.Must(t, b, err)
		r = e2etest.WantValidationFailed(t, c, "buyer with a malformed phone", id, e2etest.Problem{Rule: "PARTY_NOT_READY", Field: "buyer.contact.phone"})
		if !strings.HasPrefix(r.Message, "1 problem: buyer contact phone must be") {
			t.Errorf("message = %q", r.Message)
		}
		// Fixed: ready.
		fixed.Contact.Phone = "+60323456789"
		b, err = c.Buyers.Update(ctx, buyerID, fixed)
		e2etest.Must(t, b, err)
		e2etest.WantValidationPassed(t, c, "buyer fixed", id)
		// An edit returns a ready document to draft.
		got, err := c.Documents.Update(ctx, id, doc)
		got = e2etest.Must(t, got, err)
		if h := got.History; got.Status != client.StatusDraft || len(h) == 0 || h[len(h)-1].Note != "edited while ready" {
			t.Errorf("edit of a ready document: status %v, history %+v", got.Status, h)
		}
		e2etest.WantValidationPassed(t, c, "validated again", id)
		// A ready document that no longer passes returns to draft.
		b, err = c.Buyers.Update(ctx, buyerID, noPhone)
		e2etest.Must(t, b, err)
		e2etest.WantValidationFailed(t, c, "ready, then its buyer changed", id,
			e2etest.Problem{Rule: "PARTY_NOT_READY", Field: "buyer.contact.phone"}, e2etest.Problem{Rule: "PARTY_NOT_READY", Field: "buyer.isDraft"})
		if status, last, _ := docLastEvent(t, c, id); status != client.StatusDraft || last.Status != client.StatusDraft ||
			last.Note != "validation failed: 2 problems" {
			t.Errorf("failed validation of a ready document: status %s, last event %+v", status, last)
		}

		// Statuses that cannot be validated; Invalid can.
		other := create(invoice("INV-F-2", widgetLine("100", "01", "10")))
		for _, st := range []einvoice.Status{einvoice.StatusSubmitting, einvoice.StatusSubmitted, einvoice.StatusValid, einvoice.StatusCancelled} {
			e2etest.SetStatus(t, dsn, other, st)
			_, err := c.Documents.Validate(ctx, other)
			e2etest.WantErr(t, err, 409, client.CodeDocumentNotDraft)
			if status, _, _ := docLastEvent(t, c, other); string(status) != string(st) {
				t.Errorf("validate changed a %s document to %s", st, status)
			}
		}
		e2etest.SetStatus(t, dsn, other, einvoice.StatusInvalid)
		e2etest.WantValidationPassed(t, c, "an Invalid document", other)

		// Unknown and malformed ids, keys.
		_, err = c.Documents.Validate(ctx, e2etest.NewID())
		e2etest.WantErr(t, err, 404, client.CodeDocumentNotFound)
		_, err = c.Documents.Validate(ctx, "nope")
		e2etest.WantErr(t, err, 404, client.CodeDocumentNotFound)
		_, tenants, _ := servetest.Run(t, dsn, "tenant", "list")
		tenantID := strings.Fields(strings.Split(tenants, "\n")[1])[0]
		_, roKey, _ := servetest.Run(t, dsn, "key", "create", "--tenant", tenantID, "--read-only")
		draft := create(invoice("INV-F-3", widgetLine("100", "01", "10")))
		_, err = svc.API(t, strings.TrimSpace(roKey)).Documents.Validate(ctx, draft)
		e2etest.WantErr(t, err, 403, client.CodeForbidden)
		_, err = svc.API(t, "").Documents.Validate(ctx, draft)
		e2etest.WantErr(t, err, 401, client.CodeUnauthorized)
		if status, _, n := docLastEvent(t, c, draft); status != client.StatusDraft || n != 1 {
			t.Errorf("refused validations changed the document: %s, %d history entries", status, n)
		}
		// Another tenant's document is unknown.
		_, tenantB, _ := servetest.Run(t, dsn, "tenant", "create", "--name", "Other Sdn. Bhd.", "--tin", "C1234567890")
		_, keyB, _ := servetest.Run(t, dsn, "key", "create", "--tenant", strings.TrimSpace(tenantB))
		_, err = svc.API(t, strings.TrimSpace(keyB)).Documents.Validate(ctx, draft)
		e2etest.WantErr(t, err, 404, client.CodeDocumentNotFound)

		// References of notes.
		ourInvoice := create(invoice("INV-F-4", widgetLine("100", "01", "10")))
		note := func(kind client.DocumentType, serial, refNumber, refUUID string, pre bool) string {
			t.Helper()
			d := invoice(serial, exempt())
			d.Type = kind
			if strings.HasPrefix(string(kind), "self_billed") {
				d.BuyerID, d.OnBehalfSellerID = "", sellerID
			}
			d.References = []client.DocumentReference{{ReferenceNumber: refNumber, UUID: refUUID}}
			d.IsPreEinvoicing = pre
			return create(d)
		}
		cn := note(client.TypeCreditNote, "CN-F-1", "INV-F-4", e2etest.InvoiceUUID, false)
		r = e2etest.WantValidationFailed(t, c, "note on our draft invoice", cn, e2etest.Problem{Rule: "REFERENCE_NOT_VALID", Field: "documentReferences.0.referenceNumber"})
		if !strings.Contains(r.Message, "INV-F-4, which is draft, not Valid") {
			t.Errorf("message = %q", r.Message)
		}
		e2etest.SetStatus(t, dsn, ourInvoice, einvoice.StatusValid)
		e2etest.WantValidationPassed(t, c, "note on our Valid invoice", cn)
		e2etest.WantValidationFailed(t, c, "self-billed note on an invoice", note(client.TypeSelfBilledCreditNote, "SBC-F-1", "INV-F-4", e2etest.InvoiceUUID, false),
			e2etest.Problem{Rule: "REFERENCE_WRONG_FAMILY", Field: "documentReferences.0.referenceNumber"})
		e2etest.WantValidationFailed(t, c, "NA without isPreEinvoicing", note(client.TypeDebitNote, "DN-F-1", "NA", "NA", false),
			e2etest.Problem{Rule: "REFERENCE_NA_NOT_ALLOWED", Field: "documentReferences.0"})
		e2etest.WantValidationPassed(t, c, "NA with isPreEinvoicing", note(client.TypeDebitNote, "DN-F-2", "NA", "NA", true))
		e2etest.WantValidationFailed(t, c, "short uuid", note(client.TypeRefundNote, "RN-F-1", "INV-F-4", "F9D425P6DS7D8IU", false),
			e2etest.Problem{Rule: "REFERENCE_UUID_FORMAT", Field: "documentReferences.0.uuid"})
		e2etest.WantValidationPassed(t, c, "a reference to a document not ours", note(client.TypeRefundNote, "RN-F-2", "EXT-0099", e2etest.InvoiceUUID, false))

		// Document rules.
		issuedAt := func(d time.Duration) *time.Time {
			at := time.Now().Add(d).Truncate(time.Second) // as RFC 3339, to the second
			return &at
		}
		cases := []struct {
			name string
			edit func(d *client.Document)
			want []e2etest.Problem
		}{
			{"USD without exchange rate", func(d *client.Document) { d.CurrencyCode = "USD" },
				[]e2etest.Problem{{Rule: "EXCHANGE_RATE_REQUIRED", Field: "exchangeRate"}}},
			{"MYR with an exchange rate", func(d *client.Document) { d.ExchangeRate = "4.72" },
				[]e2etest.Problem{{Rule: "EXCHANGE_RATE_INVALID", Field: "exchangeRate"}}},
			{"exempt without reason", func(d *client.Document) { d.Lines = []client.Line{widgetLine("100", "E", "0")} },
				[]e2etest.Problem{{Rule: "EXEMPTION_REASON_REQUIRED", Field: "invoiceLines.0.invoiceLineTaxes.0.exemptionReason"}}},
			{"issued 4 days ago", func(d *client.Document) { d.ErpIssuedAt = issuedAt(-96 * time.Hour) },
				[]e2etest.Problem{{Rule: "ISSUE_TIME_TOO_OLD", Field: "erpIssuedAt"}}},
			{"issued tomorrow", func(d *client.Document) { d.ErpIssuedAt = issuedAt(24 * time.Hour) },
				[]e2etest.Problem{{Rule: "ISSUE_TIME_FUTURE", Field: "erpIssuedAt"}}},
			{"an invoice with references", func(d *client.Document) {
				d.References = []client.DocumentReference{{ReferenceNumber: "INV-F-4", UUID: e2etest.InvoiceUUID}}
			}, []e2etest.Problem{{Rule: "REFERENCES_NOT_ALLOWED", Field: "documentReferences"}}},
			{"a line without classification", func(d *client.Document) {
				l := widgetLine("100", "01", "10")
				l.Classifications = nil
				d.Lines = []client.Line{l}
			}, []e2etest.Problem{{Rule: "REQUIRED", Field: "invoiceLines.0.classifications"}}},
		}
		for i, tc := range cases {
			d := invoice(fmt.Sprintf("INV-R-%d", i), widgetLine("100", "01", "10"))
			tc.edit(d)
			e2etest.WantValidationFailed(t, c, tc.name, create(d), tc.want...)
		}

		// The tenant's profile is the supplier, or the buyer of self-billed kinds.
		inv := create(invoice("INV-P-1", widgetLine("100", "01", "10")))
		sb := invoice("SBI-P-1", widgetLine("100", "01", "10"))
		sb.Type, sb.BuyerID, sb.OnBehalfSellerID = client.TypeSelfBilledInvoice, "", sellerID
		sbID := create(sb)
		prof, err := c.Profile.Get(ctx)
		prof = e2etest.Must(t, prof, err)
		prof.Contact = client.Contact{Email: "billing@demo-trading.example"}
		prof, err = c.Profile.Update(ctx, prof, nil)
		e2etest.Must(t, prof, err)
		e2etest.WantValidationFailed(t, c, "profile without phone", inv, e2etest.Problem{Rule: "PROFILE_INCOMPLETE", Field: "supplier.contact.phone"})
		e2etest.WantValidationFailed(t, c, "profile without phone, self-billed", sbID, e2etest.Problem{Rule: "PROFILE_INCOMPLETE", Field: "buyer.contact.phone"})
	})
}

// sharedDir returns /work/shared: the folder shared next to the repository
// root (where go.mod is), or skips the test when it is absent.
func sharedDir(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Skip("no go.mod above the test's directory: cannot locate the shared test data")
		}
		dir = parent
	}
	shared := filepath.Join(filepath.Dir(dir), "shared", "testdata", "myinvois-samples")
	if _, err := os.Stat(shared); err != nil {
		t.Skipf("the authority's samples are not here (%s): the check of the models against them is skipped", shared)
	}
	return shared
}

func ublAll(v any, name string) []any {
	m, _ := v.(map[string]any)
	a, _ := m[name].([]any)
	return a
}

// sameNumber compares decimal texts ("17", "17.0"); "" and "0" are both
// absent.
func sameNumber(a, b string) bool {
	parse := func(s string) decimal.Decimal {
		if s == "" || s == "<nil>" {
			return decimal.Zero
		}
		d, err := decimal.NewFromString(s)
		if err != nil {
			return decimal.NewFromInt(-999999)
		}
		return d
	}
	return parse(a).Equal(parse(b))
}

// percent turns a UBL multiplier (0.15) into our rate (15).
func percent(s string) string {
	if s == "" {
		return ""
	}
	return decimal.RequireFromString(s).Shift(2).String()
}

// TestValidateSamplesModelled checks the realistic documents against the
// authority's samples they follow: kind, currency and exchange rate, each
// line (description, quantity, unit, price, discount and charge rates,
// taxes and exemption reasons), the document's discount and charge, payment,
// billing period, delivery recipient, references, and the parties.
func TestValidateSamplesModelled(t *testing.T) {
	t.Parallel()
	dir := sharedDir(t)
	// The tenant as a party: the fields the samples' supplier has.
	sp := e2etest.SampleSupplier()
	profile := &client.Party{Name: sp.Name, SSTRegistrationNumber: sp.SSTRegistrationNumber,
		TourismTaxRegistrationNumber: sp.TourismTaxRegistrationNumber, MSICCode: sp.MSICCode,
		BusinessActivityDescription: sp.BusinessActivityDescription, Address: sp.Address, Contact: sp.Contact}
	buyer, seller := e2etest.SampleBuyerParty(), e2etest.SampleSellerParty()
	for _, r := range e2etest.RealisticSet("buyer", "seller") {
		t.Run(r.Sample, func(t *testing.T) {
			raw, err := os.ReadFile(filepath.Join(dir, r.Sample))
			if err != nil {
				t.Fatal(err)
			}
			var file map[string]any
			if err := json.Unmarshal(raw, &file); err != nil {
				t.Fatal(err)
			}
			doc := e2etest.UBL(file, "Invoice")
			if doc == nil {
				t.Fatalf("%s: no Invoice", r.Sample)
			}
			info := e2etest.KindInfo(t, r.Kind)
			b := r.Doc
			same := func(what string, got any, want string) {
				t.Helper()
				if g := e2etest.Str(got); g != want && !(g == "<nil>" && want == "") {
					t.Errorf("%s: ours %q, the sample's %q", what, g, want)
				}
			}
			sameNum := func(what string, got any, want string) {
				t.Helper()
				if !sameNumber(e2etest.Str(got), want) {
					t.Errorf("%s: ours %v, the sample's %q", what, got, want)
				}
			}
			same("type code", info.TypeCode, e2etest.UBLText(doc, "InvoiceTypeCode"))
			same("currency", b.CurrencyCode, e2etest.UBLText(doc, "DocumentCurrencyCode"))
			sameNum("exchange rate", b.ExchangeRate, e2etest.UBLText(doc, "TaxExchangeRate", "CalculationRate"))

			// Document-level allowance (discount) and charge (fee).
			for _, ac := range ublAll(doc, "AllowanceCharge") {
				amount, reason := e2etest.UBLText(ac, "Amount"), e2etest.UBLText(ac, "AllowanceChargeReason")
				if e2etest.UBLText(ac, "ChargeIndicator") == "true" {
					sameNum("invoiceFeeAmount", b.InvoiceFeeAmount, amount)
					same("invoiceFeeDescription", b.InvoiceFeeDescription, reason)
				} else {
					sameNum("invoiceDiscountAmount", b.InvoiceDiscountAmount, amount)
					same("invoiceDiscountDescription", b.InvoiceDiscountDescription, reason)
				}
			}

			// Payment.
			pay := b.Payment
			if (e2etest.UBL(doc, "PaymentMeans") != nil) != (pay != nil) {
				t.Errorf("payment: ours %+v, the sample has PaymentMeans: %v", pay, e2etest.UBL(doc, "PaymentMeans") != nil)
			}
			if pay != nil {
				same("paymentMode", pay.PaymentMode, e2etest.UBLText(doc, "PaymentMeans", "PaymentMeansCode"))
				same("supplierBankAccountNumber", pay.SupplierBankAccountNumber, e2etest.UBLText(doc, "PaymentMeans", "PayeeFinancialAccount", "ID"))
				same("paymentTerms", pay.PaymentTerms, e2etest.UBLText(doc, "PaymentTerms", "Note"))
				sameNum("prepaymentAmount", pay.PrepaymentAmount, e2etest.UBLText(doc, "PrepaidPayment", "PaidAmount"))
				same("prepaymentDate", pay.PrepaymentDate, e2etest.UBLText(doc, "PrepaidPayment", "PaidDate"))
				same("prepaymentReferenceNumber", pay.PrepaymentReferenceNumber, e2etest.UBLText(doc, "PrepaidPayment", "ID"))
			}

			// Billing period.
			period := b.InvoicePeriod
			if (e2etest.UBL(doc, "InvoicePeriod") != nil) != (period != nil) {
				t.Errorf("invoicePeriod: ours %+v, the sample has one: %v", period, e2etest.UBL(doc, "InvoicePeriod") != nil)
			}
			if period != nil {
				same("billingPeriodStartDate", period.BillingPeriodStartDate, e2etest.UBLText(doc, "InvoicePeriod", "StartDate"))
				same("billingPeriodEndDate", period.BillingPeriodEndDate, e2etest.UBLText(doc, "InvoicePeriod", "EndDate"))
				same("frequencyOfBilling", period.FrequencyOfBilling, e2etest.UBLText(doc, "InvoicePeriod", "Description"))
			}

			// Delivery recipient.
			var recipient string
			if b.Delivery != nil {
				recipient = b.Delivery.RecipientName
			}
			same("delivery recipientName", recipient, e2etest.UBLText(doc, "Delivery", "DeliveryParty", "PartyLegalEntity", "RegistrationName"))

			// References: the notes, and only they, refer to an invoice.
			refersToInvoice := false
			for _, br := range ublAll(doc, "BillingReference") {
				refersToInvoice = refersToInvoice || e2etest.UBL(br, "InvoiceDocumentReference") != nil
			}
			if refersToInvoice != info.Note || (b.References != nil) != info.Note {
				t.Errorf("references: the sample refers to an invoice: %v; ours %+v", refersToInvoice, b.References)
			}

			// Lines.
			lines := b.Lines
			sampleLines := ublAll(doc, "InvoiceLine")
			if len(lines) != len(sampleLines) {
				t.Fatalf("%d lines, the sample %d", len(lines), len(sampleLines))
			}
			for i, sl := range sampleLines {
				l := lines[i]
				p := fmt.Sprintf("line %d ", i+1)
				same(p+"description", l.ProductDescription, e2etest.UBLText(sl, "Item", "Description"))
				sameNum(p+"quantity", l.Quantity, e2etest.UBLText(sl, "InvoicedQuantity"))
				same(p+"unit", l.UnitCode, e2etest.Str(e2etest.UBL(sl, "InvoicedQuantity")["unitCode"]))
				sameNum(p+"price", l.UnitPrice, e2etest.UBLText(sl, "Price", "PriceAmount"))
				for _, ac := range ublAll(sl, "AllowanceCharge") {
					rate, reason := percent(e2etest.UBLText(ac, "MultiplierFactorNumeric")), e2etest.UBLText(ac, "AllowanceChargeReason")
					if e2etest.UBLText(ac, "ChargeIndicator") == "true" {
						sameNum(p+"feeOrChargeRate", l.FeeOrChargeRate, rate)
						same(p+"feeOrChargeDescription", l.FeeOrChargeDescription, reason)
					} else {
						sameNum(p+"discountRate", l.DiscountRate, rate)
						same(p+"discountDescription", l.DiscountDescription, reason)
					}
				}
				// The sample's tax entries as ours: a per-unit amount is
				// tourism tax (our only per-unit type); exempt is rate 0;
				// an entry on no taxable amount is left out.
				var want []string
				for _, ts := range ublAll(e2etest.UBL(sl, "TaxTotal"), "TaxSubtotal") {
					typ := e2etest.UBLText(ts, "TaxCategory", "ID")
					switch {
					case e2etest.UBLText(ts, "PerUnitAmount") != "":
						want = append(want, "03 "+decimal.RequireFromString(e2etest.UBLText(ts, "PerUnitAmount")).String())
					case typ == "E":
						want = append(want, "E 0 "+e2etest.UBLText(ts, "TaxCategory", "TaxExemptionReason"))
					case sameNumber(e2etest.UBLText(ts, "TaxableAmount"), "0"):
					default:
						want = append(want, typ+" "+decimal.RequireFromString(e2etest.UBLText(ts, "Percent")).String())
					}
				}
				var got []string
				for _, tx := range l.Taxes {
					g := tx.TaxType + " " + decimal.RequireFromString(tx.TaxRate.String()).String()
					if tx.ExemptionReason != "" {
						g += " " + tx.ExemptionReason
					}
					got = append(got, g)
				}
				if !slices.Equal(got, want) {
					t.Errorf("%staxes: ours %q, the sample's %q", p, got, want)
				}
			}

			// Parties: the tenant is the supplier of invoices and notes; the
			// on-behalf seller the supplier of self-billed kinds (where the
			// tenant is the buyer, whose details are not the sample's).
			party := func(role string, sp map[string]any, ours *client.Party, msic bool) {
				t.Helper()
				same(role+" name", ours.Name, e2etest.UBLText(sp, "PartyLegalEntity", "RegistrationName"))
				same(role+" phone", ours.Contact.Phone, e2etest.UBLText(sp, "Contact", "Telephone"))
				same(role+" email", ours.Contact.Email, e2etest.UBLText(sp, "Contact", "ElectronicMail"))
				addr := ours.Address
				var lines []string
				for _, al := range ublAll(e2etest.UBL(sp, "PostalAddress"), "AddressLine") {
					lines = append(lines, e2etest.UBLText(al, "Line"))
				}
				same(role+" address", strings.Join([]string{addr.Line1, addr.Line2, addr.Line3}, ", "), strings.Join(lines, ", "))
				same(role+" city", addr.City, e2etest.UBLText(sp, "PostalAddress", "CityName"))
				same(role+" postcode", addr.PostCode, e2etest.UBLText(sp, "PostalAddress", "PostalZone"))
				same(role+" country", addr.CountryCode, e2etest.UBLText(sp, "PostalAddress", "Country", "IdentificationCode"))
				ids := map[string]string{}
				for _, pi := range ublAll(sp, "PartyIdentification") {
					id := e2etest.UBL(pi, "ID")
					ids[e2etest.Str(id["schemeID"])] = e2etest.Str(id["_"])
				}
				same(role+" SST", ours.SSTRegistrationNumber, ids["SST"])
				if msic {
					same(role+" MSIC", ours.MSICCode, e2etest.UBLText(sp, "IndustryClassificationCode"))
					same(role+" activity", ours.BusinessActivityDescription, e2etest.Str(e2etest.UBL(sp, "IndustryClassificationCode")["name"]))
					same(role+" TTX", ours.TourismTaxRegistrationNumber, ids["TTX"])
				}
			}
			supplier, customer := e2etest.UBL(doc, "AccountingSupplierParty", "Party"), e2etest.UBL(doc, "AccountingCustomerParty", "Party")
			switch {
			case info.SelfBilled:
				party("supplier", supplier, seller, true)
			case info.Consolidated:
				party("supplier", supplier, profile, true)
				same("consolidated buyer TIN (filled in by the service)", einvoice.TINGeneralPublic, e2etest.UBLText(customer, "PartyIdentification", "ID"))
			default:
				party("supplier", supplier, profile, true)
				party("buyer", customer, buyer, false)
			}
		})
	}
}
