package sandbox

import (
	"crypto/subtle"
	"database/sql"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"
)

// Token rules.
const (
	tokenLifetime = time.Hour
	maxFormBytes  = 64 << 10
	// maxClientID bounds client ids and onbehalfof values (the authority's
	// are far shorter).
	maxClientID = 256
)

// handleToken is POST /connect/token: OAuth2 client credentials. A client
// id is registered by its first login with the secret it gave (trust on
// first use); later logins must give the same secret.
func (s *Server) handleToken(w http.ResponseWriter, r *http.Request, _ caller) {
	f := r.PostForm
	clientID, secret := f.Get("client_id"), f.Get("client_secret")
	grant, scope := f.Get("grant_type"), f.Get("scope")
	obo := strings.TrimSpace(r.Header.Get("onbehalfof"))
	switch {
	case grant == "":
		writeOAuthError(w, "invalid_request", "grant_type is required.")
	case grant != "client_credentials":
		writeOAuthError(w, "unsupported_grant_type", "Only client_credentials is supported.")
	case strings.TrimSpace(clientID) == "" || secret == "":
		writeOAuthError(w, "invalid_client", "client_id and client_secret are required.")
	case !cleanText(clientID, maxClientID) || !cleanText(secret, maxClientID):
		writeOAuthError(w, "invalid_client", "The client credentials are not valid.")
	case !cleanText(obo, maxClientID):
		writeOAuthError(w, "invalid_request", "The onbehalfof header is not valid.")
	case scope != "" && !containsField(scope, "InvoicingAPI"):
		writeOAuthError(w, "invalid_scope", "The only scope is InvoicingAPI.")
	default:
		now := s.now()
		ok, err := s.checkClient(r, clientID, secret, now)
		if err != nil {
			s.internalError(w, r, err)
			return
		}
		if !ok {
			writeOAuthError(w, "invalid_client", "The client credentials are not valid.")
			return
		}
		token := newToken()
		_, err = s.db.ExecContext(r.Context(), `INSERT INTO sandbox_tokens (token_hash, client_id, on_behalf_of, issued_at, expires_at)
			VALUES ($1, $2, $3, $4, $5)`, sha256Hex([]byte(token)), clientID, obo, micros(now), micros(now.Add(tokenLifetime)))
		if err != nil {
			s.internalError(w, r, fmt.Errorf("store token: %w", err))
			return
		}
		s.sweep(r, now)
		w.Header().Set("Cache-Control", "no-store")
		writeJSON(w, http.StatusOK, map[string]any{
			"access_token": token,
			"token_type":   "Bearer",
			"expires_in":   int(tokenLifetime / time.Second),
			"scope":        "InvoicingAPI",
		})
	}
}

// checkClient registers a new client id with the hash of its secret, or
// checks the secret of a known one.
func (s *Server) checkClient(r *http.Request, clientID, secret string, now time.Time) (bool, error) {
	hash := sha256Hex([]byte(secret))
	if _, err := s.db.ExecContext(r.Context(), `INSERT INTO sandbox_clients (client_id, secret_hash, registered_at) VALUES ($1, $2, $3)
		ON CONFLICT (client_id) DO NOTHING`, clientID, hash, micros(now)); err != nil {
		return false, fmt.Errorf("register client: %w", err)
	}
	var stored string
	if err := s.rdb.QueryRowContext(r.Context(), `SELECT secret_hash FROM sandbox_clients WHERE client_id = $1`, clientID).Scan(&stored); err != nil {
		return false, fmt.Errorf("read client: %w", err)
	}
	return subtle.ConstantTimeCompare([]byte(stored), []byte(hash)) == 1, nil
}

// authenticate reads the bearer token; a missing, unknown or expired token
// is answered 401.
func (s *Server) authenticate(w http.ResponseWriter, r *http.Request) (caller, bool) {
	auth := r.Header.Get("Authorization")
	scheme, token, _ := strings.Cut(auth, " ")
	token = strings.TrimSpace(token)
	if !strings.EqualFold(scheme, "Bearer") || token == "" {
		unauthorized(w, "A bearer token is required.")
		return caller{}, false
	}
	var c caller
	var expires int64
	err := s.rdb.QueryRowContext(r.Context(), `SELECT client_id, on_behalf_of, expires_at FROM sandbox_tokens WHERE token_hash = $1`,
		sha256Hex([]byte(token))).Scan(&c.ClientID, &c.OnBehalfOf, &expires)
	if errors.Is(err, sql.ErrNoRows) {
		unauthorized(w, "The token is not valid.")
		return caller{}, false
	}
	if err != nil {
		s.internalError(w, r, fmt.Errorf("read token: %w", err))
		return caller{}, false
	}
	if !s.now().Before(fromMicros(expires)) {
		unauthorized(w, "The token has expired.")
		return caller{}, false
	}
	return c, true
}

func unauthorized(w http.ResponseWriter, msg string) {
	w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token"`)
	writeError(w, http.StatusUnauthorized, apiError{Code: "Unauthorized", Message: msg})
}

// containsField reports whether the space-separated list holds word.
func containsField(list, word string) bool {
	for f := range strings.FieldsSeq(list) {
		if f == word {
			return true
		}
	}
	return false
}

// cleanText reports whether s can be stored as text: valid UTF-8, no NUL,
// at most limit bytes.
func cleanText(s string, limit int) bool {
	return len(s) <= limit && utf8.ValidString(s) && !strings.ContainsRune(s, 0)
}
