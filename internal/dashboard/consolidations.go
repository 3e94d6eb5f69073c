package dashboard

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/einvoice/einvoice/internal/einvoice"
)

// consolidationsData is the consolidations list's own data.
type consolidationsData struct {
	Items []*einvoice.Consolidation
	Total int
	Pager pager
	// Create is the form to consolidate a month (what was typed and its
	// error after a refusal).
	Create *form
}

// consolidations is the list of consolidations (newest first, paged) and
// the form to consolidate a month.
func (d *Dashboard) consolidations(w http.ResponseWriter, r *http.Request, u *user) {
	d.renderConsolidations(w, r, u, http.StatusOK, nil)
}

// renderConsolidations renders the list with the create form's error when
// it was refused.
func (d *Dashboard) renderConsolidations(w http.ResponseWriter, r *http.Request, u *user, status int, create *form) {
	q := r.URL.Query()
	pr := pageRequest(q)
	page, err := d.svc.ListConsolidations(r.Context(), u.tenant(), einvoice.ConsolidationFilter{PageRequest: pr})
	if err != nil {
		d.renderError(w, r, u, err)
		return
	}
	if create == nil {
		create = &form{}
	}
	d.render(w, r, status, "consolidations", view{Title: "Consolidations", Nav: "consolidations", User: u,
		Data: consolidationsData{Items: page.Items, Total: page.Total, Pager: pagerOf(url.Values{}, pr, page.Total), Create: create}})
}

// consolidation is a consolidation's page: the documents made, the counts
// and the receipts excluded.
func (d *Dashboard) consolidation(w http.ResponseWriter, r *http.Request, u *user) {
	c, err := d.svc.GetConsolidation(r.Context(), u.tenant(), r.PathValue("id"))
	if err != nil {
		d.renderError(w, r, u, err)
		return
	}
	d.render(w, r, http.StatusOK, "consolidation", view{Title: "Consolidation of " + c.Month, Nav: "consolidations", User: u, Data: c})
}

// createConsolidation consolidates the month typed (the API's use case);
// its refusals (a wrong month, NOTHING_TO_CONSOLIDATE, ...) are shown
// beside the month, what was typed kept.
func (d *Dashboard) createConsolidation(w http.ResponseWriter, r *http.Request, u *user) {
	month := strings.TrimSpace(r.PostFormValue("month"))
	c, err := d.svc.Consolidate(r.Context(), u.tenant(), "", month)
	if err != nil && !isUserError(err) {
		d.renderError(w, r, u, err)
		return
	}
	if err != nil {
		f := formOf(r, err)
		if len(f.Errors) == 0 {
			f.Errors = einvoice.FieldErrors{"month": {f.Message}}
		}
		f.Message = ""
		d.renderConsolidations(w, r, u, http.StatusUnprocessableEntity, f)
		return
	}
	msg := "Consolidated: the documents are made and submitted."
	if c.Status == einvoice.ConsolidationRunning {
		msg = "Consolidation started: it goes on in the background."
	}
	redirectFlash(w, r, "/app/consolidations/"+c.ID, "ok", msg)
}
