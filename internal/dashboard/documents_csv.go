package dashboard

import (
	"encoding/csv"
	"net/http"
	"regexp"
	"strings"

	"github.com/einvoice/einvoice/internal/einvoice"
)

// csvHeader names the export's columns.
var csvHeader = []string{"id", "type", "serial_number", "status", "issue_date", "currency", "total_excluding_tax",
	"total_tax", "total_payable", "authority_uuid", "created_at"}

// documentsCSV streams the documents of the list's current filter as CSV,
// one page of the service's list at a time.
func (d *Dashboard) documentsCSV(w http.ResponseWriter, r *http.Request, u *user) {
	filter, f := documentFilter(r.URL.Query())
	if len(f.Errors) > 0 {
		d.render(w, r, http.StatusUnprocessableEntity, "error", view{Title: "Not exported", User: u,
			Data: "The filter is not valid: correct it on the documents page first."})
		return
	}
	filter.PageRequest = einvoice.PageRequest{Page: 1, PerPage: einvoice.MaxPerPage}
	first, err := d.svc.ListDocuments(r.Context(), u.tenant(), filter)
	if err != nil {
		d.renderError(w, r, u, err)
		return
	}
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="documents.csv"`)
	cw := csv.NewWriter(w)
	_ = cw.Write(csvHeader)
	page := first
	for {
		for _, doc := range page.Items {
			_ = cw.Write(csvRow(doc))
		}
		cw.Flush()
		if cw.Error() != nil || filter.Page*filter.PerPage >= page.Total || len(page.Items) == 0 && len(page.Unreadable) == 0 {
			return
		}
		filter.Page++
		if page, err = d.svc.ListDocuments(r.Context(), u.tenant(), filter); err != nil {
			// Headers are sent: the export ends short; the log says why.
			d.logger.ErrorContext(r.Context(), "dashboard csv export", "error", err)
			return
		}
	}
}

// csvRow is a document's row of the export, every cell guarded.
func csvRow(doc *einvoice.Document) []string {
	uuid := ""
	if doc.Authority != nil {
		uuid = doc.Authority.DocumentUUID
	}
	row := []string{doc.ID, string(doc.Kind), doc.InvoiceSerialNumber, string(doc.Status), doc.IssueDate().Format("2006-01-02"),
		doc.CurrencyCode, formatAmount(doc.TotalExcludingTax), formatAmount(doc.TotalTaxAmount), formatAmount(doc.TotalPayableAmount),
		uuid, doc.CreatedAt.UTC().Format("2006-01-02T15:04:05Z")}
	for i, c := range row {
		row[i] = csvCell(c)
	}
	return row
}

// csvCell guards a cell against formula injection: a spreadsheet runs a
// cell starting with = + - @ (or a tab or carriage return), so such a cell
// is written with a leading apostrophe; a negative amount stays a number.
func csvCell(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) && !negativeAmount.MatchString(s) {
		return "'" + s
	}
	return s
}

// negativeAmount matches an amount below zero as the service writes it.
var negativeAmount = regexp.MustCompile(`^-[0-9]+(\.[0-9]+)?$`)
