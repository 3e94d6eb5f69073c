package myinvois

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/einvoice/einvoice/internal/einvoice"
)

// refreshMargin: a token is renewed when less than this remains of it (or
// half its lifetime, for tokens shorter than twice this).
const refreshMargin = 5 * time.Minute

// usableMargin: while another caller renews a token, the old one is still
// used when at least this remains of it.
const usableMargin = 30 * time.Second

// maxTokens bounds the token cache; beyond it, expired tokens are forgotten.
const maxTokens = 1000

// tokenKey names a login: where, who, for whom, and which secret (hashed,
// so that a changed secret logs in again and the secret is not kept).
type tokenKey struct{ baseURL, clientID, onBehalfOf, secret string }

func tokenKeyOf(c einvoice.Credentials) tokenKey {
	h := sha256.Sum256([]byte(c.ClientSecret))
	return tokenKey{c.BaseURL, c.ClientID, c.OnBehalfOf, hex.EncodeToString(h[:])}
}

type token struct {
	value     string
	refreshAt time.Time
	expiresAt time.Time
}

// login is one login in progress, shared by the callers that need it.
type login struct {
	done chan struct{}
	tok  token
	err  error
}

type tokenCache struct {
	mu     sync.Mutex
	tokens map[tokenKey]token
	logins map[tokenKey]*login
}

func newTokenCache() *tokenCache {
	return &tokenCache{tokens: map[tokenKey]token{}, logins: map[tokenKey]*login{}}
}

// drop forgets the cached token if it is still value (a 401 answered it).
func (tc *tokenCache) drop(c einvoice.Credentials, value string) {
	key := tokenKeyOf(c)
	tc.mu.Lock()
	defer tc.mu.Unlock()
	if t, ok := tc.tokens[key]; ok && t.value == value {
		delete(tc.tokens, key)
	}
}

// token returns a usable access token for c: the cached one, or one from a
// login shared with concurrent callers. While a token is renewed, others keep
// using the old one as long as it is valid; a failed renewal falls back to
// it too.
func (c *Client) token(ctx context.Context, cred einvoice.Credentials, op string) (string, error) {
	key := tokenKeyOf(cred)
	tc := c.tokens
	for {
		now := c.now()
		tc.mu.Lock()
		cached, haveCached := tc.tokens[key]
		if haveCached && now.Before(cached.refreshAt) {
			tc.mu.Unlock()
			return cached.value, nil
		}
		stillValid := haveCached && now.Before(cached.expiresAt.Add(-usableMargin))
		l, running := tc.logins[key]
		if running && stillValid {
			tc.mu.Unlock()
			return cached.value, nil
		}
		if !running {
			l = &login{done: make(chan struct{})}
			tc.logins[key] = l
			tc.mu.Unlock()
			l.tok, l.err = c.login(ctx, cred)
			tc.mu.Lock()
			delete(tc.logins, key)
			if l.err == nil {
				tc.store(key, l.tok, now)
			}
			tc.mu.Unlock()
			close(l.done)
			if l.err != nil && stillValid {
				c.log.LogAttrs(ctx, slog.LevelWarn, "myinvois: token renewal failed, using the current token", slog.String("error", l.err.Error()))
				return cached.value, nil
			}
			return l.tok.value, withOp(l.err, op)
		}
		tc.mu.Unlock()
		select {
		case <-l.done:
		case <-ctx.Done():
			return "", &einvoice.CallError{Op: op + ": login", NotSent: true, Err: fmt.Errorf("%w: waiting for a login: %w", ErrNotSent, ctx.Err())}
		}
		if l.err == nil {
			return l.tok.value, nil
		}
		if isContextError(l.err) && ctx.Err() == nil {
			continue // the login ended with its caller's context, not ours: log in again
		}
		return "", withOp(l.err, op)
	}
}

// store caches a token, first forgetting expired ones when the cache is
// full. tc.mu is held.
func (tc *tokenCache) store(key tokenKey, t token, now time.Time) {
	if len(tc.tokens) >= maxTokens {
		for k, old := range tc.tokens {
			if !now.Before(old.expiresAt) {
				delete(tc.tokens, k)
			}
		}
	}
	tc.tokens[key] = t
}

func isContextError(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

// withOp returns a login's error for the operation that needed it (the
// error of a shared login is copied, not changed).
func withOp(err error, op string) error {
	if err == nil {
		return nil
	}
	if ce, ok := einvoice.AsCallError(err); ok {
		cp := *ce
		cp.Op = op + ": " + ce.Op
		// The call itself never left: its login failed.
		cp.NotSent = true
		if cp.Err == nil {
			cp.Err = einvoice.ErrLogin
		} else {
			cp.Err = fmt.Errorf("%w: %w", einvoice.ErrLogin, cp.Err)
		}
		return &cp
	}
	return fmt.Errorf("%s: %w: %w", op, einvoice.ErrLogin, err)
}

// tokenAnswer is the identity service's answer.
type tokenAnswer struct {
	AccessToken string     `json:"access_token"`
	TokenType   string     `json:"token_type"`
	ExpiresIn   flexString `json:"expires_in"`
}

// login asks the identity service for a token (client credentials, with
// onbehalfof for an intermediary).
func (c *Client) login(ctx context.Context, cred einvoice.Credentials) (token, error) {
	const op = "login"
	if err := c.budgets.wait(ctx, cred, EndpointLogin, op); err != nil {
		return token{}, err
	}
	form := url.Values{
		"client_id":     {cred.ClientID},
		"client_secret": {cred.ClientSecret},
		"grant_type":    {"client_credentials"},
		"scope":         {"InvoicingAPI"},
	}
	start := c.now()
	a, err := c.exchange(ctx, cred, request{
		endpoint:    EndpointLogin,
		op:          op,
		method:      http.MethodPost,
		path:        "/connect/token",
		body:        []byte(form.Encode()),
		contentType: "application/x-www-form-urlencoded",
	}, "")
	if err != nil {
		return token{}, &einvoice.CallError{Op: op, Err: err}
	}
	if !a.ok() {
		ce := callError(op, a, c.now())
		if a.status == http.StatusTooManyRequests {
			c.budgets.block(ctx, cred, EndpointLogin, ce.RetryAfter)
		}
		return token{}, ce
	}
	var ta tokenAnswer
	if err := decode(op, a, &ta); err != nil {
		return token{}, err
	}
	if ta.AccessToken == "" {
		return token{}, &einvoice.CallError{Op: op, Status: a.status, Err: errors.New("the answer carries no access_token")}
	}
	life := time.Hour
	if secs, err := time.ParseDuration(string(ta.ExpiresIn) + "s"); err == nil && secs > 0 {
		life = secs
	}
	margin := min(refreshMargin, life/2)
	return token{value: ta.AccessToken, refreshAt: start.Add(life - margin), expiresAt: start.Add(life)}, nil
}

// Login logs in with cred, or finds its token cached (einvoice.AuthorityAPI).
func (c *Client) Login(ctx context.Context, cred einvoice.Credentials) error {
	_, err := c.token(ctx, cred, "login")
	return err
}
