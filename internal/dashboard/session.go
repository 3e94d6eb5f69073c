package dashboard

import (
	"context"
	"net/http"
	"net/url"

	"github.com/einvoice/einvoice/internal/einvoice"
	"github.com/einvoice/einvoice/internal/web"
)

// sessionCookie holds the session token, for /app only.
const sessionCookie = "einvoice_session"

// user is the signed-in person of a request: the session, the user and
// its role in the session's tenant.
type user struct {
	su    *einvoice.SessionUser
	token string
}

// Name is who signed in: the user's name.
func (u *user) Name() string { return u.su.User.Name }

// Email is the user's e-mail.
func (u *user) Email() string { return u.su.User.Email }

// ID is the user's id.
func (u *user) ID() string { return u.su.User.ID }

// Role is the user's role in the session's tenant.
func (u *user) Role() einvoice.Role { return u.su.Role }

// TenantName is the name of the tenant the pages show.
func (u *user) TenantName() string { return u.su.TenantName }

// CanWrite reports whether the role changes business records (documents,
// parties, receipts, received documents, consolidations).
func (u *user) CanWrite() bool { return u.su.Role.Can(einvoice.RightWork) }

// CanSettings reports whether the role changes the tenant's settings and
// people.
func (u *user) CanSettings() bool { return u.su.Role.Can(einvoice.RightSettings) }

// CanOwners reports whether the role makes and removes owners.
func (u *user) CanOwners() bool { return u.su.Role.Can(einvoice.RightOwners) }

// TenantID is the id of the tenant the pages show.
func (u *user) TenantID() string { return u.su.Session.TenantID }

// tenant is the tenant every call of the request is scoped to.
func (u *user) tenant() string { return u.su.Session.TenantID }

// sessionID is the stored id of the session.
func (u *user) sessionID() []byte { return u.su.Session.ID }

// actor is who the request's changes are by (the audit log, the history).
func (u *user) actor(r *http.Request) einvoice.Actor {
	return einvoice.Actor{Kind: einvoice.ActorUser, ID: u.su.User.ID, Name: u.su.User.Name, Email: u.su.User.Email,
		TenantID: u.tenant(), Address: web.ClientAddress(r), UserAgent: r.UserAgent()}
}

// handler is a page's handler: the request's user is known.
type handler func(w http.ResponseWriter, r *http.Request, u *user)

// currentUser returns the request's user, or nil without a live session.
func (d *Dashboard) currentUser(ctx context.Context, r *http.Request) (*user, error) {
	c, err := r.Cookie(sessionCookie)
	if err != nil || c.Value == "" {
		return nil, nil
	}
	su, err := d.svc.Session(ctx, c.Value)
	if einvoice.ErrorCode(err) == einvoice.CodeUnauthorized {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &user{su: su, token: c.Value}, nil
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
			next := url.QueryEscape(safeNext(r.URL.RequestURI()))
			if c, err := r.Cookie(sessionCookie); err == nil {
				if _, err := d.svc.PendingSession(r.Context(), c.Value); err == nil {
					// Signed in by password, waiting for the code: the
					// code's page, the waiting session kept.
					http.Redirect(w, r, "/app/signin/code?next="+next, http.StatusSeeOther)
					return
				}
			}
			clearSessionCookie(w, r)
			http.Redirect(w, r, "/app/signin?next="+next, http.StatusSeeOther)
			return
		}
		h(w, r.WithContext(einvoice.WithActor(r.Context(), u.actor(r))), u)
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
		if !d.validCSRF(r, u.sessionID()) {
			d.forbidden(w, r, u, "This form is out of date or did not come from this site. Reload the page and try again.")
			return
		}
		h(w, r.WithContext(einvoice.WithActor(r.Context(), u.actor(r))), u)
	})
}

// write wraps a POST handler that changes business records: post's checks,
// and a role with the work right (a viewer gets the 403 page, nothing done).
func (d *Dashboard) write(h handler) http.Handler { return d.needs(einvoice.RightWork, h) }

// settings wraps a POST handler that changes the tenant's settings or
// people: post's checks, and an owner's or admin's role.
func (d *Dashboard) settings(h handler) http.Handler { return d.needs(einvoice.RightSettings, h) }

// needs wraps a POST handler with post's checks and the right.
func (d *Dashboard) needs(right einvoice.Right, h handler) http.Handler {
	return d.post(func(w http.ResponseWriter, r *http.Request, u *user) {
		if !u.Role().Can(right) {
			msg := "Your role (" + string(u.Role()) + ") cannot change anything here."
			if right == einvoice.RightSettings && u.CanWrite() {
				msg = "Only owners and admins change settings and people."
			}
			d.forbidden(w, r, u, msg)
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
