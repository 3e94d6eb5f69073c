package dashboard

import (
	"net/http"
	"strings"

	"github.com/einvoice/einvoice/internal/einvoice"
	"github.com/einvoice/einvoice/internal/invoicing/people"
	"github.com/einvoice/einvoice/internal/web"
)

// One-time links (invitations, first passwords, resets) and the forgotten
// password's form: pages before a session.

// linkData is a one-time link's page.
type linkData struct {
	Secret string
	Link   *people.Link
	// Existing: an invitation of an e-mail that has an account (its
	// password, not a new one).
	Existing bool
}

// linkPage shows what a one-time link does, with its form.
func (d *Dashboard) linkPage(w http.ResponseWriter, r *http.Request) {
	secret := r.PathValue("secret")
	l, err := d.svc.Link(r.Context(), secret)
	if err != nil {
		d.linkGone(w, r, err)
		return
	}
	d.render(w, r, http.StatusOK, "link", view{Title: linkTitle(l), CSRF: d.preSessionToken(w, r), Data: d.linkData(secret, l)})
}

func (d *Dashboard) linkData(secret string, l *people.Link) linkData {
	return linkData{Secret: secret, Link: l, Existing: l.Token.Kind == einvoice.TokenInvite && l.User != nil && l.User.PasswordHash != ""}
}

func linkTitle(l *people.Link) string {
	switch l.Token.Kind {
	case einvoice.TokenInvite:
		return "Join " + l.TenantName
	case einvoice.TokenReset:
		return "Set a new password"
	}
	return "Set your password"
}

// linkGone answers a link that is unknown, used or expired.
func (d *Dashboard) linkGone(w http.ResponseWriter, r *http.Request, err error) {
	if status, _ := web.StatusOf(err); status >= 500 {
		d.serverError(w, r, err)
		return
	}
	d.render(w, r, http.StatusNotFound, "error", view{Title: "Link not valid", Data: einvoiceMessage(err)})
}

// useLink does what the link is for (a new account or password, joining a
// tenant) and signs the person in.
func (d *Dashboard) useLink(w http.ResponseWriter, r *http.Request) {
	if !d.preSessionForm(w, r) {
		return
	}
	secret := r.PathValue("secret")
	kind := ""
	if l, err := d.svc.Link(r.Context(), secret); err == nil {
		kind = string(l.Token.Kind)
	}
	res, err := d.svc.UseLink(r.Context(), secret, r.PostFormValue("name"), r.PostFormValue("password"), web.ClientAddress(r))
	if err == nil {
		// The audit log: the person who used the link, never its secret.
		ctx := einvoice.WithActor(r.Context(), einvoice.Actor{Kind: einvoice.ActorUser, ID: res.User.ID, Name: res.User.Name,
			Email: res.User.Email, TenantID: res.TenantID, Address: web.ClientAddress(r), UserAgent: r.UserAgent()})
		web.AuditResource(ctx, "user", res.User.ID, "used a one-time link: "+kind)
	}
	if err != nil {
		l, lerr := d.svc.Link(r.Context(), secret)
		if lerr != nil {
			d.linkGone(w, r, lerr)
			return
		}
		status, _ := web.StatusOf(err)
		if status >= 500 {
			d.serverError(w, r, err)
			return
		}
		f := formOfError(err)
		f.Values["name"] = strings.TrimSpace(r.PostFormValue("name"))
		d.render(w, r, status, "link", view{Title: linkTitle(l), CSRF: d.preSessionToken(w, r), Form: f, Data: d.linkData(secret, l)})
		return
	}
	d.startSession(w, r, res, "/app/documents")
}

// forgotPage shows the forgotten password's form.
func (d *Dashboard) forgotPage(w http.ResponseWriter, r *http.Request) {
	d.render(w, r, http.StatusOK, "forgot", view{Title: "Forgot your password?", CSRF: d.preSessionToken(w, r)})
}

// forgot mails a reset link when the e-mail has an account; the answer is
// the same either way.
func (d *Dashboard) forgot(w http.ResponseWriter, r *http.Request) {
	if !d.preSessionForm(w, r) {
		return
	}
	if err := d.svc.RequestReset(r.Context(), r.PostFormValue("email"), web.ClientAddress(r)); err != nil {
		status, _ := web.StatusOf(err)
		if status >= 500 {
			d.serverError(w, r, err)
			return
		}
		d.render(w, r, status, "forgot", view{Title: "Forgot your password?", CSRF: d.preSessionToken(w, r), Form: formOfError(err)})
		return
	}
	redirectFlash(w, r, "/app/signin", "ok",
		"If this e-mail has an account, a link to set a new password is on its way (valid for an hour). Without a mail server, ask an admin of your company for the link.")
}
