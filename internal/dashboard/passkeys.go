package dashboard

import (
	"encoding/base64"
	"errors"
	"net/http"
	"net/url"

	"github.com/einvoice/einvoice/internal/einvoice"
	"github.com/einvoice/einvoice/internal/web"
)

// Passkeys (DECISIONS 20): the account page lists, adds and removes the
// user's passkeys; the sign-in page signs in with a passkey alone. WebAuthn
// is a browser API, so adding one and signing in with one need script
// (static/passkeys.js, the page's own: the CSP allows nothing inline); the
// list and the removal are plain forms. The script posts forms as every
// page does (the csrf field; the same-origin check) with the browser's
// answer as JSON in the field "credential"; these endpoints answer JSON
// (web's error body on a refusal, never a page).

// maxPasskeyBody bounds a passkey post: an answer is a few kilobytes.
const maxPasskeyBody = 64 << 10

// ceremonyOrigin is the origin the browser shows ("http://localhost:8080"),
// from the Origin header (else the Referer) of a post that passed the
// same-origin check: the relying party of its ceremony. Behind a proxy
// that ends TLS, it is the https one the browser used.
func ceremonyOrigin(r *http.Request) string {
	src := r.Header.Get("Origin")
	if src == "" || src == "null" {
		src = r.Header.Get("Referer")
	}
	u, err := url.Parse(src)
	if err != nil || u.Host == "" {
		return ""
	}
	return u.Scheme + "://" + u.Host
}

// passkeyForm parses a passkey post's form, bounded, and checks its CSRF
// token against subject; false after answering the JSON error.
func (d *Dashboard) passkeyForm(w http.ResponseWriter, r *http.Request, subject []byte) bool {
	if err := r.ParseForm(); err != nil {
		if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
			web.WriteError(w, r, d.logger, einvoice.Errorf(einvoice.CodePayloadTooLarge, "The request is too large."))
		} else {
			web.WriteError(w, r, d.logger, einvoice.Errorf(einvoice.CodeMalformedRequest, "The request is not a form."))
		}
		return false
	}
	if subject == nil || !d.validCSRF(r, subject) {
		web.WriteError(w, r, d.logger, einvoice.Errorf(einvoice.CodeForbidden,
			"This page is out of date or did not come from this site: reload it and try again."))
		return false
	}
	return true
}

// passkeyPost wraps a signed-in passkey endpoint: post's checks, answered
// in JSON.
func (d *Dashboard) passkeyPost(h handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Body = http.MaxBytesReader(w, r.Body, maxPasskeyBody)
		u, err := d.currentUser(r.Context(), r)
		if err != nil {
			web.WriteError(w, r, d.logger, err)
			return
		}
		if u == nil {
			web.WriteError(w, r, d.logger, einvoice.Errorf(einvoice.CodeUnauthorized, "Your session has ended: sign in again."))
			return
		}
		if !d.passkeyForm(w, r, u.sessionID()) {
			return
		}
		h(w, r.WithContext(einvoice.WithActor(r.Context(), u.actor(r))), u)
	})
}

// preSessionPasskeyPost wraps a passkey endpoint of the sign-in page: its
// form's CSRF token is bound to the pre-session cookie.
func (d *Dashboard) preSessionPasskeyPost(h http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Body = http.MaxBytesReader(w, r.Body, maxPasskeyBody)
		var subject []byte
		if c, err := r.Cookie(preSessionCookie); err == nil && c.Value != "" {
			subject = preSessionSubject(c.Value)
		}
		if !d.passkeyForm(w, r, subject) {
			return
		}
		h(w, r)
	})
}

// redirectJSON tells the script where to go next.
type redirectJSON struct {
	Redirect string `json:"redirect"`
}

// passkeyCreationOptions begins adding a passkey: the options of
// navigator.credentials.create.
func (d *Dashboard) passkeyCreationOptions(w http.ResponseWriter, r *http.Request, u *user) {
	opts, err := d.svc.BeginPasskeyRegistration(r.Context(), u.su.User, ceremonyOrigin(r))
	if err != nil {
		web.WriteError(w, r, d.logger, err)
		return
	}
	web.WriteJSONBytes(w, http.StatusOK, opts)
}

// addPasskey checks the new passkey and keeps it with the name typed.
func (d *Dashboard) addPasskey(w http.ResponseWriter, r *http.Request, u *user) {
	p, err := d.svc.FinishPasskeyRegistration(r.Context(), u.su.User, r.PostFormValue("name"), []byte(r.PostFormValue("credential")))
	if err != nil {
		web.WriteError(w, r, d.logger, err)
		return
	}
	setFlash(w, r, "ok", "The passkey "+p.Name+" is added: it signs you in alone.")
	web.WriteJSON(w, http.StatusOK, redirectJSON{Redirect: "/app/account"})
}

// removePasskey removes one of the user's passkeys (a plain form).
func (d *Dashboard) removePasskey(w http.ResponseWriter, r *http.Request, u *user) {
	id, err := base64.RawURLEncoding.DecodeString(r.PathValue("id"))
	if err == nil {
		err = d.svc.DeletePasskey(r.Context(), u.ID(), id)
	} else {
		err = einvoice.Errorf(einvoice.CodeNotFound, "You have no such passkey.")
	}
	if err != nil {
		d.renderError(w, r, u, err)
		return
	}
	redirectFlash(w, r, "/app/account", "ok", "The passkey is removed: it no longer signs you in.")
}

// passkeyRequestOptions begins a sign-in with a passkey: the options of
// navigator.credentials.get.
func (d *Dashboard) passkeyRequestOptions(w http.ResponseWriter, r *http.Request) {
	opts, err := d.svc.BeginPasskeySignIn(r.Context(), ceremonyOrigin(r), web.ClientAddress(r))
	if err != nil {
		web.WriteError(w, r, d.logger, err)
		return
	}
	web.WriteJSONBytes(w, http.StatusOK, opts)
}

// passkeySignIn checks the passkey's answer and opens the session of its
// user.
func (d *Dashboard) passkeySignIn(w http.ResponseWriter, r *http.Request) {
	res, err := d.svc.FinishPasskeySignIn(r.Context(), []byte(r.PostFormValue("credential")), web.ClientAddress(r))
	if err != nil {
		web.WriteError(w, r, d.logger, err)
		return
	}
	d.giveSession(w, r, res)
	web.WriteJSON(w, http.StatusOK, redirectJSON{Redirect: safeNext(r.PostFormValue("next"))})
}

// passkeyID is a passkey's id in a path.
func passkeyID(id []byte) string { return base64.RawURLEncoding.EncodeToString(id) }

func init() { funcs["passkeyID"] = passkeyID }
