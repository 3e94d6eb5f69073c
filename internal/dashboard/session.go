package dashboard

import (
	"context"
	"net/http"
	"net/url"

	"github.com/einvoice/einvoice/internal/einvoice"
)

// sessionCookie holds the session token, for /app only.
const sessionCookie = "einvoice_session"

// user is the signed-in person of a request: the session and its key.
type user struct {
	session *einvoice.Session
	key     *einvoice.APIKey
	token   string
}

// Name is whose key signed in (its name, else its prefix).
func (u *user) Name() string {
	if u.key.Name != "" {
		return u.key.Name
	}
	return u.key.Prefix + "…"
}

// CanWrite reports whether the key may change anything.
func (u *user) CanWrite() bool { return u.key.Permission.CanWrite() }

// tenant is the tenant every call of the request is scoped to.
func (u *user) tenant() string { return u.session.TenantID }

// handler is a page's handler: the request's user is known.
type handler func(w http.ResponseWriter, r *http.Request, u *user)

// currentUser returns the request's user, or nil without a live session.
func (d *Dashboard) currentUser(ctx context.Context, r *http.Request) (*user, error) {
	c, err := r.Cookie(sessionCookie)
	if err != nil || c.Value == "" {
		return nil, nil
	}
	se, k, err := d.svc.Session(ctx, c.Value)
	if einvoice.ErrorCode(err) == einvoice.CodeUnauthorized {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &user{session: se, key: k, token: c.Value}, nil
}

// page wraps a handler that needs a session: without one, the browser is
// sent to the sign-in page (and back here after).
func (d *Dashboard) page(h handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u, err := d.currentUser(r.Context(), r)
		if err != nil {
			d.serverError(w, r, err)
			return
		}
		if u == nil {
			clearSessionCookie(w, r)
			http.Redirect(w, r, "/app/signin?next="+url.QueryEscape(safeNext(r.URL.RequestURI())), http.StatusSeeOther)
			return
		}
		h(w, r, u)
	})
}

// post wraps a POST handler of any signed-in key: the form must come from
// our own origin and carry the session's CSRF token (403 page otherwise,
// nothing done).
func (d *Dashboard) post(h handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Body = http.MaxBytesReader(w, r.Body, 1<<20)
		u, err := d.currentUser(r.Context(), r)
		if err != nil {
			d.serverError(w, r, err)
			return
		}
		if u == nil {
			clearSessionCookie(w, r)
			http.Redirect(w, r, "/app/signin", http.StatusSeeOther)
			return
		}
		if !d.validCSRF(r, u.session.ID) {
			d.forbidden(w, r, u, "This form is out of date or did not come from this site. Reload the page and try again.")
			return
		}
		h(w, r, u)
	})
}

// write wraps a POST handler that changes something: post's checks, and a
// read-write key (a read-only key gets the 403 page, nothing done).
func (d *Dashboard) write(h handler) http.Handler {
	return d.post(func(w http.ResponseWriter, r *http.Request, u *user) {
		if !u.CanWrite() {
			d.forbidden(w, r, u, "Your key is read-only: it cannot change anything.")
			return
		}
		h(w, r, u)
	})
}

// setSessionCookie gives the browser its session token: HttpOnly,
// SameSite=Lax, Secure over TLS, for /app only; a browser-session cookie
// (the session's expiry is the server's).
func setSessionCookie(w http.ResponseWriter, r *http.Request, token string) {
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: token, Path: "/app", HttpOnly: true,
		SameSite: http.SameSiteLaxMode, Secure: r.TLS != nil})
}

// clearSessionCookie removes the session cookie.
func clearSessionCookie(w http.ResponseWriter, r *http.Request) {
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: "", Path: "/app", MaxAge: -1, HttpOnly: true,
		SameSite: http.SameSiteLaxMode, Secure: r.TLS != nil})
}
