package client_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/einvoice/einvoice/client"
)

func newClient(t *testing.T, opts ...client.Option) *client.Client {
	t.Helper()
	return client.New(serverURL, apiKey, append([]client.Option{client.WithRetries(0)}, opts...)...)
}

// asError returns err as an *Error, failing the test when it is not one.
func asError(t *testing.T, err error) *client.Error {
	t.Helper()
	var e *client.Error
	if !errors.As(err, &e) {
		t.Fatalf("err = %v (%T), want a *client.Error", err, err)
	}
	return e
}

// waitValid follows a submitted document to its verdict.
func waitValid(t *testing.T, c *client.Client, id string) *client.SubmissionStatus {
	t.Helper()
	ctx := context.Background()
	deadline := time.Now().Add(30 * time.Second)
	for {
		st, err := c.Documents.Status(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if st.Status != client.StatusSubmitting && st.Status != client.StatusSubmitted {
			return st
		}
		if time.Now().After(deadline) {
			t.Fatalf("document %s still %s after 30s", id, st.Status)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestParties drives every operation of buyers and sellers.
func TestParties(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	b, err := c.Buyers.Create(ctx, hebat("Parties Test Sdn. Bhd."))
	if err != nil {
		t.Fatal(err)
	}
	if b.ID == "" || !b.IsReady || b.CreatedAt.IsZero() || b.TINCheck == nil || b.TINCheck.Status != client.TINVerified {
		t.Errorf("created buyer = %+v, want an id, ready, verified TIN, times", b)
	}
	got, err := c.Buyers.Get(ctx, b.ID)
	if err != nil || got.Name != b.Name || got.Address != b.Address {
		t.Errorf("Get = %+v, %v; want the created buyer", got, err)
	}
	// A party read back is sent again as it is (the response-only fields
	// are accepted and ignored), with one change.
	got.Contact.Email = ""
	upd, err := c.Buyers.Update(ctx, b.ID, got)
	if err != nil || upd.Contact.Email != "" || upd.ID != b.ID || !upd.CreatedAt.Equal(b.CreatedAt) {
		t.Errorf("Update = %+v, %v; want the e-mail cleared, id and creation kept", upd, err)
	}
	page, err := c.Buyers.List(ctx, &client.PartyListOptions{Search: "parties test"})
	if err != nil || len(page.Items) != 1 || page.Meta.Total != 1 || page.Meta.PerPage != 15 || page.Meta.LastPage != 1 {
		t.Errorf("List = %+v, %v; want the one buyer", page, err)
	}

	seller := hebat("Seller Test Sdn. Bhd.")
	seller.MSICCode, seller.BusinessActivityDescription = "01111", "Growing of maize"
	s, err := c.Sellers.Create(ctx, seller)
	if err != nil || s.MSICCode != "01111" || s.BusinessActivityDescription != "Growing of maize" {
		t.Fatalf("seller = %+v, %v; want its MSIC code and activity", s, err)
	}
	// A buyer refuses the seller's own fields.
	_, err = c.Buyers.Create(ctx, &client.Party{Name: "x", MSICCode: "01111"})
	if e := asError(t, err); e.StatusCode != 422 || e.Field("msicCode") == nil {
		t.Errorf("buyer with an MSIC code: %v, want 422 naming msicCode", e)
	}
	for _, id := range []string{b.ID} {
		if err := c.Buyers.Delete(ctx, id); err != nil {
			t.Errorf("Delete buyer: %v", err)
		}
	}
	if err := c.Sellers.Delete(ctx, s.ID); err != nil {
		t.Errorf("Delete seller: %v", err)
	}
	_, err = c.Buyers.Get(ctx, b.ID)
	if e := asError(t, err); e.StatusCode != 404 || e.Code != client.CodeBuyerNotFound || e.RequestID == "" {
		t.Errorf("Get of a deleted buyer: %+v, want 404 BUYER_NOT_FOUND with a request id", e)
	}
}

// TestDocumentLifecycle creates, validates, submits, follows, shows and
// cancels a document; notes and self-billed kinds go to their endpoints.
func TestDocumentLifecycle(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	b, err := c.Buyers.Create(ctx, hebat("Lifecycle Sdn. Bhd."))
	if err != nil {
		t.Fatal(err)
	}
	d, err := c.Documents.Create(ctx, &client.Document{BuyerID: b.ID, InvoiceSerialNumber: "LC-0001", CurrencyCode: "MYR",
		AutoCalculate: true, Lines: []client.Line{cable(), cable()}, Payment: &client.Payment{PaymentMode: "01"}})
	if err != nil {
		t.Fatal(err)
	}
	if d.Type != client.TypeInvoice || d.TypeCode != "01" || d.Status != client.StatusDraft || d.TotalTaxAmount != "1.14" ||
		d.RoundingAmount != "0.02" || d.TotalPayableAmount != "20.00" || len(d.History) != 1 || d.Lines[0].TaxAmount != "0.57" {
		t.Errorf("created = %+v", d)
	}
	if len(d.TaxSubtotals) != 1 || d.TaxSubtotals[0].TaxableAmount != "18.84" || d.TaxSubtotals[0].TaxRate != "6" {
		t.Errorf("tax subtotals = %+v", d.TaxSubtotals)
	}
	// Update sends back what Get returned.
	got, err := c.Documents.Get(ctx, d.ID)
	if err != nil {
		t.Fatal(err)
	}
	got.Lines = append(got.Lines, cable())
	upd, err := c.Documents.Update(ctx, d.ID, got)
	if err != nil || len(upd.Lines) != 3 || upd.TotalTaxAmount != "1.71" {
		t.Fatalf("Update = %+v, %v; want 3 lines and 1.71 tax", upd, err)
	}

	res, err := c.Documents.Validate(ctx, d.ID)
	if err != nil || !res.ValidationPassed || res.Status != client.StatusReady {
		t.Fatalf("Validate = %+v, %v", res, err)
	}
	sub, err := c.Documents.Submit(ctx, d.ID, client.IdempotencyKey("lifecycle-submit-1"))
	if err != nil || sub.InvoiceCodeNumber != "LC-0001" || len(sub.DocumentUUID) != 26 {
		t.Fatalf("Submit = %+v, %v", sub, err)
	}
	st := waitValid(t, c, d.ID)
	if st.Status != client.StatusValid || st.ValidatedAt == nil || st.ValidationURL == "" || st.DocumentLongID == "" {
		t.Fatalf("status = %+v, want Valid with a validation link", st)
	}
	// Submitting again is a conflict.
	_, err = c.Documents.Submit(ctx, d.ID)
	if e := asError(t, err); e.StatusCode != 409 {
		t.Errorf("second submit: %v, want a 409", e)
	}

	qr, err := c.Documents.QR(ctx, d.ID, 128)
	if err != nil || qr.URL != st.ValidationURL || !bytes.HasPrefix(qr.PNG, []byte("\x89PNG")) {
		t.Errorf("QR = %v (url %q), want the validation link as a PNG", err, qr.URL)
	}
	png, err := c.Documents.QRImage(ctx, d.ID, client.PNG, 0)
	if err != nil || png.ContentType != "image/png" || !bytes.HasPrefix(png.Data, []byte("\x89PNG")) {
		t.Errorf("QRImage PNG: %v", err)
	}
	jpeg, err := c.Documents.QRImage(ctx, d.ID, client.JPEG, 64)
	if err != nil || jpeg.ContentType != "image/jpeg" || !bytes.HasPrefix(jpeg.Data, []byte{0xff, 0xd8}) {
		t.Errorf("QRImage JPEG: %v", err)
	}
	pdf, err := c.Documents.PDF(ctx, d.ID)
	if err != nil || pdf.ContentType != "application/pdf" || !strings.HasSuffix(pdf.Filename, ".pdf") || !bytes.HasPrefix(pdf.Data, []byte("%PDF-")) {
		t.Errorf("PDF: %v %+v", err, pdf)
	}
	ubl, err := c.Documents.UBL(ctx, d.ID)
	if err != nil || !json.Valid(ubl) || !bytes.Contains(ubl, []byte("LC-0001")) {
		t.Errorf("UBL: %v: %.200s", err, ubl)
	}
	_, err = c.Documents.QR(ctx, d.ID, 5000)
	if e := asError(t, err); e.StatusCode != 422 || e.Field("size") == nil {
		t.Errorf("QR of size 5000: %v, want 422 naming size", e)
	}

	// A credit note goes to its own endpoint and refers to the invoice.
	cn, err := c.Documents.Create(ctx, &client.Document{Type: client.TypeCreditNote, BuyerID: b.ID,
		InvoiceSerialNumber: "LC-CN-0001", CurrencyCode: "MYR", AutoCalculate: true, Lines: []client.Line{cable()},
		References: []client.DocumentReference{{ReferenceNumber: "LC-0001", UUID: st.DocumentUUID}}})
	if err != nil || cn.Type != client.TypeCreditNote || cn.TypeCode != "02" {
		t.Errorf("credit note = %+v, %v", cn, err)
	}
	if _, err := c.Documents.Create(ctx, &client.Document{Type: "receipt"}); err == nil || errors.As(err, new(*client.Error)) {
		t.Errorf("unknown type: %v, want a client-side error", err)
	}

	canc, err := c.Documents.Cancel(ctx, d.ID, "Wrong buyer")
	if err != nil || canc.Status != client.StatusCancelled || canc.CancelledAt == nil {
		t.Fatalf("Cancel = %+v, %v", canc, err)
	}
	final, err := c.Documents.Get(ctx, d.ID)
	if err != nil || final.Authority == nil || final.Authority.CancelReason != "Wrong buyer" || final.Frozen == nil ||
		final.Frozen.Customer.Name != "Lifecycle Sdn. Bhd." {
		t.Errorf("cancelled document = %+v, %v", final, err)
	}
	if err := c.Documents.Delete(ctx, cn.ID); err != nil {
		t.Errorf("Delete credit note: %v", err)
	}
}

// TestSubmitBulkAndList submits several documents at once and lists them
// with every filter.
func TestSubmitBulkAndList(t *testing.T) {
	ctx := context.Background()
	start := time.Now().UTC()
	c := newClient(t)
	b, err := c.Buyers.Create(ctx, hebat("Bulk Sdn. Bhd."))
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, n := range []string{"BULK-1", "BULK-2", "BULK-3"} {
		d, err := c.Documents.Create(ctx, &client.Document{BuyerID: b.ID, InvoiceSerialNumber: n, CurrencyCode: "MYR",
			AutoCalculate: true, Lines: []client.Line{cable()}, Payment: &client.Payment{PaymentMode: "01"}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Documents.Validate(ctx, d.ID); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, d.ID)
	}
	res, err := c.Documents.SubmitBulk(ctx, append(ids, ids[0]))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Accepted)+len(res.Pending) != 3 || len(res.Rejected) != 1 || res.Rejected[0].ErrorCode != client.CodeDuplicateID {
		t.Errorf("bulk = %+v, want 3 sent and the repeated id rejected", res)
	}
	_, err = c.Documents.SubmitBulk(ctx, nil)
	if e := asError(t, err); e.StatusCode != 422 || e.Field("document_ids") == nil {
		t.Errorf("empty bulk: %v, want 422 naming document_ids", e)
	}
	for _, id := range ids {
		waitValid(t, c, id)
	}

	page, err := c.Documents.List(ctx, &client.DocumentListOptions{Search: "bulk-", Status: client.StatusValid,
		Type: client.TypeInvoice, ListOptions: client.ListOptions{PerPage: 2}})
	if err != nil || len(page.Items) != 2 || page.Meta.Total != 3 || page.Meta.LastPage != 2 {
		t.Fatalf("List = %+v, %v; want 2 of 3", page, err)
	}
	var seen []string
	for d, err := range c.Documents.All(ctx, &client.DocumentListOptions{Search: "BULK-", ListOptions: client.ListOptions{PerPage: 2}}) {
		if err != nil {
			t.Fatal(err)
		}
		seen = append(seen, d.InvoiceSerialNumber)
	}
	if !slices.Equal(seen, []string{"BULK-3", "BULK-2", "BULK-1"}) {
		t.Errorf("All = %v, want the three newest first", seen)
	}
	// The issue-date bounds: the documents issued during the test, and none
	// from the next day on.
	today := time.Now().UTC()
	if p, err := c.Documents.List(ctx, &client.DocumentListOptions{Search: "BULK-", From: start, To: today}); err != nil || p.Meta.Total != 3 {
		t.Errorf("issued during the test: %+v, %v; want 3", p, err)
	}
	if p, err := c.Documents.List(ctx, &client.DocumentListOptions{Search: "BULK-", From: today.AddDate(0, 0, 1)}); err != nil || p.Meta.Total != 0 {
		t.Errorf("issued from tomorrow: %+v, %v; want none", p, err)
	}
	_, err = c.Documents.List(ctx, &client.DocumentListOptions{From: today, To: today.AddDate(0, 0, -1)})
	if e := asError(t, err); e.StatusCode != 422 || e.Field("to") == nil {
		t.Errorf("to before from: %v, want 422 naming to", e)
	}
	_, err = c.Documents.List(ctx, &client.DocumentListOptions{Status: "lost"})
	if e := asError(t, err); e.Code != client.CodeValidationFailed || e.Field("status") == nil {
		t.Errorf("unknown status: %v", e)
	}
}

// TestAllDuringInserts: items created while All walks the pages push older
// ones onto later pages; none is yielded twice and none is missed.
func TestAllDuringInserts(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	want := map[string]bool{}
	for i := range 7 {
		b, err := c.Buyers.Create(ctx, hebat("Walk "+string(rune('A'+i))))
		if err != nil {
			t.Fatal(err)
		}
		want[b.ID] = true
	}
	got := map[string]int{}
	n := 0
	for b, err := range c.Buyers.All(ctx, &client.PartyListOptions{Search: "walk ", ListOptions: client.ListOptions{PerPage: 3}}) {
		if err != nil {
			t.Fatal(err)
		}
		got[b.ID]++
		if n++; n%2 == 0 { // two more at the head of the list each other item
			for range 2 {
				if _, err := c.Buyers.Create(ctx, hebat("Walk late")); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	for id := range want {
		if got[id] != 1 {
			t.Errorf("buyer %s yielded %d times, want once", id, got[id])
		}
	}
	for id, k := range got {
		if k != 1 {
			t.Errorf("buyer %s yielded %d times", id, k)
		}
	}
}

// TestProfileAndCodes reads and writes the profile and every code list.
func TestProfileAndCodes(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	p, err := c.Profile.Get(ctx)
	if err != nil || !p.IsReady || p.Authority.Environment != "sandbox" || !p.Authority.HasClientSecret {
		t.Fatalf("profile = %+v, %v", p, err)
	}
	// A profile read back is sent again; the authority settings are kept
	// when none are given.
	p.Contact.Name = "Accounts"
	upd, err := c.Profile.Update(ctx, p, nil)
	if err != nil || upd.Contact.Name != "Accounts" || upd.Authority != p.Authority || upd.Name != p.Name {
		t.Errorf("Update = %+v, %v", upd, err)
	}
	_, err = c.Profile.Update(ctx, p, &client.AuthorityUpdate{Environment: "moon"})
	if e := asError(t, err); e.StatusCode != 422 || e.Field("authority.environment") == nil {
		t.Errorf("unknown environment: %v, want 422 naming authority.environment", e)
	}
	lists := map[string]func(context.Context) ([]client.Code, error){
		"states": c.Codes.States, "countries": c.Codes.Countries, "classifications": c.Codes.Classifications,
		"unit-types": c.Codes.UnitTypes, "tax-types": c.Codes.TaxTypes, "currencies": c.Codes.Currencies,
		"payment-modes": c.Codes.PaymentModes, "id-types": c.Codes.IDTypes,
		"authority-classifications": c.Codes.AuthorityClassifications,
	}
	for name, get := range lists {
		codes, err := get(ctx)
		if err != nil || len(codes) == 0 || codes[0].Code == "" || codes[0].Name == "" {
			t.Errorf("%s = %d codes, %v", name, len(codes), err)
		}
	}
	if ids, _ := c.Codes.IDTypes(ctx); !slices.ContainsFunc(ids, func(x client.Code) bool { return x.Code == client.IDTypeNRIC }) {
		t.Errorf("id types %v lack NRIC", ids)
	}
	if cls, err := c.Codes.AuthorityClassifications(ctx); err != nil || len(cls) != 45 || cls[3] != (client.Code{Code: "004", Name: "Consolidated e-Invoice"}) {
		t.Errorf("AuthorityClassifications = %d codes (%v), %v; want 45 with 004 Consolidated e-Invoice", len(cls), cls, err)
	}
}

// TestOperations: health, readiness, metrics, the OpenAPI document and the
// reference page; and every operation of the OpenAPI document has a method
// (the table below names it, and a test above calls it).
func TestOperations(t *testing.T) {
	ctx := context.Background()
	anon := client.New(serverURL, "")
	if h, err := anon.Health(ctx); err != nil || h.Status != "ok" {
		t.Errorf("Health = %+v, %v", h, err)
	}
	if h, err := anon.Ready(ctx); err != nil || h.Status != "ok" {
		t.Errorf("Ready = %+v, %v", h, err)
	}
	if m, err := anon.Metrics(ctx); err != nil || !bytes.Contains(m, []byte("# TYPE")) {
		t.Errorf("Metrics: %v", err)
	}
	if d, err := anon.Docs(ctx); err != nil || !bytes.Contains(bytes.ToLower(d), []byte("<html")) {
		t.Errorf("Docs: %v", err)
	}
	_, err := anon.Profile.Get(ctx)
	if e := asError(t, err); e.StatusCode != 401 || e.Code != client.CodeUnauthorized {
		t.Errorf("profile without a key: %v", e)
	}
	raw, err := anon.OpenAPI(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	methods := map[string]string{
		"listBuyers": "Buyers.List/All", "createBuyer": "Buyers.Create", "getBuyer": "Buyers.Get",
		"updateBuyer": "Buyers.Update", "deleteBuyer": "Buyers.Delete",
		"listOnBehalfSellers": "Sellers.List/All", "createOnBehalfSeller": "Sellers.Create",
		"getOnBehalfSeller": "Sellers.Get", "updateOnBehalfSeller": "Sellers.Update", "deleteOnBehalfSeller": "Sellers.Delete",
		"listDocuments": "Documents.List/All", "getDocument": "Documents.Get", "updateDocument": "Documents.Update",
		"deleteDocument": "Documents.Delete", "validateDocument": "Documents.Validate", "submitDocument": "Documents.Submit",
		"submitBulk": "Documents.SubmitBulk", "documentStatus": "Documents.Status", "cancelDocument": "Documents.Cancel",
		"documentUBL": "Documents.UBL", "documentQR": "Documents.QR/QRImage", "documentPDF": "Documents.PDF",
		"createInvoice": "Documents.Create", "createCreditNote": "Documents.Create", "createDebitNote": "Documents.Create",
		"createRefundNote": "Documents.Create", "createConsolidatedInvoice": "Documents.Create",
		"createSelfBilledInvoice": "Documents.Create", "createSelfBilledCreditNote": "Documents.Create",
		"createSelfBilledDebitNote": "Documents.Create", "createSelfBilledRefundNote": "Documents.Create",
		"getProfile": "Profile.Get", "updateProfile": "Profile.Update", "checkProfile": "Profile.Check",
		"listStates": "Codes.States", "listCountries": "Codes.Countries", "listClassifications": "Codes.Classifications",
		"listUnitTypes": "Codes.UnitTypes", "listTaxTypes": "Codes.TaxTypes", "listCurrencies": "Codes.Currencies",
		"listPaymentModes": "Codes.PaymentModes", "listIdTypes": "Codes.IDTypes",
		"listAuthorityClassifications": "Codes.AuthorityClassifications",
		"listEvents":                   "Events.List/All", "listWebhooks": "Webhooks.List/All", "createWebhook": "Webhooks.Create",
		"getWebhook": "Webhooks.Get", "updateWebhook": "Webhooks.Update", "deleteWebhook": "Webhooks.Delete",
		"rotateWebhookSecret": "Webhooks.RotateSecret", "testWebhook": "Webhooks.Test",
		"listWebhookDeliveries": "Webhooks.Deliveries", "redeliverWebhookDelivery": "Webhooks.Redeliver",
		"listReceivedDocuments": "ReceivedDocuments.List/All", "getReceivedDocument": "ReceivedDocuments.Get",
		"receivedDocumentUBL": "ReceivedDocuments.UBL", "receivedDocumentPDF": "ReceivedDocuments.PDF", "rejectReceivedDocument": "ReceivedDocuments.Reject",
		"createReceipt": "Receipts.Create", "createReceipts": "Receipts.CreateBulk", "listReceipts": "Receipts.List/All",
		"getReceipt": "Receipts.Get", "deleteReceipt": "Receipts.Delete", "receiptQR": "Receipts.QR/QRImage",
		"invoiceReceipt":    "Receipts.Invoice",
		"receiptCreditNote": "Receipts.CreditNote", "createConsolidation": "Consolidations.Create",
		"listConsolidations": "Consolidations.List/All", "getConsolidation": "Consolidations.Get",
		"deliverDocument": "Documents.Deliver", "listMail": "Mail.List/All", "getMail": "Mail.Get",
		"getMailAttachment": "Mail.Attachment", "getMailSettings": "Mail.Settings", "updateMailSettings": "Mail.UpdateSettings",
		"previewMail": "Mail.Preview", "sendTestMail": "Mail.Test", "listAuditLog": "AuditLog.List/All",
		"healthz": "Health", "readyz": "Ready", "metrics": "Metrics", "openapi": "OpenAPI", "docs": "Docs",
	}
	for path, ops := range doc.Paths {
		for method, raw := range ops {
			var op struct {
				OperationID string `json:"operationId"`
			}
			if json.Unmarshal(raw, &op) != nil || op.OperationID == "" {
				continue // the path's parameters
			}
			if methods[op.OperationID] == "" {
				t.Errorf("%s %s (%s) has no method in the client", strings.ToUpper(method), path, op.OperationID)
			}
		}
	}
}

// TestCreateEveryKind creates a document of each kind through Create.
func TestCreateEveryKind(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	b, err := c.Buyers.Create(ctx, hebat("Kinds Sdn. Bhd."))
	if err != nil {
		t.Fatal(err)
	}
	s, err := c.Sellers.Create(ctx, &client.Party{Name: "Kinds Seller", IsDraft: true})
	if err != nil {
		t.Fatal(err)
	}
	ref := []client.DocumentReference{{ReferenceNumber: "KIND-REF"}}
	for i, k := range []struct {
		typ  client.DocumentType
		code string
		self bool
	}{
		{client.TypeInvoice, "01", false}, {client.TypeCreditNote, "02", false}, {client.TypeDebitNote, "03", false},
		{client.TypeRefundNote, "04", false}, {client.TypeConsolidatedInvoice, "01", false},
		{client.TypeSelfBilledInvoice, "11", true}, {client.TypeSelfBilledCreditNote, "12", true},
		{client.TypeSelfBilledDebitNote, "13", true}, {client.TypeSelfBilledRefundNote, "14", true},
	} {
		d := &client.Document{Type: k.typ, InvoiceSerialNumber: "KIND-" + string(rune('A'+i)), CurrencyCode: "MYR",
			AutoCalculate: true, Lines: []client.Line{cable()}, References: ref}
		switch {
		case k.self:
			d.OnBehalfSellerID = s.ID
		case k.typ == client.TypeConsolidatedInvoice: // its buyer is the General Public
		default:
			d.BuyerID = b.ID
		}
		got, err := c.Documents.Create(ctx, d)
		if err != nil {
			t.Errorf("%s: %v", k.typ, err)
			continue
		}
		if got.Type != k.typ || (k.typ != client.TypeConsolidatedInvoice && got.TypeCode != k.code) {
			t.Errorf("%s: created type %s code %s", k.typ, got.Type, got.TypeCode)
		}
	}
}

// TestAuthorityFields: the authority's own codes and trade fields go out
// and come back under the API's names.
func TestAuthorityFields(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	b, err := c.Buyers.Create(ctx, hebat("Trade Sdn. Bhd."))
	if err != nil {
		t.Fatal(err)
	}
	line := cable()
	line.AuthorityClassification, line.TariffCode, line.CountryOfOrigin = "003", "8544.42.9000", "CHN"
	d, err := c.Documents.Create(ctx, &client.Document{BuyerID: b.ID, InvoiceSerialNumber: "TRADE-0001", AutoCalculate: true,
		Lines: []client.Line{line}, CustomsFormReference: "B12345678912", CustomsForm2Reference: "E12345678912",
		FreeTradeAgreement: "ASEAN-China FTA (ACFTA)", Incoterms: "FOB", BillReferenceNumber: "BL-0001"})
	if err != nil {
		t.Fatal(err)
	}
	l := d.Lines[0]
	if d.CustomsFormReference != "B12345678912" || d.CustomsForm2Reference != "E12345678912" || d.FreeTradeAgreement != "ASEAN-China FTA (ACFTA)" ||
		d.Incoterms != "FOB" || d.BillReferenceNumber != "BL-0001" || l.AuthorityClassification != "003" || l.TariffCode != "8544.42.9000" || l.CountryOfOrigin != "CHN" {
		t.Errorf("created = %+v, line %+v", d, l)
	}
	line.AuthorityClassification = "046"
	_, err = c.Documents.Create(ctx, &client.Document{BuyerID: b.ID, InvoiceSerialNumber: "TRADE-0002", Lines: []client.Line{line}})
	if e := asError(t, err); e.StatusCode != 422 || e.Field("invoiceLines.0.authorityClassification") == nil {
		t.Errorf("unknown authority classification: %v, want 422 naming invoiceLines.0.authorityClassification", e)
	}
}
