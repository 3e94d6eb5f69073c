package invoicing

import (
	"context"
	"fmt"

	"github.com/einvoice/einvoice/internal/einvoice"
)

// ReceiptCredit is a credit note made of a receipt's return: the note and
// the outcome of its submission.
type ReceiptCredit struct {
	Doc *einvoice.Document
	// Problems are validate's, when the note did not pass (it stays draft).
	Problems []einvoice.Problem
}

// generalPublicBuyer returns the tenant's buyer that stands for the
// General Public (the customer of a consolidated invoice and of the notes
// that adjust one), creating it the first time.
func (s *Service) generalPublicBuyer(ctx context.Context, tenantID string) (*einvoice.Party, error) {
	page, err := s.store.ListParties(ctx, tenantID, einvoice.KindBuyer, einvoice.PartyFilter{Search: einvoice.TINGeneralPublic,
		PageRequest: einvoice.PageRequest{Page: 1, PerPage: 10}})
	if err != nil {
		return nil, fmt.Errorf("find the General Public buyer: %w", err)
	}
	for _, p := range page.Items {
		if p.TIN == einvoice.TINGeneralPublic {
			return p, nil
		}
	}
	gp := einvoice.GeneralPublic()
	return s.CreateParty(ctx, tenantID, einvoice.KindBuyer, &einvoice.Party{Name: gp.Name, TIN: gp.TIN, IDType: gp.IDType,
		IDValue: gp.IDValue, SSTRegistrationNumber: gp.SSTRegistrationNumber, Address: gp.Address, Contact: gp.Contact})
}

// ReceiptCreditNote makes the return of a consolidated receipt a credit
// note on its consolidated invoice (DECISIONS 17): documentReferences to
// it, the General Public as buyer, the receipt's lines (those of lines,
// indexes into the receipt's, or all when empty) classified 004 and
// calculated as the receipt was; then validates and submits it.
// RECEIPT_NOT_CONSOLIDATED for a receipt that is not consolidated.
func (s *Service) ReceiptCreditNote(ctx context.Context, tenantID, keyID, id string, lines []int) (*ReceiptCredit, error) {
	r, err := s.GetReceipt(ctx, tenantID, id)
	if err != nil {
		return nil, err
	}
	if r.Status != einvoice.ReceiptConsolidated {
		return nil, einvoice.Errorf(einvoice.CodeReceiptNotConsolidated,
			"The receipt is %s: a return becomes a credit note only once its receipt is in a consolidated invoice.", r.Status)
	}
	f := einvoice.FieldErrors{}
	picked := make([]einvoice.Line, 0, len(r.Lines))
	seen := map[int]bool{}
	for i, n := range lines {
		switch {
		case n < 0 || n >= len(r.Lines):
			f.Add(fmt.Sprintf("lines.%d", i), "must be the index of one of the receipt's %d lines (from 0)", len(r.Lines))
		case seen[n]:
			f.Add(fmt.Sprintf("lines.%d", i), "names line %d twice", n)
		default:
			seen[n] = true
			picked = append(picked, r.Lines[n])
		}
	}
	if err := f.Err(); err != nil {
		return nil, err
	}
	if len(lines) == 0 {
		picked = append(picked, r.Lines...)
	}
	cons, err := s.document(ctx, tenantID, r.ConsolidatedDocumentID)
	if err != nil {
		return nil, err
	}
	buyer, err := s.generalPublicBuyer(ctx, tenantID)
	if err != nil {
		return nil, err
	}
	ref := einvoice.DocumentReference{ReferenceNumber: cons.InvoiceSerialNumber}
	if cons.Authority != nil {
		ref.UUID = cons.Authority.DocumentUUID
	}
	out := make([]einvoice.Line, len(picked))
	for i, l := range picked {
		l.AuthorityClassification = einvoice.ClassificationConsolidated
		l.Subtotal, l.DiscountAmount, l.FeeOrChargeAmount, l.TotalExcludingTax, l.TaxAmount, l.TotalIncludingTax, l.TaxAmountMyr = nil, nil, nil, nil, nil, nil, nil
		taxes := make([]einvoice.LineTax, len(l.Taxes))
		for j, t := range l.Taxes {
			taxes[j] = einvoice.LineTax{TaxType: t.TaxType, TaxRate: t.TaxRate, ExemptionReason: t.ExemptionReason}
		}
		l.Taxes = taxes
		out[i] = l
	}
	var pay *einvoice.Payment
	if r.Payment != nil {
		p := *r.Payment
		p.PrepaymentAmount, p.PrepaymentDate, p.PrepaymentReferenceNumber = nil, "", ""
		pay = &p
	}
	d := &einvoice.Document{BuyerID: buyer.ID, InvoiceSerialNumber: creditSerial(r), CurrencyCode: r.CurrencyCode,
		AutoCalculate: true, Lines: out, Payment: pay, References: []einvoice.DocumentReference{ref}}
	if !isMYRCode(r.CurrencyCode) {
		d.ExchangeRate = r.ExchangeRate
	}
	d, _, err = s.CreateDocument(ctx, tenantID, keyID, einvoice.KindCreditNote, d)
	if err != nil {
		return nil, err
	}
	res, err := s.ValidateDocument(ctx, tenantID, keyID, d.ID)
	if err != nil {
		return nil, err
	}
	if !res.Passed() {
		return &ReceiptCredit{Doc: res.Doc, Problems: res.Problems}, nil
	}
	o, err := s.Submit(ctx, tenantID, keyID, d.ID)
	if err != nil {
		return nil, err
	}
	return &ReceiptCredit{Doc: o.Doc}, nil
}

// creditSerial is the serial number of a receipt's credit note: RET-, the
// receipt number, and a suffix that keeps several returns of one receipt
// apart (at most 50 characters).
func creditSerial(r *einvoice.Receipt) string {
	suffix := "-" + newReceiptToken()[:6]
	num := r.ReceiptNumber
	if max := 50 - len("RET-") - len(suffix); len(num) > max {
		num = num[len(num)-max:]
	}
	return "RET-" + num + suffix
}

func isMYRCode(c string) bool { return c == "" || c == "MYR" }
