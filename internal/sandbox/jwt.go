package sandbox

import (
	"context"
	"crypto/rand"
	"fmt"
	"sync"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// tokenKeyName is the sandbox_keys row of the access tokens' HS256 key.
const tokenKeyName = "access-token-hs256"

// signingKey caches the key access tokens are signed with; the key lives in
// sandbox_keys, so that every replica signs and could verify alike.
type signingKey struct {
	mu  sync.Mutex
	key []byte
}

// tokenKey returns the signing key, creating it on first use.
func (s *Server) tokenKey(ctx context.Context) ([]byte, error) {
	s.keys.mu.Lock()
	defer s.keys.mu.Unlock()
	if s.keys.key != nil {
		return s.keys.key, nil
	}
	if _, err := s.db.ExecContext(ctx, `INSERT INTO sandbox_keys (name, secret, created_at) VALUES ($1, $2, $3) ON CONFLICT (name) DO NOTHING`,
		tokenKeyName, rand.Text()+rand.Text(), micros(s.now())); err != nil {
		return nil, fmt.Errorf("create token key: %w", err)
	}
	var secret string
	if err := s.db.QueryRowContext(ctx, `SELECT secret FROM sandbox_keys WHERE name = $1`, tokenKeyName).Scan(&secret); err != nil {
		return nil, fmt.Errorf("read token key: %w", err)
	}
	s.keys.key = []byte(secret)
	return s.keys.key, nil
}

// tokenClaims are an access token's claims: the registered ones (iss, aud,
// exp, nbf, iat, jti), and those the authority's tokens carry that a client
// decodes (scope, client_id, TaxpayerTIN, name "TIN:client_id",
// IsIntermediary, IntermedTIN), plus onbehalfof when the login gave it.
type tokenClaims struct {
	jwt.RegisteredClaims
	Scope          []string `json:"scope"`
	ClientID       string   `json:"client_id"`
	Name           string   `json:"name"`
	TaxpayerTIN    string   `json:"TaxpayerTIN"`
	IsIntermediary string   `json:"IsIntermediary"`
	IntermedTIN    string   `json:"IntermedTIN"`
	OnBehalfOf     string   `json:"onbehalfof,omitempty"`
}

// accessToken is the JWT (HS256) for a login of client (acting for
// onBehalfOf when not empty), issued now by issuer.
func (s *Server) accessToken(ctx context.Context, issuer string, client Client, onBehalfOf string, now time.Time) (string, error) {
	key, err := s.tokenKey(ctx)
	if err != nil {
		return "", err
	}
	c := tokenClaims{
		RegisteredClaims: jwt.RegisteredClaims{Issuer: issuer, NotBefore: jwt.NewNumericDate(now), IssuedAt: jwt.NewNumericDate(now),
			ExpiresAt: jwt.NewNumericDate(now.Add(tokenLifetime)), Audience: jwt.ClaimStrings{"InvoicingAPI", issuer + "/resources"},
			ID: newID(uidLen)},
		Scope: []string{"InvoicingAPI"}, ClientID: client.ID, Name: client.TIN + ":" + client.ID, TaxpayerTIN: client.TIN,
		IsIntermediary: "0", OnBehalfOf: onBehalfOf,
	}
	if onBehalfOf != "" {
		tin, _, _ := splitOnBehalfOf(onBehalfOf)
		c.IsIntermediary, c.IntermedTIN, c.TaxpayerTIN = "1", client.TIN, tin
		c.Name = tin + ":" + client.ID
	}
	signed, err := jwt.NewWithClaims(jwt.SigningMethodHS256, c).SignedString(key)
	if err != nil {
		return "", fmt.Errorf("sign the access token: %w", err)
	}
	return signed, nil
}
