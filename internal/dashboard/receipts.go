package dashboard

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/einvoice/einvoice/internal/einvoice"
	"github.com/einvoice/einvoice/internal/invoicing"
)

// receiptsData is the receipts list's own data.
type receiptsData struct {
	Statuses []einvoice.ReceiptStatus
	Items    []*einvoice.Receipt
	Total    int
	Pager    pager
}

// receiptData is a receipt's page's own data.
type receiptData struct {
	*einvoice.Receipt
	// CanDelete: the status allows deleting (shown to a read-write key).
	CanDelete bool
}

// receiptFilter reads the list's filter from the query, as the API's:
// month (YYYY-MM), status and search (a receipt number prefix).
func receiptFilter(q url.Values) (einvoice.ReceiptFilter, *form) {
	f := &form{Values: map[string]string{}, Errors: einvoice.FieldErrors{}}
	for _, k := range []string{"month", "status", "search"} {
		f.Values[k] = q.Get(k)
	}
	filter := einvoice.ReceiptFilter{Status: einvoice.ReceiptStatus(q.Get("status")), Search: strings.TrimSpace(q.Get("search")),
		PageRequest: pageRequest(q)}
	if !slices.Contains(einvoice.ReceiptStatuses, filter.Status) {
		filter.Status = ""
	}
	if !utf8.ValidString(filter.Search) || strings.ContainsRune(filter.Search, 0) || len(filter.Search) > 100 {
		f.Errors.Add("search", "Type at most 100 characters of text.")
		filter.Search = ""
	}
	if m := q.Get("month"); m != "" {
		if _, ok := einvoice.ParseReceiptMonth(m); ok {
			filter.Month = m
		} else {
			f.Errors.Add("month", "Give a month as YYYY-MM, e.g. 2026-01.")
		}
	}
	return filter, f
}

// receipts is the list of receipts: month, status and search filters, paged.
func (d *Dashboard) receipts(w http.ResponseWriter, r *http.Request, u *user) {
	q := r.URL.Query()
	filter, f := receiptFilter(q)
	page, err := d.svc.ListReceipts(r.Context(), u.tenant(), filter)
	if err != nil {
		d.renderError(w, r, u, err)
		return
	}
	keep := url.Values{}
	for _, k := range []string{"month", "status", "search"} {
		if v := q.Get(k); v != "" && f.Error(k) == "" {
			keep.Set(k, v)
		}
	}
	d.render(w, r, http.StatusOK, "receipts", view{Title: "Receipts", Nav: "receipts", User: u, Form: f,
		Data: receiptsData{Statuses: einvoice.ReceiptStatuses, Items: page.Items, Total: page.Total,
			Pager: pagerOf(keep, filter.PageRequest, page.Total)}})
}

// receipt is a receipt's page: amounts, status, the buyer's request page
// (link and QR code), the invoice or consolidation it went into.
func (d *Dashboard) receipt(w http.ResponseWriter, r *http.Request, u *user) {
	rc, err := d.svc.GetReceipt(r.Context(), u.tenant(), r.PathValue("id"))
	if err != nil {
		d.renderError(w, r, u, err)
		return
	}
	d.render(w, r, http.StatusOK, "receipt", view{Title: "Receipt " + rc.ReceiptNumber, Nav: "receipts", User: u,
		Data: receiptData{Receipt: rc, CanDelete: slices.Contains(einvoice.ReceiptDeletable, rc.Status)}})
}

// receiptQR answers the QR code of a receipt's request page.
func (d *Dashboard) receiptQR(w http.ResponseWriter, r *http.Request, u *user) {
	c, err := d.svc.ReceiptQR(r.Context(), u.tenant(), r.PathValue("id"), 240, invoicing.QRPNG)
	if err != nil {
		d.renderError(w, r, u, err)
		return
	}
	w.Header().Set("Content-Type", "image/png")
	_, _ = w.Write(c.Image)
}

// deleteReceipt deletes an open or excluded receipt; the service's refusal
// (RECEIPT_NOT_DELETABLE) comes back as a message on the receipt's page.
func (d *Dashboard) deleteReceipt(w http.ResponseWriter, r *http.Request, u *user) {
	id := r.PathValue("id")
	err := d.svc.DeleteReceipt(r.Context(), u.tenant(), id)
	if isNotFound(err) || err != nil && !isUserError(err) {
		d.renderError(w, r, u, err)
		return
	}
	if err != nil {
		redirectFlash(w, r, "/app/receipts/"+id, "error", errorMessage(err))
		return
	}
	redirectFlash(w, r, "/app/receipts", "ok", "Receipt deleted.")
}

func init() {
	funcs["receiptStatusLabel"] = receiptStatusLabel
	funcs["capital"] = func(s any) string { return capital(fmt.Sprint(s)) }
}

// receiptStatusLabel is a receipt's status as the pages name it.
func receiptStatusLabel(s einvoice.ReceiptStatus) string { return capital(string(s)) }

// capital is s with its first letter upper-case ("open" is "Open").
func capital(s string) string {
	if s == "" {
		return ""
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
