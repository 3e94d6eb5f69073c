package einvoice

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"time"
)

// Service holds the business rules above storage: who may change what, what
// a request may store, and how keys are made and checked.
type Service struct {
	Store Store
	// Now is the clock; NewID makes a new sortable id (UUID v7).
	Now   func() time.Time
	NewID func() string
	// KeyCacheTTL, when positive, keeps authenticated keys in memory that
	// long, so that most requests cost no key lookup. A revoked key then
	// keeps working for at most that long.
	KeyCacheTTL time.Duration
	// Authority, when set, checks parties' TINs with the tax authority and
	// writes documents' UBL for validate's size check.
	Authority AuthorityChecks

	keyCache sync.Map // [sha256.Size]byte -> cachedKey
}

// AuthorityChecks are what the domain asks of the tax authority side.
type AuthorityChecks interface {
	// CheckTIN asks whether the authority knows the party's TIN and id.
	CheckTIN(ctx context.Context, t *Tenant, p *Party) TINCheck
	// UBLSize is the size of the UBL the document would be sent as, with p
	// its buyer or on-behalf seller (nil for a consolidated invoice).
	UBLSize(ctx context.Context, t *Tenant, d *Document, p *Party) (int, error)
}

// cachedKey is an authenticated key and when to look it up again.
type cachedKey struct {
	key     *APIKey
	expires time.Time
}

var uuidPattern = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

// ValidID reports whether id has the shape of our ids (a lower-case UUID).
func ValidID(id string) bool { return uuidPattern.MatchString(id) }

func (s *Service) now() time.Time { return s.Now().UTC().Truncate(time.Microsecond) }

// randomToken returns n random bytes in unpadded base64url.
func randomToken(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(fmt.Sprintf("crypto/rand: %v", err)) // never fails on supported platforms
	}
	return base64.RawURLEncoding.EncodeToString(b)
}

// APIKeyPrefix starts every API key, so that leaked keys are recognisable.
const APIKeyPrefix = "eik_"

// HashAPIKey returns the stored form of a key.
func HashAPIKey(key string) []byte {
	sum := sha256.Sum256([]byte(key))
	return sum[:]
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
func (s *Service) NewTenant(p Profile) *Tenant {
	id, secret := NewSandboxCredentials()
	now := s.now()
	return &Tenant{
		ID:      s.NewID(),
		Profile: p,
		Authority: Authority{
			Environment: EnvSandbox, Mode: ModeTaxpayer, ClientID: id, ClientSecret: secret,
		},
		CreatedAt: now, UpdatedAt: now,
	}
}

// CreateTenant validates and stores a new tenant on the sandbox.
func (s *Service) CreateTenant(ctx context.Context, p Profile) (*Tenant, error) {
	t := s.NewTenant(p)
	if err := ValidateProfileInput(&t.Profile, &t.Authority).Err(); err != nil {
		return nil, err
	}
	if err := s.Store.CreateTenant(ctx, t); err != nil {
		return nil, fmt.Errorf("create tenant: %w", err)
	}
	return t, nil
}

// NewAPIKey returns a new key for the tenant, not yet stored, and the key
// itself, which is shown once and never stored.
func (s *Service) NewAPIKey(tenantID string, perm Permission) (*APIKey, string) {
	key := APIKeyPrefix + randomToken(32)
	return &APIKey{
		ID: s.NewID(), TenantID: tenantID, Prefix: key[:len(APIKeyPrefix)+8],
		Hash: HashAPIKey(key), Permission: perm, CreatedAt: s.now(),
	}, key
}

// CreateAPIKey stores a new key for the tenant and returns the key itself.
func (s *Service) CreateAPIKey(ctx context.Context, tenantID string, perm Permission) (*APIKey, string, error) {
	if perm != PermRead && perm != PermReadWrite {
		return nil, "", Errorf(CodeValidationFailed, "permission must be read or read-write")
	}
	k, key := s.NewAPIKey(tenantID, perm)
	if err := s.Store.CreateAPIKey(ctx, k); err != nil {
		if errors.Is(err, ErrNotFound) {
			return nil, "", Errorf(CodeNotFound, "no tenant with id %q", tenantID)
		}
		return nil, "", fmt.Errorf("create api key: %w", err)
	}
	return k, key, nil
}

// Bootstrap creates the demo tenant and its read-write key on the first
// start of an empty database, and returns the key; "" when the database was
// bootstrapped before.
func (s *Service) Bootstrap(ctx context.Context) (*Tenant, string, error) {
	t := s.NewTenant(DemoProfile())
	k, key := s.NewAPIKey(t.ID, PermReadWrite)
	created, err := s.Store.Bootstrap(ctx, t, k)
	if err != nil {
		return nil, "", fmt.Errorf("bootstrap: %w", err)
	}
	if !created {
		return nil, "", nil
	}
	return t, key, nil
}

// DemoProfile is the supplier of the demo tenant: complete and well-formed,
// so that its documents validate.
func DemoProfile() Profile {
	return Profile{
		Name: "Demo Trading Sdn. Bhd.", TIN: "C2584563200", IDType: "BRN", IDValue: "202001012345",
		SSTRegistrationNumber: "NA", TourismTaxRegistrationNumber: "NA",
		MSICCode: "46510", BusinessActivityDescription: "Wholesale of computer hardware, software and peripherals",
		Address: Address{Line1: "Lot 66, Bangunan Merdeka", Line2: "Persiaran Jaya", City: "Kuala Lumpur",
			State: "14", PostCode: "50480", CountryCode: CountryMalaysia},
		Contact: Contact{Phone: "+60312345678", Email: "billing@demo-trading.example"},
	}
}

// Authenticate returns the key behind an Authorization header value
// ("Bearer <key>"); UNAUTHORIZED when it is missing, malformed, unknown or
// revoked.
func (s *Service) Authenticate(ctx context.Context, header string) (*APIKey, error) {
	unauth := &Error{Code: CodeUnauthorized, Message: "Unauthenticated."}
	scheme, key, ok := strings.Cut(header, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return nil, unauth
	}
	key = strings.TrimSpace(key)
	if !strings.HasPrefix(key, APIKeyPrefix) || len(key) > 200 {
		return nil, unauth
	}
	hash := HashAPIKey(key)
	var cacheKey [sha256.Size]byte
	copy(cacheKey[:], hash)
	now := s.Now()
	if v, ok := s.keyCache.Load(cacheKey); ok {
		if c := v.(cachedKey); now.Before(c.expires) {
			return c.key, nil
		}
		s.keyCache.Delete(cacheKey)
	}
	k, err := s.Store.APIKeyByHash(ctx, hash)
	if errors.Is(err, ErrNotFound) {
		return nil, unauth
	}
	if err != nil {
		return nil, fmt.Errorf("authenticate: %w", err)
	}
	if subtle.ConstantTimeCompare(k.Hash, hash) != 1 || k.RevokedAt != nil {
		return nil, unauth
	}
	if s.KeyCacheTTL > 0 {
		s.keyCache.Store(cacheKey, cachedKey{key: k, expires: now.Add(s.KeyCacheTTL)})
	}
	return k, nil
}
