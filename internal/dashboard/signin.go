package dashboard

import (
	"encoding/base64"
	"net/http"
	"net/url"
	"strings"

	"github.com/einvoice/einvoice/internal/einvoice"
	"github.com/einvoice/einvoice/internal/web"
)

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
	d.render(w, r, http.StatusOK, "signin", view{Title: "Sign in", CSRF: d.signInToken(w, r), Data: signInData{Next: next}})
}

// signIn opens a session for the API key typed. As every form, it must
// come from our own origin and carry its CSRF token: with no session yet,
// the token is bound to the sign-in cookie the form's page set, so another
// site can neither sign a browser in nor replay a form of its own.
func (d *Dashboard) signIn(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
	c, cookieErr := r.Cookie(signInCookie)
	if err := r.ParseForm(); err != nil || cookieErr != nil || !d.validCSRF(r, signInSubject(c.Value)) {
		d.render(w, r, http.StatusForbidden, "error", view{Title: "Not allowed",
			Data: "This form is out of date or did not come from this site. Reload the page and try again."})
		return
	}
	next := safeNext(r.PostFormValue("next"))
	key := strings.TrimSpace(r.PostFormValue("key"))
	token, _, err := d.svc.SignIn(r.Context(), key)
	if einvoice.ErrorCode(err) == einvoice.CodeUnauthorized {
		f := &form{Values: map[string]string{}, Errors: einvoice.FieldErrors{"key": {"This key is unknown or revoked."}}}
		if key == "" {
			f.Errors = einvoice.FieldErrors{"key": {"Enter your API key."}}
		}
		d.render(w, r, http.StatusUnauthorized, "signin", view{Title: "Sign in", CSRF: d.csrfToken(signInSubject(c.Value)), Form: f, Data: signInData{Next: next}})
		return
	}
	if err != nil {
		d.serverError(w, r, err)
		return
	}
	// A session this browser held before ends: one browser, one session.
	if old, err := r.Cookie(sessionCookie); err == nil {
		if err := d.svc.SignOut(r.Context(), old.Value); err != nil {
			d.logger.WarnContext(r.Context(), "dashboard sign in: end the previous session", "error", err)
		}
	}
	setSessionCookie(w, r, token)
	http.SetCookie(w, &http.Cookie{Name: signInCookie, Value: "", Path: "/app/signin", MaxAge: -1, HttpOnly: true,
		SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil})
	http.Redirect(w, r, next, http.StatusSeeOther)
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

// safeNext is where to go after signing in: a path of ours under /app,
// else the documents.
func safeNext(next string) string {
	u, err := url.Parse(next)
	if err != nil || u.Scheme != "" || u.Host != "" || !strings.HasPrefix(u.Path, "/app/") || strings.HasPrefix(next, "//") ||
		strings.ContainsAny(next, "\\\r\n") || strings.HasPrefix(u.Path, "/app/signin") {
		return "/app/documents"
	}
	return u.RequestURI()
}

// signInCookie holds the random subject of the sign-in form's CSRF token,
// for /app/signin only.
const signInCookie = "einvoice_signin"

// signInSubject is what the sign-in form's token is bound to: the cookie's
// value, apart from every session's id.
func signInSubject(cookie string) []byte { return []byte("signin\x00" + cookie) }

// signInToken returns the CSRF token of the sign-in form, bound to the
// browser's sign-in cookie (set here when it has none or a malformed one).
func (d *Dashboard) signInToken(w http.ResponseWriter, r *http.Request) string {
	if c, err := r.Cookie(signInCookie); err == nil && len(c.Value) == 43 {
		return d.csrfToken(signInSubject(c.Value))
	}
	v := base64.RawURLEncoding.EncodeToString(web.RandomSecret())
	http.SetCookie(w, &http.Cookie{Name: signInCookie, Value: v, Path: "/app/signin", HttpOnly: true,
		SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil})
	return d.csrfToken(signInSubject(v))
}
