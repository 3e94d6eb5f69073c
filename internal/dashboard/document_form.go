package dashboard

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/einvoice/einvoice/internal/einvoice"
	"github.com/einvoice/einvoice/internal/money"
)

// The create and edit form of a document. Its inputs are named by the
// API's JSON paths (invoiceLines.2.quantity), so the service's field
// errors land beside the input they name. Totals are computed by the
// service (PreviewDocument, the API's autoCalculate) on every change:
// static/totals.js posts the form to /app/documents/preview and puts the
// answer in place; without script the "Compute totals" button does the
// same by a full POST, and lines are added or removed by submit buttons.

// lineFields are the inputs of one line, after "invoiceLines.N.".
var lineFields = []string{"classifications.0", "productDescription", "quantity", "unitCode", "unitPrice",
	"discountRate", "invoiceLineTaxes.0.taxType", "invoiceLineTaxes.0.taxRate", "invoiceLineTaxes.0.exemptionReason", "from"}

// headerFields are the document's own inputs.
var headerFields = []string{"buyerId", "onBehalfSellerId", "invoiceSerialNumber", "currencyCode", "exchangeRate",
	"erpIssuedAt", "invoiceDiscountAmount", "invoiceDiscountDescription", "payment.paymentMode", "payment.paymentTerms",
	"payment.supplierBankAccountNumber", "documentReferences.0.referenceNumber", "documentReferences.0.uuid"}

// docFormData is the form page's data.
type docFormData struct {
	Kind einvoice.KindInfo
	// Action is where the form posts; ID the document edited ("" on create).
	Action, ID string
	// Parties are the buyers (or, self-billed, the sellers) to choose from.
	Parties []*einvoice.Party
	// MoreParties: the tenant has more than the list shows.
	MoreParties bool
	Lines       []int
	// Doc holds the amounts computed by the service, for the totals.
	Doc *einvoice.Document
	// Others are the errors of no input on the form, with their path.
	Others []string
	Kinds  []einvoice.KindInfo
}

// PartyField is the input naming the other party: buyerId, or
// onBehalfSellerId for self-billed kinds, or "" (consolidated).
func (d docFormData) PartyField() string {
	switch {
	case d.Kind.SelfBilled:
		return "onBehalfSellerId"
	case d.Kind.Consolidated:
		return ""
	}
	return "buyerId"
}

// lineName is a line's input name: (lineName 2 "quantity").
func lineName(i int, field string) string { return fmt.Sprintf("invoiceLines.%d.%s", i, field) }

func init() {
	funcs["lineName"] = lineName
	funcs["inc"] = func(i int) int { return i + 1 }
	funcs["taxTypes"] = func() []string { return []string{"01", "02", "03", "04", "05", "06", "E"} }
	funcs["paymentModes"] = func() []string { return []string{"01", "02", "03", "04", "05", "06", "07"} }
}

// newDocument shows the empty create form of ?type= (an invoice by default).
func (d *Dashboard) newDocument(w http.ResponseWriter, r *http.Request, u *user) {
	if !u.CanWrite() {
		d.forbidden(w, r, u, "This key is read-only: it cannot create documents.")
		return
	}
	info, ok := kindOf(r.URL.Query().Get("type"))
	if !ok {
		d.render(w, r, http.StatusNotFound, "error", view{Title: "Not found", User: u, Data: "No such kind of document."})
		return
	}
	vals := map[string]string{"currencyCode": "MYR", lineName(0, "quantity"): "1", lineName(0, "unitCode"): "C62"}
	d.renderDocForm(w, r, u, http.StatusOK, info, nil, &form{Values: vals}, 1)
}

// createDocument is the create form's POST: save, or compute the totals,
// or add or remove a line.
func (d *Dashboard) createDocument(w http.ResponseWriter, r *http.Request, u *user) {
	info, ok := kindOf(r.URL.Query().Get("type"))
	if !ok {
		d.render(w, r, http.StatusNotFound, "error", view{Title: "Not found", User: u, Data: "No such kind of document."})
		return
	}
	d.docFormPost(w, r, u, info, nil)
}

// editDocument shows the form of a document still editable, or why not.
func (d *Dashboard) editDocument(w http.ResponseWriter, r *http.Request, u *user) {
	if !u.CanWrite() {
		d.forbidden(w, r, u, "This key is read-only: it cannot edit documents.")
		return
	}
	doc, err := d.svc.CheckEditable(r.Context(), u.tenant(), r.PathValue("id"))
	if err != nil {
		d.renderError(w, r, u, err)
		return
	}
	info, _ := einvoice.InfoOf(doc.Kind)
	vals := valuesOf(doc)
	d.renderDocForm(w, r, u, http.StatusOK, info, doc, &form{Values: vals}, max(len(doc.Lines), 1))
}

// updateDocument is the edit form's POST.
func (d *Dashboard) updateDocument(w http.ResponseWriter, r *http.Request, u *user) {
	old, err := d.svc.CheckEditable(r.Context(), u.tenant(), r.PathValue("id"))
	if err != nil {
		d.renderError(w, r, u, err)
		return
	}
	info, _ := einvoice.InfoOf(old.Kind)
	d.docFormPost(w, r, u, info, old)
}

// docFormPost handles the form's buttons: op=save stores the document
// (created, or old updated); add and remove-N change the lines; anything
// else (Enter, "Compute totals") shows the form again with its totals.
func (d *Dashboard) docFormPost(w http.ResponseWriter, r *http.Request, u *user, info einvoice.KindInfo, old *einvoice.Document) {
	vals, n := postedValues(r)
	op := r.PostFormValue("op")
	switch {
	case op == "add" && n < einvoice.MaxLines:
		vals[lineName(n, "quantity")] = "1"
		vals[lineName(n, "unitCode")] = "C62"
		n++
	case strings.HasPrefix(op, "remove-"):
		if i, err := strconv.Atoi(strings.TrimPrefix(op, "remove-")); err == nil && i >= 0 && i < n && n > 1 {
			removeLine(vals, i, n)
			n--
		}
	case op == "save":
		d.saveDocument(w, r, u, info, old, vals, n)
		return
	}
	d.renderDocForm(w, r, u, http.StatusOK, info, old, &form{Values: vals}, n)
}

// saveDocument creates or updates the document of the form through the
// API's use cases; refused, the form comes back with each error beside
// its input and what was typed kept.
func (d *Dashboard) saveDocument(w http.ResponseWriter, r *http.Request, u *user, info einvoice.KindInfo, old *einvoice.Document, vals map[string]string, n int) {
	doc, ferrs := documentOf(vals, info, n)
	if old != nil {
		keepUnshown(doc, old, vals)
	}
	var err error
	if len(ferrs) > 0 {
		err = ferrs.Err()
	} else if old == nil {
		doc, _, err = d.svc.CreateDocument(r.Context(), u.tenant(), "", info.Kind, doc)
	} else {
		doc, _, err = d.svc.UpdateDocument(r.Context(), "", old, doc)
	}
	if err != nil && (isNotFound(err) || !isUserError(err)) {
		d.renderError(w, r, u, err)
		return
	}
	if err != nil {
		f := formOf(r, err)
		f.Values = vals
		d.renderDocForm(w, r, u, http.StatusUnprocessableEntity, info, old, f, n)
		return
	}
	redirectFlash(w, r, "/app/documents/"+doc.ID, "ok", "Saved: the document is a draft; validate it when it is complete.")
}

// previewDocument answers the totals of the posted form, as HTML for
// static/totals.js to put in place.
func (d *Dashboard) previewDocument(w http.ResponseWriter, r *http.Request, u *user) {
	info, ok := kindOf(r.PostFormValue("type"))
	if !ok {
		http.Error(w, "unknown kind", http.StatusUnprocessableEntity)
		return
	}
	vals, n := postedValues(r)
	var old *einvoice.Document
	if id := vals["id"]; id != "" {
		old, _, _ = d.svc.GetDocument(r.Context(), u.tenant(), id) // another tenant's: nil, nothing kept
	}
	doc := d.preview(r, u, info, old, vals, n)
	t := d.pages.byName["document_form"]
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if err := t.ExecuteTemplate(w, "doctotals", docFormData{Kind: info, Doc: doc}); err != nil {
		d.logger.ErrorContext(r.Context(), "dashboard preview", "error", err)
	}
}

// preview computes the form's amounts through the service (with what
// the form does not show of old, the document edited); inputs that do not
// parse count as absent.
func (d *Dashboard) preview(r *http.Request, u *user, info einvoice.KindInfo, old *einvoice.Document, vals map[string]string, n int) *einvoice.Document {
	doc, _ := documentOf(vals, info, n)
	if old != nil {
		keepUnshown(doc, old, vals)
	}
	out, err := d.svc.PreviewDocument(r.Context(), u.tenant(), info.Kind, doc)
	if out == nil {
		if err != nil {
			d.logger.ErrorContext(r.Context(), "dashboard preview", "error", err)
		}
		einvoice.Calculate(doc)
		return doc
	}
	return out
}

// renderDocForm renders the form with n lines and the totals of what it
// holds.
func (d *Dashboard) renderDocForm(w http.ResponseWriter, r *http.Request, u *user, status int, info einvoice.KindInfo, old *einvoice.Document, f *form, n int) {
	id := ""
	if old != nil {
		id = old.ID
	}
	data := docFormData{Kind: info, ID: id, Action: "/app/documents/new?type=" + string(info.Kind), Kinds: einvoice.Kinds}
	title := "New " + strings.ToLower(kindLabel(info.Kind))
	if id != "" {
		data.Action = "/app/documents/" + id + "/edit"
		title = "Edit " + strings.ToLower(kindLabel(info.Kind)) + " " + f.Value("invoiceSerialNumber")
	}
	if pf := data.PartyField(); pf != "" {
		kind := einvoice.KindBuyer
		if info.SelfBilled {
			kind = einvoice.KindSeller
		}
		page, err := d.svc.ListParties(r.Context(), u.tenant(), kind, einvoice.PartyFilter{PageRequest: einvoice.PageRequest{Page: 1, PerPage: einvoice.MaxPerPage}})
		if err != nil {
			d.renderError(w, r, u, err)
			return
		}
		data.Parties = page.Items
		// The chosen one beyond the first page (an edit): listed too.
		if cur := f.Value(pf); cur != "" && !slices.ContainsFunc(data.Parties, func(p *einvoice.Party) bool { return p.ID == cur }) {
			if p, err := d.svc.GetParty(r.Context(), u.tenant(), kind, cur); err == nil {
				data.Parties = append(data.Parties, p)
			}
		}
		data.MoreParties = page.Total > len(page.Items)
	}
	for i := range n {
		data.Lines = append(data.Lines, i)
	}
	data.Doc = d.preview(r, u, info, old, f.Values, n)
	data.Others = otherErrors(f.Errors, n)
	if f.Values == nil {
		f.Values = map[string]string{}
	}
	f.Values["lines"] = strconv.Itoa(n)
	d.render(w, r, status, "document_form", view{Title: title, Nav: "documents", User: u, Form: f, Data: data})
}

// otherErrors are the errors of paths no input shows, as "path: message".
func otherErrors(errs einvoice.FieldErrors, n int) []string {
	shown := map[string]bool{}
	for _, h := range headerFields {
		shown[h] = true
	}
	for i := range n {
		for _, l := range lineFields {
			shown[lineName(i, l)] = true
		}
	}
	var out []string
	for path, msgs := range errs {
		if !shown[path] {
			label := path
			if label == "" {
				label = "document"
			}
			out = append(out, label+": "+strings.Join(msgs, " "))
		}
	}
	slices.Sort(out)
	return out
}

// kindOf is the kind named s ("" is an invoice).
func kindOf(s string) (einvoice.KindInfo, bool) {
	if s == "" {
		s = string(einvoice.KindInvoice)
	}
	return einvoice.InfoOf(einvoice.DocumentKind(s))
}

// postedValues are the form's inputs (trimmed) and its count of lines.
func postedValues(r *http.Request) (map[string]string, int) {
	vals := map[string]string{}
	for k, v := range r.PostForm {
		if k != "csrf" && k != "op" && len(v) > 0 {
			vals[k] = strings.TrimSpace(v[0])
		}
	}
	n, err := strconv.Atoi(vals["lines"])
	if err != nil || n < 1 {
		n = 1
	}
	return vals, min(n, einvoice.MaxLines)
}

// removeLine drops line i of n, moving the lines after it up.
func removeLine(vals map[string]string, i, n int) {
	for j := i; j < n; j++ {
		for _, f := range lineFields {
			if j+1 < n {
				vals[lineName(j, f)] = vals[lineName(j+1, f)]
			} else {
				delete(vals, lineName(j, f))
			}
		}
	}
}

// documentOf reads the form into a document (autoCalculate on); a number
// that does not read is an error beside its input.
func documentOf(v map[string]string, info einvoice.KindInfo, n int) (*einvoice.Document, einvoice.FieldErrors) {
	f := einvoice.FieldErrors{}
	d := &einvoice.Document{AutoCalculate: true, InvoiceSerialNumber: v["invoiceSerialNumber"], CurrencyCode: strings.ToUpper(v["currencyCode"]),
		InvoiceDiscountDesc: v["invoiceDiscountDescription"]}
	switch {
	case info.SelfBilled:
		d.OnBehalfSellerID = v["onBehalfSellerId"]
	case !info.Consolidated:
		d.BuyerID = v["buyerId"]
	}
	d.ExchangeRate = number(f, v, "exchangeRate")
	if s := v["invoiceDiscountAmount"]; s != "" {
		a, err := money.ParseAmount(s)
		if err != nil {
			f.Add("invoiceDiscountAmount", "must be an amount such as 10.00")
		} else {
			d.InvoiceDiscount = &a
		}
	}
	if s := v["erpIssuedAt"]; s != "" {
		t, err := time.ParseInLocation("2006-01-02", s, einvoice.MYT) // a Malaysian date, as shown
		if err != nil {
			f.Add("erpIssuedAt", "must be a date such as 2026-03-01")
		} else {
			d.ErpIssuedAt = &t
		}
	}
	if v["payment.paymentMode"] != "" || v["payment.paymentTerms"] != "" || v["payment.supplierBankAccountNumber"] != "" {
		d.Payment = &einvoice.Payment{PaymentMode: v["payment.paymentMode"], PaymentTerms: v["payment.paymentTerms"],
			SupplierBankAccountNumber: v["payment.supplierBankAccountNumber"]}
	}
	if info.Note && (v["documentReferences.0.referenceNumber"] != "" || v["documentReferences.0.uuid"] != "") {
		d.References = []einvoice.DocumentReference{{ReferenceNumber: v["documentReferences.0.referenceNumber"], UUID: v["documentReferences.0.uuid"]}}
	}
	d.Lines = make([]einvoice.Line, n)
	for i := range n {
		l := &d.Lines[i]
		l.ProductDescription = v[lineName(i, "productDescription")]
		l.UnitCode = v[lineName(i, "unitCode")]
		if c := v[lineName(i, "classifications.0")]; c != "" {
			l.Classifications = []string{c}
		}
		l.Quantity = number(f, v, lineName(i, "quantity"))
		l.UnitPrice = number(f, v, lineName(i, "unitPrice"))
		l.DiscountRate = number(f, v, lineName(i, "discountRate"))
		tax := einvoice.LineTax{TaxType: v[lineName(i, "invoiceLineTaxes.0.taxType")],
			TaxRate: number(f, v, lineName(i, "invoiceLineTaxes.0.taxRate")), ExemptionReason: v[lineName(i, "invoiceLineTaxes.0.exemptionReason")]}
		if tax.TaxType != "" || tax.TaxRate != nil || tax.ExemptionReason != "" {
			l.Taxes = []einvoice.LineTax{tax}
		}
	}
	return d, f
}

// number reads the input name as a number: nil when empty, an error
// beside it when it does not read.
func number(f einvoice.FieldErrors, v map[string]string, name string) *money.Number {
	s := v[name]
	if s == "" {
		return nil
	}
	n, err := money.ParseNumber(s)
	if err != nil {
		f.Add(name, "must be a number such as 12.50 (at most 6 decimals)")
		return nil
	}
	return &n
}

// valuesOf is a stored document as the form's inputs.
func valuesOf(d *einvoice.Document) map[string]string {
	v := map[string]string{"buyerId": d.BuyerID, "onBehalfSellerId": d.OnBehalfSellerID, "invoiceSerialNumber": d.InvoiceSerialNumber,
		"currencyCode": d.CurrencyCode, "exchangeRate": formatNumber(d.ExchangeRate), "invoiceDiscountAmount": formatAmount(d.InvoiceDiscount),
		"invoiceDiscountDescription": d.InvoiceDiscountDesc}
	if d.ErpIssuedAt != nil {
		v["erpIssuedAt"] = d.ErpIssuedAt.In(einvoice.MYT).Format("2006-01-02")
	}
	if p := d.Payment; p != nil {
		v["payment.paymentMode"], v["payment.paymentTerms"], v["payment.supplierBankAccountNumber"] = p.PaymentMode, p.PaymentTerms, p.SupplierBankAccountNumber
	}
	if len(d.References) > 0 {
		v["documentReferences.0.referenceNumber"], v["documentReferences.0.uuid"] = d.References[0].ReferenceNumber, d.References[0].UUID
	}
	for i, l := range d.Lines {
		v[lineName(i, "from")] = strconv.Itoa(i)
		if len(l.Classifications) > 0 {
			v[lineName(i, "classifications.0")] = l.Classifications[0]
		}
		v[lineName(i, "productDescription")], v[lineName(i, "unitCode")] = l.ProductDescription, l.UnitCode
		v[lineName(i, "quantity")], v[lineName(i, "unitPrice")] = formatNumber(l.Quantity), formatNumber(l.UnitPrice)
		v[lineName(i, "discountRate")] = formatNumber(l.DiscountRate)
		if len(l.Taxes) > 0 {
			t := l.Taxes[0]
			v[lineName(i, "invoiceLineTaxes.0.taxType")], v[lineName(i, "invoiceLineTaxes.0.taxRate")] = t.TaxType, formatNumber(t.TaxRate)
			v[lineName(i, "invoiceLineTaxes.0.exemptionReason")] = t.ExemptionReason
		}
	}
	return v
}
