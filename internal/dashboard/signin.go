package dashboard

import (
	"encoding/base64"
	"net/http"
	"net/url"
	"strings"

	"github.com/einvoice/einvoice/internal/invoicing/people"
	"github.com/einvoice/einvoice/internal/web"
)

// Sign-in (DECISIONS 20): a person's e-mail and password, then the TOTP
// code where enrolled, or a passkey. The forms before a session (sign-in,
// forgotten password, one-time links) carry a CSRF token bound to the
// browser's pre-session cookie; the second factor's form to the waiting
// session.

// signInData is the sign-in page's own data.
type signInData struct {
	Next string
}

// signInPage shows the sign-in form (or goes on when already signed in).
func (d *Dashboard) signInPage(w http.ResponseWriter, r *http.Request) {
	next := safeNext(r.URL.Query().Get("next"))
	if u, err := d.currentUser(r.Context(), r); err == nil && u != nil {
		http.Redirect(w, r, next, http.StatusSeeOther)
		return
	}
	d.render(w, r, http.StatusOK, "signin", view{Title: "Sign in", CSRF: d.preSessionToken(w, r), Data: signInData{Next: next}})
}

// preSessionForm parses a form posted before a session and checks its
// CSRF token; false after answering the 403 page.
func (d *Dashboard) preSessionForm(w http.ResponseWriter, r *http.Request) bool {
	r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
	c, cookieErr := r.Cookie(preSessionCookie)
	if err := r.ParseForm(); err != nil || cookieErr != nil || !d.validCSRF(r, preSessionSubject(c.Value)) {
		d.render(w, r, http.StatusForbidden, "error", view{Title: "Not allowed",
			Data: "This form is out of date or did not come from this site. Reload the page and try again."})
		return false
	}
	return true
}

// signIn checks the e-mail and password typed and opens a session (or one
// that waits for the second factor). An unknown e-mail and a wrong
// password get the same page.
func (d *Dashboard) signIn(w http.ResponseWriter, r *http.Request) {
	if !d.preSessionForm(w, r) {
		return
	}
	next := safeNext(r.PostFormValue("next"))
	email := strings.TrimSpace(r.PostFormValue("email"))
	res, err := d.svc.SignIn(r.Context(), email, r.PostFormValue("password"), web.ClientAddress(r))
	if err != nil {
		status, _ := web.StatusOf(err)
		if status >= 500 {
			d.serverError(w, r, err)
			return
		}
		f := &form{Values: map[string]string{"email": email}, Message: einvoiceMessage(err)}
		d.render(w, r, status, "signin", view{Title: "Sign in", CSRF: d.preSessionToken(w, r), Form: f, Data: signInData{Next: next}})
		return
	}
	d.startSession(w, r, res, next)
}

// startSession gives the browser the new session (ending the one it held:
// one browser, one session) and goes on: to the second factor's page when
// the session waits for it, else to next.
func (d *Dashboard) startSession(w http.ResponseWriter, r *http.Request, res *people.SignInResult, next string) {
	d.giveSession(w, r, res)
	if res.NeedsSecondFactor {
		http.Redirect(w, r, "/app/signin/code?next="+url.QueryEscape(next), http.StatusSeeOther)
		return
	}
	http.Redirect(w, r, next, http.StatusSeeOther)
}

// giveSession sets the new session's cookie, ending the session the
// browser held; a full session also ends the pre-session cookie.
func (d *Dashboard) giveSession(w http.ResponseWriter, r *http.Request, res *people.SignInResult) {
	if old, err := r.Cookie(sessionCookie); err == nil && old.Value != res.Token {
		if err := d.svc.SignOut(r.Context(), old.Value); err != nil {
			d.logger.WarnContext(r.Context(), "dashboard sign in: end the previous session", "error", err)
		}
	}
	setSessionCookie(w, r, res.Token)
	if !res.NeedsSecondFactor {
		http.SetCookie(w, &http.Cookie{Name: preSessionCookie, Value: "", Path: "/app", MaxAge: -1, HttpOnly: true,
			SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil})
	}
}

// secondFactorPage asks the waiting session for its TOTP or recovery code.
func (d *Dashboard) secondFactorPage(w http.ResponseWriter, r *http.Request) {
	c, err := r.Cookie(sessionCookie)
	if err != nil {
		http.Redirect(w, r, "/app/signin", http.StatusSeeOther)
		return
	}
	su, err := d.svc.PendingSession(r.Context(), c.Value)
	if err != nil {
		http.Redirect(w, r, "/app/signin", http.StatusSeeOther)
		return
	}
	d.render(w, r, http.StatusOK, "secondfactor", view{Title: "Your code", CSRF: d.csrfToken(su.Session.ID),
		Data: signInData{Next: safeNext(r.URL.Query().Get("next"))}})
}

// secondFactor completes the sign-in with the code typed: a new session
// (a new token) replaces the waiting one.
func (d *Dashboard) secondFactor(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
	c, err := r.Cookie(sessionCookie)
	if err != nil {
		http.Redirect(w, r, "/app/signin", http.StatusSeeOther)
		return
	}
	su, err := d.svc.PendingSession(r.Context(), c.Value)
	if err != nil {
		clearSessionCookie(w, r)
		redirectFlash(w, r, "/app/signin", "error", "Your sign-in waited too long for its code: sign in again.")
		return
	}
	if err := r.ParseForm(); err != nil || !d.validCSRF(r, su.Session.ID) {
		d.render(w, r, http.StatusForbidden, "error", view{Title: "Not allowed",
			Data: "This form is out of date or did not come from this site. Reload the page and try again."})
		return
	}
	next := safeNext(r.PostFormValue("next"))
	res, err := d.svc.SecondFactor(r.Context(), c.Value, r.PostFormValue("code"), web.ClientAddress(r))
	if err != nil {
		status, _ := web.StatusOf(err)
		if status >= 500 {
			d.serverError(w, r, err)
			return
		}
		d.render(w, r, status, "secondfactor", view{Title: "Your code", CSRF: d.csrfToken(su.Session.ID),
			Form: formOfError(err), Data: signInData{Next: next}})
		return
	}
	d.startSession(w, r, res, next)
}

// signOut ends the session.
func (d *Dashboard) signOut(w http.ResponseWriter, r *http.Request, u *user) {
	if err := d.svc.SignOut(r.Context(), u.token); err != nil {
		d.serverError(w, r, err)
		return
	}
	clearSessionCookie(w, r)
	redirectFlash(w, r, "/app/signin", "ok", "You are signed out.")
}

// signOutEverywhere ends every session of the user, this one included.
func (d *Dashboard) signOutEverywhere(w http.ResponseWriter, r *http.Request, u *user) {
	if err := d.svc.SignOutEverywhere(r.Context(), u.ID()); err != nil {
		d.serverError(w, r, err)
		return
	}
	clearSessionCookie(w, r)
	redirectFlash(w, r, "/app/signin", "ok", "You are signed out everywhere.")
}

// safeNext is where to go after signing in: a path of ours under /app,
// else the documents.
func safeNext(next string) string {
	u, err := url.Parse(next)
	if err != nil || u.Scheme != "" || u.Host != "" || !strings.HasPrefix(u.Path, "/app/") || strings.HasPrefix(next, "//") ||
		strings.ContainsAny(next, "\\\r\n") || strings.HasPrefix(u.Path, "/app/signin") || strings.HasPrefix(u.Path, "/app/link/") {
		return "/app/documents"
	}
	return u.RequestURI()
}

// preSessionCookie holds the random subject of the CSRF tokens of the forms
// before a session (sign-in, forgotten password, one-time links), for /app.
const preSessionCookie = "einvoice_signin"

// preSessionSubject is what those forms' tokens are bound to: the cookie's
// value, apart from every session's id.
func preSessionSubject(cookie string) []byte { return []byte("signin\x00" + cookie) }

// preSessionToken returns the CSRF token of a form before a session, bound
// to the browser's pre-session cookie (set here when it has none or a
// malformed one).
func (d *Dashboard) preSessionToken(w http.ResponseWriter, r *http.Request) string {
	if c, err := r.Cookie(preSessionCookie); err == nil && len(c.Value) == 43 {
		return d.csrfToken(preSessionSubject(c.Value))
	}
	v := base64.RawURLEncoding.EncodeToString(web.RandomSecret())
	http.SetCookie(w, &http.Cookie{Name: preSessionCookie, Value: v, Path: "/app", HttpOnly: true,
		SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil})
	return d.csrfToken(preSessionSubject(v))
}
