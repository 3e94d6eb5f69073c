package receipts

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/einvoice/einvoice/internal/e2e/e2etest"
	"github.com/einvoice/einvoice/internal/testscale"

	"github.com/einvoice/einvoice/client"
	"github.com/einvoice/einvoice/internal/einvoice"
	"github.com/einvoice/einvoice/internal/servetest"
)

// TestReceiptAmounts: a receipt's amounts are the documents' calculation,
// whatever amounts it is sent with: mixed taxes, a line discount, an exempt
// line, cash rounding; its month is Malaysian; it has an absolute request
// URL; a number taken is a 409.
func TestReceiptAmounts(t *testing.T) {
	t.Parallel()
	e2etest.EachEngine(t, func(t *testing.T, dsn string) {
		svc := e2etest.StartService(t, dsn)
		api, ctx := svc.API(t, svc.DemoKey), t.Context()
		in := &client.ReceiptInput{
			ReceiptNumber: "R-0001",
			// 20:00 UTC on 31 October is 04:00 on 1 November in Malaysia.
			IssuedAt: time.Date(2026, time.October, 31, 20, 0, 0, 0, time.UTC),
			Lines: []client.Line{
				{ProductDescription: "Shirt", Quantity: "2", UnitPrice: "10.00", DiscountRate: "10",
					Taxes: []client.LineTax{{TaxType: "01", TaxRate: "10"}},
					// Amounts sent are ignored.
					Subtotal: "999.00", TotalExcludingTax: "1.00"},
				{ProductDescription: "Tailoring", Quantity: "3", UnitPrice: "33.333",
					Taxes: []client.LineTax{{TaxType: "02", TaxRate: "8"}}},
				{ProductDescription: "Rice", Quantity: "1", UnitPrice: "5.57", AuthorityClassification: "022",
					Taxes: []client.LineTax{{TaxType: "E", ExemptionReason: "Basic food"}}},
			},
			Payment: &client.Payment{PaymentMode: "01"},
		}
		r, err := api.Receipts.Create(ctx, in)
		e2etest.Must(t, r, err)
		wantLines := [][5]string{ // subtotal, discount, excluding tax, tax, including tax
			{"20.00", "2.00", "18.00", "1.80", "19.80"},
			{"100.00", "0.00", "100.00", "8.00", "108.00"},
			{"5.57", "0.00", "5.57", "0.00", "5.57"},
		}
		for i, w := range wantLines {
			l := r.Lines[i]
			got := [5]string{string(l.Subtotal), string(l.DiscountAmount), string(l.TotalExcludingTax), string(l.TaxAmount), string(l.TotalIncludingTax)}
			if got != w {
				t.Errorf("line %d amounts = %v, want %v", i, got, w)
			}
		}
		for what, got := range map[string]client.Decimal{"subtotal": r.Subtotal, "totalExcludingTax": r.TotalExcludingTax,
			"totalTaxAmount": r.TotalTaxAmount, "totalIncludingTax": r.TotalIncludingTax, "roundingAmount": r.RoundingAmount,
			"totalPayableAmount": r.TotalPayableAmount} {
			want := map[string]string{"subtotal": "123.57", "totalExcludingTax": "123.57", "totalTaxAmount": "9.80",
				"totalIncludingTax": "133.37", "roundingAmount": "-0.02", "totalPayableAmount": "133.35"}[what]
			if string(got) != want {
				t.Errorf("%s = %s, want %s", what, got, want)
			}
		}
		if len(r.TaxSubtotals) != 3 || r.TaxSubtotals[0].TaxableAmount != "18.00" || r.TaxSubtotals[1].TaxAmount != "8.00" {
			t.Errorf("taxSubtotals = %+v", r.TaxSubtotals)
		}
		if r.Month != "2026-11" || r.Status != client.ReceiptOpen || r.CurrencyCode != "MYR" || r.Lines[2].AuthorityClassification != "022" {
			t.Errorf("month %q status %q currency %q classification %q", r.Month, r.Status, r.CurrencyCode, r.Lines[2].AuthorityClassification)
		}
		prefix := svc.URL + "/r/"
		if !strings.HasPrefix(r.RequestURL, prefix) || len(r.RequestURL)-len(prefix) < 22 || strings.ContainsAny(r.RequestURL[len(prefix):], "+/=") {
			t.Errorf("requestUrl %q: want %s and a URL-safe token of at least 128 bits", r.RequestURL, prefix)
		}
		back, err := api.Receipts.Get(ctx, r.ID)
		if e2etest.Must(t, back, err).TotalPayableAmount != "133.35" || back.RequestURL != r.RequestURL || !back.IssuedAt.Equal(in.IssuedAt) {
			t.Errorf("get = %+v", back)
		}
		// Another receipt's token is another.
		other, err := api.Receipts.Create(ctx, e2etest.ReceiptInput("R-0002"))
		if e2etest.Must(t, other, err).RequestURL == r.RequestURL {
			t.Errorf("two receipts share the request URL %s", r.RequestURL)
		}

		_, err = api.Receipts.Create(ctx, e2etest.ReceiptInput("R-0001"))
		if e := e2etest.WantErr(t, err, 409, client.CodeDuplicateReceipt); e.Fields["receiptNumber"] == nil {
			t.Errorf("duplicate: %s", e.Body)
		}
		_, err = api.Receipts.Get(ctx, e2etest.NewID())
		e2etest.WantErr(t, err, 404, client.CodeReceiptNotFound)

		// Another tenant sees none of them.
		_, keyB := e2etest.SecTenant(t, dsn, "Other Shop Sdn. Bhd.", "C1234567890")
		b := svc.API(t, keyB)
		_, err = b.Receipts.Get(ctx, r.ID)
		e2etest.WantErr(t, err, 404, client.CodeReceiptNotFound)
		if p, err := b.Receipts.List(ctx, nil); e2etest.Must(t, p, err).Meta.Total != 0 {
			t.Errorf("tenant B lists %d receipts", p.Meta.Total)
		}
		// Tenant B may use the same number.
		if _, err := b.Receipts.Create(ctx, e2etest.ReceiptInput("R-0001")); err != nil {
			t.Errorf("tenant B's R-0001: %v", err)
		}
	})
}

// TestReceiptsBulk: a bulk of good and bad receipts stores the good ones
// and refuses each bad one with its index and fields; 1,001 receipts is a
// 422 that stores nothing.
func TestReceiptsBulk(t *testing.T) {
	t.Parallel()
	e2etest.EachEngine(t, func(t *testing.T, dsn string) {
		svc := e2etest.StartService(t, dsn)
		api, raw, ctx := svc.API(t, svc.DemoKey), svc.Client(t, svc.DemoKey), t.Context()
		e2etest.Got(api.Receipts.Create(ctx, e2etest.ReceiptInput("B-0000")))(t)

		neg := e2etest.ReceiptBody("B-0002")
		neg["invoiceLines"].([]any)[0].(map[string]any)["quantity"] = -1
		wrongType := e2etest.ReceiptBody("B-0005")
		wrongType["invoiceLines"].([]any)[0].(map[string]any)["quantity"] = true
		unknown := e2etest.ReceiptBody("B-0006")
		unknown["colour"] = "red"
		body := map[string]any{"receipts": []any{
			e2etest.ReceiptBody("B-0001"), // 0: stored
			neg,                           // 1: negative quantity
			e2etest.ReceiptBody("B-0003"), // 2: stored
			e2etest.ReceiptBody("B-0001"), // 3: repeated in the request
			e2etest.ReceiptBody("B-0000"), // 4: already stored
			wrongType,                     // 5: a wrong JSON type
			unknown,                       // 6: an unknown field
			"not an object",               // 7
			e2etest.ReceiptBody("B-0004"), // 8: stored
		}}
		r := raw.Do("POST", "/api/v1/receipts/bulk", body).Want(t, 200, "")
		created, _ := r.Data()["created"].([]any)
		refused, _ := r.Data()["refused"].([]any)
		var numbers []string
		for _, c := range created {
			numbers = append(numbers, e2etest.Str(c.(map[string]any)["receiptNumber"]))
		}
		if strings.Join(numbers, ",") != "B-0001,B-0003,B-0004" {
			t.Errorf("created %v, want B-0001, B-0003, B-0004 in order", numbers)
		}
		want := []struct {
			index int
			code  string
			field string
		}{{1, "VALIDATION_FAILED", "invoiceLines.0.quantity"}, {3, "DUPLICATE_RECEIPT_NUMBER", "receiptNumber"},
			{4, "DUPLICATE_RECEIPT_NUMBER", "receiptNumber"}, {5, "MALFORMED_JSON", "invoiceLines.0.quantity"},
			{6, "VALIDATION_FAILED", "colour"}, {7, "MALFORMED_JSON", ""}}
		if len(refused) != len(want) {
			t.Fatalf("refused %d, want %d: %s", len(refused), len(want), r.Raw)
		}
		for i, w := range want {
			f := refused[i].(map[string]any)
			errs, _ := f["errors"].(map[string]any)
			if e2etest.Str(f["index"]) != fmt.Sprint(w.index) || f["error_code"] != w.code || (w.field != "" && errs[w.field] == nil) {
				t.Errorf("refused[%d] = %v, want index %d %s naming %q", i, f, w.index, w.code, w.field)
			}
		}

		// The typed client: the same outcome for a mix.
		res, err := api.Receipts.CreateBulk(ctx, []client.ReceiptInput{*e2etest.ReceiptInput("B-0010"), *e2etest.ReceiptInput("B-0003")})
		if e2etest.Must(t, res, err); len(res.Created) != 1 || len(res.Refused) != 1 || res.Refused[0].Index != 1 ||
			res.Refused[0].ErrorCode != client.CodeDuplicateReceipt || res.Created[0].TotalPayableAmount != "10.80" {
			t.Errorf("typed bulk = %+v", res)
		}

		before := e2etest.Got(api.Receipts.List(ctx, nil))(t).Meta.Total
		many := make([]client.ReceiptInput, 1001)
		for i := range many {
			many[i] = *e2etest.ReceiptInput(fmt.Sprintf("M-%04d", i))
		}
		_, err = api.Receipts.CreateBulk(ctx, many)
		if e := e2etest.WantErr(t, err, 422, client.CodeValidationFailed); e.Fields["receipts"] == nil {
			t.Errorf("1,001 receipts: %s", e.Body)
		}
		if after := e2etest.Got(api.Receipts.List(ctx, nil))(t).Meta.Total; after != before {
			t.Errorf("a refused bulk of 1,001 stored %d receipts", after-before)
		}
		res, err = api.Receipts.CreateBulk(ctx, many[:1000])
		if e2etest.Must(t, res, err); len(res.Created) != 1000 || len(res.Refused) != 0 {
			t.Errorf("bulk of 1,000: %d created, refused %+v", len(res.Created), res.Refused)
		}
		raw.Do("POST", "/api/v1/receipts/bulk", map[string]any{"receipts": []any{}}).Want(t, 422, "VALIDATION_FAILED")
		raw.Do("POST", "/api/v1/receipts/bulk", map[string]any{}).Want(t, 422, "VALIDATION_FAILED")
		raw.Do("POST", "/api/v1/receipts/bulk", map[string]any{"receipts": "all"}).Want(t, 400, "MALFORMED_JSON")
		raw.Do("POST", "/api/v1/receipts/bulk", `{"receipts": [`).Want(t, 400, "MALFORMED_JSON")
	})
}

// TestReceiptsList: the month, status and search filters, paging over
// several pages, newest issued first, and the 422s of bad filters.
func TestReceiptsList(t *testing.T) {
	t.Parallel()
	e2etest.EachEngine(t, func(t *testing.T, dsn string) {
		svc := e2etest.StartService(t, dsn)
		api, raw, ctx := svc.API(t, svc.DemoKey), svc.Client(t, svc.DemoKey), t.Context()
		var batch []client.ReceiptInput
		for i := range 25 {
			in := e2etest.ReceiptInput(fmt.Sprintf("SEP-%03d", i))
			in.IssuedAt = time.Date(2026, time.September, 1+i, 12, 0, 0, 0, time.UTC)
			batch = append(batch, *in)
		}
		for i := range 5 {
			in := e2etest.ReceiptInput(fmt.Sprintf("OCT-%03d", i))
			// 30 Sep 17:00 UTC is 1 Oct 01:00 in Malaysia: an October receipt.
			in.IssuedAt = time.Date(2026, time.September, 30, 17, i, 0, 0, time.UTC)
			batch = append(batch, *in)
		}
		batch = append(batch, *e2etest.BigReceipt("BIG-1", "20000.00", time.Date(2026, time.September, 3, 9, 0, 0, 0, time.UTC)))
		res, err := api.Receipts.CreateBulk(ctx, batch)
		if e2etest.Must(t, res, err); len(res.Created) != 31 {
			t.Fatalf("created %d: %+v", len(res.Created), res.Refused)
		}

		page, err := api.Receipts.List(ctx, &client.ReceiptListOptions{Month: "2026-09", ListOptions: client.ListOptions{PerPage: 10}})
		if e2etest.Must(t, page, err).Meta.Total != 26 || page.Meta.LastPage != 3 || len(page.Items) != 10 {
			t.Errorf("September: total %d, last page %d, %d items", page.Meta.Total, page.Meta.LastPage, len(page.Items))
		}
		if page.Items[0].ReceiptNumber != "SEP-024" || page.Items[1].ReceiptNumber != "SEP-023" {
			t.Errorf("not newest issued first: %s, %s", page.Items[0].ReceiptNumber, page.Items[1].ReceiptNumber)
		}
		seen := map[string]bool{}
		for r, err := range api.Receipts.All(ctx, &client.ReceiptListOptions{Month: "2026-09", ListOptions: client.ListOptions{PerPage: 7}}) {
			if err != nil {
				t.Fatal(err)
			}
			if r.Month != "2026-09" || seen[r.ID] {
				t.Errorf("All: %s month %s (seen %v)", r.ReceiptNumber, r.Month, seen[r.ID])
			}
			seen[r.ID] = true
		}
		if len(seen) != 26 {
			t.Errorf("All over September: %d receipts, want 26", len(seen))
		}
		oct, err := api.Receipts.List(ctx, &client.ReceiptListOptions{Month: "2026-10"})
		if e2etest.Must(t, oct, err).Meta.Total != 5 {
			t.Errorf("October: %d receipts, want 5", oct.Meta.Total)
		}
		ex, err := api.Receipts.List(ctx, &client.ReceiptListOptions{Status: client.ReceiptExcluded})
		if e2etest.Must(t, ex, err).Meta.Total != 1 || ex.Items[0].ReceiptNumber != "BIG-1" {
			t.Errorf("excluded: %+v", ex)
		}
		open, err := api.Receipts.List(ctx, &client.ReceiptListOptions{Month: "2026-09", Status: client.ReceiptOpen})
		if e2etest.Must(t, open, err).Meta.Total != 25 {
			t.Errorf("open in September: %d", open.Meta.Total)
		}
		s, err := api.Receipts.List(ctx, &client.ReceiptListOptions{Search: "sep-01"})
		if e2etest.Must(t, s, err).Meta.Total != 10 {
			t.Errorf("search sep-01: %d, want SEP-010 to SEP-019", s.Meta.Total)
		}
		if none, err := api.Receipts.List(ctx, &client.ReceiptListOptions{Search: "%"}); e2etest.Must(t, none, err).Meta.Total != 0 {
			t.Errorf("search %%: %d, want a literal prefix", none.Meta.Total)
		}
		for q, field := range map[string]string{"month=2026-13": "month", "month=202609": "month", "month=2026-9": "month",
			"status=closed": "status", "status=Open": "status", "per_page=0": "per_page", "page=x": "page"} {
			r := raw.Do("GET", "/api/v1/receipts?"+q, nil).Want(t, 422, "VALIDATION_FAILED")
			if r.FieldErrors()[field] == nil {
				t.Errorf("?%s: errors %v, want %s named", q, r.FieldErrors(), field)
			}
		}
	})
}

// TestReceiptDelete: an open or excluded receipt is deleted (then 404, its
// number free again); a converted or consolidated one is a 409.
func TestReceiptDelete(t *testing.T) {
	t.Parallel()
	e2etest.EachEngine(t, func(t *testing.T, dsn string) {
		svc := e2etest.StartService(t, dsn)
		api, ctx := svc.API(t, svc.DemoKey), t.Context()
		open := e2etest.Got(api.Receipts.Create(ctx, e2etest.ReceiptInput("D-1")))(t)
		big := e2etest.Got(api.Receipts.Create(ctx, e2etest.BigReceipt("D-2", "10000.01", e2etest.ReceiptIssued)))(t)
		if big.Status != client.ReceiptExcluded {
			t.Fatalf("D-2 over RM10,000 is %s", big.Status)
		}
		for _, r := range []*client.Receipt{open, big} {
			if err := api.Receipts.Delete(ctx, r.ID); err != nil {
				t.Errorf("delete %s (%s): %v", r.ReceiptNumber, r.Status, err)
			}
			_, err := api.Receipts.Get(ctx, r.ID)
			e2etest.WantErr(t, err, 404, client.CodeReceiptNotFound)
			e2etest.WantErr(t, api.Receipts.Delete(ctx, r.ID), 404, client.CodeReceiptNotFound)
			_, err = api.Receipts.QR(ctx, r.ID, 0)
			e2etest.WantErr(t, err, 404, client.CodeReceiptNotFound)
		}
		if l := e2etest.Got(api.Receipts.List(ctx, nil))(t); l.Meta.Total != 0 {
			t.Errorf("deleted receipts listed: %d", l.Meta.Total)
		}
		again := e2etest.Got(api.Receipts.Create(ctx, e2etest.ReceiptInput("D-1")))(t)
		if again.RequestURL == open.RequestURL {
			t.Errorf("a new receipt of a deleted one's number has its request URL")
		}
		// The deleted receipt stays, as a tombstone its token finds.
		store := servetest.Store(t, dsn)
		tomb, err := store.ReceiptByToken(ctx, open.RequestURL[strings.LastIndex(open.RequestURL, "/")+1:])
		if e2etest.Must(t, tomb, err).DeletedAt == nil || tomb.ID != open.ID {
			t.Errorf("tombstone: %+v", tomb)
		}

		// Converted and consolidated receipts (as the buyer's request and the
		// consolidation leave them) are not deletable.
		conv := e2etest.Got(api.Receipts.Create(ctx, e2etest.ReceiptInput("D-3")))(t)
		cons := e2etest.Got(api.Receipts.Create(ctx, e2etest.ReceiptInput("D-4")))(t)
		tenant := servetestTenant(t, store)
		at := time.Now().UTC()
		e2etest.Must(t, 0, store.TransitionReceipt(ctx, tenant, conv.ID, einvoice.ReceiptTransition{
			From: []einvoice.ReceiptStatus{einvoice.ReceiptOpen, einvoice.ReceiptExcluded}, To: einvoice.ReceiptConverted, InvoiceID: e2etest.NewID(), At: at}))
		n, err := store.TransitionReceipts(ctx, tenant, []string{cons.ID, conv.ID, e2etest.NewID()}, einvoice.ReceiptTransition{
			From: []einvoice.ReceiptStatus{einvoice.ReceiptOpen}, To: einvoice.ReceiptConsolidated, ConsolidationID: e2etest.NewID(),
			ConsolidatedDocumentID: e2etest.NewID(), At: at})
		if e2etest.Must(t, n, err) != 1 {
			t.Errorf("consolidated %d receipts, want 1 (the converted one is not open)", n)
		}
		for _, r := range []*client.Receipt{conv, cons} {
			e := e2etest.WantErr(t, api.Receipts.Delete(ctx, r.ID), 409, client.CodeReceiptNotDeletable)
			if !strings.Contains(e.Message, "converted") && !strings.Contains(e.Message, "consolidated") {
				t.Errorf("409 message %q does not say the status", e.Message)
			}
		}
		if got := e2etest.Got(api.Receipts.Get(ctx, conv.ID))(t); got.Status != client.ReceiptConverted || got.InvoiceID == "" {
			t.Errorf("converted receipt: %+v", got)
		}
		if got := e2etest.Got(api.Receipts.Get(ctx, cons.ID))(t); got.Status != client.ReceiptConsolidated ||
			got.ConsolidationID == "" || got.ConsolidatedDocumentID == "" {
			t.Errorf("consolidated receipt: %+v", got)
		}
	})
}

// servetestTenant is the id of the database's only tenant (the demo one).
func servetestTenant(t *testing.T, store interface {
	ListTenants(ctx context.Context) ([]*einvoice.Tenant, error)
}) string {
	t.Helper()
	ts, err := store.ListTenants(t.Context())
	if err != nil || len(ts) != 1 {
		t.Fatalf("tenants: %v %d", err, len(ts))
	}
	return ts[0].ID
}

// TestReceiptQR: the QR code holds exactly the receipt's requestUrl, as
// JSON (base64 PNG), PNG and JPEG; a bad size is a 422; --public-url sets
// the base of requestUrl.
func TestReceiptQR(t *testing.T) {
	t.Parallel()
	e2etest.EachEngine(t, func(t *testing.T, dsn string) {
		svc := e2etest.StartService(t, dsn, "--public-url", "https://shop.example.com/einvoice/")
		api, raw, ctx := svc.API(t, svc.DemoKey), svc.Client(t, svc.DemoKey), t.Context()
		r := e2etest.Got(api.Receipts.Create(ctx, e2etest.ReceiptInput("Q-1")))(t)
		if !strings.HasPrefix(r.RequestURL, "https://shop.example.com/einvoice/r/") {
			t.Errorf("requestUrl %q: want it under --public-url", r.RequestURL)
		}
		code := e2etest.Got(api.Receipts.QR(ctx, r.ID, 0))(t)
		if code.URL != r.RequestURL || code.ID != r.ID {
			t.Errorf("QR JSON = %s %s, want %s", code.ID, code.URL, r.RequestURL)
		}
		if text, size := e2etest.DecodeQR(t, code.PNG); text != r.RequestURL || size.X != 256 {
			t.Errorf("QR JSON's PNG holds %q (%dpx), want %q", text, size.X, r.RequestURL)
		}
		png := e2etest.Got(api.Receipts.QRImage(ctx, r.ID, client.PNG, 300))(t)
		if text, size := e2etest.DecodeQR(t, png.Data); text != r.RequestURL || size.X != 300 || png.ContentType != "image/png" {
			t.Errorf("PNG holds %q (%dpx, %s)", text, size.X, png.ContentType)
		}
		jpeg := e2etest.Got(api.Receipts.QRImage(ctx, r.ID, client.JPEG, 0))(t)
		if text, _ := e2etest.DecodeQR(t, jpeg.Data); text != r.RequestURL || jpeg.ContentType != "image/jpeg" {
			t.Errorf("JPEG holds %q (%s)", text, jpeg.ContentType)
		}
		if r := raw.Do("GET", "/api/v1/receipts/"+r.ID+"/qr?size=5000", nil).Want(t, 422, "VALIDATION_FAILED"); r.FieldErrors()["size"] == nil {
			t.Errorf("size 5000: %s", r.Raw)
		}
		raw.Do("GET", "/api/v1/receipts/"+r.ID+"/qr", nil, "Accept", "application/pdf").Want(t, 406, "NOT_ACCEPTABLE")
	})
}

// TestReceiptExclusion: a receipt over RM10,000 (its total payable, in
// MYR) is excluded where the authority's rule is in force (not before its
// date, not within the relaxation the profile declares); the limit itself
// and a foreign currency's MYR value are judged exactly.
func TestReceiptExclusion(t *testing.T) {
	t.Parallel()
	e2etest.EachEngine(t, func(t *testing.T, dsn string) {
		svc := e2etest.StartService(t, dsn)
		api, raw, ctx := svc.API(t, svc.DemoKey), svc.Client(t, svc.DemoKey), t.Context()
		myt := time.FixedZone("MYT", 8*3600)
		usd := func(number, amount, rate string) *client.ReceiptInput {
			in := e2etest.BigReceipt(number, amount, e2etest.ReceiptIssued)
			in.CurrencyCode, in.ExchangeRate, in.Payment = "USD", client.Decimal(rate), &client.Payment{PaymentMode: "04"}
			return in
		}
		cases := []struct {
			in       *client.ReceiptInput
			excluded bool
		}{
			{e2etest.BigReceipt("X-1", "10000.00", e2etest.ReceiptIssued), false},
			{e2etest.BigReceipt("X-2", "10000.01", e2etest.ReceiptIssued), true},
			// The last moment before the rule (31 Dec 2025, Malaysian time).
			{e2etest.BigReceipt("X-3", "50000.00", time.Date(2025, time.December, 31, 23, 59, 59, 0, myt)), false},
			{e2etest.BigReceipt("X-4", "50000.00", time.Date(2026, time.January, 1, 0, 0, 0, 0, myt)), true},
			{usd("X-5", "2500.00", "4.5"), true},   // RM11,250
			{usd("X-6", "2222.22", "4.5"), false},  // RM9,999.99
			{usd("X-7", "2222.23", "4.5"), true},   // RM10,000.04
			{usd("X-8", "10000.00", "0.9"), false}, // RM9,000
		}
		for _, c := range cases {
			r := e2etest.Got(api.Receipts.Create(ctx, c.in))(t)
			if got := r.Status == client.ReceiptExcluded; got != c.excluded {
				t.Errorf("%s (%s %s, %s): status %s, want excluded %v", r.ReceiptNumber, r.CurrencyCode, r.TotalPayableAmount, r.IssuedAt, r.Status, c.excluded)
			}
			if c.excluded && !strings.HasPrefix(r.ExcludedReason, "CONSOLIDATION_OVER_RM10000") {
				t.Errorf("%s: excludedReason %q", r.ReceiptNumber, r.ExcludedReason)
			}
			if !c.excluded && r.ExcludedReason != "" {
				t.Errorf("%s: excludedReason %q on an open receipt", r.ReceiptNumber, r.ExcludedReason)
			}
		}

		// Within the relaxation: the profile declares it until 30 June 2026.
		p := e2etest.ProfileOf(t, e2etest.SampleProfile())
		p.ConsolidationRelaxedUntil = "2026-06-30"
		if got := e2etest.Got(api.Profile.Update(ctx, p, nil))(t); got.ConsolidationRelaxedUntil != "2026-06-30" {
			t.Errorf("profile: consolidationRelaxedUntil %q", got.ConsolidationRelaxedUntil)
		}
		if got := e2etest.Got(api.Profile.Get(ctx))(t); got.ConsolidationRelaxedUntil != "2026-06-30" {
			t.Errorf("GET profile: consolidationRelaxedUntil %q", got.ConsolidationRelaxedUntil)
		}
		within := e2etest.Got(api.Receipts.Create(ctx, e2etest.BigReceipt("X-9", "50000.00", time.Date(2026, time.June, 30, 23, 59, 0, 0, myt))))(t)
		after := e2etest.Got(api.Receipts.Create(ctx, e2etest.BigReceipt("X-10", "50000.00", time.Date(2026, time.July, 1, 0, 0, 0, 0, myt))))(t)
		if within.Status != client.ReceiptOpen || after.Status != client.ReceiptExcluded {
			t.Errorf("relaxed until 30 June: 30 June is %s, 1 July is %s", within.Status, after.Status)
		}
		body := e2etest.SampleProfile()
		body["consolidationRelaxedUntil"] = "30/06/2026"
		if r := raw.Do("PUT", "/api/v1/profile", body).Want(t, 422, "VALIDATION_FAILED"); r.FieldErrors()["consolidationRelaxedUntil"] == nil {
			t.Errorf("a bad date: %s", r.Raw)
		}
		p.ConsolidationRelaxedUntil = ""
		if got := e2etest.Got(api.Profile.Update(ctx, p, nil))(t); got.ConsolidationRelaxedUntil != "" {
			t.Errorf("relaxation not cleared: %q", got.ConsolidationRelaxedUntil)
		}
	})
}

// TestReceiptInputErrors: every malformed input is a 4xx naming its field,
// stores nothing, and is never a 500 (sums beyond the limits included).
func TestReceiptInputErrors(t *testing.T) {
	t.Parallel()
	e2etest.EachEngine(t, func(t *testing.T, dsn string) {
		svc := e2etest.StartService(t, dsn)
		raw, api, ctx := svc.Client(t, svc.DemoKey), svc.API(t, svc.DemoKey), t.Context()
		with := func(change func(m map[string]any)) map[string]any {
			m := e2etest.ReceiptBody("E-1")
			change(m)
			return m
		}
		line0 := func(m map[string]any) map[string]any { return m["invoiceLines"].([]any)[0].(map[string]any) }
		future := time.Now().Add(time.Hour).Format(time.RFC3339)
		cases := []struct {
			name   string
			body   any
			status int
			field  string
		}{
			{"no number", with(func(m map[string]any) { delete(m, "receiptNumber") }), 422, "receiptNumber"},
			{"blank number", with(func(m map[string]any) { m["receiptNumber"] = "  " }), 422, "receiptNumber"},
			{"long number", with(func(m map[string]any) { m["receiptNumber"] = strings.Repeat("R", 51) }), 422, "receiptNumber"},
			{"control in number", with(func(m map[string]any) { m["receiptNumber"] = "R\t1" }), 422, "receiptNumber"},
			{"number not a string", with(func(m map[string]any) { m["receiptNumber"] = 5 }), 400, "receiptNumber"},
			{"no issuedAt", with(func(m map[string]any) { delete(m, "issuedAt") }), 422, "issuedAt"},
			{"issuedAt not a time", with(func(m map[string]any) { m["issuedAt"] = "yesterday" }), 422, "issuedAt"},
			{"issuedAt without offset", with(func(m map[string]any) { m["issuedAt"] = "2026-10-01T10:00:00" }), 422, "issuedAt"},
			{"issuedAt in the future", with(func(m map[string]any) { m["issuedAt"] = future }), 422, "issuedAt"},
			{"no lines", with(func(m map[string]any) { m["invoiceLines"] = []any{} }), 422, "invoiceLines"},
			{"lines not an array", with(func(m map[string]any) { m["invoiceLines"] = map[string]any{} }), 400, "invoiceLines"},
			{"no description", with(func(m map[string]any) { delete(line0(m), "productDescription") }), 422, "invoiceLines.0.productDescription"},
			{"no quantity", with(func(m map[string]any) { delete(line0(m), "quantity") }), 422, "invoiceLines.0.quantity"},
			{"no tax", with(func(m map[string]any) { delete(line0(m), "invoiceLineTaxes") }), 422, "invoiceLines.0.invoiceLineTaxes"},
			{"exempt without reason", with(func(m map[string]any) {
				line0(m)["invoiceLineTaxes"] = []any{map[string]any{"taxType": "E"}}
			}), 422, "invoiceLines.0.invoiceLineTaxes.0.exemptionReason"},
			{"rate 500", with(func(m map[string]any) {
				line0(m)["invoiceLineTaxes"] = []any{map[string]any{"taxType": "02", "taxRate": 500}}
			}), 422, "invoiceLines.0.invoiceLineTaxes.0.taxRate"},
			{"no tax rate", with(func(m map[string]any) {
				line0(m)["invoiceLineTaxes"] = []any{map[string]any{"taxType": "02"}}
			}), 422, "invoiceLines.0.invoiceLineTaxes.0.taxRate"},
			{"06 with a rate", with(func(m map[string]any) {
				line0(m)["invoiceLineTaxes"] = []any{map[string]any{"taxType": "06", "taxRate": 6}}
			}), 422, "invoiceLines.0.invoiceLineTaxes.0.taxRate"},
			{"exemption reason's characters", with(func(m map[string]any) {
				line0(m)["invoiceLineTaxes"] = []any{map[string]any{"taxType": "E", "exemptionReason": "Food; basic!"}}
			}), 422, "invoiceLines.0.invoiceLineTaxes.0.exemptionReason"},
			{"long description", with(func(m map[string]any) { line0(m)["productDescription"] = strings.Repeat("é", 301) }), 422, "invoiceLines.0.productDescription"},
			{"unknown tax type", with(func(m map[string]any) {
				line0(m)["invoiceLineTaxes"] = []any{map[string]any{"taxType": "99", "taxRate": 0}}
			}), 422, "invoiceLines.0.invoiceLineTaxes.0.taxType"},
			{"unknown classification", with(func(m map[string]any) { line0(m)["authorityClassification"] = "999" }), 422, "invoiceLines.0.authorityClassification"},
			{"price with 7 decimals", with(func(m map[string]any) { line0(m)["unitPrice"] = e2etest.JSONNumber("1.0000001") }), 422, "invoiceLines.0.unitPrice"},
			{"price beyond 10^12", with(func(m map[string]any) { line0(m)["unitPrice"] = e2etest.JSONNumber("1e13") }), 422, "invoiceLines.0.unitPrice"},
			{"subtotal beyond 10^12", with(func(m map[string]any) {
				line0(m)["quantity"], line0(m)["unitPrice"] = e2etest.JSONNumber("1000000000000"), e2etest.JSONNumber("10")
			}), 422, "invoiceLines.0.subtotal"},
			{"unknown currency", with(func(m map[string]any) { m["currencyCode"] = "ABC" }), 422, "currencyCode"},
			{"USD without a rate", with(func(m map[string]any) { m["currencyCode"] = "USD" }), 422, "exchangeRate"},
			{"MYR with a rate", with(func(m map[string]any) { m["exchangeRate"] = 4.5 }), 422, "exchangeRate"},
			{"unknown payment mode", with(func(m map[string]any) { m["payment"] = map[string]any{"paymentMode": "99"} }), 422, "payment.paymentMode"},
			{"unknown field", with(func(m map[string]any) { m["buyerId"] = e2etest.NewID() }), 422, "buyerId"},
			{"duplicate key", `{"receiptNumber": "E-1", "receiptNumber": "E-2"}`, 400, ""},
			{"not an object", `[1]`, 400, ""},
		}
		for _, c := range cases {
			r := raw.Do("POST", "/api/v1/receipts", c.body)
			if r.Status != c.status || (c.field != "" && r.FieldErrors()[c.field] == nil) {
				t.Errorf("%s: %d %s, want %d naming %q", c.name, r.Status, r.Raw, c.status, c.field)
			}
		}
		// The sum of many valid lines beyond the limits: a 422, not a 500.
		many := e2etest.ReceiptBody("E-2")
		var lines []any
		for range 1000 {
			lines = append(lines, map[string]any{"productDescription": "Gold", "quantity": 1, "unitPrice": e2etest.JSONNumber("999999999999"),
				"invoiceLineTaxes": []any{map[string]any{"taxType": "06", "taxRate": 0}}})
		}
		many["invoiceLines"] = lines
		if r := raw.Do("POST", "/api/v1/receipts", many).Want(t, 422, "VALIDATION_FAILED"); r.FieldErrors()["subtotal"] == nil {
			t.Errorf("1,000 lines of 10^12: %.300s", r.Raw)
		}
		if l := e2etest.Got(api.Receipts.List(ctx, nil))(t); l.Meta.Total != 0 {
			t.Errorf("refused receipts stored: %d", l.Meta.Total)
		}
		// A response is no request: its fields are unknown (a receipt is
		// never replaced, its amounts never taken).
		r := e2etest.Got(api.Receipts.Create(ctx, e2etest.ReceiptInput("E-3")))(t)
		echo := e2etest.WireMap(r)
		echo["receiptNumber"] = "E-4"
		if got := raw.Do("POST", "/api/v1/receipts", echo).Want(t, 422, "VALIDATION_FAILED"); got.FieldErrors()["requestUrl"] == nil ||
			got.FieldErrors()["totalPayableAmount"] == nil {
			t.Errorf("echoed receipt: %s", got.Raw)
		}
	})
}

// TestScaleReceiptsBulkIdempotent: a bulk over 1 MiB (up to the bulk limit of
// 10 MiB) sent again with the same Idempotency-Key is answered as the
// first time, and stores nothing more.
func TestScaleReceiptsBulkIdempotent(t *testing.T) {
	testscale.Mark(t)
	t.Parallel()
	e2etest.EachEngine(t, func(t *testing.T, dsn string) {
		svc := e2etest.StartService(t, dsn)
		api, ctx := svc.API(t, svc.DemoKey), t.Context()
		in := make([]client.ReceiptInput, 1000)
		desc := strings.Repeat("Kopi O kaw kurang manis ", 11) // 264 characters
		for i := range in {
			in[i] = *e2etest.ReceiptInput(fmt.Sprintf("I-%04d", i))
			l := in[i].Lines[0]
			l.ProductDescription = desc
			in[i].Lines = []client.Line{l, l, l, l}
		}
		first := e2etest.Got(api.Receipts.CreateBulk(ctx, in, client.IdempotencyKey("receipts-bulk-1")))(t)
		again := e2etest.Got(api.Receipts.CreateBulk(ctx, in, client.IdempotencyKey("receipts-bulk-1")))(t)
		if len(first.Created) != 1000 || len(again.Created) != 1000 || len(again.Refused) != 0 || again.Created[999].ID != first.Created[999].ID {
			t.Errorf("replayed bulk: first %d created, again %d created and %d refused", len(first.Created), len(again.Created), len(again.Refused))
		}
		if l := e2etest.Got(api.Receipts.List(ctx, nil))(t); l.Meta.Total != 1000 {
			t.Errorf("%d receipts stored, want 1000", l.Meta.Total)
		}
	})
}
