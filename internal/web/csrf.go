package web

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
)

// CSRFField is the form field every HTML form carries its token in.
const CSRFField = "csrf"

// CSRF makes and checks the tokens of HTML forms: an HMAC-SHA256 of the
// form's subject (a session's id, a receipt's token, a sign-in form's
// cookie) under a secret and a purpose. A token is never stored; it
// changes with its subject; replicas that share the secret accept each
// other's.
type CSRF struct {
	secret  []byte
	purpose string
}

// NewCSRF returns the tokens of one purpose ("dashboard", "request page")
// under secret (random when empty: one process only).
func NewCSRF(secret []byte, purpose string) *CSRF {
	if len(secret) == 0 {
		secret = RandomSecret()
	}
	return &CSRF{secret: secret, purpose: purpose}
}

// Token is the token of subject.
func (c *CSRF) Token(subject []byte) string {
	m := hmac.New(sha256.New, c.secret)
	m.Write([]byte(c.purpose))
	m.Write([]byte{0})
	m.Write(subject)
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// Check reports whether got is subject's token (in constant time).
func (c *CSRF) Check(subject []byte, got string) bool {
	if got == "" || len(got) > 100 || len(subject) == 0 {
		return false
	}
	return hmac.Equal([]byte(got), []byte(c.Token(subject)))
}

// Valid reports whether the posted form of r carries subject's token in
// CSRFField (the form is parsed if it was not).
func (c *CSRF) Valid(r *http.Request, subject []byte) bool {
	return c.Check(subject, r.PostFormValue(CSRFField))
}
