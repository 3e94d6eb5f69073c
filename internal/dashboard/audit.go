package dashboard

import (
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/einvoice/einvoice/internal/einvoice"
)

// auditFilters are the Audit log page's text filters, as the API names
// them.
var auditFilters = []string{"actor", "action", "resource", "from", "to"}

// auditListData is the Audit log page's own data.
type auditListData struct {
	Items []*einvoice.AuditEntry
	Total int
	Pager pager
}

// auditFilter reads the page's filters (those of GET /api/v1/audit-log;
// from and to as dates, to included) and the page from the query; a date
// that does not read is no filter.
func auditFilter(q url.Values) (einvoice.AuditFilter, *form, url.Values) {
	f, keep := &form{Values: map[string]string{}}, url.Values{}
	for _, name := range auditFilters {
		if v := strings.TrimSpace(q.Get(name)); v != "" && len(v) <= einvoice.MaxAuditField {
			f.Values[name], keep[name] = v, []string{v}
		}
	}
	filter := einvoice.AuditFilter{Actor: f.Values["actor"], Action: f.Values["action"], PageRequest: pageRequest(q)}
	filter.ResourceType, filter.ResourceID, _ = strings.Cut(f.Values["resource"], ":")
	if d, err := time.Parse(time.DateOnly, f.Values["from"]); err == nil {
		filter.From = d
	}
	if d, err := time.Parse(time.DateOnly, f.Values["to"]); err == nil {
		filter.To = d.AddDate(0, 0, 1)
	}
	return filter, f, keep
}

// auditList is the Audit log page: the tenant's changes, newest first,
// paged, with the API's filters; for owners and admins.
func (d *Dashboard) auditList(w http.ResponseWriter, r *http.Request, u *user) {
	if !u.CanSettings() {
		d.renderError(w, r, u, einvoice.Errorf(einvoice.CodeForbidden, "The audit log is for owners and admins."))
		return
	}
	filter, f, keep := auditFilter(r.URL.Query())
	page, err := d.svc.ListAudit(r.Context(), u.tenant(), filter)
	if err != nil {
		d.renderError(w, r, u, err)
		return
	}
	d.render(w, r, http.StatusOK, "audit", view{Title: "Audit log", Nav: "audit", User: u, Form: f,
		Data: auditListData{Items: page.Items, Total: page.Total, Pager: pagerOf(keep, filter.PageRequest, page.Total)}})
}
