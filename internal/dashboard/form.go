package dashboard

import (
	"encoding/base64"
	"errors"
	"net/http"
	"strings"

	"github.com/einvoice/einvoice/internal/einvoice"
)

// form is what a form shows again after an error: the values typed and
// the service's field errors, each shown beside its field
// ({{template "field" (fieldOf $.Form "name" "Label")}}), and the error
// of no one field.
type form struct {
	Values map[string]string
	Errors einvoice.FieldErrors
	// Message is the error of the whole form, shown above it.
	Message string
}

// formOf keeps the values typed in r and the errors of err (an
// einvoice.Error's field errors, or its message).
func formOf(r *http.Request, err error) *form {
	f := &form{Values: map[string]string{}}
	for k, v := range r.PostForm {
		if k != "csrf" && len(v) > 0 {
			f.Values[k] = v[0]
		}
	}
	f.setError(err)
	return f
}

// formOfError is a form of err's errors alone, no value typed kept: for
// forms of passwords and codes, which are never shown again.
func formOfError(err error) *form {
	f := &form{Values: map[string]string{}}
	f.setError(err)
	return f
}

// setError puts err's field errors and message on the form (an
// einvoice.Error's, or "Something went wrong.").
func (f *form) setError(err error) {
	var e *einvoice.Error
	if errors.As(err, &e) {
		f.Errors, f.Message = e.Fields, e.Message
	} else if err != nil {
		f.Message = "Something went wrong."
	}
}

// einvoiceMessage is the message of a service error a person reads.
func einvoiceMessage(err error) string {
	var e *einvoice.Error
	if errors.As(err, &e) {
		return e.Message
	}
	return "Something went wrong."
}

// Value is what was typed in the field.
func (f *form) Value(name string) string { return f.Values[name] }

// Error is the field's errors, joined.
func (f *form) Error(name string) string { return strings.Join(f.Errors[name], " ") }

// flash is a one-time message shown on the next page (after a redirect).
type flash struct {
	Kind    string // "ok" or "error"
	Message string
}

const flashCookie = "einvoice_flash"

// redirectFlash answers a POST that worked (or was refused as a whole):
// a 303 to path, whose page shows the message once. kind is "ok" or
// "error".
func redirectFlash(w http.ResponseWriter, r *http.Request, path, kind, msg string) {
	setFlash(w, r, kind, msg)
	http.Redirect(w, r, path, http.StatusSeeOther)
}

// setFlash keeps a message for the next page rendered.
func setFlash(w http.ResponseWriter, r *http.Request, kind, msg string) {
	v := base64.RawURLEncoding.EncodeToString([]byte(kind + "\n" + msg))
	http.SetCookie(w, &http.Cookie{Name: flashCookie, Value: v, Path: "/app", MaxAge: 60, HttpOnly: true,
		SameSite: http.SameSiteLaxMode, Secure: r.TLS != nil})
}

// takeFlash returns the message kept for this page, if any, and forgets it.
func takeFlash(w http.ResponseWriter, r *http.Request) *flash {
	c, err := r.Cookie(flashCookie)
	if err != nil {
		return nil
	}
	http.SetCookie(w, &http.Cookie{Name: flashCookie, Path: "/app", MaxAge: -1, HttpOnly: true,
		SameSite: http.SameSiteLaxMode, Secure: r.TLS != nil})
	b, err := base64.RawURLEncoding.DecodeString(c.Value)
	if err != nil {
		return nil
	}
	kind, msg, _ := strings.Cut(string(b), "\n")
	if kind != "ok" {
		kind = "error"
	}
	return &flash{Kind: kind, Message: msg}
}

// reasonForm is the form of a refused action that takes one reason
// (cancel, reject): the service's message beside the reason when it names
// no field, what was typed kept.
func reasonForm(r *http.Request, err error) *form {
	f := formOf(r, err)
	if len(f.Errors) == 0 {
		f.Errors = einvoice.FieldErrors{"reason": {f.Message}}
		f.Message = ""
	}
	return f
}
