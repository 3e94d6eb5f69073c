package dashboard

import (
	"html/template"
	"net/http"
	"strings"

	"github.com/einvoice/einvoice/internal/einvoice"
	"github.com/einvoice/einvoice/internal/invoicing/people"
)

// The account page: the user's name, password, second factor (TOTP and
// recovery codes), passkeys, tenants, and "sign out everywhere".

// accountData is the account page's own data.
type accountData struct {
	Memberships []einvoice.Membership
	TOTPEnabled bool
	Recovery    int // unused recovery codes left
	// Enrol is a new TOTP secret being enrolled: its QR code and text.
	Enrol *totpEnrolment
	// Codes are recovery codes just made, shown once.
	Codes []string
	// Passkeys are the user's passkeys (package passkeys' page part).
	Passkeys []*einvoice.Passkey
}

type totpEnrolment struct {
	Secret string
	QR     template.HTML
}

// account shows the account page.
func (d *Dashboard) account(w http.ResponseWriter, r *http.Request, u *user) {
	d.renderAccount(w, r, u, http.StatusOK, nil, nil)
}

func (d *Dashboard) renderAccount(w http.ResponseWriter, r *http.Request, u *user, status int, f *form, extra func(*accountData)) {
	ms, err := d.svc.Memberships(r.Context(), u.ID())
	if err != nil {
		d.serverError(w, r, err)
		return
	}
	keys, err := d.svc.Passkeys(r.Context(), u.ID())
	if err != nil {
		d.serverError(w, r, err)
		return
	}
	data := &accountData{Memberships: ms, TOTPEnabled: u.su.User.TOTPEnabled, Recovery: len(u.su.User.RecoveryCodes), Passkeys: keys}
	if extra != nil {
		extra(data)
	}
	if f == nil {
		f = &form{Values: map[string]string{"name": u.Name()}}
	}
	d.render(w, r, status, "account", view{Title: "Your account", Nav: "account", User: u, Form: f, Data: data})
}

// renameAccount changes the user's name.
func (d *Dashboard) renameAccount(w http.ResponseWriter, r *http.Request, u *user) {
	if err := d.svc.Rename(r.Context(), u.su.User, r.PostFormValue("name")); err != nil {
		d.accountError(w, r, u, err)
		return
	}
	redirectFlash(w, r, "/app/account", "ok", "Your name is saved.")
}

// changePassword sets a new password after the current one; the user's
// other sessions end.
func (d *Dashboard) changePassword(w http.ResponseWriter, r *http.Request, u *user) {
	if err := d.svc.ChangePassword(r.Context(), u.su, r.PostFormValue("current"), r.PostFormValue("password")); err != nil {
		d.accountError(w, r, u, err)
		return
	}
	redirectFlash(w, r, "/app/account", "ok", "Your password is changed; your other sessions are signed out.")
}

// accountError shows the account page again with the error (no password
// typed is shown again).
func (d *Dashboard) accountError(w http.ResponseWriter, r *http.Request, u *user, err error) {
	if !isUserError(err) {
		d.renderError(w, r, u, err)
		return
	}
	f := formOfError(err)
	f.Values["name"] = strings.TrimSpace(r.PostFormValue("name"))
	if f.Values["name"] == "" {
		f.Values["name"] = u.Name()
	}
	d.renderAccount(w, r, u, http.StatusUnprocessableEntity, f, func(a *accountData) {
		if secret := r.PostFormValue("secret"); secret != "" && !a.TOTPEnabled {
			a.Enrol = d.enrolment(secret, u)
		}
	})
}

// enrolment is the QR code and text of a secret being enrolled.
func (d *Dashboard) enrolment(secret string, u *user) *totpEnrolment {
	svg, err := d.svc.QRSVG(people.TOTPURL(u.Email(), secret))
	if err != nil {
		return &totpEnrolment{Secret: secret}
	}
	return &totpEnrolment{Secret: secret, QR: template.HTML(svg)} // #nosec: our own markup of numbers
}

// startTOTP shows a new secret to enrol, with its QR code.
func (d *Dashboard) startTOTP(w http.ResponseWriter, r *http.Request, u *user) {
	e, err := d.svc.NewTOTP(u.su.User)
	if err != nil {
		d.serverError(w, r, err)
		return
	}
	d.renderAccount(w, r, u, http.StatusOK, nil, func(a *accountData) { a.Enrol = d.enrolment(e.Secret, u) })
}

// enableTOTP turns the second factor on once a code of the secret is typed,
// and shows the recovery codes once.
func (d *Dashboard) enableTOTP(w http.ResponseWriter, r *http.Request, u *user) {
	secret := strings.TrimSpace(r.PostFormValue("secret"))
	if len(secret) < 16 || len(secret) > 64 {
		d.accountError(w, r, u, einvoice.Errorf(einvoice.CodeValidationFailed, "Start again: the secret is missing."))
		return
	}
	codes, err := d.svc.EnableTOTP(r.Context(), u.su.User, secret, r.PostFormValue("code"))
	if err != nil {
		d.accountError(w, r, u, err)
		return
	}
	d.renderAccount(w, r, u, http.StatusOK, nil, func(a *accountData) { a.Codes = codes })
}

// disableTOTP turns the second factor off after the password.
func (d *Dashboard) disableTOTP(w http.ResponseWriter, r *http.Request, u *user) {
	if err := d.svc.DisableTOTP(r.Context(), u.su.User, r.PostFormValue("password")); err != nil {
		d.accountError(w, r, u, err)
		return
	}
	redirectFlash(w, r, "/app/account", "ok", "The second factor is off.")
}

// newRecoveryCodes replaces the recovery codes and shows them once.
func (d *Dashboard) newRecoveryCodes(w http.ResponseWriter, r *http.Request, u *user) {
	codes, err := d.svc.NewRecoveryCodes(r.Context(), u.su.User)
	if err != nil {
		d.accountError(w, r, u, err)
		return
	}
	d.renderAccount(w, r, u, http.StatusOK, nil, func(a *accountData) { a.Codes = codes })
}

// switchTenant moves the session to another tenant of the user.
func (d *Dashboard) switchTenant(w http.ResponseWriter, r *http.Request, u *user) {
	if err := d.svc.SwitchTenant(r.Context(), u.su, r.PostFormValue("tenant")); err != nil {
		d.renderError(w, r, u, err)
		return
	}
	redirectFlash(w, r, "/app/documents", "ok", "You are now working on another tenant.")
}
