package resilience

import (
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/einvoice/einvoice/internal/e2e/e2etest"

	"github.com/einvoice/einvoice/client"
	"github.com/einvoice/einvoice/internal/servetest"
)

// lineRange is the receipt numbers a consolidated line names ("Receipts
// S-00001 to S-00093", "Receipt S-00050"), as the numbers of prefix S-.
func lineRange(t *testing.T, desc string) (first, last int) {
	t.Helper()
	num := func(s string) int {
		n, err := strconv.Atoi(strings.TrimPrefix(s, "S-"))
		if err != nil || !strings.HasPrefix(s, "S-") {
			t.Fatalf("line %q: %q is not a receipt number of the month", desc, s)
		}
		return n
	}
	if rest, ok := strings.CutPrefix(desc, "Receipts "); ok {
		a, b, ok := strings.Cut(rest, " to ")
		if !ok {
			t.Fatalf("line %q names no range", desc)
		}
		return num(a), num(b)
	}
	if rest, ok := strings.CutPrefix(desc, "Receipt "); ok {
		n := num(rest)
		return n, n
	}
	t.Fatalf("line %q names no receipts", desc)
	return 0, 0
}

// taxKey is a line's tax treatment as the service writes it back.
func taxKey(t *testing.T, taxes []client.LineTax) string {
	t.Helper()
	var b strings.Builder
	for _, x := range taxes {
		b.WriteString(x.TaxType + "|" + e2etest.Dec(t, x.TaxRate).String() + "|" + x.ExemptionReason + ";")
	}
	return b.String()
}

// TestReceiptsMonth: issue 20's whole month, end to end. 5,000 receipts
// of October (mixed taxes, discounts, cash rounding, gaps) and 2 over
// RM10,000 recorded through bulk create; 3 buyers ask for an e-invoice
// from the request page their receipt's QR names, posting the form as a
// browser does (one an individual by NRIC, whose TIN the service finds
// with Search TIN), and their invoices turn Valid; the consolidation then
// leaves the 3 converted receipts out of every line, puts every other
// non-excluded receipt line in exactly one consolidated line of its tax
// treatment, excludes the 2 large ones, and its totals are the
// consolidated receipts' to the cent, every document Valid; afterwards a
// converted receipt's page still shows its invoice and a consolidated
// one's says it was consolidated.
func TestReceiptsMonth(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a month of 5,000 receipts")
	}
	t.Parallel()
	e2etest.EachEngineParallel(t, func(t *testing.T, dsn string) {
		svc, api := e2etest.StartLifecycleAPI(t, dsn)
		b, ctx := e2etest.NewBrowser(t, svc), t.Context()
		if code, _, errOut := servetest.Run(t, dsn, "sandbox", "client", "add", "--tin", "IG12345678901",
			"--id-type", "NRIC", "--id-value", "900101015555", "--name", "Ali bin Abu"); code != 0 {
			t.Fatalf("sandbox client add: %s", errOut)
		}

		// The month: 5,000 receipts S-00001 to S-05051 (every 97th number
		// missing) and 2 large ones on two of the missing numbers.
		ins := e2etest.MonthReceipts("S", 5000)
		big := []client.ReceiptInput{*e2etest.BigReceipt("S-00097", "20000.00", e2etest.ReceiptIssued), *e2etest.BigReceipt("S-00194", "10000.01", e2etest.ReceiptIssued)}
		created := e2etest.RecordAll(t, api, append(ins, big...))
		byNumber := map[string]client.Receipt{}
		for _, r := range created {
			byNumber[r.ReceiptNumber] = r
		}
		if len(byNumber) != 5002 || byNumber["S-00097"].Status != client.ReceiptExcluded || byNumber["S-00194"].Status != client.ReceiptExcluded {
			t.Fatalf("%d receipts recorded; the large ones %s and %s", len(byNumber), byNumber["S-00097"].Status, byNumber["S-00194"].Status)
		}

		// Three buyers ask, each from the URL of their receipt's QR code:
		// two companies by TIN, one individual by NRIC only. Each receipt
		// is in the middle of a run of consecutive numbers.
		company := func(csrf, name, tin, brn string) url.Values {
			f := e2etest.BuyerForm(csrf)
			f.Set("name", name)
			f.Set("tin", tin)
			f.Set("idValue", brn)
			return f
		}
		individual := func(csrf string) url.Values {
			f := e2etest.BuyerForm(csrf)
			f.Set("name", "Ali bin Abu")
			f.Del("tin")
			f.Set("individual", "1")
			f.Set("idType", "NRIC")
			f.Set("idValue", "900101015555")
			return f
		}
		requests := []struct {
			number string
			form   func(csrf string) url.Values
			tin    string
		}{
			{"S-00050", func(c string) url.Values { return company(c, "Hebat Sdn. Bhd.", "C21638015020", "201901234567") }, "C21638015020"},
			{"S-02500", individual, "IG12345678901"},
			{"S-04000", func(c string) url.Values { return company(c, "Maju Jaya Sdn. Bhd.", "C10987654320", "202001012345") }, "C10987654320"},
		}
		converted := map[string]client.Receipt{}
		pages := map[string]string{}
		for _, rq := range requests {
			r := byNumber[rq.number]
			qr := e2etest.Got(api.Receipts.QR(ctx, r.ID, 0))(t)
			if qr.URL != r.RequestURL || !strings.HasPrefix(qr.URL, svc.URL+"/r/") {
				t.Fatalf("%s: QR names %q, requestUrl %q", rq.number, qr.URL, r.RequestURL)
			}
			form := b.Get(qr.URL)
			if form.Status != 200 || !strings.Contains(form.Body, rq.number) {
				t.Fatalf("%s: the page %d", rq.number, form.Status)
			}
			if status := b.Submit(qr.URL, rq.form(form.CSRF(t))); !strings.Contains(status.Body, "Your e-invoice was requested") {
				t.Fatalf("%s: after the post: %s", rq.number, status.Body)
			}
			back := e2etest.Got(api.Receipts.Get(ctx, r.ID))(t)
			if back.Status != client.ReceiptConverted || back.InvoiceID == "" {
				t.Fatalf("%s after the request: %+v", rq.number, back)
			}
			converted[back.ID] = *back
			pages[back.ID] = qr.URL
		}
		for _, rq := range requests {
			r := converted[byNumber[rq.number].ID]
			e2etest.WaitStatusTyped(t, api, r.InvoiceID, client.StatusValid, 3*time.Minute)
			inv := e2etest.Got(api.Documents.Get(ctx, r.InvoiceID))(t)
			buyer := e2etest.Got(api.Buyers.Get(ctx, inv.BuyerID))(t)
			if inv.InvoiceSerialNumber != rq.number || inv.TotalPayableAmount != r.TotalPayableAmount || buyer.TIN != rq.tin {
				t.Errorf("%s: invoice %s of %s for TIN %s; want the receipt's number, amount %s, TIN %s", rq.number,
					inv.InvoiceSerialNumber, inv.TotalPayableAmount, buyer.TIN, r.TotalPayableAmount, rq.tin)
			}
		}

		// The consolidation of October.
		c, err := api.Consolidations.Create(ctx, e2etest.ConsolidationMonth)
		c = e2etest.ConsolidationDone(t, api, e2etest.Must(t, c, err))
		if c.Status != client.ConsolidationCompleted || c.Supplementary || c.ReceiptCount != 4997 || c.ExcludedCount != 2 ||
			len(c.ExcludedReceipts) != 2 || c.ExcludedReceipts[0].ReceiptNumber != "S-00097" || c.ExcludedReceipts[1].ReceiptNumber != "S-00194" {
			t.Errorf("consolidation: %d receipts, %d excluded %+v; want 4997 and S-00097, S-00194 (%s)",
				c.ReceiptCount, c.ExcludedCount, c.ExcludedReceipts, c.Status)
		}
		want := map[string]client.Receipt{}
		for _, r := range created {
			if _, conv := converted[r.ID]; !conv && r.Status == client.ReceiptOpen {
				want[r.ID] = r
			}
		}
		docs := e2etest.WaitConsolidationValid(t, api, c)
		e2etest.CheckConsolidated(t, api, c, want, docs)

		// The lines: 53 runs of numbers, each converted receipt splitting
		// one in two, 56 runs of 5 tax treatments each.
		type cline struct {
			first, last int
			tax         string
			hits        int
		}
		var lines []*cline
		for _, d := range docs {
			for _, l := range d.Lines {
				first, last := lineRange(t, l.ProductDescription)
				lines = append(lines, &cline{first: first, last: last, tax: taxKey(t, l.Taxes)})
			}
		}
		if len(lines) != 280 {
			t.Errorf("%d consolidated lines, want 280 (56 runs of 5 tax treatments)", len(lines))
		}
		for _, r := range converted {
			n, _ := strconv.Atoi(strings.TrimPrefix(r.ReceiptNumber, "S-"))
			for _, l := range lines {
				if l.first <= n && n <= l.last {
					t.Errorf("converted receipt %s within a consolidated line's range %d to %d", r.ReceiptNumber, l.first, l.last)
				}
			}
		}
		// Every line of every consolidated receipt is within exactly one
		// line of its treatment.
		for _, r := range want {
			n, _ := strconv.Atoi(strings.TrimPrefix(r.ReceiptNumber, "S-"))
			for _, rl := range r.Lines {
				key, in := taxKey(t, rl.Taxes), 0
				for _, l := range lines {
					if l.tax == key && l.first <= n && n <= l.last {
						in++
						l.hits++
					}
				}
				if in != 1 {
					t.Errorf("receipt %s, treatment %s: in %d consolidated lines, want 1", r.ReceiptNumber, key, in)
				}
			}
		}
		for _, l := range lines {
			if l.hits == 0 {
				t.Errorf("consolidated line %d to %d (%s) carries no receipt", l.first, l.last, l.tax)
			}
		}
		for id, r := range converted {
			if back := e2etest.Got(api.Receipts.Get(ctx, id))(t); back.Status != client.ReceiptConverted || back.ConsolidationID != "" {
				t.Errorf("converted %s after the consolidation: %s in %q", r.ReceiptNumber, back.Status, back.ConsolidationID)
			}
		}
		if open := e2etest.Got(api.Receipts.List(ctx, &client.ReceiptListOptions{Month: e2etest.ConsolidationMonth, Status: client.ReceiptOpen}))(t); open.Meta.Total != 0 {
			t.Errorf("%d receipts still open", open.Meta.Total)
		}

		// The pages afterwards: a converted receipt's shows its invoice,
		// Valid; a consolidated one's says it was consolidated.
		for id, r := range converted {
			if p := b.Get(pages[id]); !strings.Contains(p.Body, `data-status="Valid"`) || strings.Contains(p.Body, "<form") {
				t.Errorf("%s's page after the consolidation: %d %s", r.ReceiptNumber, p.Status, p.Body)
			}
		}
		if p := b.Get(byNumber["S-00051"].RequestURL); p.Status != 200 || !strings.Contains(p.Body, "consolidated e-invoice") || strings.Contains(p.Body, "<form") {
			t.Errorf("a consolidated receipt's page: %d %s", p.Status, p.Body)
		}
	})
}
