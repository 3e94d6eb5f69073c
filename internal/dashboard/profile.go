package dashboard

import (
	"net/http"

	"github.com/einvoice/einvoice/internal/einvoice"
	"github.com/einvoice/einvoice/internal/invoicing"
)

// profileData is the profile page's own data: the tenant's seller details,
// what keeps them from being ready, the tax-authority settings (secrets
// only as "set") with the signing certificate, and the go-live check's
// result when it was run.
type profileData struct {
	Problems    []problem
	Authority   authorityView
	Certificate *invoicing.Certificate
	// Auth is the tax-authority form: its values and errors.
	Auth  *form
	Check *invoicing.ProfileCheck
}

// authorityView is what the page shows of the authority settings.
type authorityView struct {
	Environment, Mode, ClientID  string
	HasSecret, HasPEM, HasPKCS12 bool
}

// profileFields are the profile form's inputs, named as the API's fields.
var profileFields = append([]string{"tourismTaxRegistrationNumber", "msicCode", "businessActivityDescription"}, partyFields...)

// authorityFields are the tax-authority form's inputs; the certificate's
// errors (PEM or PKCS#12) are all shown beside the file input.
var authorityFields = []string{"authority.environment", "authority.mode", "authority.onBehalfOf", "authority.intermediaryTin",
	"authority.clientId", "authority.clientSecret", "certificate"}

// profile is the profile page.
func (d *Dashboard) profile(w http.ResponseWriter, r *http.Request, u *user) {
	d.renderProfile(w, r, u, http.StatusOK, nil, nil, nil)
}

// profileCheck runs the go-live check (GET /profile/check's use case) and
// shows its steps on the profile page.
func (d *Dashboard) profileCheck(w http.ResponseWriter, r *http.Request, u *user) {
	res, err := d.svc.CheckProfile(r.Context(), u.tenant())
	if err != nil {
		d.renderError(w, r, u, err)
		return
	}
	d.renderProfile(w, r, u, http.StatusOK, nil, nil, res)
}

// renderProfile renders the profile page; pf and af are the profile and
// authority forms after a refusal (nil: the stored values).
func (d *Dashboard) renderProfile(w http.ResponseWriter, r *http.Request, u *user, status int, pf, af *form, check *invoicing.ProfileCheck) {
	t, err := d.svc.GetTenant(r.Context(), u.tenant())
	if err != nil {
		d.renderError(w, r, u, err)
		return
	}
	a := t.Authority
	if pf == nil {
		pf = &form{Values: profileValues(t.Profile)}
	}
	if af == nil {
		af = &form{Values: map[string]string{"authority.environment": a.Environment, "authority.mode": a.Mode,
			"authority.onBehalfOf": a.OnBehalfOf, "authority.intermediaryTin": a.IntermediaryTIN, "authority.clientId": a.ClientID}}
	}
	data := profileData{Problems: problemsOf(einvoice.ProfileReadiness(&t.Profile)), Certificate: d.svc.Certificate(t), Auth: af, Check: check,
		Authority: authorityView{Environment: a.Environment, Mode: a.Mode, ClientID: a.ClientID, HasSecret: a.ClientSecret != "",
			HasPEM: a.CertificatePEM != "" && a.PrivateKeyPEM != "", HasPKCS12: len(a.PKCS12) > 0}}
	d.render(w, r, status, "profile", view{Title: "Profile", Nav: "profile", User: u, Form: pf, Data: data})
}

// profileValues are the profile's fields as the form's values.
func profileValues(p einvoice.Profile) map[string]string {
	v := partyValues(&einvoice.Party{Name: p.Name, TIN: p.TIN, IDType: p.IDType, IDValue: p.IDValue,
		SSTRegistrationNumber: p.SSTRegistrationNumber, Address: p.Address, Contact: p.Contact, MSICCode: p.MSICCode,
		BusinessActivityDescription: p.BusinessActivityDescription, TourismTaxRegistrationNumber: p.TourismTaxRegistrationNumber})
	return v
}

// saveProfile replaces the seller details with the form's, through PUT
// /profile's use case and rules; the authority settings are kept.
func (d *Dashboard) saveProfile(w http.ResponseWriter, r *http.Request, u *user) {
	t, err := d.svc.GetTenant(r.Context(), u.tenant())
	if err != nil {
		d.renderError(w, r, u, err)
		return
	}
	p := partyOf(r, sellerPages)
	prof := t.Profile // keeps what the form does not show (consolidation relaxation)
	prof.Name, prof.TIN, prof.IDType, prof.IDValue, prof.SSTRegistrationNumber = p.Name, p.TIN, p.IDType, p.IDValue, p.SSTRegistrationNumber
	prof.MSICCode, prof.BusinessActivityDescription, prof.TourismTaxRegistrationNumber = p.MSICCode, p.BusinessActivityDescription, p.TourismTaxRegistrationNumber
	prof.Address, prof.Contact = p.Address, p.Contact
	_, err = d.svc.UpdateProfile(r.Context(), u.tenant(), prof, nil)
	if err != nil && !isUserError(err) {
		d.renderError(w, r, u, err)
		return
	}
	if err != nil {
		f := formOf(r, err)
		if len(f.Errors) > 0 {
			f.Message = "Not saved: see the errors beside the fields."
		}
		strayErrors(f, profileFields)
		d.renderProfile(w, r, u, http.StatusUnprocessableEntity, f, nil, nil)
		return
	}
	redirectFlash(w, r, "/app/profile", "ok", "Profile saved.")
}
