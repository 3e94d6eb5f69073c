package einvoice

import (
	"fmt"
	"testing"
	"time"

	"github.com/einvoice/einvoice/internal/money"
)

// consReceipt is a receipt numbered number whose lines carry the given
// taxes ("01:10", "06", "E"), each 1 x price, paid in cash.
func consReceipt(t testing.TB, number, price string, taxes ...string) *Receipt {
	t.Helper()
	at := time.Date(2026, 10, 15, 2, 0, 0, 0, time.UTC)
	var lines []Line
	for _, tx := range taxes {
		q, p := money.MustNumber("1"), money.MustNumber(price)
		lt := LineTax{TaxType: "E", ExemptionReason: "Basic food"}
		if tx != "E" {
			lt = LineTax{TaxType: tx[:2]}
		}
		if len(tx) > 3 {
			r := money.MustNumber(tx[3:])
			lt.TaxRate = &r
		}
		lines = append(lines, Line{ProductDescription: "Item", Quantity: &q, UnitPrice: &p, Taxes: []LineTax{lt}})
	}
	r, f := PrepareReceipt(&ReceiptInput{ReceiptNumber: number, IssuedAt: &at, Lines: lines, Payment: &Payment{PaymentMode: "01"}}, at)
	if len(f) > 0 {
		t.Fatalf("PrepareReceipt %s: %v", number, f)
	}
	return r
}

func TestReceiptNumbers(t *testing.T) {
	for _, c := range []struct {
		a, b string
		next bool
	}{
		{"R-0001", "R-0002", true}, {"R-0009", "R-0010", true}, {"R-9", "R-10", true}, {"R-0999", "R-1000", true},
		{"R-0001", "R-0003", false}, {"R-0001", "S-0002", false}, {"R-A", "R-B", false}, {"R-1", "R-1", false},
		{"99999999999999999999", "100000000000000000000", true},
	} {
		if got := ConsecutiveReceiptNumbers(c.a, c.b); got != c.next {
			t.Errorf("ConsecutiveReceiptNumbers(%q, %q) = %v", c.a, c.b, got)
		}
	}
	if CompareReceiptNumbers("R-9", "R-10") >= 0 || CompareReceiptNumbers("A-10", "B-1") >= 0 || CompareReceiptNumbers("R-010", "R-10") == 0 {
		t.Error("CompareReceiptNumbers: want R-9 < R-10, A-10 < B-1, R-010 != R-10")
	}
}

// TestConsolidatedDocumentRuns: one line per run of consecutive numbers and
// tax treatment; a gap ends a run; a receipt of two treatments adds to two
// lines; the amounts are the receipts' own, summed.
func TestConsolidatedDocumentRuns(t *testing.T) {
	rs := []*Receipt{
		consReceipt(t, "R-0003", "1.01", "01:10"),
		consReceipt(t, "R-0001", "1.01", "01:10"),
		consReceipt(t, "R-0002", "2.02", "01:10", "06"),
		consReceipt(t, "R-0005", "3.33", "E"), // R-0004 missing
		consReceipt(t, "R-0006", "1.11", "01:10"),
	}
	d := ConsolidatedDocument(rs)
	want := []string{"Receipts R-0001 to R-0003", "Receipt R-0002", "Receipt R-0005", "Receipt R-0006"}
	if len(d.Lines) != len(want) {
		t.Fatalf("%d lines, want %d: %+v", len(d.Lines), len(want), d.Lines)
	}
	for i, w := range want {
		if d.Lines[i].ProductDescription != w || d.Lines[i].AuthorityClassification != "004" {
			t.Errorf("line %d: %q (%s), want %q", i, d.Lines[i].ProductDescription, d.Lines[i].AuthorityClassification, w)
		}
	}
	// Line 0 sums the 10 % lines of R-0001, R-0002 and R-0003: each tax
	// rounded on its own (0.10 + 0.20 + 0.10), not 10 % of 4.04.
	if l := d.Lines[0]; l.TotalExcludingTax.String() != "4.04" || l.TaxAmount.String() != "0.40" || l.Taxes[0].TaxAmount.String() != "0.40" {
		t.Errorf("line 0: excl %s tax %s", l.TotalExcludingTax, l.TaxAmount)
	}
	checkSums(t, rs, d)
	if p := ValidateSums(d, rs); len(p) > 0 {
		t.Errorf("the receipts' own document: %v", p)
	}
	// One cent off on a line, or a rounding recomputed: reported.
	off := money.MustAmount("0.41")
	d.Lines[0].TaxAmount = &off
	r := money.MustAmount("0.00")
	d.RoundingAmount = &r
	p := ValidateSums(d, rs)
	if len(p) != 2 || p[0].Field != "invoiceLines.0.taxAmount" || p[1].Rule != "ROUNDING_MISMATCH" {
		t.Errorf("problems %+v", p)
	}
}

// ValidateSums is validate's check of a consolidation's document against
// its receipts alone (for the tests).
func ValidateSums(d *Document, rs []*Receipt) []Problem {
	v := &validation{}
	v.receiptSums(d, rs)
	return v.problems
}

// checkSums checks that d's totals are exactly the receipts'.
func checkSums(t testing.TB, rs []*Receipt, d *Document) {
	t.Helper()
	var excl, tax, incl, rounding, payable money.Amount
	for _, r := range rs {
		excl = excl.Add(*r.TotalExcludingTax)
		tax = tax.Add(*r.TotalTaxAmount)
		incl = incl.Add(*r.TotalIncludingTax)
		rounding = rounding.Add(*r.RoundingAmount)
		payable = payable.Add(*r.TotalPayableAmount)
	}
	got := [5]money.Amount{*d.TotalExcludingTax, *d.TotalTaxAmount, *d.TotalIncludingTax, *d.RoundingAmount, *d.TotalPayableAmount}
	want := [5]money.Amount{excl, tax, incl, rounding, payable}
	if got != want {
		t.Errorf("document totals %v, receipts' %v", got, want)
	}
}

// TestSplitReceipts: groups keep within the line budget, each receipt in
// exactly one, in order, and each group's document within it.
func TestSplitReceipts(t *testing.T) {
	var rs []*Receipt
	for i := 1; i <= 50; i++ {
		taxes := []string{"01:10"}
		if i%3 == 0 {
			taxes = append(taxes, "06")
		}
		rs = append(rs, consReceipt(t, fmt.Sprintf("R-%04d", 2*i), "1.00", taxes...)) // no two consecutive
	}
	for _, max := range []int{1, 2, 7, 1000} {
		groups := SplitReceipts(rs, max)
		n := 0
		for _, g := range groups {
			if lines := len(ConsolidatedDocument(g).Lines); lines > max && len(g) > 1 {
				t.Errorf("max %d: a group of %d receipts makes %d lines", max, len(g), lines)
			}
			n += len(g)
		}
		if n != len(rs) {
			t.Errorf("max %d: %d receipts in the groups, want %d", max, n, len(rs))
		}
	}
	if g := SplitReceipts(rs, 1000); len(g) != 1 {
		t.Errorf("%d groups for 67 lines", len(g))
	}
}

// FuzzConsolidation: the consolidated document of many receipts of any
// numbers and taxes never panics, keeps every total exactly the receipts'
// sum, passes its own check, and the split keeps every receipt once.
func FuzzConsolidation(f *testing.F) {
	f.Add([]byte("R-0001 R-0002 R-0004"), uint16(300))
	f.Add([]byte{1, 2, 3, 250, 251, 0, 9, 9, 9}, uint16(1))
	f.Fuzz(func(t *testing.T, data []byte, count uint16) {
		n := int(count%400) + 1
		taxes := []string{"01:10", "02:8", "02:6", "06", "E", "01:5"}
		var rs []*Receipt
		seen := map[string]bool{}
		for i := 0; i < n; i++ {
			b := byte(i)
			if len(data) > 0 {
				b = data[i%len(data)]
			}
			num := fmt.Sprintf("%c-%d", 'A'+b%3, i+int(b%4))
			if seen[num] {
				continue
			}
			seen[num] = true
			price := fmt.Sprintf("%d.%02d", int(b)*7919%100000, (int(b)*31+i)%100)
			rs = append(rs, consReceipt(t, num, price, taxes[int(b)%len(taxes)], taxes[(int(b)/6+i)%len(taxes)]))
		}
		d := ConsolidatedDocument(rs)
		checkSums(t, rs, d)
		if p := ValidateSums(d, rs); len(p) > 0 {
			t.Fatalf("own document refused: %v", p[0])
		}
		total := 0
		for _, g := range SplitReceipts(rs, int(count%50)+1) {
			total += len(g)
			checkSums(t, g, ConsolidatedDocument(g))
		}
		if total != len(rs) {
			t.Fatalf("split keeps %d of %d receipts", total, len(rs))
		}
	})
}
