package dashboard

import (
	"net/http"
	"strings"

	"github.com/einvoice/einvoice/internal/einvoice"
	"github.com/einvoice/einvoice/internal/web"
)

// The people page of a tenant (owners and admins change it; everyone reads
// it): members and their roles, invitations, reset links; and the API keys
// page (programs' keys: create, shown once, last used, revoke).

// peopleData is the people page's own data.
type peopleData struct {
	Members []einvoice.Member
	Roles   []einvoice.Role
	// Link is an invitation or reset link to copy (no mail server, or
	// the admin asked for it), shown once.
	Link, LinkFor string
	Mailed        bool
}

func (d *Dashboard) peoplePage(w http.ResponseWriter, r *http.Request, u *user) {
	d.renderPeople(w, r, u, http.StatusOK, nil, nil)
}

func (d *Dashboard) renderPeople(w http.ResponseWriter, r *http.Request, u *user, status int, f *form, extra func(*peopleData)) {
	ms, err := d.svc.Members(r.Context(), u.tenant())
	if err != nil {
		d.serverError(w, r, err)
		return
	}
	data := &peopleData{Members: ms, Roles: einvoice.Roles}
	if extra != nil {
		extra(data)
	}
	if f == nil {
		f = &form{Values: map[string]string{"role": string(einvoice.RoleAccountant)}}
	}
	d.render(w, r, status, "people", view{Title: "People", Nav: "people", User: u, Form: f, Data: data})
}

// actorName is how people and the audit name the user.
func (u *user) actorName() string { return einvoice.PersonLabel(u.Name(), u.Email()) }

// invite invites an e-mail with a role; without a mail server the page
// shows the link to copy.
func (d *Dashboard) invite(w http.ResponseWriter, r *http.Request, u *user) {
	email := strings.TrimSpace(r.PostFormValue("email"))
	role := einvoice.Role(r.PostFormValue("role"))
	web.AuditResource(r.Context(), "invitation", einvoice.Truncate(email, 254), "role "+einvoice.Truncate(string(role), 20))
	inv, err := d.svc.Invite(r.Context(), u.Role(), u.actorName(), u.tenant(), email, role)
	if err != nil {
		if !isUserError(err) {
			d.renderError(w, r, u, err)
			return
		}
		d.renderPeople(w, r, u, statusOf(err), formOf(r, err), nil)
		return
	}
	d.renderPeople(w, r, u, http.StatusOK, nil, func(p *peopleData) {
		p.Mailed, p.LinkFor = inv.Mailed, email
		if !inv.Mailed {
			p.Link = inv.URL
		}
	})
}

// setRole changes a member's role.
func (d *Dashboard) setRole(w http.ResponseWriter, r *http.Request, u *user) {
	err := d.svc.SetRole(r.Context(), u.Role(), u.tenant(), r.PathValue("user"), einvoice.Role(r.PostFormValue("role")))
	if err != nil {
		d.peopleRefused(w, r, u, err)
		return
	}
	redirectFlash(w, r, "/app/people", "ok", "The role is changed.")
}

// removeMember takes a member out of the tenant (its sessions there end).
func (d *Dashboard) removeMember(w http.ResponseWriter, r *http.Request, u *user) {
	if err := d.svc.RemoveMember(r.Context(), u.Role(), u.tenant(), r.PathValue("user")); err != nil {
		d.peopleRefused(w, r, u, err)
		return
	}
	if r.PathValue("user") == u.ID() {
		clearSessionCookie(w, r)
		redirectFlash(w, r, "/app/signin", "ok", "You left the company.")
		return
	}
	redirectFlash(w, r, "/app/people", "ok", "The person is removed; their sessions here ended.")
}

// resetLink makes a password-reset link of a member for the admin to hand
// over.
func (d *Dashboard) resetLink(w http.ResponseWriter, r *http.Request, u *user) {
	link, err := d.svc.ResetLink(r.Context(), u.Role(), u.actorName(), u.tenant(), r.PathValue("user"))
	if err != nil {
		d.peopleRefused(w, r, u, err)
		return
	}
	d.renderPeople(w, r, u, http.StatusOK, nil, func(p *peopleData) {
		p.Link = link
		for _, m := range p.Members {
			if m.User.ID == r.PathValue("user") {
				p.LinkFor = m.User.Email
			}
		}
	})
}

// peopleRefused answers a refused change of a member: the 403 page for a
// right missing, the people page with the message otherwise.
func (d *Dashboard) peopleRefused(w http.ResponseWriter, r *http.Request, u *user, err error) {
	switch einvoice.ErrorCode(err) {
	case einvoice.CodeForbidden:
		d.forbidden(w, r, u, einvoiceMessage(err))
	case einvoice.CodeValidationFailed:
		redirectFlash(w, r, "/app/people", "error", einvoiceMessage(err))
	default:
		d.renderError(w, r, u, err)
	}
}

// keysData is the API keys page's own data.
type keysData struct {
	Keys []*einvoice.APIKey
	// New is a key just made: shown once.
	New, NewName string
}

func (d *Dashboard) keysPage(w http.ResponseWriter, r *http.Request, u *user) {
	d.renderKeys(w, r, u, http.StatusOK, nil, nil)
}

func (d *Dashboard) renderKeys(w http.ResponseWriter, r *http.Request, u *user, status int, f *form, extra func(*keysData)) {
	keys, err := d.svc.ListAPIKeys(r.Context(), u.tenant())
	if err != nil {
		d.serverError(w, r, err)
		return
	}
	data := &keysData{Keys: keys}
	if extra != nil {
		extra(data)
	}
	if f == nil {
		f = &form{Values: map[string]string{"permission": string(einvoice.PermReadWrite)}}
	}
	d.render(w, r, status, "keys", view{Title: "API keys", Nav: "keys", User: u, Form: f, Data: data})
}

// createKey makes a named key of the tenant and shows it once.
func (d *Dashboard) createKey(w http.ResponseWriter, r *http.Request, u *user) {
	name := strings.TrimSpace(r.PostFormValue("name"))
	if name == "" {
		err := &einvoice.Error{Code: einvoice.CodeValidationFailed, Message: "Name the key.", Fields: einvoice.FieldErrors{"name": {"Name the key: whose or what program's it is."}}}
		d.renderKeys(w, r, u, http.StatusUnprocessableEntity, formOf(r, err), nil)
		return
	}
	k, key, err := d.svc.CreateNamedAPIKey(r.Context(), u.tenant(), name, einvoice.Permission(r.PostFormValue("permission")))
	if err != nil {
		if !isUserError(err) {
			d.renderError(w, r, u, err)
			return
		}
		f := formOf(r, err)
		if len(f.Errors) == 0 {
			f.Errors = einvoice.FieldErrors{"name": {einvoiceMessage(err)}}
		}
		d.renderKeys(w, r, u, http.StatusUnprocessableEntity, f, nil)
		return
	}
	d.renderKeys(w, r, u, http.StatusOK, nil, func(kd *keysData) { kd.New, kd.NewName = key, k.Name })
}

// revokeKey revokes a key of the tenant.
func (d *Dashboard) revokeKey(w http.ResponseWriter, r *http.Request, u *user) {
	keys, err := d.svc.ListAPIKeys(r.Context(), u.tenant())
	if err != nil {
		d.serverError(w, r, err)
		return
	}
	for _, k := range keys {
		if k.ID == r.PathValue("id") {
			if err := d.svc.RevokeAPIKey(r.Context(), k.ID); err != nil {
				d.renderError(w, r, u, err)
				return
			}
			redirectFlash(w, r, "/app/keys", "ok", "The key is revoked: programs using it are refused from now on.")
			return
		}
	}
	d.renderError(w, r, u, einvoice.Errorf(einvoice.CodeNotFound, "No API key of this company has id %q.", r.PathValue("id")))
}

// statusOf is the status of a service error, by web's one table.
func statusOf(err error) int {
	status, _ := web.StatusOf(err)
	return status
}
