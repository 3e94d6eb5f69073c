package dashboard

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/einvoice/einvoice/internal/einvoice"
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
	d.render(w, r, http.StatusOK, "signin", view{Title: "Sign in", Data: signInData{Next: next}})
}

// signIn opens a session for the API key typed: the form must come from
// our own origin (no session yet, so no CSRF token: the Origin check and
// SameSite=Lax keep another site from signing a browser in).
func (d *Dashboard) signIn(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
	if err := r.ParseForm(); err != nil || !sameOrigin(r) {
		d.render(w, r, http.StatusForbidden, "error", view{Title: "Not allowed", Data: "This form did not come from this site."})
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
		d.render(w, r, http.StatusUnauthorized, "signin", view{Title: "Sign in", Form: f, Data: signInData{Next: next}})
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
