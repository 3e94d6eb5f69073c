package access

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/einvoice/einvoice/internal/einvoice"
)

// cachedKey is an authenticated key and when to look it up again.
type cachedKey struct {
	key     *einvoice.APIKey
	expires time.Time
}

// randomToken returns n random bytes in unpadded base64url.
func randomToken(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(fmt.Sprintf("crypto/rand: %v", err)) // never fails on supported platforms
	}
	return base64.RawURLEncoding.EncodeToString(b)
}

// NewSandboxCredentials returns a client id and secret for a new tenant on
// the built-in sandbox.
func NewSandboxCredentials() (clientID, clientSecret string) {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return "sandbox-" + hex.EncodeToString(b), randomToken(32)
}

// NewTenant returns a tenant with the given profile on the sandbox
// environment, with generated credentials, not yet stored.
func (s *Service) NewTenant(p einvoice.Profile) *einvoice.Tenant {
	id, secret := NewSandboxCredentials()
	now := s.now()
	return &einvoice.Tenant{
		ID:      s.newID(),
		Profile: p,
		Authority: einvoice.Authority{
			Environment: einvoice.EnvSandbox, Mode: einvoice.ModeTaxpayer, ClientID: id, ClientSecret: secret,
		},
		CreatedAt: now, UpdatedAt: now,
	}
}

// CreateTenant validates and stores a new tenant on the sandbox.
func (s *Service) CreateTenant(ctx context.Context, p einvoice.Profile) (*einvoice.Tenant, error) {
	t := s.NewTenant(p)
	if err := einvoice.ValidateProfileInput(&t.Profile, &t.Authority).Err(); err != nil {
		return nil, err
	}
	if err := s.store.CreateTenant(ctx, t); err != nil {
		return nil, fmt.Errorf("create tenant: %w", err)
	}
	return t, nil
}

// NewAPIKey returns a new key for the tenant, not yet stored, and the key
// itself, which is shown once and never stored.
func (s *Service) NewAPIKey(tenantID string, perm einvoice.Permission) (*einvoice.APIKey, string) {
	key := einvoice.APIKeyPrefix + randomToken(32)
	return &einvoice.APIKey{
		ID: s.newID(), TenantID: tenantID, Prefix: key[:len(einvoice.APIKeyPrefix)+8],
		Hash: einvoice.HashAPIKey(key), Permission: perm, CreatedAt: s.now(),
	}, key
}

// CreateAPIKey stores a new key for the tenant and returns the key itself.
func (s *Service) CreateAPIKey(ctx context.Context, tenantID string, perm einvoice.Permission) (*einvoice.APIKey, string, error) {
	return s.CreateNamedAPIKey(ctx, tenantID, "", perm)
}

// maxKeyName bounds a key's name (in characters).
const maxKeyName = 100

// CreateNamedAPIKey stores a new key for the tenant with the name of whose
// it is (shown by the dashboard, recorded in the history) and returns the
// key itself. The name is trimmed; at most 100 characters, no control
// characters.
func (s *Service) CreateNamedAPIKey(ctx context.Context, tenantID, name string, perm einvoice.Permission) (*einvoice.APIKey, string, error) {
	if perm != einvoice.PermRead && perm != einvoice.PermReadWrite {
		return nil, "", einvoice.Errorf(einvoice.CodeValidationFailed, "permission must be read or read-write")
	}
	name = strings.TrimSpace(name)
	if utf8.RuneCountInString(name) > maxKeyName || !utf8.ValidString(name) || strings.ContainsFunc(name, unicode.IsControl) {
		return nil, "", einvoice.Errorf(einvoice.CodeValidationFailed, "the key's name must be at most %d characters, without control characters", maxKeyName)
	}
	k, key := s.NewAPIKey(tenantID, perm)
	k.Name = name
	if err := s.store.CreateAPIKey(ctx, k); err != nil {
		if errors.Is(err, einvoice.ErrNotFound) {
			return nil, "", einvoice.Errorf(einvoice.CodeNotFound, "no tenant with id %q", tenantID)
		}
		return nil, "", fmt.Errorf("create api key: %w", err)
	}
	return k, key, nil
}

// Authenticate returns the key behind an Authorization header value
// ("Bearer <key>"); UNAUTHORIZED when it is missing, malformed, unknown or
// revoked.
func (s *Service) Authenticate(ctx context.Context, header string) (*einvoice.APIKey, error) {
	unauth := &einvoice.Error{Code: einvoice.CodeUnauthorized, Message: "Unauthenticated."}
	scheme, key, ok := strings.Cut(header, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return nil, unauth
	}
	key = strings.TrimSpace(key)
	if !strings.HasPrefix(key, einvoice.APIKeyPrefix) || len(key) > 200 {
		return nil, unauth
	}
	hash := einvoice.HashAPIKey(key)
	var cacheKey [sha256.Size]byte
	copy(cacheKey[:], hash)
	now := s.clock()
	if v, ok := s.keyCache.Load(cacheKey); ok {
		if c := v.(cachedKey); now.Before(c.expires) {
			return c.key, nil
		}
		s.keyCache.Delete(cacheKey)
	}
	k, err := s.store.APIKeyByHash(ctx, hash)
	if errors.Is(err, einvoice.ErrNotFound) {
		return nil, unauth
	}
	if err != nil {
		return nil, fmt.Errorf("authenticate: %w", err)
	}
	if subtle.ConstantTimeCompare(k.Hash, hash) != 1 || k.RevokedAt != nil {
		return nil, unauth
	}
	if now := s.now(); k.LastUsedAt == nil || now.Sub(*k.LastUsedAt) >= time.Minute {
		// The key's last use, to the minute: at most a write a minute per
		// key and process.
		if err := s.store.TouchAPIKey(ctx, k.ID, now); err != nil && !errors.Is(err, einvoice.ErrNotFound) {
			s.log.WarnContext(ctx, "record the key's last use", "key", k.Prefix, "error", err)
		}
		k.LastUsedAt = &now
	}
	if s.keyCacheTTL > 0 {
		s.keyCache.Store(cacheKey, cachedKey{key: k, expires: now.Add(s.keyCacheTTL)})
	}
	return k, nil
}

// ListTenants returns every tenant, oldest first.
func (s *Service) ListTenants(ctx context.Context) ([]*einvoice.Tenant, error) {
	ts, err := s.store.ListTenants(ctx)
	if err != nil {
		return nil, fmt.Errorf("list tenants: %w", err)
	}
	return ts, nil
}

// ListAPIKeys returns the keys of a tenant, oldest first.
func (s *Service) ListAPIKeys(ctx context.Context, tenantID string) ([]*einvoice.APIKey, error) {
	keys, err := s.store.ListAPIKeys(ctx, tenantID)
	if err != nil {
		return nil, fmt.Errorf("list api keys: %w", err)
	}
	return keys, nil
}

// RevokeAPIKey revokes a key now (by the service's clock); NOT_FOUND when
// there is no such key.
func (s *Service) RevokeAPIKey(ctx context.Context, keyID string) error {
	err := s.store.RevokeAPIKey(ctx, keyID, s.now())
	if errors.Is(err, einvoice.ErrNotFound) {
		return einvoice.Errorf(einvoice.CodeNotFound, "No API key with id %q.", keyID)
	}
	if err != nil {
		return fmt.Errorf("revoke api key: %w", err)
	}
	return nil
}
