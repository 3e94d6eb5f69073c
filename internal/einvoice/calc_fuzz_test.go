package einvoice_test

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"regexp"
	"strconv"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/einvoice/einvoice/internal/einvoice"
	"github.com/einvoice/einvoice/internal/money"
)

// calcFuzzTaxTypes are the tax types a fuzzed tax entry picks from.
var calcFuzzTaxTypes = [...]string{"01", "02", "03", "04", "05", "06", "E"}

// calcFuzzReader hands out the fuzzer's bytes as integers, zeros once they
// run out.
type calcFuzzReader struct{ b []byte }

func (r *calcFuzzReader) uint64() uint64 {
	var buf [8]byte
	n := copy(buf[:], r.b)
	r.b = r.b[n:]
	return binary.LittleEndian.Uint64(buf[:])
}

// intIn returns an integer in [0, limit): the next word, halved.
func (r *calcFuzzReader) intIn(limit int64) int64 {
	return int64(r.uint64()>>1) % limit
}

// calcFuzzNumber returns v x 10^exp (exp <= 0) as an input Number written
// with -exp decimals, as a client would ("10.00"), or nil when absent.
func calcFuzzNumber(absent bool, v int64, exp int32) *money.Number {
	if absent {
		return nil
	}
	n := money.MustNumber(decimal.New(v, exp).StringFixed(-exp))
	return &n
}

// calcFuzzAmount returns v sen, from 0 to 10^12, as an input amount; nil
// for 0.
func calcFuzzAmount(v int64) *money.Amount {
	sen := int64(uint64(v) % (1e14 + 1))
	if sen == 0 {
		return nil
	}
	a := money.NewAmount(decimal.New(sen, -2))
	return &a
}

// calcFuzzDoc builds an autoCalculate document from fuzzed integers, with
// inputs anywhere within what create accepts (DECISIONS section 6), up to
// the limits, so that their sums and products reach far beyond them: up to
// 20 lines with quantities (0 to 6 decimals) and prices (6 decimals) up to
// 10^12, discount and fee rates (0 to 100, 2 decimals), 0 to 3 taxes of
// distinct types with percentages 0 to 50 (0 to 3 decimals, a few values so
// that groups repeat) or tourism rates up to 10^12 per unit; a discount, fee
// and prepayment up to 10^12; an exchange rate up to 10^12; absent inputs.
//
// The bytes are read as little-endian words; for each line: flags (bits 0-3
// absent quantity, price, discount rate, fee rate; bits 4-5 the number of
// taxes; byte 1 the quantity's digits, byte 2 its decimals, byte 3 the
// price's digits, byte 4 the first tax type), then the quantity, the price,
// the two rates, and two words per tax: its flags (bit 0 absent rate, bits
// 1-4 the percentage, bits 5-6 its decimals, byte 1 the tourism rate's
// digits) and the tourism rate in sen. A number n is read from the word 2n.
func calcFuzzDoc(lines, currency, mode uint8, exchangeRate, discount, fee, prepayment int64, data []byte) *einvoice.Document {
	d := &einvoice.Document{AutoCalculate: true, CurrencyCode: [...]string{"MYR", "", "USD"}[currency%3]}
	if exchangeRate != 0 {
		d.ExchangeRate = calcFuzzNumber(false, int64(uint64(exchangeRate)%(1e18+1)), -6)
	}
	d.InvoiceDiscount = calcFuzzAmount(discount)
	d.InvoiceFee = calcFuzzAmount(fee)
	switch mode % 3 {
	case 0:
		d.Payment = &einvoice.Payment{PaymentMode: "01", PrepaymentAmount: calcFuzzAmount(prepayment)}
	case 1:
		d.Payment = &einvoice.Payment{PaymentMode: "03", PrepaymentAmount: calcFuzzAmount(prepayment)}
	}
	r := &calcFuzzReader{data}
	for range lines % 21 {
		flags := r.uint64()
		qtyDecimals := flags >> 16 & 0xff % 7
		qtyDigits := min(flags>>8&0xff%19, 12+qtyDecimals) // at most 10^12
		l := einvoice.Line{
			Quantity:        calcFuzzNumber(flags&1 != 0, r.intIn(pow10i(qtyDigits)), -int32(qtyDecimals)),
			UnitPrice:       calcFuzzNumber(flags&2 != 0, r.intIn(pow10i(flags>>24&0xff%19)), -6),
			DiscountRate:    calcFuzzNumber(flags&4 != 0, r.intIn(10001), -2),
			FeeOrChargeRate: calcFuzzNumber(flags&8 != 0, r.intIn(10001), -2),
		}
		first := flags >> 32 & 0xff
		for j := range flags >> 4 & 3 {
			tflags := r.uint64()
			value := r.intIn(pow10i(tflags >> 8 & 0xff % 15))
			tt := calcFuzzTaxTypes[(first+j)%uint64(len(calcFuzzTaxTypes))] // distinct on a line
			rate := calcFuzzNumber(tflags&1 != 0, int64(tflags>>1&0xf%11)*5*pow10i(tflags>>5&3), -int32(tflags>>5&3))
			if tt == einvoice.TaxTourism {
				rate = calcFuzzNumber(tflags&1 != 0, value, -2)
			}
			l.Taxes = append(l.Taxes, einvoice.LineTax{TaxType: tt, TaxRate: rate})
		}
		d.Lines = append(d.Lines, l)
	}
	return d
}

// pow10i returns 10^n, n <= 18.
func pow10i(n uint64) int64 {
	p := int64(1)
	for range n {
		p *= 10
	}
	return p
}

// calcFuzzWords encodes words as calcFuzzDoc reads them, for seeds.
func calcFuzzWords(words ...uint64) []byte {
	b := make([]byte, 0, 8*len(words))
	for _, w := range words {
		b = binary.LittleEndian.AppendUint64(b, w)
	}
	return b
}

// FuzzCalculate checks, for every document whose inputs create accepts,
// the invariants of Calculate and that PrepareDocument, the rules of create
// and update, accepts exactly the documents the store can read back: every
// amount within 10^12 (calcCheckStorable).
func FuzzCalculate(f *testing.F) {
	f.Add(uint8(2), uint8(0), uint8(0), int64(0), int64(0), int64(0), int64(0), []byte("\x10\x00\x00\x00\x00\x00\x00\x00\xe8\x03"))
	f.Add(uint8(20), uint8(2), uint8(0), int64(4723100), int64(1500), int64(450), int64(333), []byte("fuzz the calculation of amounts"))
	// Issue 12, defect 1: one line of quantity 999,999,999,999 x unitPrice
	// 999,999,999,999.999999, tax 06; its subtotal is about 10^24.
	const noRates, oneTax, qty12, price18, tax06 = 0b1100, 1 << 4, 12 << 8, 18 << 24, 5 << 32
	f.Add(uint8(1), uint8(0), uint8(2), int64(0), int64(0), int64(0), int64(0),
		calcFuzzWords(noRates|oneTax|qty12|price18|tax06, 2*(1e12-1), 2*(1e18-1), 0, 0, 0, 0))
	// Tourism tax of 9,999,999,999.99 per unit on 999,999 units, in USD at
	// 10^6 MYR per USD.
	const qty6, price6, tax03 = 6 << 8, 6 << 24, 2 << 32
	f.Add(uint8(1), uint8(2), uint8(1), int64(1e12), int64(0), int64(0), int64(0),
		calcFuzzWords(noRates|oneTax|qty6|price6|tax03, 2*999999, 2*999999, 0, 0, 12<<8, 2*999999999999))
	// A negative payable beyond the limit: a discount and a prepayment of 10^12.
	f.Add(uint8(1), uint8(0), uint8(1), int64(0), int64(1e14), int64(0), int64(1e14),
		calcFuzzWords(noRates|qty6|price6, 2*1, 2*999999))
	f.Fuzz(func(t *testing.T, lines, currency, mode uint8, exchangeRate, discount, fee, prepayment int64, data []byte) {
		d := calcFuzzDoc(lines, currency, mode, exchangeRate, discount, fee, prepayment, data)
		invoice := einvoice.Kinds[0]
		if refused := einvoice.ValidateDocumentInput(d, invoice); len(refused) > 0 {
			t.Fatalf("the generator made inputs create refuses: %v", refused)
		}
		refused := einvoice.PrepareDocument(d, invoice)
		calcCheckInvariants(t, d)
		calcCheckStorable(t, d, refused)
	})
}

// calcCheckStorable checks that refused, what PrepareDocument said of d,
// names exactly the amounts of d that the store could not read back: its
// JSON body (as the store writes it) holds them as money strings, which are
// read with the strict parser of requests (money.ParseAmount). An accepted
// document must read back whole and encode to the same bytes again.
func calcCheckStorable(t *testing.T, d *einvoice.Document, refused einvoice.FieldErrors) {
	t.Helper()
	body, err := json.Marshal(d)
	if err != nil {
		t.Fatalf("encode: %v", err)
	}
	var tree any
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(&tree); err != nil {
		t.Fatalf("decode: %v", err)
	}
	unreadable := map[string]string{} // path -> amount
	calcWalkMoney(tree, "", func(path, s string) {
		if _, err := money.ParseAmount(s); err != nil {
			unreadable[path] = s
		}
	})
	for path, s := range unreadable {
		if refused[path] == nil {
			t.Fatalf("%s = %s cannot be read back (it passes 10^12), yet it is not refused (refused: %v)", path, s, refused)
		}
	}
	for path := range refused {
		if _, ok := unreadable[path]; !ok {
			t.Fatalf("%s is refused (%v), yet it reads back", path, refused[path])
		}
	}
	if len(refused) > 0 {
		return
	}
	var back einvoice.Document
	if err := json.Unmarshal(body, &back); err != nil {
		t.Fatalf("an accepted document does not read back: %v", err)
	}
	if again, _ := json.Marshal(&back); !bytes.Equal(again, body) {
		t.Fatalf("an accepted document reads back changed:\n%s\n%s", body, again)
	}
}

// calcMoneyText is how every amount is written in JSON: a string with two
// decimals. Nothing else in a document looks like it.
var calcMoneyText = regexp.MustCompile(`^-?[0-9]+\.[0-9]{2}$`)

// calcWalkMoney calls fn with the path and text of every money string in v,
// a decoded JSON value.
func calcWalkMoney(v any, path string, fn func(path, s string)) {
	join := func(k string) string {
		if path == "" {
			return k
		}
		return path + "." + k
	}
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			calcWalkMoney(x, join(k), fn)
		}
	case []any:
		for i, x := range v {
			calcWalkMoney(x, join(strconv.Itoa(i)), fn)
		}
	case string:
		if calcMoneyText.MatchString(v) {
			fn(path, v)
		}
	}
}

// calcCheckInvariants checks what holds for every calculated document.
func calcCheckInvariants(t *testing.T, d *einvoice.Document) {
	t.Helper()
	myr := d.CurrencyCode == "" || d.CurrencyCode == "MYR"
	withMyr := !myr && d.ExchangeRate != nil
	cash := myr && d.Payment != nil && d.Payment.PaymentMode == "01"
	zero := money.Zero()
	must := func(what string, a *money.Amount) money.Amount {
		t.Helper()
		if a == nil {
			t.Fatalf("%s is nil", what)
		}
		if !a.Decimal().Equal(a.Decimal().Round(2)) {
			t.Fatalf("%s = %s has more than 2 decimals", what, a.Decimal())
		}
		return *a
	}
	myrOf := func(what string, a *money.Amount) money.Amount {
		t.Helper()
		if !withMyr {
			if a != nil {
				t.Fatalf("%s = %s, want nil", what, a)
			}
			return zero
		}
		return must(what, a)
	}
	equal := func(what string, got, want money.Amount) {
		t.Helper()
		if !got.Equal(want) {
			t.Fatalf("%s = %s, want %s", what, got, want)
		}
	}

	sumExcl, sumTax, sumTaxMyr := zero, zero, zero
	for i, l := range d.Lines {
		sub := must("line subtotal", l.Subtotal)
		disc := must("line discount", l.DiscountAmount)
		fee := must("line fee", l.FeeOrChargeAmount)
		excl := must("line totalExcludingTax", l.TotalExcludingTax)
		tax := must("line taxAmount", l.TaxAmount)
		incl := must("line totalIncludingTax", l.TotalIncludingTax)
		lineMyr := myrOf("line taxAmountMyr", l.TaxAmountMyr)
		equal("line subtotal", sub, money.Round2(calcDec(l.Quantity).Mul(calcDec(l.UnitPrice))))
		equal("line totalExcludingTax", excl, sub.Sub(disc).Add(fee))
		equal("line totalIncludingTax", incl, excl.Add(tax))
		if disc.Decimal().Abs().GreaterThan(sub.Decimal().Abs()) || fee.Decimal().Abs().GreaterThan(sub.Decimal().Abs()) {
			t.Fatalf("line %d: discount %s or fee %s above the subtotal %s", i, disc, fee, sub)
		}
		entries, entriesMyr := zero, zero
		for _, x := range l.Taxes {
			a := must("tax entry taxAmount", x.TaxAmount)
			if (x.TaxType == "06" || x.TaxType == "E") && !a.IsZero() {
				t.Fatalf("line %d: %s tax %s, want 0.00", i, x.TaxType, a)
			}
			entries = entries.Add(a)
			m := myrOf("tax entry taxAmountMyr", x.TaxAmountMyr)
			if withMyr {
				equal("tax entry taxAmountMyr", m, money.Round2(a.Decimal().Mul(d.ExchangeRate.Decimal())))
			}
			entriesMyr = entriesMyr.Add(m)
		}
		equal("line taxAmount", tax, entries)
		equal("line taxAmountMyr", lineMyr, entriesMyr)
		sumExcl, sumTax, sumTaxMyr = sumExcl.Add(excl), sumTax.Add(tax), sumTaxMyr.Add(lineMyr)
	}

	subtotal := must("subtotal", d.Subtotal)
	discount := must("totalDiscountAmount", d.TotalDiscountAmount)
	fee := must("totalFeeAmount", d.TotalFeeAmount)
	excl := must("totalExcludingTax", d.TotalExcludingTax)
	tax := must("totalTaxAmount", d.TotalTaxAmount)
	incl := must("totalIncludingTax", d.TotalIncludingTax)
	prepayment := must("prepaymentAmount", d.PrepaymentAmount)
	rounding := must("roundingAmount", d.RoundingAmount)
	payable := must("totalPayableAmount", d.TotalPayableAmount)
	totalMyr := myrOf("totalTaxAmountMyr", d.TotalTaxAmountMyr)

	equal("subtotal", subtotal, sumExcl)
	equal("totalExcludingTax", excl, subtotal.Sub(discount).Add(fee))
	equal("totalTaxAmount", tax, sumTax)
	equal("totalIncludingTax", incl, excl.Add(tax))
	equal("totalPayableAmount", payable, incl.Sub(prepayment).Add(rounding))
	equal("totalTaxAmountMyr", totalMyr, sumTaxMyr)
	if cash {
		if rounding.Decimal().Abs().GreaterThan(decimal.New(2, -2)) {
			t.Fatalf("roundingAmount %s above 0.02", rounding)
		}
		if !payable.Decimal().Mod(decimal.New(5, -2)).IsZero() {
			t.Fatalf("totalPayableAmount %s is not a multiple of 0.05", payable)
		}
	} else {
		equal("roundingAmount", rounding, zero)
	}

	if d.TaxSubtotals == nil {
		t.Fatal("taxSubtotals is nil")
	}
	groupsTax, groupsMyr := zero, zero
	for i, s := range d.TaxSubtotals {
		must("taxSubtotal taxableAmount", s.TaxableAmount)
		groupsTax = groupsTax.Add(must("taxSubtotal taxAmount", s.TaxAmount))
		groupsMyr = groupsMyr.Add(myrOf("taxSubtotal taxAmountMyr", s.TaxAmountMyr))
		for _, o := range d.TaxSubtotals[:i] {
			if o.TaxType == s.TaxType && o.TaxRate.Decimal().Equal(s.TaxRate.Decimal()) {
				t.Fatalf("two subtotals for %s at %s", s.TaxType, s.TaxRate)
			}
		}
	}
	equal("sum of taxSubtotals taxAmount", groupsTax, tax)
	equal("sum of taxSubtotals taxAmountMyr", groupsMyr, totalMyr)
}

func calcDec(n *money.Number) decimal.Decimal {
	if n == nil {
		return decimal.Decimal{}
	}
	return n.Decimal()
}

// The worked cases hold the invariants too.
func TestCalculateInvariants(t *testing.T) {
	for _, tt := range calcCases() {
		t.Run(tt.name, func(t *testing.T) {
			d := tt.doc
			einvoice.Calculate(&d)
			calcCheckInvariants(t, &d)
		})
	}
}
