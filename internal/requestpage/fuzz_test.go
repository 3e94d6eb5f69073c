package requestpage_test

import (
	"context"
	"net/http/httptest"
	"regexp"
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

// FuzzRequestForm posts arbitrary form bodies (with the page's own CSRF
// token where the body says CSRF) to the buyer's request page of a real
// handler on a real SQLite file, as form, multipart or any other content
// type: whatever the body, the answer is never a 5xx, and it is always
// the page's HTML (or a redirect).
//
//	go test -run '^$' -fuzz FuzzRequestForm -fuzztime 60s ./internal/requestpage/
func FuzzRequestForm(f *testing.F) {
	for _, seed := range []struct{ ct, body string }{
		{"application/x-www-form-urlencoded", "csrf=CSRF&name=Hebat&tin=C21638015020&idType=BRN&idValue=201901234567&addressLine=Lot+1&city=KL&postCode=50480&state=14&country=MYS&email=a%40b.example&phone=%2B60123456789"},
		{"application/x-www-form-urlencoded", "csrf=CSRF&individual=1&idType=NRIC&idValue=900101015555&name=%FF%FE"},
		{"application/x-www-form-urlencoded", "csrf=CSRF&name=a&name=b&tin=%zz"},
		{"application/x-www-form-urlencoded; charset=iso-8859-1", "csrf=CSRF&state=99&country=ZZZ&email=x"},
		{"multipart/form-data; boundary=x", "--x\r\nContent-Disposition: form-data; name=\"name\"\r\n\r\nA\r\n--x--"},
		{"", "csrf=CSRF"},
		{"application/x-www-form-urlencoded", strings.Repeat("a=b&", 5000)},
	} {
		f.Add(seed.ct, seed.body)
	}
	ctx := context.Background()
	svc, tenant := servetest.Application(f)
	at := time.Now().Add(-time.Hour)
	qty, price := money.MustNumber("1"), money.MustNumber("10.00")
	rc, err := svc.CreateReceipt(ctx, tenant.ID, &einvoice.ReceiptInput{ReceiptNumber: "R-1", IssuedAt: &at,
		Lines: []einvoice.Line{{ProductDescription: "Tea", Quantity: &qty, UnitPrice: &price,
			Taxes: []einvoice.LineTax{{TaxType: "06"}}}}})
	if err != nil {
		f.Fatal(err)
	}
	h := web.NewRoot(web.RootOptions{})
	requestpage.New(requestpage.Options{Service: svc, Limiter: ratelimit.NewMemory(1<<30, time.Minute)}).Mount(h)
	path := "/r/" + rc.RequestURL[strings.LastIndex(rc.RequestURL, "/")+1:]
	page := httptest.NewRecorder()
	h.ServeHTTP(page, httptest.NewRequest("GET", path, nil))
	m := regexp.MustCompile(`name="csrf" value="([^"]+)"`).FindStringSubmatch(page.Body.String())
	if m == nil {
		f.Fatalf("no CSRF token on the page: %d %s", page.Code, page.Body)
	}
	f.Fuzz(func(t *testing.T, contentType, body string) {
		r := httptest.NewRequest("POST", path, strings.NewReader(strings.ReplaceAll(body, "CSRF", m[1])))
		if contentType != "" {
			r.Header.Set("Content-Type", contentType)
		}
		r.Header.Set("Origin", "http://"+r.Host) // from the page itself, as a browser's post
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code >= 500 {
			t.Fatalf("POST %s answered %d: %s", path, w.Code, w.Body)
		}
		if ct := w.Header().Get("Content-Type"); w.Code != 303 && !strings.HasPrefix(ct, "text/html") {
			t.Fatalf("answer %d of type %q", w.Code, ct)
		}
		if w.Header().Get("Content-Security-Policy") == "" {
			t.Fatalf("answer %d without its CSP", w.Code)
		}
	})
}
