package einvoice_test

import (
	"encoding/binary"
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

// intIn returns an integer in (-limit, limit), or [0, limit) when !signed.
func (r *calcFuzzReader) intIn(limit int64, signed bool) int64 {
	u := r.uint64()
	v := int64(u>>1) % limit
	if signed && u&1 == 1 {
		v = -v
	}
	return v
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

func calcFuzzAmount(v int64) *money.Amount {
	if v == 0 {
		return nil
	}
	a := money.NewAmount(decimal.New(v, -2))
	return &a
}

// calcFuzzDoc builds a document from fuzzed integers: up to 20 lines with
// quantities (0 to 6 decimals) and prices (6 decimals) of any magnitude up to
// 10^12, discount and fee rates (0 to 100, 2 decimals), 0 to 3 taxes with
// rates 0 to 100 (0 to 3 decimals, a few values so that groups repeat), and
// absent inputs.
func calcFuzzDoc(lines, currency, mode uint8, exchangeRate, discount, fee, prepayment int64, data []byte) *einvoice.Document {
	d := &einvoice.Document{CurrencyCode: [...]string{"MYR", "", "USD"}[currency%3]}
	if exchangeRate != 0 {
		d.ExchangeRate = calcFuzzNumber(false, abs64(exchangeRate)%1e9, -6)
	}
	d.InvoiceDiscount = calcFuzzAmount(discount % 1e11)
	d.InvoiceFee = calcFuzzAmount(fee % 1e11)
	switch mode % 3 {
	case 0:
		d.Payment = &einvoice.Payment{PaymentMode: "01", PrepaymentAmount: calcFuzzAmount(prepayment % 1e11)}
	case 1:
		d.Payment = &einvoice.Payment{PaymentMode: "03", PrepaymentAmount: calcFuzzAmount(prepayment % 1e11)}
	}
	r := &calcFuzzReader{data}
	for range lines % 21 {
		// flags: bits 0-3 absent inputs, 4-5 number of taxes, byte 1 the
		// quantity's digits, byte 2 its decimals, byte 3 the price's digits;
		// at most 10^12 either way.
		flags := r.uint64()
		qtyDecimals := flags >> 16 & 0xff % 7
		qtyDigits := min(flags>>8&0xff%19, 12+qtyDecimals)
		l := einvoice.Line{
			Quantity:        calcFuzzNumber(flags&1 != 0, r.intIn(pow10i(qtyDigits), true), -int32(qtyDecimals)),
			UnitPrice:       calcFuzzNumber(flags&2 != 0, r.intIn(pow10i(flags>>24&0xff%19), true), -6),
			DiscountRate:    calcFuzzNumber(flags&4 != 0, r.intIn(10001, false), -2),
			FeeOrChargeRate: calcFuzzNumber(flags&8 != 0, r.intIn(10001, false), -2),
		}
		for range flags >> 4 & 3 {
			tflags := r.uint64()
			l.Taxes = append(l.Taxes, einvoice.LineTax{
				TaxType: calcFuzzTaxTypes[(tflags&0xff)%uint64(len(calcFuzzTaxTypes))],
				// tflags: byte 0 the type, bit 8 absent rate, bits 9-12 the rate
				// (a few values, so that groups repeat), 13-14 its decimals.
				TaxRate: calcFuzzNumber(tflags&0x100 != 0, int64(tflags>>9&0xf%11)*5*pow10i(tflags>>13&3), -int32(tflags>>13&3)),
			})
		}
		d.Lines = append(d.Lines, l)
	}
	return d
}

func abs64(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}

// pow10i returns 10^n, n <= 18.
func pow10i(n uint64) int64 {
	p := int64(1)
	for range n {
		p *= 10
	}
	return p
}

func FuzzCalculate(f *testing.F) {
	f.Add(uint8(2), uint8(0), uint8(0), int64(0), int64(0), int64(0), int64(0), []byte("\x10\x00\x00\x00\x00\x00\x00\x00\xe8\x03"))
	f.Add(uint8(20), uint8(2), uint8(0), int64(4723100), int64(1500), int64(450), int64(333), []byte("fuzz the calculation of amounts"))
	f.Fuzz(func(t *testing.T, lines, currency, mode uint8, exchangeRate, discount, fee, prepayment int64, data []byte) {
		d := calcFuzzDoc(lines, currency, mode, exchangeRate, discount, fee, prepayment, data)
		einvoice.Calculate(d)
		calcCheckInvariants(t, d)
	})
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
