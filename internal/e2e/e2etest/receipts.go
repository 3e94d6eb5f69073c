package e2etest

import (
	"fmt"
	"testing"
	"time"

	"github.com/einvoice/einvoice/client"
	"github.com/einvoice/einvoice/internal/money"
)

// ConsolidationMonth is the month the consolidation tests record their
// receipts in (ended, in force of the RM10,000 rule).
const ConsolidationMonth = "2026-10"

// MonthReceipts are n receipts of October 2026 numbered prefix-00001 on,
// every 97th number missing (a gap ends a run): mixed taxes (service tax
// 8 %, sales tax 10 %, exempt, none), a line discount on every 4th, two
// lines of different taxes on every 5th, paid in cash (rounded) or by card.
func MonthReceipts(prefix string, n int) []client.ReceiptInput {
	out := make([]client.ReceiptInput, 0, n)
	for i := 1; len(out) < n; i++ {
		if i%97 == 0 {
			continue
		}
		price := fmt.Sprintf("%d.%02d", 1+i%250, (i*37)%100)
		l := DocLine(price, "02", "8")
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
			extra := DocLine("3.33", "02", "6")
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

// RecordAll records receipts through bulk create, 1,000 at a time, and
// returns them.
func RecordAll(t *testing.T, api *client.Client, ins []client.ReceiptInput) []client.Receipt {
	t.Helper()
	var out []client.Receipt
	for start := 0; start < len(ins); start += 1000 {
		res, err := api.Receipts.CreateBulk(t.Context(), ins[start:min(start+1000, len(ins))])
		if Must(t, res, err); len(res.Refused) > 0 {
			t.Fatalf("refused: %+v", res.Refused[0])
		}
		out = append(out, res.Created...)
	}
	return out
}

func Dec(t *testing.T, s client.Decimal) money.Amount {
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
type sums struct{ Excl, Tax, Incl, Rounding, Payable money.Amount }

func (s *sums) Add(t *testing.T, excl, tax, incl, rounding, payable client.Decimal) {
	s.Excl = s.Excl.Add(Dec(t, excl))
	s.Tax = s.Tax.Add(Dec(t, tax))
	s.Incl = s.Incl.Add(Dec(t, incl))
	s.Rounding = s.Rounding.Add(Dec(t, rounding))
	s.Payable = s.Payable.Add(Dec(t, payable))
}

func (s sums) String() string {
	return fmt.Sprintf("excl %s tax %s incl %s rounding %s payable %s", s.Excl, s.Tax, s.Incl, s.Rounding, s.Payable)
}

// WaitConsolidationValid waits until every document of c is Valid at the
// sandbox and returns them.
func WaitConsolidationValid(t *testing.T, api *client.Client, c *client.Consolidation) []*client.Document {
	t.Helper()
	docs := make([]*client.Document, len(c.Documents))
	for i, cd := range c.Documents {
		WaitStatusTyped(t, api, cd.ID, client.StatusValid, 3*time.Minute)
		docs[i] = Got(api.Documents.Get(t.Context(), cd.ID))(t)
	}
	return docs
}

// CheckConsolidated checks that every receipt of want is consolidated by c
// in exactly one of its documents, and that the documents' totals are the
// receipts' to the cent.
func CheckConsolidated(t *testing.T, api *client.Client, c *client.Consolidation, want map[string]client.Receipt, docs []*client.Document) {
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
	for r, err := range api.Receipts.All(ctx, &client.ReceiptListOptions{Month: ConsolidationMonth, Status: client.ReceiptConsolidated,
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
		fromReceipts.Add(t, r.TotalExcludingTax, r.TotalTaxAmount, r.TotalIncludingTax, r.RoundingAmount, r.TotalPayableAmount)
	}
	if seen != len(want) || c.ReceiptCount != len(want) {
		t.Errorf("%d receipts consolidated (receiptCount %d), want %d", seen, c.ReceiptCount, len(want))
	}
	for _, d := range docs {
		fromDocs.Add(t, d.TotalExcludingTax, d.TotalTaxAmount, d.TotalIncludingTax, d.RoundingAmount, d.TotalPayableAmount)
	}
	if fromReceipts != fromDocs {
		t.Errorf("documents' totals %v, receipts' %v", fromDocs, fromReceipts)
	}
}

// ScatteredReceipts are n receipts of October 2026 whose numbers are never
// consecutive (K-00001, K-00003, ...): each is a run of its own, so that
// the consolidation makes many lines and several documents.
func ScatteredReceipts(n int) []client.ReceiptInput {
	ins := MonthReceipts("K", n)
	for i := range ins {
		ins[i].ReceiptNumber = fmt.Sprintf("K-%05d", 2*i+1)
	}
	return ins
}

// ReceiptIssued is the issue time of the tests' ordinary receipts: in
// force of the RM10,000 rule, in Malaysian October 2026.
var ReceiptIssued = time.Date(2026, time.October, 15, 10, 30, 0, 0, time.FixedZone("MYT", 8*3600))

// ReceiptInput is a one-line MYR receipt paid in cash: 1 x 10.00 with 8 %
// service tax (payable 10.80).
func ReceiptInput(number string) *client.ReceiptInput {
	return &client.ReceiptInput{ReceiptNumber: number, IssuedAt: ReceiptIssued,
		Lines:   []client.Line{DocLine("10.00", "02", "8")},
		Payment: &client.Payment{PaymentMode: "01"}}
}

// ReceiptBody is receiptInput as a JSON object, for raw requests.
func ReceiptBody(number string) map[string]any {
	return WireMap(ReceiptInput(number))
}

// Got is Must for a call's two results: Got(f())(t).
func Got[T any](v T, err error) func(t *testing.T) T {
	return func(t *testing.T) T {
		t.Helper()
		return Must(t, v, err)
	}
}

// BigReceipt is a receipt of one line of amount, no tax (06), issued at,
// paid by bank transfer.
func BigReceipt(number, amount string, at time.Time) *client.ReceiptInput {
	in := ReceiptInput(number)
	in.IssuedAt = at
	in.Lines = []client.Line{DocLine(amount, "06", "0")}
	in.Payment = &client.Payment{PaymentMode: "03"} // no cash rounding
	return in
}

// ConsolidationDone follows a consolidation that POST /consolidations
// answered running (its wait is at most 45 s, the work goes on: DECISIONS
// 17) to its end, within 5 minutes: thousands of receipts on PostgreSQL
// under the race detector may take longer than the wait.
func ConsolidationDone(t *testing.T, api *client.Client, c *client.Consolidation) *client.Consolidation {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Minute); c.Status == client.ConsolidationRunning && time.Now().Before(deadline); {
		time.Sleep(time.Second)
		next, err := api.Consolidations.Get(t.Context(), c.ID)
		c = Must(t, next, err)
	}
	return c
}
