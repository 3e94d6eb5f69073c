package e2e

import (
	"fmt"
	"testing"
	"time"

	"github.com/einvoice/einvoice/client"
	"github.com/einvoice/einvoice/internal/money"
)

// consolidationMonth is the month the consolidation tests record their
// receipts in (ended, in force of the RM10,000 rule).
const consolidationMonth = "2026-10"

// monthReceipts are n receipts of October 2026 numbered prefix-00001 on,
// every 97th number missing (a gap ends a run): mixed taxes (service tax
// 8 %, sales tax 10 %, exempt, none), a line discount on every 4th, two
// lines of different taxes on every 5th, paid in cash (rounded) or by card.
func monthReceipts(prefix string, n int) []client.ReceiptInput {
	out := make([]client.ReceiptInput, 0, n)
	for i := 1; len(out) < n; i++ {
		if i%97 == 0 {
			continue
		}
		price := fmt.Sprintf("%d.%02d", 1+i%250, (i*37)%100)
		l := docLine(price, "02", "8")
		switch i % 4 {
		case 1:
			l.Taxes = []client.LineTax{{TaxType: "01", TaxRate: "10"}}
		case 2:
			l.Taxes = []client.LineTax{{TaxType: "E", ExemptionReason: "Basic food"}}
		case 3:
			l.Taxes = []client.LineTax{{TaxType: "06"}}
		}
		if i%4 == 0 {
			l.DiscountRate = "7.5"
		}
		l.Quantity = client.Decimal(fmt.Sprint(1 + i%3))
		lines := []client.Line{l}
		if i%5 == 0 {
			extra := docLine("3.33", "02", "6")
			extra.Quantity = "7"
			lines = append(lines, extra)
		}
		pay := &client.Payment{PaymentMode: "01"}
		if i%2 == 0 {
			pay.PaymentMode = "03"
		}
		out = append(out, client.ReceiptInput{ReceiptNumber: fmt.Sprintf("%s-%05d", prefix, i),
			IssuedAt: time.Date(2026, time.October, 1+i%31, 10, 0, 0, 0, time.FixedZone("MYT", 8*3600)), Lines: lines, Payment: pay})
	}
	return out
}

// recordAll records receipts through bulk create, 1,000 at a time, and
// returns them.
func recordAll(t *testing.T, api *client.Client, ins []client.ReceiptInput) []client.Receipt {
	t.Helper()
	var out []client.Receipt
	for start := 0; start < len(ins); start += 1000 {
		res, err := api.Receipts.CreateBulk(t.Context(), ins[start:min(start+1000, len(ins))])
		if must(t, res, err); len(res.Refused) > 0 {
			t.Fatalf("refused: %+v", res.Refused[0])
		}
		out = append(out, res.Created...)
	}
	return out
}

func dec(t *testing.T, s client.Decimal) money.Amount {
	t.Helper()
	if s == "" {
		return money.Zero()
	}
	a, err := money.ParseAmount(string(s))
	if err != nil {
		t.Fatalf("amount %q: %v", s, err)
	}
	return a
}

// sums are the totals a set of receipts or documents adds up to.
type sums struct{ excl, tax, incl, rounding, payable money.Amount }

func (s *sums) add(t *testing.T, excl, tax, incl, rounding, payable client.Decimal) {
	s.excl = s.excl.Add(dec(t, excl))
	s.tax = s.tax.Add(dec(t, tax))
	s.incl = s.incl.Add(dec(t, incl))
	s.rounding = s.rounding.Add(dec(t, rounding))
	s.payable = s.payable.Add(dec(t, payable))
}

func (s sums) String() string {
	return fmt.Sprintf("excl %s tax %s incl %s rounding %s payable %s", s.excl, s.tax, s.incl, s.rounding, s.payable)
}

// waitConsolidationValid waits until every document of c is Valid at the
// sandbox and returns them.
func waitConsolidationValid(t *testing.T, api *client.Client, c *client.Consolidation) []*client.Document {
	t.Helper()
	docs := make([]*client.Document, len(c.Documents))
	for i, cd := range c.Documents {
		waitStatusTyped(t, api, cd.ID, client.StatusValid, 3*time.Minute)
		docs[i] = got(api.Documents.Get(t.Context(), cd.ID))(t)
	}
	return docs
}

// checkConsolidated checks that every receipt of want is consolidated by c
// in exactly one of its documents, and that the documents' totals are the
// receipts' to the cent.
func checkConsolidated(t *testing.T, api *client.Client, c *client.Consolidation, want map[string]client.Receipt, docs []*client.Document) {
	t.Helper()
	ctx := t.Context()
	inDoc := map[string]string{}
	for _, d := range docs {
		inDoc[d.ID] = d.InvoiceSerialNumber
		if len(d.Lines) > 1000 {
			t.Errorf("%s has %d lines", d.InvoiceSerialNumber, len(d.Lines))
		}
		for _, l := range d.Lines {
			if l.AuthorityClassification != "004" {
				t.Fatalf("%s: line %q classified %q", d.InvoiceSerialNumber, l.ProductDescription, l.AuthorityClassification)
			}
		}
	}
	var fromReceipts, fromDocs sums
	seen := 0
	for r, err := range api.Receipts.All(ctx, &client.ReceiptListOptions{Month: consolidationMonth, Status: client.ReceiptConsolidated,
		ListOptions: client.ListOptions{PerPage: 100}}) {
		if err != nil {
			t.Fatal(err)
		}
		if r.ConsolidationID != c.ID {
			continue
		}
		if _, ok := want[r.ID]; !ok {
			t.Errorf("receipt %s consolidated, not expected", r.ReceiptNumber)
		}
		if _, ok := inDoc[r.ConsolidatedDocumentID]; !ok {
			t.Errorf("receipt %s names document %s, not one of the consolidation", r.ReceiptNumber, r.ConsolidatedDocumentID)
		}
		seen++
		fromReceipts.add(t, r.TotalExcludingTax, r.TotalTaxAmount, r.TotalIncludingTax, r.RoundingAmount, r.TotalPayableAmount)
	}
	if seen != len(want) || c.ReceiptCount != len(want) {
		t.Errorf("%d receipts consolidated (receiptCount %d), want %d", seen, c.ReceiptCount, len(want))
	}
	for _, d := range docs {
		fromDocs.add(t, d.TotalExcludingTax, d.TotalTaxAmount, d.TotalIncludingTax, d.RoundingAmount, d.TotalPayableAmount)
	}
	if fromReceipts != fromDocs {
		t.Errorf("documents' totals %v, receipts' %v", fromDocs, fromReceipts)
	}
}

// TestConsolidation: a month of 5,000 receipts (mixed taxes, discounts,
// cash rounding, gaps) and 2 over RM10,000 becomes consolidated invoices
// whose totals are the receipts' to the cent, all Valid at the sandbox,
// the large ones excluded; a late receipt goes into a supplementary
// document; nothing new is a 409; a month not ended or malformed a 422; a
// return of a consolidated receipt is a credit note on its document; the
// large receipts are consolidated once the tenant declares the relaxation.
func TestConsolidation(t *testing.T) {
	eachEngine(t, func(t *testing.T, dsn string) {
		_, api := startLifecycleAPI(t, dsn)
		ctx := t.Context()
		ins := monthReceipts("S", 5000)
		big := []client.ReceiptInput{*bigReceipt("S-00097", "20000.00", receiptIssued), *bigReceipt("S-00194", "15000.50", receiptIssued)}
		created := recordAll(t, api, append(ins, big...))
		want := map[string]client.Receipt{}
		for _, r := range created {
			if r.Status == client.ReceiptOpen {
				want[r.ID] = r
			}
		}
		if len(want) != 5000 {
			t.Fatalf("%d open receipts, want 5000", len(want))
		}

		c, err := api.Consolidations.Create(ctx, consolidationMonth)
		c = consolidationDone(t, api, must(t, c, err))
		if c.Status != client.ConsolidationCompleted || c.Month != consolidationMonth || c.Supplementary || c.Deadline != "2026-11-07" ||
			c.CompletedAt == nil || c.Sequence != 1 {
			t.Errorf("consolidation %+v", c)
		}
		if c.ExcludedCount != 2 || len(c.ExcludedReceipts) != 2 || c.ExcludedReceipts[0].ReceiptNumber != "S-00097" ||
			c.ExcludedReceipts[1].ReceiptNumber != "S-00194" || c.ExcludedReceipts[0].Reason == "" {
			t.Errorf("excluded %d: %+v", c.ExcludedCount, c.ExcludedReceipts)
		}
		docs := waitConsolidationValid(t, api, c)
		checkConsolidated(t, api, c, want, docs)
		lines := 0
		for _, d := range docs {
			lines += len(d.Lines)
		}
		// 5,000 receipts of 5,051 numbers: 53 runs (52 gaps), the first
		// line the first run's receipts of 10 % sales tax (every 4th:
		// S-00001 to S-00093).
		// 5 tax treatments (10 %, exempt, none, 8 % and, on every 5th, a
		// second line at 6 %) in each of the 53 runs: 265 lines, one
		// document (within 1,000 lines and 300 KB).
		if len(docs) != 1 || lines != 265 {
			t.Errorf("%d documents, %d lines; want 1 document of 265 lines", len(docs), lines)
		}
		if len(docs) < 1 || docs[0].Lines[0].ProductDescription != "Receipts S-00001 to S-00093" {
			t.Errorf("first line %q", docs[0].Lines[0].ProductDescription)
		}
		back := got(api.Consolidations.Get(ctx, c.ID))(t)
		if back.ID != c.ID || len(back.Documents) != len(c.Documents) || back.Documents[0].Status != client.StatusValid {
			t.Errorf("get %+v", back)
		}

		// Nothing new: 409. A month not ended, or malformed: 422.
		_, err = api.Consolidations.Create(ctx, consolidationMonth)
		wantErr(t, err, 409, client.CodeNothingToConsolidate)
		thisMonth := time.Now().In(time.FixedZone("MYT", 8*3600)).Format("2006-01")
		for _, m := range []string{thisMonth, "2026-13", "October", "2099-01", ""} {
			_, err = api.Consolidations.Create(ctx, m)
			if e := wantErr(t, err, 422, client.CodeValidationFailed); e.Fields["month"] == nil {
				t.Errorf("month %q: %s", m, e.Body)
			}
		}

		// A late receipt: a supplementary consolidation of one document.
		late := got(api.Receipts.Create(ctx, receiptInput("S-99999")))(t)
		sup := got(api.Consolidations.Create(ctx, consolidationMonth))(t)
		if !sup.Supplementary || sup.Sequence != 2 || len(sup.Documents) != 1 || sup.ReceiptCount != 1 || sup.Status != client.ConsolidationCompleted {
			t.Errorf("supplementary %+v", sup)
		}
		supDocs := waitConsolidationValid(t, api, sup)
		checkConsolidated(t, api, sup, map[string]client.Receipt{late.ID: *late}, supDocs)
		if l := supDocs[0].Lines; len(l) != 1 || l[0].ProductDescription != "Receipt S-99999" {
			t.Errorf("supplementary lines %+v", l)
		}
		list := got(api.Consolidations.List(ctx, &client.ConsolidationListOptions{Month: consolidationMonth}))(t)
		if list.Meta.Total != 2 || list.Items[0].ID != sup.ID {
			t.Errorf("list %d: %+v", list.Meta.Total, list.Items)
		}
		if other := got(api.Consolidations.List(ctx, &client.ConsolidationListOptions{Month: "2026-09"}))(t); other.Meta.Total != 0 {
			t.Errorf("September: %d", other.Meta.Total)
		}
		_, err = api.Consolidations.Get(ctx, newID())
		wantErr(t, err, 404, client.CodeConsolidationNotFound)

		// The event, in the outbox.
		evs := got(api.Events.List(ctx, &client.EventListOptions{Type: client.EventConsolidationCompleted}))(t)
		if evs.Meta.Total != 2 {
			t.Errorf("%d consolidation.completed events", evs.Meta.Total)
		}

		// A return: a credit note on the consolidated invoice.
		var returned client.Receipt
		for _, r := range want {
			returned = r
			break
		}
		returned = *got(api.Receipts.Get(ctx, returned.ID))(t)
		note, err := api.Receipts.CreditNote(ctx, returned.ID, nil)
		must(t, note, err)
		parent := got(api.Documents.Get(ctx, returned.ConsolidatedDocumentID))(t)
		if note.Type != client.TypeCreditNote || len(note.References) != 1 || note.References[0].ReferenceNumber != parent.InvoiceSerialNumber ||
			note.TotalPayableAmount != returned.TotalPayableAmount || note.Lines[0].AuthorityClassification != "004" {
			t.Errorf("credit note %s: %+v", note.Status, note)
		}
		if note.Status == client.StatusDraft {
			v, err := api.Documents.Validate(ctx, note.ID)
			t.Fatalf("credit note refused by validate: %+v %v", v, err)
		}
		waitStatusTyped(t, api, note.ID, client.StatusValid, 60*time.Second)
		open := got(api.Receipts.Create(ctx, bigReceipt("T-1", "12.00", receiptIssued.AddDate(0, -1, 0))))(t)
		_, err = api.Receipts.CreditNote(ctx, open.ID, nil)
		wantErr(t, err, 409, client.CodeReceiptNotConsolidated)
		_, err = api.Receipts.CreditNote(ctx, returned.ID, []int{5})
		if e := wantErr(t, err, 422, client.CodeValidationFailed); e.Fields["lines.0"] == nil {
			t.Errorf("bad line index: %s", e.Body)
		}

		// Within the relaxation the large receipts are consolidated.
		p := got(api.Profile.Get(ctx))(t)
		p.ConsolidationRelaxedUntil = "2026-12-31"
		got(api.Profile.Update(ctx, p, nil))(t)
		relaxed := got(api.Consolidations.Create(ctx, consolidationMonth))(t)
		if relaxed.ReceiptCount != 2 || relaxed.ExcludedCount != 0 {
			t.Errorf("within the relaxation: %+v", relaxed)
		}
		waitConsolidationValid(t, api, relaxed)
	})
}

// consolidationDone follows a consolidation that POST /consolidations
// answered running (its wait is at most 45 s, the work goes on: DECISIONS
// 17) to its end, within 5 minutes: thousands of receipts on PostgreSQL
// under the race detector may take longer than the wait.
func consolidationDone(t *testing.T, api *client.Client, c *client.Consolidation) *client.Consolidation {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Minute); c.Status == client.ConsolidationRunning && time.Now().Before(deadline); {
		time.Sleep(time.Second)
		next, err := api.Consolidations.Get(t.Context(), c.ID)
		c = must(t, next, err)
	}
	return c
}
