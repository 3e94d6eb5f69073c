package einvoice

import "time"

// Tenant is one company that issues documents: the supplier of its invoices
// and notes, the buyer (and issuer) of its self-billed documents.
type Tenant struct {
	ID        string
	Profile   Profile
	Authority Authority
	CreatedAt time.Time
	UpdatedAt time.Time
}

// Profile holds the supplier details a tenant's documents carry.
type Profile struct {
	Name                         string  `json:"name"`
	TIN                          string  `json:"tin"`
	IDType                       string  `json:"idType"`
	IDValue                      string  `json:"idValue"`
	SSTRegistrationNumber        string  `json:"sstRegistrationNumber"`
	TourismTaxRegistrationNumber string  `json:"tourismTaxRegistrationNumber"`
	MSICCode                     string  `json:"msicCode"`
	BusinessActivityDescription  string  `json:"businessActivityDescription"`
	Address                      Address `json:"address"`
	Contact                      Contact `json:"contact"`
	// ConsolidationRelaxedUntil, a date (YYYY-MM-DD) or empty, declares the
	// tenant within the authority's interim relaxation of the RM10,000 limit
	// of consolidation until that day, inclusive (DECISIONS 17;
	// ReceiptExclusion).
	ConsolidationRelaxedUntil string `json:"consolidationRelaxedUntil,omitempty"`
}

// Authority environments.
const (
	EnvSandbox    = "sandbox"
	EnvPreprod    = "preprod"
	EnvProduction = "production"
)

// Authority login modes.
const (
	ModeTaxpayer     = "taxpayer"
	ModeIntermediary = "intermediary"
)

// Authority holds how a tenant reaches the tax authority. ClientSecret,
// PrivateKeyPEM, PKCS12 and PKCS12Password are secrets: write-only in the
// API and encrypted at rest by the store.
type Authority struct {
	Environment string
	Mode        string
	OnBehalfOf  string
	// IntermediaryTIN is the intermediary's own TIN in intermediary mode:
	// the TIN its signing certificate carries.
	IntermediaryTIN string
	ClientID        string
	ClientSecret    string
	CertificatePEM  string
	PrivateKeyPEM   string
	PKCS12          []byte
	PKCS12Password  string
}

// Permission is what an API key may do.
type Permission string

// The permissions of API keys.
const (
	PermRead      Permission = "read"
	PermReadWrite Permission = "read-write"
)

// CanWrite reports whether the permission allows changes.
func (p Permission) CanWrite() bool { return p == PermReadWrite }

// APIKey is a tenant's credential. Only the SHA-256 hash of the key is
// stored; Prefix (its first characters) lets a person recognise it.
type APIKey struct {
	ID       string
	TenantID string
	// Name is whose key it is (a person's name), shown by the dashboard
	// and in the key listing; "" when none was given.
	Name       string
	Prefix     string
	Hash       []byte
	Permission Permission
	CreatedAt  time.Time
	RevokedAt  *time.Time
	// LastUsedAt is when the key last authenticated a request (to the
	// minute); nil when never.
	LastUsedAt *time.Time
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
