package sandbox

import (
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

// handleToken is POST /connect/token: OAuth2 client credentials of a
// known client (registered, or found by Options.Clients), answered with a
// JWT. An onbehalfof header must name a TIN the client may act for.
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
		client, ok, err := s.login(r.Context(), clientID, secret)
		if err != nil {
			s.internalError(w, r, err)
			return
		}
		if !ok {
			writeOAuthError(w, "invalid_client", "The client credentials are not valid.")
			return
		}
		if tin, _, _ := splitOnBehalfOf(obo); obo != "" && tin == client.TIN {
			obo = "" // a taxpayer acting for itself
		}
		if obo != "" && !client.mayActFor(obo) {
			writeOAuthError(w, "unauthorized_client", "The client is not an intermediary of the taxpayer "+obo+".")
			return
		}
		token, err := s.accessToken(r.Context(), issuer(r), client, obo, now)
		if err != nil {
			s.internalError(w, r, fmt.Errorf("sign token: %w", err))
			return
		}
		_, err = s.db.ExecContext(r.Context(), `INSERT INTO sandbox_tokens (token_hash, client_id, on_behalf_of, issued_at, expires_at, tin)
			VALUES ($1, $2, $3, $4, $5, $6)`, sha256Hex([]byte(token)), clientID, obo, micros(now), micros(now.Add(tokenLifetime)), client.TIN)
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

// issuer is the iss of the tokens: the origin the request came to.
func issuer(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
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
	err := s.rdb.QueryRowContext(r.Context(), `SELECT client_id, on_behalf_of, expires_at, tin FROM sandbox_tokens WHERE token_hash = $1`,
		sha256Hex([]byte(token))).Scan(&c.ClientID, &c.OnBehalfOf, &expires, &c.Taxpayer)
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
