package httpapi

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/einvoice/einvoice/internal/einvoice"
)

// FuzzReceipt decodes arbitrary bodies as a receipt request, as POST
// /receipts and each item of a bulk do, and prepares the receipt (its
// amounts computed): a body is refused with a 4xx code or makes a receipt
// whose every amount is within the limits and encodes; nothing panics, and
// no sum of valid lines overflows into an internal error.
//
//	go test -run '^$' -fuzz FuzzReceipt -fuzztime 60s ./internal/httpapi/
func FuzzReceipt(f *testing.F) {
	line := `{"productDescription":"x","quantity":%s,"unitPrice":%s,"discountRate":10,"invoiceLineTaxes":[{"taxType":"01","taxRate":10},{"taxType":"03","taxRate":2.5}]}`
	// many is a receipt of n lines of quantity q at price p: sums of valid
	// lines beyond the limits.
	many := func(q, p string, n int) string {
		ls := make([]string, n)
		for i := range ls {
			ls[i] = fmt.Sprintf(line, q, p)
		}
		return `{"receiptNumber":"R-1","issuedAt":"2026-10-01T10:00:00+08:00","invoiceLines":[` + strings.Join(ls, ",") + `]}`
	}
	for _, seed := range []string{
		`{"receiptNumber":"R-1","issuedAt":"2026-10-01T10:00:00+08:00","invoiceLines":[{"productDescription":"Tea","quantity":2,"unitPrice":"3.50","invoiceLineTaxes":[{"taxType":"E","exemptionReason":"Food"}]}],"payment":{"paymentMode":"01"}}`,
		`{"receiptNumber":"R-2","issuedAt":"2026-10-01T10:00:00Z","currencyCode":"USD","exchangeRate":4.123456,"invoiceLines":[{"productDescription":"x","quantity":1e12,"unitPrice":999999999999.999999,"invoiceLineTaxes":[{"taxType":"06"}]}]}`,
		`{"receiptNumber":"","issuedAt":null,"invoiceLines":null,"payment":null}`,
		`{"receiptNumber":"R-3","issuedAt":"2026-10-01T10:00:00+08:00","invoiceLines":[{"quantity":-1,"unitPrice":"1e-7"}],"payment":{"prepaymentAmount":"99999999999999"}}`,
		many("1000000", "999999.999999", 1000),
		many("1", "999999999999", 1000),
	} {
		f.Add([]byte(seed))
	}
	now := time.Date(2026, time.November, 24, 0, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, body []byte) {
		if !utf8.Valid(body) { // decode refuses it before decodeBytes
			return
		}
		var req receiptRequest
		if err := decodeBytes(body, &req); err != nil {
			if c := einvoice.ErrorCode(err); c != einvoice.CodeMalformedJSON && c != einvoice.CodeValidationFailed {
				t.Fatalf("decode: %v (%s)", err, c)
			}
			return
		}
		r, problems := einvoice.PrepareReceipt(&req.ReceiptInput, now)
		if len(problems) > 0 {
			if err := problems.Err(); einvoice.ErrorCode(err) != einvoice.CodeValidationFailed {
				t.Fatalf("refusal %v is not a VALIDATION_FAILED", err)
			}
			return
		}
		d := &einvoice.Document{Lines: r.Lines, Totals: r.Totals}
		if over := einvoice.CheckAmountLimits(d); len(over) > 0 {
			t.Fatalf("a prepared receipt has amounts beyond the limits: %v", over)
		}
		if _, err := json.Marshal(r); err != nil {
			t.Fatalf("encode the receipt: %v", err)
		}
		_ = r.PayableMYR()
	})
}
