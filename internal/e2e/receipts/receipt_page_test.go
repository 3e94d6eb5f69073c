package receipts

import (
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/einvoice/einvoice/internal/e2e/e2etest"
	"github.com/einvoice/einvoice/internal/testdb/migrated"

	"github.com/einvoice/einvoice/client"
	"github.com/einvoice/einvoice/internal/einvoice"
	"github.com/einvoice/einvoice/internal/servetest"
)

// TestRequestPageBuyerWithTIN: a company buyer with its TIN asks from the
// receipt's page, posting the form as a browser does: 303 to the page,
// which shows the invoice's status until Valid, then links the PDF, which
// works for that token only; the invoice carries the receipt's amounts
// and number; posting the form again changes nothing.
func TestRequestPageBuyerWithTIN(t *testing.T) {
	t.Parallel()
	e2etest.EachEngine(t, func(t *testing.T, dsn string) {
		svc, api, rc := e2etest.PageService(t, dsn)
		b, ctx := e2etest.NewBrowser(t, svc), t.Context()
		form := b.Get(rc.RequestURL)
		if form.Status != 200 || !strings.HasPrefix(form.Header.Get("Content-Type"), "text/html") {
			t.Fatalf("GET page: %d %s", form.Status, form.Header.Get("Content-Type"))
		}
		form.WantSecure(t, "the form")
		for _, want := range []string{"Supplier&#39;s Name", "R-0100", "2026-10-15", "MYR 10.80", `name="viewport"`, "Request an e-invoice",
			`name="individual"`, `value="NRIC"`, `value="PASSPORT"`, `value="BRN"`, `value="ARMY"`, "?lang=ms"} {
			if !strings.Contains(form.Body, want) {
				t.Errorf("the form lacks %q", want)
			}
		}
		status := b.Submit(rc.RequestURL, e2etest.BuyerForm(form.CSRF(t)))
		status.WantSecure(t, "the status page")
		if status.Status != 200 || !strings.Contains(status.Body, "Your e-invoice was requested") {
			t.Fatalf("after the post: %d %s", status.Status, status.Body)
		}
		// The buyer's request is in the tenant's audit log, by the page,
		// naming the receipt (never its token).
		logged := e2etest.Got(api.AuditLog.List(t.Context(), &client.AuditListOptions{Actor: "request_page", Resource: "receipt:" + rc.ID}))(t)
		if len(logged.Items) != 1 || logged.Items[0].Actor.Kind != "request_page" || logged.Items[0].Actor.Name != "buyer request page" ||
			logged.Items[0].Outcome != client.AuditOK || strings.Contains(logged.Items[0].Action+logged.Items[0].Detail, rc.RequestURL[len(rc.RequestURL)-10:]) {
			t.Errorf("the request's audit entries: %+v", logged.Items)
		}
		// The status is refreshed from the authority as the page loads; it
		// turns Valid (the sandbox answers at once).
		deadline := time.Now().Add(20 * time.Second)
		for !strings.Contains(status.Body, `data-status="Valid"`) && time.Now().Before(deadline) {
			time.Sleep(200 * time.Millisecond)
			status = b.Get(rc.RequestURL)
		}
		if !strings.Contains(status.Body, `data-status="Valid"`) || !strings.Contains(status.Body, `href="/r/`) {
			t.Fatalf("the page never showed Valid with the PDF link: %s", status.Body)
		}
		pdf := b.Get(rc.RequestURL + "/pdf")
		if pdf.Status != 200 || pdf.Header.Get("Content-Type") != "application/pdf" || !strings.HasPrefix(pdf.Body, "%PDF-") {
			t.Errorf("PDF: %d %s %.20q", pdf.Status, pdf.Header.Get("Content-Type"), pdf.Body)
		}

		back := e2etest.Got(api.Receipts.Get(ctx, rc.ID))(t)
		if back.Status != client.ReceiptConverted || back.InvoiceID == "" {
			t.Fatalf("receipt after the request: %+v", back)
		}
		inv := e2etest.Got(api.Documents.Get(ctx, back.InvoiceID))(t)
		if inv.Status != client.StatusValid || inv.InvoiceSerialNumber != "R-0100" || inv.BillReferenceNumber != "R-0100" ||
			inv.TotalPayableAmount != rc.TotalPayableAmount || inv.TotalTaxAmount != rc.TotalTaxAmount || inv.Type != client.TypeInvoice {
			t.Errorf("invoice %+v, want Valid, numbered R-0100, with the receipt's amounts", inv)
		}
		buyer := e2etest.Got(api.Buyers.Get(ctx, inv.BuyerID))(t)
		if buyer.TIN != "C21638015020" || buyer.Name != "Hebat Sdn. Bhd." || !buyer.IsReady {
			t.Errorf("buyer %+v", buyer)
		}
		// Its mail goes to the address given in the form (kept in the
		// mailbox: no mail server here).
		mail := e2etest.Got(api.Mail.List(ctx, &client.MailListOptions{DocumentID: inv.ID}))(t)
		if len(mail.Items) != 1 || len(mail.Items[0].To) != 1 || mail.Items[0].To[0] != buyerFormEmail(t) || inv.EmailDelivery == nil {
			t.Errorf("the converted invoice's mail %+v (emailDelivery %+v), want one to the form's address", mail.Items, inv.EmailDelivery)
		}

		// The same form again (a double post): the page, nothing new.
		again := b.Submit(rc.RequestURL, e2etest.BuyerForm(form.CSRF(t)))
		if !strings.Contains(again.Body, `data-status="Valid"`) {
			t.Errorf("second post: %s", again.Body)
		}
		if d, n := e2etest.DocsAndBuyers(t, api); d != 1 || n != 1 {
			t.Errorf("after a double post: %d documents, %d buyers; want 1 and 1", d, n)
		}

		// The PDF is only the token's own: another receipt's token has none
		// (open), an unknown one neither.
		other := e2etest.Got(api.Receipts.Create(ctx, e2etest.ReceiptInput("R-0101")))(t)
		if p := b.Get(other.RequestURL + "/pdf"); p.Status != 404 {
			t.Errorf("an open receipt's PDF: %d", p.Status)
		}
		if p := b.Get("/r/" + strings.Repeat("A", 27) + "/pdf"); p.Status != 404 {
			t.Errorf("an unknown token's PDF: %d", p.Status)
		}
	})
}

// TestRequestPageIndividualNRIC: an individual who does not know their
// TIN gives their NRIC; the service finds the TIN with Search TIN (the
// sandbox knows the taxpayer a client is registered for); an NRIC it does
// not know gives the form back.
func TestRequestPageIndividualNRIC(t *testing.T) {
	t.Parallel()
	e2etest.EachEngine(t, func(t *testing.T, dsn string) {
		svc, api, rc := e2etest.PageService(t, dsn)
		b, ctx := e2etest.NewBrowser(t, svc), t.Context()
		if code, _, errOut := servetest.Run(t, dsn, "sandbox", "client", "add", "--tin", "IG12345678901",
			"--id-type", "NRIC", "--id-value", "900101015555", "--name", "Ali bin Abu"); code != 0 {
			t.Fatalf("sandbox client add: %s", errOut)
		}
		individual := func(csrf, nric string) url.Values {
			f := e2etest.BuyerForm(csrf)
			f.Set("name", "Ali bin Abu")
			f.Del("tin")
			f.Set("individual", "1")
			f.Set("idType", "NRIC")
			f.Set("idValue", nric)
			return f
		}
		csrf := b.Get(rc.RequestURL).CSRF(t)
		unknown := b.Post(rc.RequestURL, individual(csrf, "880202025555"))
		if unknown.Status != 422 || unknown.FieldError("idValue") == "" || unknown.Value("idValue") != "880202025555" {
			t.Errorf("an unknown NRIC: %d, idValue error %q", unknown.Status, unknown.FieldError("idValue"))
		}
		if d, n := e2etest.DocsAndBuyers(t, api); d != 0 || n != 0 {
			t.Errorf("an unknown NRIC created %d documents, %d buyers", d, n)
		}
		// A business registration is not an individual's id.
		brn := individual(csrf, "201901234567")
		brn.Set("idType", "BRN")
		if p := b.Post(rc.RequestURL, brn); p.Status != 422 || p.FieldError("idType") == "" {
			t.Errorf("an individual by BRN: %d %q", p.Status, p.FieldError("idType"))
		}

		status := b.Submit(rc.RequestURL, individual(csrf, "900101015555"))
		if !strings.Contains(status.Body, "Your e-invoice was requested") {
			t.Fatalf("after the post: %s", status.Body)
		}
		back := e2etest.Got(api.Receipts.Get(ctx, rc.ID))(t)
		inv := e2etest.Got(api.Documents.Get(ctx, back.InvoiceID))(t)
		buyer := e2etest.Got(api.Buyers.Get(ctx, inv.BuyerID))(t)
		if buyer.TIN != "IG12345678901" || buyer.IDType != client.IDTypeNRIC || buyer.IDValue != "900101015555" {
			t.Errorf("buyer %+v, want the TIN Search TIN found", buyer)
		}
	})
}

// TestRequestPageFieldErrors: every malformed field gives the form back
// (422) with its message beside it and the values kept, and nothing is
// created; a bad or missing CSRF token, a foreign Origin, neither Origin
// nor Referer, another content type, a huge or undecodable body are
// refused without a 500.
func TestRequestPageFieldErrors(t *testing.T) {
	t.Parallel()
	e2etest.EachEngine(t, func(t *testing.T, dsn string) {
		svc, api, rc := e2etest.PageService(t, dsn)
		b, ctx := e2etest.NewBrowser(t, svc), t.Context()
		csrf := b.Get(rc.RequestURL).CSRF(t)
		for _, tc := range []struct {
			field, value string
			at           string // the field whose message shows
		}{
			{"name", "", "name"},
			{"tin", "", "tin"},
			{"tin", "X12", "tin"},
			{"tin", "C99999999990", "tin"}, // well-formed, unknown to the authority
			{"idType", "PAN", "idType"},
			{"idValue", "", "idValue"},
			{"addressLine", "", "addressLine"},
			{"city", "", "city"},
			{"postCode", "ABC", "postCode"},
			{"state", "99", "state"},
			{"country", "ZZZ", "country"},
			{"email", "not-an-email", "email"},
			{"phone", "12", "phone"},
			{"name", "Bad \xff\xfe name", "name"},
			{"name", "Tab\x01name", "name"},
			{"name", strings.Repeat("N", 500), "name"},
		} {
			f := e2etest.BuyerForm(csrf)
			f.Set(tc.field, tc.value)
			p := b.Post(rc.RequestURL, f)
			if p.Status != 422 || p.FieldError(tc.at) == "" {
				t.Errorf("%s=%.20q: %d, message beside %s %q", tc.field, tc.value, p.Status, tc.at, p.FieldError(tc.at))
				continue
			}
			p.WantSecure(t, "the form again")
			if tc.field != "name" && p.Value("name") != "Hebat Sdn. Bhd." || p.Value("email") != f.Get("email") && tc.field != "email" {
				t.Errorf("%s: values not kept: name %q email %q", tc.field, p.Value("name"), p.Value("email"))
			}
			if p.CSRF(t) == "" {
				t.Errorf("%s: the form again has no CSRF token", tc.field)
			}
		}
		for _, tc := range []struct {
			what        string
			contentType string
			body        string
			headers     []string
			want        int
		}{
			{"no CSRF token", "application/x-www-form-urlencoded", strings.Replace(e2etest.BuyerForm(csrf).Encode(), "csrf=", "x=", 1), nil, 403},
			{"a wrong CSRF token", "application/x-www-form-urlencoded", withCSRF(csrf[:len(csrf)-2] + "AA"), nil, 403},
			{"another page's CSRF token", "application/x-www-form-urlencoded", withCSRF(strings.Repeat("A", 43)), nil, 403},
			{"a foreign Origin", "application/x-www-form-urlencoded", withCSRF(csrf), []string{"Origin", "https://evil.example"}, 403},
			{"a null Origin", "application/x-www-form-urlencoded", withCSRF(csrf), []string{"Origin", "null"}, 403},
			{"neither Origin nor Referer", "application/x-www-form-urlencoded", withCSRF(csrf), []string{}, 403},
			{"a foreign Referer and no Origin", "application/x-www-form-urlencoded", withCSRF(csrf), []string{"Referer", "https://evil.example/r/x"}, 403},
			{"JSON", "application/json", `{"name":"x"}`, nil, 415},
			{"multipart", "multipart/form-data; boundary=x", "--x--", nil, 415},
			{"a huge form", "application/x-www-form-urlencoded", "name=" + strings.Repeat("a", 1<<20), nil, 413},
			{"a bad escape", "application/x-www-form-urlencoded", "name=%zz&csrf=" + csrf, nil, 400},
		} {
			headers := tc.headers
			if headers == nil { // as a browser posts from the page
				headers = []string{"Origin", svc.URL}
			}
			p := b.Send(http.MethodPost, rc.RequestURL, tc.contentType, tc.body, headers...)
			if p.Status != tc.want {
				t.Errorf("%s: %d, want %d: %.300s", tc.what, p.Status, tc.want, p.Body)
			}
		}
		for _, m := range []string{http.MethodPut, http.MethodDelete, http.MethodPatch} {
			if p := b.Send(m, rc.RequestURL, "", ""); p.Status != 405 {
				t.Errorf("%s on the page: %d", m, p.Status)
			}
		}
		if d, n := e2etest.DocsAndBuyers(t, api); d != 0 || n != 0 {
			t.Errorf("bad forms created %d documents, %d buyers", d, n)
		}
		if r := e2etest.Got(api.Receipts.Get(ctx, rc.ID))(t); r.Status != client.ReceiptOpen {
			t.Errorf("receipt after bad forms: %s", r.Status)
		}
		// The same origin is welcome.
		if p := b.Send(http.MethodPost, rc.RequestURL, "application/x-www-form-urlencoded", withCSRF(csrf), "Origin", svc.URL); p.Status != 303 {
			t.Errorf("same origin: %d %.300s", p.Status, p.Body)
		}
	})
}

// withCSRF is the company buyer's form with a CSRF token.
func withCSRF(csrf string) string { return e2etest.BuyerForm(csrf).Encode() }

// TestRequestPageTokens: an unknown token's page is the same plain 404 as
// any other's; a deleted or a consolidated receipt's page says it can no
// longer be invoiced, and a post to it changes nothing; a converted one
// shows the invoice's status.
func TestRequestPageTokens(t *testing.T) {
	t.Parallel()
	e2etest.EachEngine(t, func(t *testing.T, dsn string) {
		svc, api, rc := e2etest.PageService(t, dsn)
		b, ctx := e2etest.NewBrowser(t, svc), t.Context()
		var first string
		for i, path := range []string{"/r/" + strings.Repeat("A", 27), "/r/" + strings.Repeat("b", 27), "/r/x",
			"/r/" + strings.Repeat("z", 500), "/r/%ff%fe", "/r/" + e2etest.PathOf(rc.RequestURL)[3:] + "x"} {
			p := b.Get(path)
			if p.Status != 404 || !strings.Contains(p.Body, "Not found") {
				t.Errorf("GET %.40s: %d", path, p.Status)
			}
			p.WantSecure(t, "not found")
			body := strings.Split(p.Body, "<main>")[len(strings.Split(p.Body, "<main>"))-1]
			if i == 0 {
				first = body
			} else if body != first && !strings.Contains(path, "%") {
				t.Errorf("GET %.40s: another not-found page than the first", path)
			}
		}
		if p := b.Post("/r/"+strings.Repeat("A", 27), e2etest.BuyerForm("x")); p.Status != 404 {
			t.Errorf("POST to an unknown token: %d", p.Status)
		}

		del := e2etest.Got(api.Receipts.Create(ctx, e2etest.ReceiptInput("R-0200")))(t)
		cons := e2etest.Got(api.Receipts.Create(ctx, e2etest.ReceiptInput("R-0201")))(t)
		csrfDel, csrfCons := b.Get(del.RequestURL).CSRF(t), b.Get(cons.RequestURL).CSRF(t)
		if err := api.Receipts.Delete(ctx, del.ID); err != nil {
			t.Fatal(err)
		}
		store := servetest.Store(t, dsn)
		e2etest.Must(t, 0, store.TransitionReceipt(ctx, servetestTenant(t, store), cons.ID, einvoice.ReceiptTransition{
			From: []einvoice.ReceiptStatus{einvoice.ReceiptOpen}, To: einvoice.ReceiptConsolidated,
			ConsolidationID: e2etest.NewID(), ConsolidatedDocumentID: e2etest.NewID(), At: time.Now()}))
		for _, tc := range []struct {
			r    *client.Receipt
			csrf string
			want string
		}{{del, csrfDel, "withdrawn by the shop"}, {cons, csrfCons, "consolidated e-invoice"}} {
			p := b.Get(tc.r.RequestURL)
			if p.Status != 200 || !strings.Contains(p.Body, tc.want) || !strings.Contains(p.Body, "ask the shop") || strings.Contains(p.Body, "<form") {
				t.Errorf("%s: %d %s", tc.r.ReceiptNumber, p.Status, p.Body)
			}
			after := b.Submit(tc.r.RequestURL, e2etest.BuyerForm(tc.csrf))
			if !strings.Contains(after.Body, tc.want) {
				t.Errorf("%s after a post: %s", tc.r.ReceiptNumber, after.Body)
			}
			ms := b.Get(tc.r.RequestURL + "?lang=ms")
			if !strings.Contains(ms.Body, "Sila hubungi kedai") {
				t.Errorf("%s in Malay: %s", tc.r.ReceiptNumber, ms.Body)
			}
		}
		if d, n := e2etest.DocsAndBuyers(t, api); d != 0 || n != 0 {
			t.Errorf("posts to closed receipts created %d documents, %d buyers", d, n)
		}
	})
}

// TestRequestPageMalay: the page in Malay by ?lang=ms or Accept-Language,
// with links to both languages; a form sent back keeps the language.
func TestRequestPageMalay(t *testing.T) {
	t.Parallel()
	svc, _, rc := e2etest.PageService(t, migrated.SQLite(t))
	b := e2etest.NewBrowser(t, svc)
	for _, p := range []*e2etest.Page{b.Get(rc.RequestURL + "?lang=ms"), b.Get(rc.RequestURL, "Accept-Language", "ms-MY,ms;q=0.9,en;q=0.5")} {
		for _, want := range []string{`lang="ms"`, "Mohon e-invois", "Saya individu dan tidak tahu TIN saya", "Kedai", "Poskod", "?lang=en"} {
			if !strings.Contains(p.Body, want) {
				t.Errorf("Malay page lacks %q", want)
			}
		}
	}
	if p := b.Get(rc.RequestURL, "Accept-Language", "en-GB,ms;q=0.3"); !strings.Contains(p.Body, `lang="en"`) {
		t.Errorf("English preferred, got another language")
	}
	p := b.Get(rc.RequestURL + "?lang=ms")
	f := e2etest.BuyerForm(p.CSRF(t))
	f.Set("email", "nope")
	back := b.Post(rc.RequestURL+"?lang=ms", f)
	if back.Status != 422 || !strings.Contains(back.Body, "Sila semak") || !strings.HasPrefix(back.FieldError("email"), "Sila semak") {
		t.Errorf("a Malay form back: %d %q", back.Status, back.FieldError("email"))
	}
}

// TestRequestPageRateLimit: the page is rate-limited per client address
// with the service's limiter (the database's on PostgreSQL): over the
// limit, a 429 page with Retry-After.
func TestRequestPageRateLimit(t *testing.T) {
	t.Parallel()
	e2etest.EachEngine(t, func(t *testing.T, dsn string) {
		svc, _, rc := e2etest.PageService(t, dsn, "--rate-limit", "5")
		b := e2etest.NewBrowser(t, svc)
		for i := range 5 {
			if p := b.Get(rc.RequestURL); p.Status != 200 {
				t.Fatalf("request %d: %d", i+1, p.Status)
			}
		}
		p := b.Get(rc.RequestURL)
		if p.Status != 429 || p.Header.Get("Retry-After") == "" || !strings.Contains(p.Body, "Too many requests") {
			t.Errorf("over the limit: %d Retry-After %q", p.Status, p.Header.Get("Retry-After"))
		}
		p.WantSecure(t, "429")
		if p := b.Post(rc.RequestURL, e2etest.BuyerForm("x")); p.Status != 429 {
			t.Errorf("a post over the limit: %d", p.Status)
		}
	})
}

// TestReceiptConvertOnce: concurrent requests for one receipt, from the
// page and the API, leave one invoice and one buyer; the API's other
// answers are 409, the page's a 303 to the status.
func TestReceiptConvertOnce(t *testing.T) {
	t.Parallel()
	e2etest.EachEngine(t, func(t *testing.T, dsn string) {
		svc, api, rc := e2etest.PageService(t, dsn, "--rate-limit", "100000")
		b, ctx := e2etest.NewBrowser(t, svc), t.Context()
		csrf := b.Get(rc.RequestURL).CSRF(t)
		const n = 8
		var wg sync.WaitGroup
		statuses := make([]int, n)
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				statuses[i] = b.Post(rc.RequestURL, e2etest.BuyerForm(csrf)).Status
			}()
		}
		wg.Wait()
		for i, s := range statuses {
			if s != 303 {
				t.Errorf("concurrent post %d: %d", i, s)
			}
		}
		if d, nb := e2etest.DocsAndBuyers(t, api); d != 1 || nb != 1 {
			t.Errorf("%d concurrent posts: %d documents, %d buyers; want 1 and 1", n, d, nb)
		}

		// The API, racing for another receipt.
		buyer := e2etest.Got(api.Buyers.Create(ctx, e2etest.ReadyBuyer("Racer Sdn. Bhd.")))(t)
		r2 := e2etest.Got(api.Receipts.Create(ctx, e2etest.ReceiptInput("R-0300")))(t)
		var mu sync.Mutex
		created, conflicts := 0, 0
		for range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, err := svc.API(t, svc.DemoKey).Receipts.Invoice(ctx, r2.ID, buyer.ID)
				mu.Lock()
				defer mu.Unlock()
				if err == nil {
					created++
				} else if e, ok := err.(*client.Error); ok && e.StatusCode == 409 && e.Code == client.CodeReceiptNotConvertible {
					conflicts++
				} else {
					t.Errorf("concurrent invoice: %v", err)
				}
			}()
		}
		wg.Wait()
		if created != 1 || conflicts != n-1 {
			t.Errorf("API race: %d created, %d conflicts; want 1 and %d", created, conflicts, n-1)
		}
		if d, _ := e2etest.DocsAndBuyers(t, api); d != 2 {
			t.Errorf("after both races: %d documents, want 2", d)
		}
	})
}

// TestReceiptInvoiceAPI: POST /receipts/{id}/invoice for an existing
// buyer: 201 with the submitted invoice (an excluded receipt too); 409
// once converted or consolidated; 422 for a missing or unknown buyer; 404
// for an unknown receipt; and the page of a receipt converted by the API
// shows the invoice's status.
func TestReceiptInvoiceAPI(t *testing.T) {
	t.Parallel()
	e2etest.EachEngine(t, func(t *testing.T, dsn string) {
		svc, api, rc := e2etest.PageService(t, dsn)
		b, ctx := e2etest.NewBrowser(t, svc), t.Context()
		buyer := e2etest.Got(api.Buyers.Create(ctx, e2etest.ReadyBuyer("Hebat Sdn. Bhd.")))(t)
		_, err := api.Receipts.Invoice(ctx, rc.ID, "")
		e2etest.WantErr(t, err, 422, client.CodeValidationFailed)
		_, err = api.Receipts.Invoice(ctx, rc.ID, e2etest.NewID())
		if e := e2etest.WantErr(t, err, 422, client.CodeValidationFailed); e.Fields["buyerId"] == nil {
			t.Errorf("unknown buyer: %s", e.Body)
		}
		_, err = api.Receipts.Invoice(ctx, e2etest.NewID(), buyer.ID)
		e2etest.WantErr(t, err, 404, client.CodeReceiptNotFound)
		// An invoice that would not pass validation (a draft buyer) is
		// reported with its problems, and nothing is written.
		draft := e2etest.Got(api.Buyers.Create(ctx, &client.Party{Name: "Not yet", IsDraft: true}))(t)
		_, err = api.Receipts.Invoice(ctx, rc.ID, draft.ID)
		if e := e2etest.WantErr(t, err, 422, client.CodeValidationFailed); len(e.Fields) == 0 {
			t.Errorf("a draft buyer: %s", e.Body)
		}
		if r := e2etest.Got(api.Receipts.Get(ctx, rc.ID))(t); r.Status != client.ReceiptOpen || r.InvoiceID != "" {
			t.Errorf("receipt after a failed validation: %+v", r)
		}
		if d, _ := e2etest.DocsAndBuyers(t, api); d != 0 {
			t.Errorf("a failed validation left %d documents", d)
		}

		inv, err := api.Receipts.Invoice(ctx, rc.ID, buyer.ID)
		if e2etest.Must(t, inv, err).BuyerID != buyer.ID || inv.InvoiceSerialNumber != rc.ReceiptNumber ||
			inv.TotalPayableAmount != rc.TotalPayableAmount || inv.Status == client.StatusDraft || inv.Status == client.StatusReady {
			t.Errorf("invoice %+v: want submitted, for the buyer, with the receipt's number and amounts", inv)
		}
		if r := e2etest.Got(api.Receipts.Get(ctx, rc.ID))(t); r.Status != client.ReceiptConverted || r.InvoiceID != inv.ID {
			t.Errorf("receipt %+v", r)
		}
		_, err = api.Receipts.Invoice(ctx, rc.ID, buyer.ID)
		e2etest.WantErr(t, err, 409, client.CodeReceiptNotConvertible)
		if p := b.Get(rc.RequestURL); !strings.Contains(p.Body, `id="status"`) {
			t.Errorf("the page of a receipt converted by the API: %s", p.Body)
		}

		// A receipt line without a classification is the authority's 022
		// (Others) on the invoice.
		plain := e2etest.ReceiptInput("R-PLAIN")
		plain.Lines = []client.Line{{ProductDescription: "Nasi lemak", Quantity: "2", UnitPrice: "6.50",
			Taxes: []client.LineTax{{TaxType: "02", TaxRate: "6"}}}}
		pr := e2etest.Got(api.Receipts.Create(ctx, plain))(t)
		if inv, err := api.Receipts.Invoice(ctx, pr.ID, buyer.ID); e2etest.Must(t, inv, err).Lines[0].AuthorityClassification != "022" ||
			inv.TotalPayableAmount != pr.TotalPayableAmount {
			t.Errorf("an unclassified receipt's invoice: %+v", inv)
		}

		// An excluded receipt (over RM10,000) may be invoiced.
		big := e2etest.Got(api.Receipts.Create(ctx, e2etest.BigReceipt("R-BIG", "12000.00", e2etest.ReceiptIssued)))(t)
		if big.Status != client.ReceiptExcluded {
			t.Fatalf("big receipt is %s", big.Status)
		}
		if inv, err := api.Receipts.Invoice(ctx, big.ID, buyer.ID); e2etest.Must(t, inv, err).TotalPayableAmount != "12000.00" {
			t.Errorf("excluded receipt's invoice: %+v", inv)
		}

		// A consolidated one may not.
		cons := e2etest.Got(api.Receipts.Create(ctx, e2etest.ReceiptInput("R-CONS")))(t)
		store := servetest.Store(t, dsn)
		e2etest.Must(t, 0, store.TransitionReceipt(ctx, servetestTenant(t, store), cons.ID, einvoice.ReceiptTransition{
			From: []einvoice.ReceiptStatus{einvoice.ReceiptOpen}, To: einvoice.ReceiptConsolidated,
			ConsolidationID: e2etest.NewID(), ConsolidatedDocumentID: e2etest.NewID(), At: time.Now()}))
		_, err = api.Receipts.Invoice(ctx, cons.ID, buyer.ID)
		e2etest.WantErr(t, err, 409, client.CodeReceiptNotConvertible)
	})
}

// TestRequestPageResumesAfterCrash: a request that stopped right after its
// transaction (the receipt converted, its invoice a draft never validated
// nor submitted: what a crash there leaves) is carried on by the next load
// of the page, to Valid, with still one invoice.
func TestRequestPageResumesAfterCrash(t *testing.T) {
	t.Parallel()
	e2etest.EachEngine(t, func(t *testing.T, dsn string) {
		svc, api, rc := e2etest.PageService(t, dsn)
		b, ctx := e2etest.NewBrowser(t, svc), t.Context()
		buyer := e2etest.Got(api.Buyers.Create(ctx, e2etest.ReadyBuyer("Hebat Sdn. Bhd.")))(t)
		store := servetest.Store(t, dsn)
		tenant := servetestTenant(t, store)
		r, err := store.GetReceipt(ctx, tenant, rc.ID)
		e2etest.Must(t, r, err)
		now := time.Now().UTC()
		d := &einvoice.Document{ID: e2etest.NewID(), TenantID: tenant, Kind: einvoice.KindInvoice, TypeCode: "01", Status: einvoice.StatusDraft,
			BuyerID: buyer.ID, InvoiceSerialNumber: r.ReceiptNumber, BillReferenceNumber: r.ReceiptNumber, CurrencyCode: r.CurrencyCode,
			AutoCalculate: true, Lines: r.Lines, Payment: r.Payment, Totals: r.Totals, CreatedAt: now, UpdatedAt: now}
		e2etest.Must(t, 0, store.ConvertReceipt(ctx, einvoice.ReceiptConversion{TenantID: tenant, ReceiptID: r.ID,
			From: []einvoice.ReceiptStatus{einvoice.ReceiptOpen}, Invoice: d,
			Event: einvoice.Event{ID: e2etest.NewID(), Status: einvoice.StatusDraft, Note: "created from receipt", At: now}, At: now}))

		p := b.Get(rc.RequestURL)
		deadline := time.Now().Add(20 * time.Second)
		for !strings.Contains(p.Body, `data-status="Valid"`) && time.Now().Before(deadline) {
			time.Sleep(200 * time.Millisecond)
			p = b.Get(rc.RequestURL)
		}
		if !strings.Contains(p.Body, `data-status="Valid"`) {
			t.Fatalf("the page did not carry the invoice on to Valid: %s", p.Body)
		}
		if inv := e2etest.Got(api.Documents.Get(ctx, d.ID))(t); inv.Status != client.StatusValid {
			t.Errorf("invoice %s", inv.Status)
		}
		if n, _ := e2etest.DocsAndBuyers(t, api); n != 1 {
			t.Errorf("%d documents, want 1", n)
		}
	})
}

// buyerFormEmail is the e-mail address e2etest.BuyerForm gives.
func buyerFormEmail(t *testing.T) string {
	t.Helper()
	return e2etest.BuyerForm("x").Get("email")
}
