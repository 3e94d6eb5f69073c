package pdf

import (
	"bytes"
	"errors"
	"fmt"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/einvoice/einvoice/internal/einvoice"
	"github.com/einvoice/einvoice/internal/money"
)

// render renders in and fails the test on error.
func render(t testing.TB, in Input) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := Render(&buf, in); err != nil {
		t.Fatalf("Render: %v", err)
	}
	if !bytes.HasPrefix(buf.Bytes(), []byte("%PDF-")) {
		t.Fatalf("output is not a PDF: %q", buf.Bytes()[:min(buf.Len(), 20)])
	}
	return buf.Bytes()
}

// poppler runs a poppler-utils program on pdf and returns its output; it
// skips the test when the program is not installed.
func poppler(t testing.TB, program string, pdf []byte, args ...string) string {
	t.Helper()
	path, err := exec.LookPath(program)
	if err != nil {
		t.Skipf("%s not found: install poppler-utils (apt-get install poppler-utils) to run this test", program)
	}
	cmd := exec.Command(path, append(args, "-", "-")...)
	if program == "pdffonts" || program == "pdfinfo" {
		cmd = exec.Command(path, append(args, "-")...)
	}
	cmd.Stdin = bytes.NewReader(pdf)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v: %s", program, err, stderr.String())
	}
	if program != "pdffonts" && strings.TrimSpace(stderr.String()) != "" {
		t.Errorf("%s complained about the PDF: %s", program, stderr.String())
	}
	return string(out)
}

// text extracts the text of pdf (pages first to last, from 1), with runs of
// white space made single spaces.
func text(t testing.TB, pdf []byte, pages ...int) string {
	t.Helper()
	var args []string
	if len(pages) == 2 {
		args = []string{"-f", strconv.Itoa(pages[0]), "-l", strconv.Itoa(pages[1])}
	}
	return strings.Join(strings.Fields(poppler(t, "pdftotext", pdf, args...)), " ")
}

// pageCount is the number of pages pdfinfo reports.
func pageCount(t testing.TB, pdf []byte) int {
	t.Helper()
	m := regexp.MustCompile(`(?m)^Pages:\s+(\d+)`).FindStringSubmatch(poppler(t, "pdfinfo", pdf))
	if m == nil {
		t.Fatal("pdfinfo printed no page count")
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// squash removes all white space: wrapped text reads back whole.
func squash(s string) string { return strings.Join(strings.Fields(s), "") }

func mustContain(t *testing.T, text string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(text, w) {
			t.Errorf("text lacks %q", w)
		}
	}
}

func TestRenderValidDocument(t *testing.T) {
	in := sampleInput(5, true)
	pdf := render(t, in)
	got := text(t, pdf)
	mustContain(t, got,
		"Invoice", "INV-2026-0001",
		"Syarikat Jaya Sdn. Bhd.", "腾讯科技有限公司",
		"C21638015020", "C20880050010", "BRN 201901234567", "W10-1808-32000001", "141-1908-12345678",
		"Wilayah Persekutuan Kuala Lumpur", "Selangor", "Malaysia", // state and country names
		"2026-03-01 10:15 MYT", // issued, in Malaysian time
		"2026-03-01 10:17 MYT", // validated
		"MYR (Malaysian Ringgit)", "2026-02-01 to 2026-02-28",
		"Service Tax", "8%", "562.50", "45.00", "607.50", "MYR 507.50",
		"Bank Transfer (03)", "30 days from the invoice date", "5140-1234-5678", "PRE-0042",
		"Gudang Puchong", "Lot 3, Jalan Industri",
		testUUID, testURL,
		"Page 1 of 1",
	)
	for i, l := range in.Doc.Lines {
		if !strings.Contains(got, l.ProductDescription) {
			t.Errorf("text lacks the description of line %d: %q", i+1, l.ProductDescription)
		}
	}
	if strings.Contains(got, notValidated) {
		t.Errorf("a validated document says %q", notValidated)
	}
	if n := pageCount(t, pdf); n != 1 {
		t.Errorf("%d pages, want 1", n)
	}
}

func TestRenderNotValidated(t *testing.T) {
	in := sampleInput(3, false)
	pdf := render(t, in)
	got := text(t, pdf)
	mustContain(t, got, notValidated, "INV-2026-0001", "Syarikat Jaya Sdn. Bhd.", "腾讯科技有限公司", "Status: draft", "MYR 264.50")
	for _, absent := range []string{testUUID, testURL, "VALIDATED e-INVOICE"} {
		if strings.Contains(got, absent) {
			t.Errorf("an unvalidated document shows %q", absent)
		}
	}
	// The erpIssuedAt time, labelled as such.
	mustContain(t, got, "Issued (ERP)", "2026-03-01 10:15 MYT")
}

func TestRenderKindsAndReferences(t *testing.T) {
	for _, tc := range []struct {
		kind  einvoice.DocumentKind
		title string
	}{
		{einvoice.KindInvoice, "Invoice"},
		{einvoice.KindCreditNote, "Credit Note"},
		{einvoice.KindDebitNote, "Debit Note"},
		{einvoice.KindRefundNote, "Refund Note"},
		{einvoice.KindConsolidatedInvoice, "Consolidated Invoice"},
		{einvoice.KindSelfBilledInvoice, "Self-billed Invoice"},
		{einvoice.KindSelfBilledCreditNote, "Self-billed Credit Note"},
		{einvoice.KindSelfBilledDebitNote, "Self-billed Debit Note"},
		{einvoice.KindSelfBilledRefundNote, "Self-billed Refund Note"},
	} {
		t.Run(string(tc.kind), func(t *testing.T) {
			t.Parallel()
			in := sampleInput(1, false)
			in.Doc.Kind = tc.kind
			in.Doc.References = []einvoice.DocumentReference{
				{ReferenceNumber: "INV-2025-0100", UUID: "F9D425P6DS7D8IU"},
				{ReferenceNumber: "OLD-77", UUID: "NA"},
			}
			got := text(t, render(t, in))
			mustContain(t, got, tc.title+" ", "INV-2025-0100 · UUID F9D425P6DS7D8IU", "OLD-77 · issued before e-invoicing")
		})
	}
}

func TestRenderForeignCurrency(t *testing.T) {
	in := sampleInput(2, true)
	d := in.Doc
	d.CurrencyCode = "USD"
	d.ExchangeRate = num("4.72")
	for i := range d.Lines {
		d.Lines[i].Taxes[0].TaxAmountMyr = amt("42.48")
	}
	d.TaxSubtotals[0].TaxAmountMyr = amt("84.96")
	d.TotalTaxAmountMyr = amt("84.96")
	got := text(t, render(t, in))
	mustContain(t, got, "USD (US Dollar)", "1 USD = 4.72 MYR", "Amounts in USD", "Tax in MYR", "84.96", "MYR 42.48", "USD 143.00")
}

func TestRenderIssueTimeLabels(t *testing.T) {
	in := sampleInput(1, true)
	erp := issuedAt.Add(-time.Hour)
	in.Doc.ErpIssuedAt = &erp
	in.Doc.CreatedAt = issuedAt.Add(-24 * time.Hour)
	check := func(label, value string, notLabels ...string) {
		t.Helper()
		got := text(t, render(t, in))
		mustContain(t, got, label, value)
		for _, l := range notLabels {
			if strings.Contains(got, l) {
				t.Errorf("text has %q as well as %q", l, label)
			}
		}
	}
	// The authority's issue time comes first, then the ERP's, then the
	// creation time.
	check("Issued", "2026-03-01 10:15 MYT", "Issued (ERP)", "Created", "09:15 MYT")
	in.Doc.Authority = nil
	check("Issued (ERP)", "2026-03-01 09:15 MYT", "Created", "10:15 MYT")
	in.Doc.ErpIssuedAt = nil
	check("Created", "2026-02-28 10:15 MYT", "Issued")
}

// TestRenderMalaysianTime: a document issued at 16:35 UTC on 27 November
// was issued at 00:35 on the 28th in Malaysia; the PDF says so, labelled,
// as the dashboard and the request page do (DECISIONS 19).
func TestRenderMalaysianTime(t *testing.T) {
	in := sampleInput(1, true)
	at := time.Date(2026, 11, 27, 16, 35, 0, 0, time.UTC)
	in.Doc.ErpIssuedAt, in.Doc.Authority.IssuedAt, in.Doc.CreatedAt = &at, &at, at
	in.Validation.ValidatedAt = at.Add(2 * time.Minute)
	got := text(t, render(t, in))
	mustContain(t, got, "Issued", "2026-11-28 00:35 MYT", "2026-11-28 00:37 MYT")
	for _, absent := range []string{"2026-11-27", "16:35", "UTC"} {
		if strings.Contains(got, absent) {
			t.Errorf("text has %q, the UTC reading of the issue time", absent)
		}
	}
}

func TestRenderManyLines(t *testing.T) {
	in := sampleInput(300, true)
	pdf := render(t, in)
	n := pageCount(t, pdf)
	if n < 3 {
		t.Fatalf("300 lines on %d pages, want several", n)
	}
	for p := 1; p <= n; p++ {
		got := text(t, pdf, p, p)
		mustContain(t, got, fmt.Sprintf("Page %d of %d", p, n))
		last := p == n && !strings.Contains(got, "Item ")
		if !last { // every page with lines repeats the header row
			mustContain(t, got, "No.", "Description", "Quantity", "Unit price", "Excl. tax", "Incl. tax")
		}
		if p > 1 {
			mustContain(t, got, "Invoice INV-2026-0001") // the running header
		}
	}
	all := text(t, pdf)
	for i, l := range in.Doc.Lines {
		if !strings.Contains(all, l.ProductDescription) {
			t.Fatalf("text lacks line %d: %q", i+1, l.ProductDescription)
		}
	}
	mustContain(t, all, "33,750.00", "2,700.00", "MYR 36,350.00")
}

func TestRenderFontsEmbedded(t *testing.T) {
	pdf := render(t, sampleInput(5, true))
	out := poppler(t, "pdffonts", pdf)
	for _, name := range []string{"DejaVuSans", "DejaVuSans-Bold", "DroidSansFallback"} {
		// A subset ("ABCDEF+" prefix), embedded.
		re := regexp.MustCompile(`(?m)^[A-Z]{6}\+` + regexp.QuoteMeta(name) + `\s+TrueType\s+Custom\s+yes\s+yes\s`)
		if !re.MatchString(out) {
			t.Errorf("pdffonts does not show a subset of %s embedded:\n%s", name, out)
		}
	}
	if n := strings.Count(out, "TrueType"); n != 3 {
		t.Errorf("%d fonts, want 3:\n%s", n, out)
	}
	if len(pdf) > 80_000 {
		t.Errorf("a one-page PDF takes %d bytes: are the fonts subset?", len(pdf))
	}

	// Without Han text, the CJK font is not embedded at all.
	in := sampleInput(5, true)
	in.Customer.Name = "Syarikat Maju Jaya Berhad"
	out = poppler(t, "pdffonts", render(t, in))
	if strings.Contains(out, "Droid") {
		t.Errorf("a document without Han text embeds the CJK font:\n%s", out)
	}
}

// TestRenderManyDistinctCharacters needs more than one font slot (224
// characters each) per font.
func TestRenderManyDistinctCharacters(t *testing.T) {
	var han, latin strings.Builder
	for r := rune(0x4E00); r < 0x4E00+600; r++ {
		han.WriteRune(r)
	}
	for r := rune(0x100); r < 0x17F; r++ { // Latin Extended-A
		latin.WriteRune(r)
	}
	in := sampleInput(1, false)
	in.Doc.Lines[0].ProductDescription = han.String() + " " + latin.String() + " Ελληνικά Кириллица"
	pdf := render(t, in)
	got := squash(text(t, pdf))
	mustContain(t, got, squash(in.Doc.Lines[0].ProductDescription))
	if n := strings.Count(poppler(t, "pdffonts", pdf), "DroidSansFallback"); n < 3 {
		t.Errorf("600 Han characters in %d slots, want at least 3", n)
	}
}

func TestRenderScripts(t *testing.T) {
	in := sampleInput(1, false)
	in.Supplier.Name = "Syarikat Jaya Sdn. Bhd."
	in.Customer.Name = "腾讯科技有限公司（马来西亚）"
	in.Doc.Lines[0].ProductDescription = "Kopi O ais, teh tarik dan nasi lemak — 咖啡 and café crème"
	in.Customer.Address.Line1 = "Ñandú Straße 5, Łódź"
	in.Customer.Address.Line2 = "தமிழ் சாலை" // no glyphs (doc.go), but the text is kept
	got := squash(text(t, render(t, in)))
	mustContain(t, got, squash("Syarikat Jaya Sdn. Bhd."), "腾讯科技有限公司（马来西亚）",
		squash("Kopi O ais, teh tarik dan nasi lemak — 咖啡 and café crème"), squash("Ñandú Straße 5, Łódź"), squash("தமிழ் சாலை"))
}

func TestRenderWrapsLongDescriptions(t *testing.T) {
	in := sampleInput(1, false)
	long := strings.Repeat("Supercalifragilistic expialidocious consultancy services, ", 12) + "与中文描述混合的很长的文字需要换行显示在表格之中"
	in.Doc.Lines[0].ProductDescription = long
	got := text(t, render(t, in))
	if !strings.Contains(squash(got), squash(long)) {
		t.Errorf("the wrapped description does not read back whole:\n%s", got)
	}
}

func TestRenderHugeLineBreaksAcrossPages(t *testing.T) {
	in := sampleInput(2, false)
	in.Doc.Lines[0].ProductDescription = strings.Repeat("A very long line description that goes on. ", 400)
	pdf := render(t, in)
	n := pageCount(t, pdf)
	if n < 3 {
		t.Errorf("a line taller than a page fits on %d pages", n)
	}
	got := text(t, pdf)
	mustContain(t, got, in.Doc.Lines[1].ProductDescription, fmt.Sprintf("Page %d of %d", n, n))
	if c := strings.Count(got, "description"); c != 400 {
		t.Errorf("%d of 400 sentences printed", c)
	}
}

func TestRenderAbsentAmounts(t *testing.T) {
	in := sampleInput(1, false)
	in.Doc.Totals = einvoice.Totals{TotalPayableAmount: amt("1234567.80")}
	in.Doc.Payment = nil
	got := text(t, render(t, in))
	mustContain(t, got, "MYR 1,234,567.80")
	for _, absent := range []string{"Subtotal", "Total excluding tax", "Total including tax", "Prepayment", "Rounding", "TAX SUMMARY"} {
		if strings.Contains(got, absent) {
			t.Errorf("an absent amount is labelled: %q", absent)
		}
	}
}

func TestRenderAdjustments(t *testing.T) {
	in := sampleInput(1, false)
	in.Doc.TotalDiscountAmount = amt("10.00")
	in.Doc.InvoiceDiscountDesc = "Early payment"
	in.Doc.TotalFeeAmount = amt("5.00")
	in.Doc.InvoiceFeeDesc = "Handling"
	in.Doc.RoundingAmount = amt("-0.02")
	in.Doc.Lines[0].FeeOrChargeRate = num("2")
	in.Doc.Lines[0].FeeOrChargeAmount = amt("2.50")
	in.Doc.Lines[0].FeeOrChargeDescription = "Setup fee"
	got := text(t, render(t, in))
	mustContain(t, got, "Invoice discount", "Early payment", "Invoice fee / charge", "Handling", "Rounding", "-0.02", "2.50", "2%", "Charge: Setup fee")
}

// TestRenderAllOptionalNil renders documents with every optional part
// absent: nothing may panic, and absent values print as dashes.
func TestRenderAllOptionalNil(t *testing.T) {
	pdf := render(t, Input{})
	got := text(t, pdf)
	mustContain(t, got, "e-Invoice", notValidated, "Page 1 of 1", "No lines.")

	d := &einvoice.Document{
		Kind:  einvoice.KindCreditNote,
		Lines: []einvoice.Line{{}, {Taxes: []einvoice.LineTax{{}}}},
		Totals: einvoice.Totals{
			TaxSubtotals: []einvoice.TaxSubtotal{{}},
		},
		Payment:       &einvoice.Payment{},
		Delivery:      &einvoice.Delivery{},
		InvoicePeriod: &einvoice.InvoicePeriod{},
		References:    []einvoice.DocumentReference{{}},
		Authority:     &einvoice.AuthorityRecord{},
		Frozen:        &einvoice.FrozenParties{},
	}
	pdf2 := render(t, Input{Doc: d, Validation: &Validation{}})
	got = text(t, pdf2)
	mustContain(t, got, "Credit Note", "VALIDATED e-INVOICE")
	for _, junk := range []string{"<nil>", "%!", "0001-01-01"} {
		if strings.Contains(got, junk) {
			t.Errorf("text has %q: %s", junk, got)
		}
	}
}

// TestRenderPartialDocuments renders a table of odd and partial documents.
func TestRenderPartialDocuments(t *testing.T) {
	zero := money.Zero()
	cases := map[string]func(*Input){
		"nil doc":          func(in *Input) { in.Doc = nil },
		"no lines":         func(in *Input) { in.Doc.Lines = nil },
		"nil line amounts": func(in *Input) { in.Doc.Lines[0] = einvoice.Line{ProductDescription: "x"} },
		"nil tax rate":     func(in *Input) { in.Doc.Lines[0].Taxes[0].TaxRate = nil },
		"unknown codes":    func(in *Input) { in.Doc.Lines[0].UnitCode = "ZZZ"; in.Doc.Lines[0].Classifications = []string{"999"} },
		"tourism tax": func(in *Input) {
			in.Doc.Lines[0].Taxes = append(in.Doc.Lines[0].Taxes, einvoice.LineTax{TaxType: "03", TaxRate: num("10")})
		},
		"exemption": func(in *Input) {
			in.Doc.Lines[0].Taxes = []einvoice.LineTax{{TaxType: "E", ExemptionReason: "Sales Tax Act 2018"}}
		},
		"nil payment parts":   func(in *Input) { in.Doc.Payment = &einvoice.Payment{PaymentMode: "99"} },
		"nil delivery addr":   func(in *Input) { in.Doc.Delivery = &einvoice.Delivery{RecipientName: "R"} },
		"nil period":          func(in *Input) { in.Doc.InvoicePeriod = nil },
		"nil erp issued":      func(in *Input) { in.Doc.ErpIssuedAt = nil; in.Doc.Authority = nil },
		"authority no times":  func(in *Input) { in.Doc.Authority = &einvoice.AuthorityRecord{} },
		"validation no qr":    func(in *Input) { in.Validation = &Validation{UUID: "U"} },
		"validation long url": func(in *Input) { in.Validation = &Validation{URL: strings.Repeat("https://x.example/", 30)} },
		"empty parties":       func(in *Input) { in.Supplier, in.Customer = einvoice.PartySnapshot{}, einvoice.PartySnapshot{} },
		"general public":      func(in *Input) { in.Customer = einvoice.GeneralPublic() },
		"zero totals":         func(in *Input) { in.Doc.Totals = einvoice.Totals{Subtotal: &zero, TotalPayableAmount: &zero} },
		"huge amounts": func(in *Input) {
			in.Doc.Lines[0].TotalIncludingTax = amt("-1000000000000.00")
			in.Doc.Lines[0].Quantity = num("1e12")
			in.Doc.Lines[0].UnitPrice = num("0.000001")
		},
		"control and invalid text": func(in *Input) {
			in.Doc.InvoiceSerialNumber = "INV\x00\t\r\n\x1b\u0085-1"
			in.Doc.Lines[0].ProductDescription = "bad \xff\xfe utf-8 \U0001F600 emoji \U00020000 ext-B \uFFFF"
		},
		"tamil and arabic": func(in *Input) {
			in.Customer.Name = "தமிழ் நிறுவனம் شركة"
		},
		"very long fields": func(in *Input) {
			in.Supplier.Name = strings.Repeat("Long name ", 200)
			in.Customer.Address.Line1 = strings.Repeat("x", 3000)
			in.Doc.InvoiceSerialNumber = strings.Repeat("S", 500)
		},
		"many classifications and taxes": func(in *Input) {
			l := &in.Doc.Lines[0]
			l.Classifications = []string{"001", "002", "003", "004", "005", "006", "007", "008"}
			for _, tt := range []string{"01", "02", "03", "04", "05", "06", "E"} {
				l.Taxes = append(l.Taxes, einvoice.LineTax{TaxType: tt, TaxRate: num("5"), TaxAmount: amt("1.00")})
			}
		},
	}
	for name, mutate := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			for _, valid := range []bool{false, true} {
				in := sampleInput(2, valid)
				mutate(&in)
				pdf := render(t, in)
				got := text(t, pdf)
				if !strings.Contains(got, "Page 1 of") {
					t.Errorf("no page footer in %q", got)
				}
			}
		})
	}
}

func TestRenderBadQR(t *testing.T) {
	in := sampleInput(1, true)
	in.Validation.QRPNG = []byte("not a png")
	var buf bytes.Buffer
	err := Render(&buf, in)
	if err == nil {
		t.Fatal("Render accepted a QR code that is not a PNG")
	}
	if buf.Len() != 0 {
		t.Errorf("Render wrote %d bytes before failing", buf.Len())
	}
	if !strings.Contains(err.Error(), "INV-2026-0001") {
		t.Errorf("the error does not name the document: %v", err)
	}
}

// failingWriter fails every write.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestRenderWriterError(t *testing.T) {
	err := Render(failingWriter{}, sampleInput(1, true))
	if err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Errorf("Render to a failing writer: %v", err)
	}
}

func TestFilename(t *testing.T) {
	for serial, want := range map[string]string{
		"INV-2026-0001":  "INV-2026-0001.pdf",
		"":               "document.pdf",
		"A/B 1:2":        "A_B_1_2.pdf",
		"inv.2026_01":    "inv.2026_01.pdf",
		"../../etc/pass": ".._.._etc_pass.pdf",
		"发票-1":           "__-1.pdf",
		"a\"b\r\nc":      "a_b__c.pdf",
	} {
		if got := Filename(serial); got != want {
			t.Errorf("Filename(%q) = %q, want %q", serial, got, want)
		}
	}
}

// TestRenderFontFailure renders while no font can be loaded: Render returns
// the error, and no part of the layout (the tax summary's first wrapped line
// among them) panics on the nil lines a failed wrap gives.
func TestRenderFontFailure(t *testing.T) {
	saved := faceLoaders
	t.Cleanup(func() { faceLoaders = saved })
	broken := errors.New("font unavailable")
	for id := range faceLoaders {
		faceLoaders[id] = func() (*face, error) { return nil, broken }
	}
	in := sampleInput(3, true)
	if len(in.Doc.TaxSubtotals) == 0 {
		t.Fatal("the sample has no tax subtotals: the test no longer covers the tax summary")
	}
	var buf bytes.Buffer
	if err := Render(&buf, in); !errors.Is(err, broken) {
		t.Errorf("Render = %v, want %v", err, broken)
	}
	if buf.Len() != 0 {
		t.Errorf("Render wrote %d bytes after failing", buf.Len())
	}
}

func TestKindTitle(t *testing.T) {
	for _, tc := range []struct {
		kind     einvoice.DocumentKind
		typeCode string
		want     string
	}{
		{einvoice.KindInvoice, "01", "Invoice"},
		{einvoice.KindConsolidatedInvoice, "01", "Consolidated Invoice"},
		{einvoice.KindSelfBilledRefundNote, "", "Self-billed Refund Note"},
		{"", "01", "Invoice"}, // the first kind with the code, not the consolidated one
		{"", "02", "Credit Note"},
		{"unknown", "13", "Self-billed Debit Note"},
		{"", "99", "e-Invoice"},
		{"", "", "e-Invoice"},
	} {
		if got := kindTitle(&einvoice.Document{Kind: tc.kind, TypeCode: tc.typeCode}); got != tc.want {
			t.Errorf("kindTitle(%q, %q) = %q, want %q", tc.kind, tc.typeCode, got, tc.want)
		}
	}
	for _, k := range einvoice.Kinds {
		if _, ok := kindTitles[k.Kind]; !ok {
			t.Errorf("no title for kind %q", k.Kind)
		}
	}
}
