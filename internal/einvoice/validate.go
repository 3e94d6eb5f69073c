package einvoice

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/shopspring/decimal"
)

var decOne = decimal.NewFromInt(1)

// Problem is one reason a document would be refused by the authority: a
// stable rule code, the field path at fault, and a sentence.
type Problem struct {
	Rule    string `json:"rule"`
	Field   string `json:"field"`
	Message string `json:"message"`
}

// ValidationInput is everything validate looks at: the document, the
// parties as they are now, the documents of ours its notes refer to, and
// the time.
type ValidationInput struct {
	Doc    *Document
	Tenant *Tenant
	// Party is the buyer (invoices, notes) or the on-behalf seller
	// (self-billed kinds); nil for the consolidated invoice.
	Party *Party
	// Referenced holds documents of the tenant whose serial number a
	// reference names.
	Referenced map[string][]*Document
	Now        time.Time
}

// Limits of document fields (reference myinvois.md 2.3).
const (
	maxSerialLen      = 50
	maxDescriptionLen = 300
	maxTermsLen       = 300
	maxBankAccountLen = 150
	maxPrepayRefLen   = 150
	maxFrequencyLen   = 50
	maxReasonLen      = 300
	// IssueWindow is how old an issue time the authority still accepts.
	IssueWindow = 72 * time.Hour
)

var (
	exemptionReason = regexp.MustCompile(`^[A-Za-z0-9 .,()\-]+$`)
	authorityUUID   = regexp.MustCompile(`^[A-Z0-9]{26}$`)
)

// validation collects problems.
type validation struct {
	problems []Problem
}

func (v *validation) add(rule, field, msg string) {
	v.problems = append(v.problems, Problem{Rule: rule, Field: field, Message: msg})
}

func (v *validation) length(rule, field, value string, max int) {
	if utf8.RuneCountInString(value) > max {
		v.add(rule, field, fmt.Sprintf("must be at most %d characters", max))
	}
}

// ValidateDocument returns everything the authority would reject in the
// document, before the authority sees it (DECISIONS section 8); none means
// it may be submitted.
func ValidateDocument(in ValidationInput) []Problem {
	v := &validation{}
	d := in.Doc
	info, _ := InfoOf(d.Kind)
	v.parties(in, info)
	v.header(d, in.Now)
	v.lines(d)
	v.notes(d, info, in.Referenced)
	if !d.AutoCalculate {
		amountChecker{v}.check(d)
	}
	sort.SliceStable(v.problems, func(i, j int) bool { return v.problems[i].Field < v.problems[j].Field })
	return v.problems
}

// parties checks the supplier and the buyer as the authority's document
// will carry them: the tenant is the supplier of invoices and notes and the
// buyer of self-billed kinds.
func (v *validation) parties(in ValidationInput, info KindInfo) {
	tenantRole, partyRole := "supplier", "buyer"
	if info.SelfBilled {
		tenantRole, partyRole = "buyer", "supplier"
	}
	for path, msgs := range ProfileReadiness(&in.Tenant.Profile) {
		for _, m := range msgs {
			v.add("PROFILE_INCOMPLETE", tenantRole+"."+path, m+" (in the tenant profile, PUT /api/v1/profile)")
		}
	}
	if IsSpecialTIN(in.Tenant.Profile.TIN) {
		v.add("SPECIAL_TIN_MISUSED", tenantRole+".tin", "the tenant's own TIN cannot be a general TIN (EI000000000x0)")
	}
	if info.Consolidated {
		return // the General Public buyer is filled in by the service
	}
	if in.Party == nil {
		v.add("PARTY_MISSING", partyRole, "the document has no "+partyRole)
		return
	}
	for path, msgs := range PartyReadiness(in.Party) {
		for _, m := range msgs {
			v.add("PARTY_NOT_READY", partyRole+"."+path, m)
		}
	}
	switch tin := in.Party.TIN; {
	case tin == TINGeneralPublic:
		v.add("SPECIAL_TIN_MISUSED", partyRole+".tin", "the General Public TIN EI00000000010 is only for consolidated invoices (the authority answers ERR237)")
	case tin == TINForeignSeller && !info.SelfBilled:
		v.add("SPECIAL_TIN_MISUSED", partyRole+".tin", "EI00000000030 is the foreign supplier's TIN of self-billed documents; a foreign buyer uses EI00000000020")
	case (tin == TINForeignBuyer || tin == TINGovernment) && info.SelfBilled:
		v.add("SPECIAL_TIN_MISUSED", partyRole+".tin", "a supplier cannot use "+tin+": a foreign supplier uses EI00000000030")
	}
}

// header checks the document's own fields.
func (v *validation) header(d *Document, now time.Time) {
	if blank(d.InvoiceSerialNumber) {
		v.add("REQUIRED", "invoiceSerialNumber", "is required: the document's own number")
	}
	v.length("TOO_LONG", "invoiceSerialNumber", d.InvoiceSerialNumber, maxSerialLen)
	if d.CurrencyCode != "MYR" {
		switch {
		case d.ExchangeRate == nil:
			v.add("EXCHANGE_RATE_REQUIRED", "exchangeRate", "is required for a document in "+d.CurrencyCode+": MYR per one unit of the currency")
		case !d.ExchangeRate.Decimal().IsPositive():
			v.add("EXCHANGE_RATE_INVALID", "exchangeRate", "must be positive")
		}
	} else if d.ExchangeRate != nil && !d.ExchangeRate.Decimal().Equal(decOne) {
		v.add("EXCHANGE_RATE_INVALID", "exchangeRate", "an MYR document has no exchange rate (or 1)")
	}
	if d.ErpIssuedAt != nil {
		switch at := *d.ErpIssuedAt; {
		case at.After(now):
			v.add("ISSUE_TIME_FUTURE", "erpIssuedAt", "is in the future (is a local +08:00 time written as Z?)")
		case now.Sub(at) > IssueWindow:
			v.add("ISSUE_TIME_TOO_OLD", "erpIssuedAt", "is more than 72 hours ago: the authority no longer accepts it; leave it out to issue now")
		}
	}
	v.length("TOO_LONG", "invoiceDiscountDescription", d.InvoiceDiscountDesc, maxDescriptionLen)
	v.length("TOO_LONG", "invoiceFeeDescription", d.InvoiceFeeDesc, maxDescriptionLen)
	if p := d.Payment; p != nil {
		v.length("TOO_LONG", "payment.paymentTerms", p.PaymentTerms, maxTermsLen)
		v.length("TOO_LONG", "payment.supplierBankAccountNumber", p.SupplierBankAccountNumber, maxBankAccountLen)
		v.length("TOO_LONG", "payment.prepaymentReferenceNumber", p.PrepaymentReferenceNumber, maxPrepayRefLen)
		if p.PrepaymentAmount != nil && p.PrepaymentDate == "" {
			v.add("REQUIRED", "payment.prepaymentDate", "is required with a prepayment amount")
		}
	}
	if ip := d.InvoicePeriod; ip != nil {
		v.length("TOO_LONG", "invoicePeriod.frequencyOfBilling", ip.FrequencyOfBilling, maxFrequencyLen)
		if ip.BillingPeriodStartDate != "" && ip.BillingPeriodEndDate != "" && ip.BillingPeriodStartDate > ip.BillingPeriodEndDate {
			v.add("PERIOD_REVERSED", "invoicePeriod.billingPeriodStartDate", "is after billingPeriodEndDate")
		}
	}
	if dl := d.Delivery; dl != nil {
		if dl.RecipientTin != "" {
			if msg := CheckTIN(dl.RecipientTin); msg != "" {
				v.add("TIN_FORMAT", "delivery.recipientTin", msg)
			}
		}
		if dl.RecipientIDType != "" && dl.RecipientIDValue != "" {
			if msg := CheckIDValue(dl.RecipientIDType, dl.RecipientIDValue, dl.RecipientTin); msg != "" {
				v.add("ID_FORMAT", "delivery.recipientIdValue", msg)
			}
		}
		v.length("TOO_LONG", "delivery.recipientName", dl.RecipientName, MaxNameLen)
	}
}

// lines checks every line and its taxes.
func (v *validation) lines(d *Document) {
	if len(d.Lines) == 0 {
		v.add("REQUIRED", "invoiceLines", "a document has at least one line")
	}
	for i := range d.Lines {
		l := &d.Lines[i]
		p := "invoiceLines." + strconv.Itoa(i)
		if len(l.Classifications) == 0 {
			v.add("REQUIRED", p+".classifications", "is required: at least one code of GET /api/v1/classifications")
		}
		if blank(l.ProductDescription) {
			v.add("REQUIRED", p+".productDescription", "is required")
		}
		v.length("TOO_LONG", p+".productDescription", l.ProductDescription, maxDescriptionLen)
		if l.Quantity == nil {
			v.add("REQUIRED", p+".quantity", "is required")
		}
		if l.UnitPrice == nil {
			v.add("REQUIRED", p+".unitPrice", "is required")
		}
		v.length("TOO_LONG", p+".discountDescription", l.DiscountDescription, maxDescriptionLen)
		v.length("TOO_LONG", p+".feeOrChargeDescription", l.FeeOrChargeDescription, maxDescriptionLen)
		if len(l.Taxes) == 0 {
			v.add("REQUIRED", p+".invoiceLineTaxes", "every line has at least one tax entry (06 with rate 0 when no tax applies, E when exempt)")
		}
		for j := range l.Taxes {
			t := &l.Taxes[j]
			tp := fmt.Sprintf("%s.invoiceLineTaxes.%d", p, j)
			if t.TaxType == "" {
				v.add("REQUIRED", tp+".taxType", "is required")
			}
			if t.TaxRate == nil && t.TaxType != "E" && t.TaxType != "06" {
				v.add("REQUIRED", tp+".taxRate", "is required")
			}
			if (t.TaxType == "06" || t.TaxType == "E") && t.TaxRate != nil && !t.TaxRate.Decimal().IsZero() {
				v.add("TAX_RATE_NOT_ZERO", tp+".taxRate", "tax types 06 and E have rate 0")
			}
			if t.TaxType == "E" {
				switch {
				case blank(t.ExemptionReason):
					v.add("EXEMPTION_REASON_REQUIRED", tp+".exemptionReason", "an exempt (E) tax entry needs the reason of the exemption")
				case utf8.RuneCountInString(t.ExemptionReason) > maxReasonLen:
					v.add("TOO_LONG", tp+".exemptionReason", "must be at most 300 characters")
				case !exemptionReason.MatchString(t.ExemptionReason):
					v.add("EXEMPTION_REASON_FORMAT", tp+".exemptionReason", "may hold only letters, digits, spaces and . - , ( )")
				}
			}
		}
	}
}

// notes checks the references of credit, debit and refund notes.
func (v *validation) notes(d *Document, info KindInfo, ours map[string][]*Document) {
	if !info.Note {
		if len(d.References) > 0 {
			v.add("REFERENCES_NOT_ALLOWED", "documentReferences", "only notes refer to other documents")
		}
		return
	}
	if len(d.References) == 0 {
		v.add("REFERENCES_REQUIRED", "documentReferences", "a note refers to at least one document")
	}
	family := "01"
	if info.SelfBilled {
		family = "11"
	}
	for i, r := range d.References {
		p := "documentReferences." + strconv.Itoa(i)
		na := r.UUID == "NA" || r.ReferenceNumber == "NA"
		switch {
		case na && !d.IsPreEinvoicing:
			v.add("REFERENCE_NA_NOT_ALLOWED", p, "NA is only for documents issued before e-invoicing: set isPreEinvoicing")
			continue
		case na:
			continue
		}
		if blank(r.ReferenceNumber) {
			v.add("REQUIRED", p+".referenceNumber", "is required: the referenced document's number")
		}
		if !authorityUUID.MatchString(r.UUID) {
			v.add("REFERENCE_UUID_FORMAT", p+".uuid", "must be the authority's 26-character uuid of the referenced document")
		}
		for _, ref := range ours[r.ReferenceNumber] {
			if ref.TypeCode != family {
				v.add("REFERENCE_WRONG_FAMILY", p+".referenceNumber", fmt.Sprintf("refers to a %s; a %s refers to documents of type %s", kindNoun(ref.Kind), kindNoun(d.Kind), family))
			} else if ref.Status != StatusValid {
				v.add("REFERENCE_NOT_VALID", p+".referenceNumber", fmt.Sprintf("refers to our document %s, which is %s, not Valid", ref.InvoiceSerialNumber, ref.Status))
			}
		}
	}
}

// ProblemFields groups problems by field path, as the API's errors object.
func ProblemFields(problems []Problem) FieldErrors {
	f := FieldErrors{}
	for _, p := range problems {
		f[p.Field] = append(f[p.Field], p.Message)
	}
	return f
}

// Summary is the sentence that sums the problems up.
func Summary(problems []Problem) string {
	if len(problems) == 0 {
		return "The document is valid and ready to submit."
	}
	parts := make([]string, 0, len(problems))
	for _, p := range problems {
		parts = append(parts, humanField(p.Field)+" "+p.Message)
	}
	noun := "problems"
	if len(problems) == 1 {
		noun = "problem"
	}
	return fmt.Sprintf("%d %s: %s.", len(problems), noun, strings.Join(parts, "; "))
}

// collectionNouns name one element of the lists in field paths.
var collectionNouns = map[string]string{
	"invoiceLines": "line", "invoiceLineTaxes": "tax", "taxSubtotals": "tax subtotal",
	"documentReferences": "reference", "classifications": "classification",
}

// humanField turns a field path into words: "buyer.contact.phone" ->
// "buyer contact phone", "invoiceLines.0.unitPrice" -> "line 1 unitPrice".
func humanField(path string) string {
	parts := strings.Split(path, ".")
	out := make([]string, 0, len(parts))
	for i, part := range parts {
		if n, err := strconv.Atoi(part); err == nil && i > 0 {
			prev := parts[i-1]
			noun, ok := collectionNouns[prev]
			if !ok {
				noun = prev
			}
			out[len(out)-1] = noun + " " + strconv.Itoa(n+1)
			continue
		}
		out = append(out, part)
	}
	return strings.Join(out, " ")
}
