package requestpage_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/einvoice/einvoice/internal/einvoice"
	"github.com/einvoice/einvoice/internal/money"
	"github.com/einvoice/einvoice/internal/ratelimit"
	"github.com/einvoice/einvoice/internal/requestpage"
	"github.com/einvoice/einvoice/internal/servetest"
	"github.com/einvoice/einvoice/internal/web"
)

// TestMalaysianTime: a receipt issued at 16:35 UTC on 27 November was
// issued at 00:35 on the 28th in Malaysia; its buyer's request page says
// so, labelled MYT, as the dashboard and the PDF do (DECISIONS 19).
func TestMalaysianTime(t *testing.T) {
	svc, tenant := servetest.Application(t)
	at := time.Date(2026, 11, 27, 16, 35, 0, 0, time.UTC)
	qty, price := money.MustNumber("1"), money.MustNumber("10.00")
	rc, err := svc.CreateReceipt(context.Background(), tenant.ID, &einvoice.ReceiptInput{ReceiptNumber: "R-1", IssuedAt: &at,
		Lines: []einvoice.Line{{ProductDescription: "Tea", Quantity: &qty, UnitPrice: &price,
			Taxes: []einvoice.LineTax{{TaxType: "06"}}}}})
	if err != nil {
		t.Fatal(err)
	}
	h := web.NewRoot(web.RootOptions{})
	requestpage.New(requestpage.Options{Service: svc, Limiter: ratelimit.NewMemory(1<<30, time.Minute)}).Mount(h)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest("GET", "/r/"+rc.RequestURL[strings.LastIndex(rc.RequestURL, "/")+1:], nil))
	body := w.Body.String()
	if w.Code != http.StatusOK {
		t.Fatalf("GET the request page = %d:\n%s", w.Code, body)
	}
	if !strings.Contains(body, "<dd>2026-11-28 00:35 MYT</dd>") {
		t.Errorf("the page does not show the Malaysian time 2026-11-28 00:35 MYT:\n%s", body)
	}
	if strings.Contains(body, "2026-11-27") || strings.Contains(body, "16:35") {
		t.Errorf("the page shows the UTC reading of the time:\n%s", body)
	}
}
