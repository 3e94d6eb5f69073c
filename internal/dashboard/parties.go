package dashboard

import (
	"net/http"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/einvoice/einvoice/internal/einvoice"
)

// partyPage names a kind of party as its pages do.
type partyPage struct {
	Kind   einvoice.PartyKind
	Nav    string // nav id and path segment: "buyers", "sellers"
	Plural string // "Buyers", "On-behalf sellers"
	One    string // "buyer", "on-behalf seller"
}

var (
	buyerPages  = partyPage{Kind: einvoice.KindBuyer, Nav: "buyers", Plural: "Buyers", One: "buyer"}
	sellerPages = partyPage{Kind: einvoice.KindSeller, Nav: "sellers", Plural: "On-behalf sellers", One: "on-behalf seller"}
)

// Path is the list's path ("/app/buyers").
func (k partyPage) Path() string { return "/app/" + k.Nav }

// IsSeller reports whether the pages are the on-behalf sellers'.
func (k partyPage) IsSeller() bool { return k.Kind == einvoice.KindSeller }

// partyRow is a party with what keeps it from being ready.
type partyRow struct {
	*einvoice.Party
	Problems []problem
}

// partiesData is a parties list's own data.
type partiesData struct {
	K     partyPage
	Items []partyRow
	Total int
	Pager pager
}

// partyData is a party's page (or form) data.
type partyData struct {
	K     partyPage
	Party partyRow
	// Delete is the delete form's refusal, if any.
	Delete *form
}

// partyFields are the form's inputs, named as the API's fields (and so as
// the service's field errors).
var partyFields = []string{"name", "tin", "idType", "idValue", "sstRegistrationNumber",
	"address.line1", "address.line2", "address.line3", "address.postCode", "address.city", "address.state", "address.countryCode",
	"contact.name", "contact.phone", "contact.email", "contact.fax"}

// sellerFields are the on-behalf seller's inputs beyond a buyer's.
var sellerFields = []string{"msicCode", "businessActivityDescription", "tourismTaxRegistrationNumber"}

// listParties is the paged list of buyers or sellers, searched by name or
// TIN, each row saying whether the party is ready.
func (d *Dashboard) listParties(k partyPage) handler {
	return func(w http.ResponseWriter, r *http.Request, u *user) {
		q := r.URL.Query()
		f := &form{Values: map[string]string{"search": q.Get("search")}, Errors: einvoice.FieldErrors{}}
		search := strings.TrimSpace(q.Get("search"))
		if !utf8.ValidString(search) || strings.ContainsRune(search, 0) || len(search) > 100 {
			f.Errors.Add("search", "Type at most 100 characters of text.")
			search = ""
		}
		filter := einvoice.PartyFilter{Search: search, PageRequest: pageRequest(q)}
		page, err := d.svc.ListParties(r.Context(), u.tenant(), k.Kind, filter)
		if err != nil {
			d.renderError(w, r, u, err)
			return
		}
		keep := url.Values{}
		if search != "" {
			keep.Set("search", search)
		}
		data := partiesData{K: k, Total: page.Total, Pager: pagerOf(keep, filter.PageRequest, page.Total)}
		for _, p := range page.Items {
			data.Items = append(data.Items, rowOf(p))
		}
		d.render(w, r, http.StatusOK, "parties", view{Title: k.Plural, Nav: k.Nav, User: u, Form: f, Data: data})
	}
}

// rowOf is p with its readiness problems.
func rowOf(p *einvoice.Party) partyRow {
	return partyRow{Party: p, Problems: problemsOf(einvoice.PartyReadiness(p))}
}

// showParty is a party's page: its details, what keeps it from being
// ready, and (to a read-write key) edit and delete.
func (d *Dashboard) showParty(k partyPage) handler {
	return func(w http.ResponseWriter, r *http.Request, u *user) {
		d.renderParty(w, r, u, k, http.StatusOK, nil)
	}
}

func (d *Dashboard) renderParty(w http.ResponseWriter, r *http.Request, u *user, k partyPage, status int, del *form) {
	p, err := d.svc.GetParty(r.Context(), u.tenant(), k.Kind, r.PathValue("id"))
	if err != nil {
		d.renderError(w, r, u, err)
		return
	}
	if del == nil {
		del = &form{}
	}
	d.render(w, r, status, "party", view{Title: p.Name, Nav: k.Nav, User: u, Data: partyData{K: k, Party: rowOf(p), Delete: del}})
}

// newParty is the empty create form (Malaysia chosen).
func (d *Dashboard) newParty(k partyPage) handler {
	return func(w http.ResponseWriter, r *http.Request, u *user) {
		if !u.CanWrite() {
			d.forbidden(w, r, u, "Your key is read-only: it cannot change anything.")
			return
		}
		f := &form{Values: map[string]string{"address.countryCode": "MYS"}}
		d.render(w, r, http.StatusOK, "party_form", view{Title: "New " + k.One, Nav: k.Nav, User: u, Form: f, Data: partyData{K: k}})
	}
}

// editParty is the edit form, filled with the party's details.
func (d *Dashboard) editParty(k partyPage) handler {
	return func(w http.ResponseWriter, r *http.Request, u *user) {
		if !u.CanWrite() {
			d.forbidden(w, r, u, "Your key is read-only: it cannot change anything.")
			return
		}
		p, err := d.svc.GetParty(r.Context(), u.tenant(), k.Kind, r.PathValue("id"))
		if err != nil {
			d.renderError(w, r, u, err)
			return
		}
		d.render(w, r, http.StatusOK, "party_form", view{Title: "Edit " + p.Name, Nav: k.Nav, User: u,
			Form: &form{Values: partyValues(p)}, Data: partyData{K: k, Party: rowOf(p)}})
	}
}

// partyValues are p's fields as the form's values.
func partyValues(p *einvoice.Party) map[string]string {
	a, c := p.Address, p.Contact
	return map[string]string{"name": p.Name, "tin": p.TIN, "idType": p.IDType, "idValue": p.IDValue,
		"sstRegistrationNumber": p.SSTRegistrationNumber, "address.line1": a.Line1, "address.line2": a.Line2, "address.line3": a.Line3,
		"address.postCode": a.PostCode, "address.city": a.City, "address.state": a.State, "address.countryCode": a.CountryCode,
		"contact.name": c.Name, "contact.phone": c.Phone, "contact.email": c.Email, "contact.fax": c.Fax,
		"msicCode": p.MSICCode, "businessActivityDescription": p.BusinessActivityDescription,
		"tourismTaxRegistrationNumber": p.TourismTaxRegistrationNumber}
}

// partyOf reads the form into a party of kind k.
func partyOf(r *http.Request, k partyPage) *einvoice.Party {
	v := func(name string) string { return strings.TrimSpace(r.PostFormValue(name)) }
	p := &einvoice.Party{Name: v("name"), TIN: v("tin"), IDType: v("idType"), IDValue: v("idValue"),
		SSTRegistrationNumber: v("sstRegistrationNumber"),
		Address: einvoice.Address{Line1: v("address.line1"), Line2: v("address.line2"), Line3: v("address.line3"),
			PostCode: v("address.postCode"), City: v("address.city"), State: v("address.state"), CountryCode: v("address.countryCode")},
		Contact: einvoice.Contact{Name: v("contact.name"), Phone: v("contact.phone"), Email: v("contact.email"), Fax: v("contact.fax")}}
	if k.IsSeller() {
		p.MSICCode, p.BusinessActivityDescription, p.TourismTaxRegistrationNumber =
			v("msicCode"), v("businessActivityDescription"), v("tourismTaxRegistrationNumber")
	}
	return p
}

// saveParty creates (no id in the path) or updates a party from the form;
// a refusal re-renders the form, each error beside its field, what was
// typed kept.
func (d *Dashboard) saveParty(k partyPage) handler {
	return func(w http.ResponseWriter, r *http.Request, u *user) {
		id := r.PathValue("id")
		var old *einvoice.Party
		if id != "" {
			var err error
			if old, err = d.svc.GetParty(r.Context(), u.tenant(), k.Kind, id); err != nil {
				d.renderError(w, r, u, err)
				return
			}
		}
		var (
			p   *einvoice.Party
			err error
		)
		if old == nil {
			p, err = d.svc.CreateParty(r.Context(), u.tenant(), k.Kind, partyOf(r, k))
		} else {
			p, err = d.svc.UpdateParty(r.Context(), old, partyOf(r, k))
		}
		if isNotFound(err) || err != nil && !isUserError(err) {
			d.renderError(w, r, u, err)
			return
		}
		if err != nil {
			f := formOf(r, err)
			shown := partyFields
			if k.IsSeller() {
				shown = append(append([]string{}, partyFields...), sellerFields...)
			}
			if len(f.Errors) > 0 {
				f.Message = "Not saved: see the errors beside the fields."
			}
			strayErrors(f, shown)
			title, data := "New "+k.One, partyData{K: k}
			if old != nil {
				title, data.Party = "Edit "+old.Name, rowOf(old)
			}
			d.render(w, r, http.StatusUnprocessableEntity, "party_form", view{Title: title, Nav: k.Nav, User: u, Form: f, Data: data})
			return
		}
		redirectFlash(w, r, k.Path()+"/"+p.ID, "ok", "Saved.")
	}
}

// deleteParty deletes a party no document uses; the service's refusal
// (in use) is shown on the party's page.
func (d *Dashboard) deleteParty(k partyPage) handler {
	return func(w http.ResponseWriter, r *http.Request, u *user) {
		err := d.svc.DeleteParty(r.Context(), u.tenant(), k.Kind, r.PathValue("id"))
		if isNotFound(err) || err != nil && !isUserError(err) {
			d.renderError(w, r, u, err)
			return
		}
		if err != nil {
			d.renderParty(w, r, u, k, http.StatusUnprocessableEntity, &form{Message: errorMessage(err)})
			return
		}
		redirectFlash(w, r, k.Path(), "ok", "Deleted.")
	}
}
