package einvoice

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/einvoice/einvoice/internal/money"
	"github.com/einvoice/einvoice/internal/refdata"
)

var decOne = money.Int(1)

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
	// Receipts are the receipts a consolidated invoice made by a
	// consolidation carries (those that name it as their consolidated
	// document): its lines and totals are checked exactly against theirs
	// (DECISIONS 17), not recomputed from rates. Nil for any other document.
	Receipts []*Receipt
	// UBLSize is the size in bytes of the UBL the document would be sent
	// as (0 when unknown).
	UBLSize int
}

// MaxUBLBytes is the authority's limit on one document (300 KB).
const MaxUBLBytes = 300 << 10

// Limits of document fields (reference myinvois.md 2.3).
const (
	maxSerialLen      = 50
	maxDescriptionLen = 300
	maxTermsLen       = 300
	maxBankAccountLen = 150
	maxPrepayRefLen   = 150
	maxFrequencyLen   = 50
	maxReasonLen      = 300
	// The authority's optional trade fields (DECISIONS 13).
	maxCustomsFormLen = 1000 // Customs Form No. 1, 9 and 2 (K2) references
	maxFTALen         = 300
	maxIncotermsLen   = 3
	maxBillRefLen     = 150
	maxTariffCodeLen  = 12
	// IssueWindow is how old an issue time the authority still accepts.
	IssueWindow = 72 * time.Hour
)

var authorityUUID = regexp.MustCompile(`^[A-Z0-9]{26}$`)

// exemptionReasonOK reports whether s holds only what the authority allows
// in a tax exemption reason: letters, digits, spaces and . - , ( ).
func exemptionReasonOK(s string) bool {
	for _, r := range s {
		switch {
		case 'A' <= r && r <= 'Z', 'a' <= r && r <= 'z', '0' <= r && r <= '9', strings.ContainsRune(" .-,()", r):
		default:
			return false
		}
	}
	return true
}

// supplierOnly are profile fields the authority needs of a supplier only.
var supplierOnly = map[string]bool{"msicCode": true, "businessActivityDescription": true, "tourismTaxRegistrationNumber": true}

// validation collects problems.
type validation struct {
	problems []Problem
	// env and issued choose the dated rules that apply (DatedRules): the
	// tenant's environment and the document's issue time.
	env    string
	issued time.Time
}

// inForce reports whether the dated rule id applies to the document.
func (v *validation) inForce(id string) bool { return ruleInForce(id, v.env, v.issued) }

// dated reports a problem of the dated rule id, saying from when it
// applies.
func (v *validation) dated(id, field, msg string) {
	r, _ := DatedRuleByID(id)
	v.add(id, field, msg+" ("+r.Since(v.env)+")")
}

// datedLength reports, when the dated rule id applies, a value of more
// than max characters.
func (v *validation) datedLength(id string, at fieldPath, field, value string, max int) {
	if len(value) > max && utf8.RuneCountInString(value) > max && v.inForce(id) {
		v.dated(id, at.to(field), fmt.Sprintf("must be at most %d characters", max))
	}
}

func (v *validation) add(rule, field, msg string) {
	v.problems = append(v.problems, Problem{Rule: rule, Field: field, Message: msg})
}

// length reports a value of more than max characters.
func (v *validation) length(at fieldPath, field, value string, max int) {
	if len(value) > max && utf8.RuneCountInString(value) > max { // a rune has at least one byte
		v.add("TOO_LONG", at.to(field), fmt.Sprintf("must be at most %d characters", max))
	}
}

// fieldPath is where a field sits: at the top of the document (the zero
// value), or in element i of a list and, with sub, in element j of its own
// list. The path string is built only when a problem names it, which keeps
// the validation of a valid document of many lines cheap.
type fieldPath struct {
	list string
	i    int
	sub  string
	j    int
}

var top fieldPath

func lineAt(i int) fieldPath { return fieldPath{list: "invoiceLines", i: i} }

// tax is the path of tax entry j of the line at p.
func (p fieldPath) tax(j int) fieldPath {
	p.sub, p.j = "invoiceLineTaxes", j
	return p
}

// to returns the path of field under p, or of the element itself when
// field is "": "invoiceLines.0.invoiceLineTaxes.1.taxRate".
func (p fieldPath) to(field string) string {
	var parts []string
	if p.list != "" {
		parts = append(parts, p.list, strconv.Itoa(p.i))
		if p.sub != "" {
			parts = append(parts, p.sub, strconv.Itoa(p.j))
		}
	}
	if field != "" {
		parts = append(parts, field)
	}
	return strings.Join(parts, ".")
}

// ValidateDocument returns everything the authority would reject in the
// document, before the authority sees it (DECISIONS section 8); none means
// it may be submitted.
func ValidateDocument(in ValidationInput) []Problem {
	d := in.Doc
	v := &validation{env: in.Tenant.Authority.Environment, issued: IssueTime(d, in.Now)}
	info, _ := InfoOf(d.Kind)
	v.parties(in, info)
	v.header(d, in.Now)
	v.lines(d)
	v.authorityClassifications(d, info, in.Referenced)
	v.notes(d, info, in.Referenced)
	switch {
	case info.Consolidated && in.Receipts != nil:
		v.receiptSums(d, in.Receipts)
	case !d.AutoCalculate:
		(&amountChecker{v: v}).check(d)
	}
	v.storeRules(d, info)
	if in.UBLSize > MaxUBLBytes {
		v.add("UBL_TOO_LARGE", "invoiceLines", fmt.Sprintf("the document would be %d KB as UBL, over the authority's 300 KB: split it into several documents", (in.UBLSize+1023)/1024))
	}
	sort.SliceStable(v.problems, func(i, j int) bool { return lessPath(v.problems[i].Field, v.problems[j].Field) })
	return v.problems
}

// IssueTime is the document's issue time, the moment its dated rules are
// judged at (DECISIONS 9): erpIssuedAt when given, otherwise now (the
// moment of submission).
func IssueTime(d *Document, now time.Time) time.Time {
	if d.ErpIssuedAt != nil {
		return *d.ErpIssuedAt
	}
	return now
}

// storeRules reports what a create or update of d would refuse now (the
// input rules and the limits of its stored amounts, as PrepareDocument
// applies them): a draft stored before a rule existed (a negative discount,
// a tax type twice on a line) must not reach the authority either. A field
// that the authority's rules above already named is not named again.
func (v *validation) storeRules(d *Document, info KindInfo) {
	f := ValidateDocumentInput(d, info)
	for path, msgs := range CheckAmountLimits(d) {
		f[path] = append(f[path], msgs...)
	}
	for _, p := range v.problems {
		delete(f, p.Field)
	}
	for _, path := range slices.Sorted(maps.Keys(f)) {
		for _, msg := range f[path] {
			v.add("INPUT_RULE", path, msg)
		}
	}
}

// lessPath orders field paths part by part, indexes by number:
// "invoiceLines.2.quantity" before "invoiceLines.10.quantity", and a path
// before the paths under it.
func lessPath(a, b string) bool {
	for a != "" && b != "" {
		pa, restA, _ := strings.Cut(a, ".")
		pb, restB, _ := strings.Cut(b, ".")
		if pa != pb {
			na, errA := strconv.Atoi(pa)
			nb, errB := strconv.Atoi(pb)
			if errA == nil && errB == nil {
				return na < nb
			}
			return pa < pb
		}
		a, b = restA, restB
	}
	return a == "" && b != ""
}

// parties checks the supplier and the buyer as the authority's document
// will carry them: the tenant is the supplier of invoices and notes and the
// buyer of self-billed kinds.
func (v *validation) parties(in ValidationInput, info KindInfo) {
	tenantRole, partyRole := "supplier", "buyer"
	if info.SelfBilled {
		tenantRole, partyRole = "buyer", "supplier"
	}
	for path, msgs := range profileReadiness(&in.Tenant.Profile, true) {
		if info.SelfBilled && supplierOnly[path] {
			continue // the authority's buyer carries no industry code nor tourism tax number
		}
		for _, m := range msgs {
			v.add("PROFILE_INCOMPLETE", tenantRole+"."+path, m+" (in the tenant profile, PUT /api/v1/profile)")
		}
	}
	if IsSpecialTIN(in.Tenant.Profile.TIN) {
		v.add("SPECIAL_TIN_MISUSED", tenantRole+".tin", "the tenant's own TIN cannot be a general TIN (EI000000000x0)")
	}
	v.state17(in, info, tenantRole, partyRole)
	if info.Consolidated {
		return // the General Public buyer is filled in by the service
	}
	if in.Party == nil {
		v.add("PARTY_MISSING", partyRole, "the document has no "+partyRole)
		return
	}
	// The General Public buyer of a note that adjusts one of our
	// consolidated invoices carries NA where a buyer's contact would be, as
	// the consolidated invoice's does (DECISIONS 5, 17).
	generalPublicNote := in.Party.TIN == TINGeneralPublic && info.Note && refersToConsolidated(in.Doc, in.Referenced)
	for path, msgs := range partyReadiness(in.Party, true) {
		if generalPublicNote {
			break
		}
		for _, m := range msgs {
			v.add("PARTY_NOT_READY", partyRole+"."+path, m)
		}
	}
	// Where each general TIN may appear (reference myinvois.md 2.4, 2.7):
	// 010 is the buyer of a consolidated invoice (which has no party here)
	// and of the notes that adjust one, and the supplier of a consolidated
	// self-billed invoice; 020 and 040 are buyers; 030 is the supplier of
	// self-billed documents.
	switch tin := in.Party.TIN; {
	case tin == TINGeneralPublic && !info.SelfBilled && !(info.Note && refersToConsolidated(in.Doc, in.Referenced)):
		v.add("SPECIAL_TIN_MISUSED", partyRole+".tin", "the General Public TIN EI00000000010 is only for consolidated invoices and the notes that refer to one of ours (the authority answers ERR237)")
	case tin == TINForeignSeller && !info.SelfBilled:
		v.add("SPECIAL_TIN_MISUSED", partyRole+".tin", "EI00000000030 is the foreign supplier's TIN of self-billed documents; a foreign buyer uses EI00000000020")
	case (tin == TINForeignBuyer || tin == TINGovernment) && info.SelfBilled:
		v.add("SPECIAL_TIN_MISUSED", partyRole+".tin", "a supplier cannot use "+tin+": a foreign supplier uses EI00000000030")
	}
}

// state17 applies RuleState17Restricted: state 17 (Not Applicable) on a
// Malaysian address of the tenant or the party only on a consolidated
// invoice (whose General Public buyer carries it) and the notes that
// adjust one, on the General Public party (where SPECIAL_TIN_MISUSED allows
// it), or on a document with a foreign party (an address abroad, or the
// foreign buyer's or supplier's general TIN). An address abroad may always
// carry 17.
func (v *validation) state17(in ValidationInput, info KindInfo, tenantRole, partyRole string) {
	if info.Consolidated || info.Note && refersToConsolidated(in.Doc, in.Referenced) || !v.inForce(RuleState17Restricted) {
		return
	}
	p := in.Party
	if p != nil && (p.Address.CountryCode != "" && p.Address.CountryCode != CountryMalaysia || IsForeignTIN(p.TIN)) {
		return // a foreign party: a transaction abroad
	}
	is17 := func(a Address) bool { return a.State == StateNotApplicable && a.CountryCode == CountryMalaysia }
	if is17(in.Tenant.Profile.Address) {
		v.dated(RuleState17Restricted, tenantRole+".address.state", state17Message)
	}
	if p != nil && is17(p.Address) && p.TIN != TINGeneralPublic {
		v.dated(RuleState17Restricted, partyRole+".address.state", state17Message)
	}
}

// refersToConsolidated reports whether a note refers to one of our
// consolidated invoices.
func refersToConsolidated(d *Document, ours map[string][]*Document) bool {
	for _, r := range d.References {
		for _, ref := range ours[r.ReferenceNumber] {
			if ref.Kind == KindConsolidatedInvoice {
				return true
			}
		}
	}
	return false
}

// header checks the document's own fields.
func (v *validation) header(d *Document, now time.Time) {
	if blank(d.InvoiceSerialNumber) {
		v.add("REQUIRED", "invoiceSerialNumber", "is required: the document's own number")
	}
	v.datedLength(RuleFieldRulesDec2025, top, "invoiceSerialNumber", d.InvoiceSerialNumber, maxSerialLen)
	if !isMYR(d.CurrencyCode) {
		switch {
		case d.ExchangeRate == nil:
			if v.inForce(RuleExchangeRateRequired) {
				v.dated(RuleExchangeRateRequired, "exchangeRate", "is required for a document in "+d.CurrencyCode+": MYR per one unit of the currency")
			}
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
	v.length(top, "customsFormReference", d.CustomsFormReference, maxCustomsFormLen)
	v.length(top, "customsForm2Reference", d.CustomsForm2Reference, maxCustomsFormLen)
	v.length(top, "freeTradeAgreement", d.FreeTradeAgreement, maxFTALen)
	v.length(top, "incoterms", d.Incoterms, maxIncotermsLen)
	v.length(top, "billReferenceNumber", d.BillReferenceNumber, maxBillRefLen)
	v.length(top, "invoiceDiscountDescription", d.InvoiceDiscountDesc, maxDescriptionLen)
	v.length(top, "invoiceFeeDescription", d.InvoiceFeeDesc, maxDescriptionLen)
	if p := d.Payment; p != nil {
		v.datedLength(RuleFieldRulesDec2025, top, "payment.paymentTerms", p.PaymentTerms, maxTermsLen)
		v.datedLength(RuleFieldRulesDec2025, top, "payment.supplierBankAccountNumber", p.SupplierBankAccountNumber, maxBankAccountLen)
		v.datedLength(RuleFieldRulesDec2025, top, "payment.prepaymentReferenceNumber", p.PrepaymentReferenceNumber, maxPrepayRefLen)
		if p.PrepaymentAmount != nil && !p.PrepaymentAmount.IsZero() && blank(p.PrepaymentDate) {
			v.add("REQUIRED", "payment.prepaymentDate", "is required with a prepayment amount")
		}
	}
	if ip := d.InvoicePeriod; ip != nil {
		v.datedLength(RuleFieldRulesDec2025, top, "invoicePeriod.frequencyOfBilling", ip.FrequencyOfBilling, maxFrequencyLen)
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
		v.length(top, "delivery.recipientName", dl.RecipientName, MaxNameLen)
	}
}

// lines checks every line and its taxes.
func (v *validation) lines(d *Document) {
	if len(d.Lines) == 0 {
		v.add("REQUIRED", "invoiceLines", "a document has at least one line")
	}
	for i := range d.Lines {
		l := &d.Lines[i]
		at := lineAt(i)
		if len(l.Classifications) == 0 && l.AuthorityClassification == "" {
			v.add("REQUIRED", at.to("classifications"), "is required: at least one code of GET /api/v1/classifications (or authorityClassification, a code of GET /api/v1/authority-classifications)")
		}
		if blank(l.ProductDescription) {
			v.add("REQUIRED", at.to("productDescription"), "is required")
		}
		v.length(at, "productDescription", l.ProductDescription, maxDescriptionLen)
		v.length(at, "tariffCode", l.TariffCode, maxTariffCodeLen)
		if l.Quantity == nil {
			v.add("REQUIRED", at.to("quantity"), "is required")
		}
		if l.UnitPrice == nil {
			v.add("REQUIRED", at.to("unitPrice"), "is required")
		}
		v.length(at, "discountDescription", l.DiscountDescription, maxDescriptionLen)
		v.length(at, "feeOrChargeDescription", l.FeeOrChargeDescription, maxDescriptionLen)
		if len(l.Taxes) == 0 {
			v.add("REQUIRED", at.to("invoiceLineTaxes"), "every line has at least one tax entry (06 with rate 0 when no tax applies, E when exempt)")
		}
		for j := range l.Taxes {
			v.lineTax(&l.Taxes[j], at.tax(j))
		}
	}
}

// The authority's classification codes reserved for a kind (reference
// myinvois.md 2.5, 2.6, 3.2).
const (
	classConsolidated    = "004" // Consolidated e-Invoice
	classOthers          = "022" // Others
	classSelfBilledOther = "036" // Self-billed - Others
)

// selfBilledClasses are the authority's classification codes for
// self-billed documents only.
var selfBilledClasses = map[string]bool{"033": true, "034": true, "035": true, "036": true, "037": true, "045": true}

// authorityClassifications refuses an authorityClassification the
// authority reserves for another kind (DECISIONS 13), naming the code that
// fits: a consolidated invoice's lines are 004; 004 is for consolidated
// invoices and the notes that refer to one of ours; 033-037 and 045 are for
// self-billed kinds.
func (v *validation) authorityClassifications(d *Document, info KindInfo, ours map[string][]*Document) {
	consolidatedNote := -1 // unknown until a line needs it
	for i := range d.Lines {
		c := d.Lines[i].AuthorityClassification
		if c == "" {
			continue
		}
		name, known := refdata.AuthorityClassifications.Name(c)
		if !known {
			continue // the input rules name it
		}
		at := lineAt(i).to("authorityClassification")
		switch {
		case info.Consolidated:
			if c != classConsolidated {
				v.add("CLASSIFICATION_WRONG_KIND", at, fmt.Sprintf("%s (%s) is not for a consolidated invoice: its lines are classified %s (Consolidated e-Invoice); use %s or leave authorityClassification out", c, name, classConsolidated, classConsolidated))
			}
		case c == classConsolidated:
			if info.Note {
				if consolidatedNote < 0 {
					consolidatedNote = 0
					if refersToConsolidated(d, ours) {
						consolidatedNote = 1
					}
				}
				if consolidatedNote == 1 {
					continue
				}
			}
			fit, fitName := classOthers, "Others"
			if info.SelfBilled {
				fit, fitName = classSelfBilledOther, "Self-billed - Others"
			}
			v.add("CLASSIFICATION_WRONG_KIND", at, fmt.Sprintf("%s (%s) is only for consolidated invoices and the notes that refer to one of ours: on this %s use %s (%s) or the code of what the line sells", c, name, kindNoun(d.Kind), fit, fitName))
		case selfBilledClasses[c] && !info.SelfBilled:
			v.add("CLASSIFICATION_WRONG_KIND", at, fmt.Sprintf("%s (%s) is only for self-billed documents (types 11-14): on this %s use %s (Others) or the code of what the line sells, or issue it as a self-billed document", c, name, kindNoun(d.Kind), classOthers))
		}
	}
}

// lineTax checks one tax entry of a line.
func (v *validation) lineTax(t *LineTax, at fieldPath) {
	if t.TaxType == "" {
		v.add("REQUIRED", at.to("taxType"), "is required")
	}
	if t.TaxRate == nil && t.TaxType != "E" && t.TaxType != "06" {
		v.add("REQUIRED", at.to("taxRate"), "is required")
	}
	if (t.TaxType == "06" || t.TaxType == "E") && t.TaxRate != nil && !t.TaxRate.Decimal().IsZero() {
		v.add("TAX_RATE_NOT_ZERO", at.to("taxRate"), "tax types 06 and E have rate 0")
	}
	if t.TaxType == "E" {
		switch {
		case blank(t.ExemptionReason):
			v.add("EXEMPTION_REASON_REQUIRED", at.to("exemptionReason"), "an exempt (E) tax entry needs the reason of the exemption")
		case utf8.RuneCountInString(t.ExemptionReason) > maxReasonLen:
			v.add("TOO_LONG", at.to("exemptionReason"), "must be at most 300 characters")
		case !exemptionReasonOK(t.ExemptionReason):
			v.add("EXEMPTION_REASON_FORMAT", at.to("exemptionReason"), "may hold only letters, digits, spaces and . - , ( )")
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
		// Our documents of that number: serial numbers are unique per type
		// code, so an invoice and, say, a credit note may share one; the
		// reference is to the one of the note's family.
		refs := ours[r.ReferenceNumber]
		var same *Document
		for _, ref := range refs {
			if ref.TypeCode == family && (same == nil || ref.Status == StatusValid) {
				same = ref
			}
		}
		switch {
		case len(refs) == 0:
			// Not one of ours: the authority checks it.
		case same == nil:
			v.add("REFERENCE_WRONG_FAMILY", p+".referenceNumber", fmt.Sprintf("refers to a %s; a %s refers to documents of type %s", kindNoun(refs[0].Kind), kindNoun(d.Kind), family))
		case same.Status != StatusValid:
			v.add("REFERENCE_NOT_VALID", p+".referenceNumber", fmt.Sprintf("refers to our document %s, which is %s, not Valid", same.InvoiceSerialNumber, same.Status))
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
