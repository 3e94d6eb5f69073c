package resilience

import (
	"testing"
	"time"

	"github.com/einvoice/einvoice/client"
	"github.com/einvoice/einvoice/internal/e2e/e2etest"
)

// TestConsolidation: a month of 5,000 receipts (mixed taxes, discounts,
// cash rounding, gaps) and 2 over RM10,000 becomes consolidated invoices
// whose totals are the receipts' to the cent, all Valid at the sandbox,
// the large ones excluded; a late receipt goes into a supplementary
// document; nothing new is a 409; a month not ended or malformed a 422; a
// return of a consolidated receipt is a credit note on its document; the
// large receipts are consolidated once the tenant declares the relaxation.
func TestConsolidation(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a month of 5,000 receipts")
	}
	t.Parallel()
	e2etest.EachEngineParallel(t, func(t *testing.T, dsn string) {
		_, api := e2etest.StartLifecycleAPI(t, dsn)
		ctx := t.Context()
		ins := e2etest.MonthReceipts("S", 5000)
		big := []client.ReceiptInput{*e2etest.BigReceipt("S-00097", "20000.00", e2etest.ReceiptIssued), *e2etest.BigReceipt("S-00194", "15000.50", e2etest.ReceiptIssued)}
		created := e2etest.RecordAll(t, api, append(ins, big...))
		want := map[string]client.Receipt{}
		for _, r := range created {
			if r.Status == client.ReceiptOpen {
				want[r.ID] = r
			}
		}
		if len(want) != 5000 {
			t.Fatalf("%d open receipts, want 5000", len(want))
		}

		c, err := api.Consolidations.Create(ctx, e2etest.ConsolidationMonth)
		c = e2etest.ConsolidationDone(t, api, e2etest.Must(t, c, err))
		if c.Status != client.ConsolidationCompleted || c.Month != e2etest.ConsolidationMonth || c.Supplementary || c.Deadline != "2026-11-07" ||
			c.CompletedAt == nil || c.Sequence != 1 {
			t.Errorf("consolidation %+v", c)
		}
		if c.ExcludedCount != 2 || len(c.ExcludedReceipts) != 2 || c.ExcludedReceipts[0].ReceiptNumber != "S-00097" ||
			c.ExcludedReceipts[1].ReceiptNumber != "S-00194" || c.ExcludedReceipts[0].Reason == "" {
			t.Errorf("excluded %d: %+v", c.ExcludedCount, c.ExcludedReceipts)
		}
		docs := e2etest.WaitConsolidationValid(t, api, c)
		e2etest.CheckConsolidated(t, api, c, want, docs)
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
		back := e2etest.Got(api.Consolidations.Get(ctx, c.ID))(t)
		if back.ID != c.ID || len(back.Documents) != len(c.Documents) || back.Documents[0].Status != client.StatusValid {
			t.Errorf("get %+v", back)
		}

		// Nothing new: 409. A month not ended, or malformed: 422.
		_, err = api.Consolidations.Create(ctx, e2etest.ConsolidationMonth)
		e2etest.WantErr(t, err, 409, client.CodeNothingToConsolidate)
		thisMonth := time.Now().In(time.FixedZone("MYT", 8*3600)).Format("2006-01")
		for _, m := range []string{thisMonth, "2026-13", "October", "2099-01", ""} {
			_, err = api.Consolidations.Create(ctx, m)
			if e := e2etest.WantErr(t, err, 422, client.CodeValidationFailed); e.Fields["month"] == nil {
				t.Errorf("month %q: %s", m, e.Body)
			}
		}

		// A late receipt: a supplementary consolidation of one document.
		late := e2etest.Got(api.Receipts.Create(ctx, e2etest.ReceiptInput("S-99999")))(t)
		sup := e2etest.Got(api.Consolidations.Create(ctx, e2etest.ConsolidationMonth))(t)
		if !sup.Supplementary || sup.Sequence != 2 || len(sup.Documents) != 1 || sup.ReceiptCount != 1 || sup.Status != client.ConsolidationCompleted {
			t.Errorf("supplementary %+v", sup)
		}
		supDocs := e2etest.WaitConsolidationValid(t, api, sup)
		e2etest.CheckConsolidated(t, api, sup, map[string]client.Receipt{late.ID: *late}, supDocs)
		if l := supDocs[0].Lines; len(l) != 1 || l[0].ProductDescription != "Receipt S-99999" {
			t.Errorf("supplementary lines %+v", l)
		}
		list := e2etest.Got(api.Consolidations.List(ctx, &client.ConsolidationListOptions{Month: e2etest.ConsolidationMonth}))(t)
		if list.Meta.Total != 2 || list.Items[0].ID != sup.ID {
			t.Errorf("list %d: %+v", list.Meta.Total, list.Items)
		}
		if other := e2etest.Got(api.Consolidations.List(ctx, &client.ConsolidationListOptions{Month: "2026-09"}))(t); other.Meta.Total != 0 {
			t.Errorf("September: %d", other.Meta.Total)
		}
		_, err = api.Consolidations.Get(ctx, e2etest.NewID())
		e2etest.WantErr(t, err, 404, client.CodeConsolidationNotFound)

		// The event, in the outbox.
		evs := e2etest.Got(api.Events.List(ctx, &client.EventListOptions{Type: client.EventConsolidationCompleted}))(t)
		if evs.Meta.Total != 2 {
			t.Errorf("%d consolidation.completed events", evs.Meta.Total)
		}

		// A return: a credit note on the consolidated invoice.
		var returned client.Receipt
		for _, r := range want {
			returned = r
			break
		}
		returned = *e2etest.Got(api.Receipts.Get(ctx, returned.ID))(t)
		note, err := api.Receipts.CreditNote(ctx, returned.ID, nil)
		e2etest.Must(t, note, err)
		parent := e2etest.Got(api.Documents.Get(ctx, returned.ConsolidatedDocumentID))(t)
		if note.Type != client.TypeCreditNote || len(note.References) != 1 || note.References[0].ReferenceNumber != parent.InvoiceSerialNumber ||
			note.TotalPayableAmount != returned.TotalPayableAmount || note.Lines[0].AuthorityClassification != "004" {
			t.Errorf("credit note %s: %+v", note.Status, note)
		}
		if note.Status == client.StatusDraft {
			v, err := api.Documents.Validate(ctx, note.ID)
			t.Fatalf("credit note refused by validate: %+v %v", v, err)
		}
		e2etest.WaitStatusTyped(t, api, note.ID, client.StatusValid, 60*time.Second)
		open := e2etest.Got(api.Receipts.Create(ctx, e2etest.BigReceipt("T-1", "12.00", e2etest.ReceiptIssued.AddDate(0, -1, 0))))(t)
		_, err = api.Receipts.CreditNote(ctx, open.ID, nil)
		e2etest.WantErr(t, err, 409, client.CodeReceiptNotConsolidated)
		_, err = api.Receipts.CreditNote(ctx, returned.ID, []int{5})
		if e := e2etest.WantErr(t, err, 422, client.CodeValidationFailed); e.Fields["lines.0"] == nil {
			t.Errorf("bad line index: %s", e.Body)
		}

		// Within the relaxation the large receipts are consolidated.
		p := e2etest.Got(api.Profile.Get(ctx))(t)
		p.ConsolidationRelaxedUntil = "2026-12-31"
		e2etest.Got(api.Profile.Update(ctx, p, nil))(t)
		relaxed := e2etest.Got(api.Consolidations.Create(ctx, e2etest.ConsolidationMonth))(t)
		if relaxed.ReceiptCount != 2 || relaxed.ExcludedCount != 0 {
			t.Errorf("within the relaxation: %+v", relaxed)
		}
		e2etest.WaitConsolidationValid(t, api, relaxed)
	})
}
