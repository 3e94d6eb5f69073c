package documents

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/einvoice/einvoice/internal/e2e/e2etest"

	"github.com/einvoice/einvoice/client"
	"github.com/einvoice/einvoice/internal/servetest"
)

// plantBody replaces the stored JSON body of a document, as a bug or an
// older version of the service might have left it.
func plantBody(t *testing.T, dsn, id string, edit func(body string) string) {
	t.Helper()
	ctx := context.Background()
	s := servetest.Store(t, dsn)
	var body string
	if err := s.DB().QueryRowContext(ctx, `SELECT body FROM documents WHERE id = $1`, id).Scan(&body); err != nil {
		t.Fatalf("read the body of %s: %v", id, err)
	}
	// A body written otherwise than by the service's own writes (by an
	// older version, before migration 00018, or by hand) is not its
	// current rendering: body_current 0, as the migration leaves such rows.
	if _, err := s.DB().ExecContext(ctx, `UPDATE documents SET body = $1, body_current = 0 WHERE id = $2`, edit(body), id); err != nil {
		t.Fatalf("plant the body of %s: %v", id, err)
	}
}

// TestUnreadableDocumentRow (DECISIONS 12): a stored document that cannot
// be read back takes nothing else down. The list answers 200 with the other
// documents and names the unreadable one in meta.unreadable (its total
// still counts it); the log names it; reading it is a clean 500 that names
// the request id; deleting it works.
func TestUnreadableDocumentRow(t *testing.T) {
	t.Parallel()
	e2etest.EachEngine(t, func(t *testing.T, dsn string) {
		ctx := t.Context()
		f := newDocFixture(t, dsn)
		a := f.Svc.API(t, f.Svc.DemoKey)
		c := f.Svc.Client(t, f.Svc.DemoKey) // for the 500, on the wire
		var ids []string
		for _, serial := range []string{"OK-1", "HUGE-1", "CORRUPT-1", "OK-2"} {
			// f.invoice(serial, line("1", "01", 6)), typed.
			d, err := a.Documents.Create(ctx, &client.Document{BuyerID: f.BuyerID, InvoiceSerialNumber: serial,
				CurrencyCode: "MYR", AutoCalculate: true,
				Lines: []client.Line{{Classifications: []string{"001"}, ProductDescription: "Widget", Quantity: "1",
					UnitCode: "H87", UnitPrice: "1", Taxes: []client.LineTax{{TaxType: "01", TaxRate: "6"}}}},
				Payment: &client.Payment{PaymentMode: "03", PaymentTerms: "30 days"}})
			ids = append(ids, e2etest.Must(t, d, err).ID)
		}
		ok1, huge, corrupt, ok2 := ids[0], ids[1], ids[2], ids[3]
		// What the hostile run stored: a computed subtotal of 10^24.
		plantBody(t, dsn, huge, func(b string) string {
			return strings.Replace(b, `"subtotal":"1.00"`, `"subtotal":"1000000000000000000000000.00"`, 1)
		})
		plantBody(t, dsn, corrupt, func(b string) string { return b[:len(b)/2] })

		list := func(o *client.DocumentListOptions) (data []client.Document, meta client.Meta) {
			t.Helper()
			p, err := a.Documents.List(ctx, o)
			e2etest.Must(t, p, err)
			return p.Items, p.Meta
		}
		idsOf := func(items []client.Document) []string {
			var out []string
			for _, it := range items {
				out = append(out, it.ID)
			}
			return out
		}
		logged := len(f.Svc.Stderr.String())
		data, meta := list(nil)
		for _, id := range []string{huge, corrupt} {
			if log := f.Svc.Stderr.String()[logged:]; !strings.Contains(log, "left out of a list") || !strings.Contains(log, id) {
				t.Errorf("the list did not log the unreadable %s:\n%s", id, log)
			}
		}
		if got := idsOf(data); strings.Join(got, ",") != ok2+","+ok1 {
			t.Errorf("list data = %v, want the two readable documents %v", got, []string{ok2, ok1})
		}
		if got := fmt.Sprint(meta.Unreadable); got != "["+corrupt+" "+huge+"]" {
			t.Errorf("meta.unreadable = %v, want [%s %s] (newest first)", got, corrupt, huge)
		}
		if meta.Total != 4 {
			t.Errorf("meta.total = %v, want 4 (the stored documents)", meta.Total)
		}
		// Filters and pages skip it the same way.
		if data, meta := list(&client.DocumentListOptions{Search: "HUGE"}); len(data) != 0 || fmt.Sprint(meta.Unreadable) != "["+huge+"]" {
			t.Errorf("search HUGE: data %v meta %+v", idsOf(data), meta)
		}
		if data, meta := list(&client.DocumentListOptions{ListOptions: client.ListOptions{PerPage: 2, Page: 2}}); strings.Join(idsOf(data), ",") != ok1 || fmt.Sprint(meta.Unreadable) != "["+huge+"]" {
			t.Errorf("page 2: data %v meta %+v", idsOf(data), meta)
		}
		for _, id := range []string{huge, corrupt} {
			logged := len(f.Svc.Stderr.String())
			r := c.Send("GET", "/api/v1/invoices/"+id, nil)
			if r.Status != 500 || r.ErrorCode() != "INTERNAL_ERROR" || !strings.Contains(e2etest.Str(r.Body["message"]), r.Header.Get("X-Request-Id")) {
				t.Errorf("GET of the unreadable %s = %d: %s", id, r.Status, r.Raw)
			}
			if strings.Contains(string(r.Raw), id) || strings.Contains(string(r.Raw), "money") {
				t.Errorf("the 500 shows internals: %s", r.Raw)
			}
			if log := f.Svc.Stderr.String()[logged:]; !strings.Contains(log, id) || !strings.Contains(log, r.Header.Get("X-Request-Id")) {
				t.Errorf("the log does not name %s and the request id:\n%s", id, log)
			}
		}
		if log := f.Svc.Stderr.String(); !strings.Contains(log, "must be at most 10^12") {
			t.Errorf("the log does not say why %s is unreadable:\n%s", huge, log)
		}
		// The other documents work as before, and the unreadable ones can be deleted.
		d, err := a.Documents.Get(ctx, ok1)
		e2etest.Must(t, d, err)
		res, err := a.Documents.Validate(ctx, ok2)
		e2etest.Must(t, res, err)
		if err := a.Documents.Delete(ctx, huge); err != nil {
			t.Errorf("delete the unreadable %s: %v", huge, err)
		}
		if err := a.Documents.Delete(ctx, corrupt); err != nil {
			t.Errorf("delete the unreadable %s: %v", corrupt, err)
		}
		if data, meta := list(nil); len(data) != 2 || meta.Unreadable != nil || meta.Total != 2 {
			t.Errorf("after the deletes: %d documents, meta %+v", len(data), meta)
		}
	})
}
