package httpapi_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/einvoice/einvoice/internal/einvoice"
	"github.com/einvoice/einvoice/internal/httpapi"
	"github.com/einvoice/einvoice/internal/ratelimit"
	"github.com/einvoice/einvoice/internal/servetest"
	"github.com/einvoice/einvoice/internal/web"
)

// FuzzDocumentRequests sends arbitrary bodies to the document endpoints of
// a real handler on a real SQLite file: whatever the body, the answer is
// never a 5xx (no panic, no internal error).
func FuzzDocumentRequests(f *testing.F) {
	for _, seed := range []string{
		`{"buyerId":"BUYER","invoiceSerialNumber":"A-1","autoCalculate":true,"invoiceLines":[{"classifications":["001"],"productDescription":"x","quantity":2,"unitCode":"H87","unitPrice":1.5,"discountRate":10,"invoiceLineTaxes":[{"taxType":"03","taxRate":10},{"taxType":"E","taxRate":0,"exemptionReason":"x"}]}],"payment":{"paymentMode":"01","prepaymentAmount":"1.00"}}`,
		`{"buyerId":"BUYER","currencyCode":"USD","exchangeRate":4.7231,"autoCalculate":false,"subtotal":"1","taxSubtotals":[{"taxType":"01"}],"invoiceLines":[{"invoiceLineTaxes":[{}]}]}`,
		`{"buyerId":"BUYER","erpIssuedAt":"2026-11-22T10:00:00+08:00","invoicePeriod":{"billingPeriodStartDate":"2026-12-01","billingPeriodEndDate":"2026-01-01"},"delivery":{"recipientAddress":{"state":"14"}}}`,
		`{"buyerId":"BUYER","documentReferences":[{"referenceNumber":"NA","uuid":"NA"}],"isPreEinvoicing":true,"invoiceLines":[{"quantity":1e12,"unitPrice":999999999999.999999}]}`,
		`{"invoiceLines":null,"payment":null,"invoiceDiscountAmount":-0.01}`,
	} {
		f.Add(seed)
	}
	ctx := context.Background()
	svc, tenant := servetest.Application(f)
	_, key, _ := svc.CreateAPIKey(ctx, tenant.ID, einvoice.PermReadWrite)
	buyer, err := svc.CreateParty(ctx, tenant.ID, einvoice.KindBuyer, &einvoice.Party{Name: "B", IsDraft: true})
	if err != nil {
		f.Fatal(err)
	}
	h := web.NewRoot(web.RootOptions{})
	httpapi.New(httpapi.Options{Service: svc, Limiter: ratelimit.NewMemory(1<<30, time.Minute)}).Mount(h)
	send := func(method, path, body string) int {
		r := httptest.NewRequest(method, path, bytes.NewReader([]byte(body)))
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Authorization", "Bearer "+key)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w.Code
	}
	f.Fuzz(func(t *testing.T, body string) {
		body = strings.ReplaceAll(body, "BUYER", buyer.ID)
		for _, path := range []string{"/api/v1/invoices", "/api/v1/credit-notes", "/api/v1/self-billed-invoices", "/api/v1/consolidated-invoices"} {
			rec := httptest.NewRecorder()
			r := httptest.NewRequest("POST", path, bytes.NewReader([]byte(body)))
			r.Header.Set("Content-Type", "application/json")
			r.Header.Set("Authorization", "Bearer "+key)
			h.ServeHTTP(rec, r)
			if rec.Code >= 500 {
				t.Fatalf("POST %s answered %d: %s", path, rec.Code, rec.Body)
			}
			if rec.Code == http.StatusCreated {
				id := extractID(rec.Body.String())
				if code := send("POST", "/api/v1/documents/"+id+"/validate", ""); code >= 500 {
					t.Fatalf("validate answered %d", code)
				}
				if code := send("PUT", "/api/v1/invoices/"+id, body); code >= 500 {
					t.Fatalf("PUT answered %d", code)
				}
				if code := send("DELETE", "/api/v1/invoices/"+id, ""); code >= 500 {
					t.Fatalf("DELETE answered %d", code)
				}
			}
		}
	})
}

// extractID reads data.id from a create answer without decoding all of it.
func extractID(body string) string {
	i := strings.Index(body, `"id":"`)
	if i < 0 {
		return ""
	}
	rest := body[i+6:]
	return rest[:strings.IndexByte(rest, '"')]
}
