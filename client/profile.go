package client

import (
	"context"
	"net/http"
	"time"
)

// Profile is the tenant: the supplier on every document it issues, and its
// tax-authority settings.
type Profile struct {
	ID                           string  `json:"id,omitempty"`
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
	// ConsolidationRelaxedUntil is the last day (YYYY-MM-DD) of the
	// tenant's declared interim relaxation of the RM10,000 limit of
	// consolidation; empty for none.
	ConsolidationRelaxedUntil string `json:"consolidationRelaxedUntil,omitempty"`

	// IsReady says whether the profile is complete for the tax authority;
	// ReadinessErrors says what keeps it from being so, per field.
	IsReady         bool                `json:"isReady"`
	ReadinessErrors map[string][]string `json:"readinessErrors,omitempty"`
	// Authority is the tax-authority settings, secrets shown only as set or
	// not.
	Authority AuthoritySettings `json:"authority"`
	CreatedAt time.Time         `json:"createdAt,omitzero"`
	UpdatedAt time.Time         `json:"updatedAt,omitzero"`
}

// AuthoritySettings are the tenant's tax-authority settings as the service
// shows them.
type AuthoritySettings struct {
	// Environment is "sandbox" (the built-in authority), "preprod" or
	// "production"; Mode "taxpayer" or "intermediary" (then OnBehalfOf is
	// the TIN represented).
	Environment string `json:"environment"`
	Mode        string `json:"mode"`
	OnBehalfOf  string `json:"onBehalfOf"`
	// IntermediaryTIN is the intermediary's own TIN, which its signing
	// certificate carries (intermediary mode).
	IntermediaryTIN       string `json:"intermediaryTin,omitempty"`
	ClientID              string `json:"clientId"`
	HasClientSecret       bool   `json:"hasClientSecret"`
	HasSigningCertificate bool   `json:"hasSigningCertificate"`
	HasPKCS12             bool   `json:"hasPkcs12"`
	// Certificate is the signing certificate in use, nil when there is
	// none.
	Certificate *CertificateInfo `json:"certificate,omitempty"`
}

// CertificateInfo is what the service shows of the signing certificate.
type CertificateInfo struct {
	Subject           string    `json:"subject"`
	Issuer            string    `json:"issuer"`
	SerialNumber      string    `json:"serialNumber"` // decimal
	NotBefore         time.Time `json:"notBefore"`
	NotAfter          time.Time `json:"notAfter"`
	FingerprintSHA256 string    `json:"fingerprintSha256"` // lower-case hex
	// Warnings say what keeps it from signing now (expired, another
	// TIN...), and "expires in N days" from 30 days before its expiry.
	Warnings []string `json:"warnings"`
}

// AuthorityUpdate sets the tax-authority settings. The secrets are
// write-only; the signing certificate is given as PEM (certificate and
// private key) or as PKCS#12 with its password.
type AuthorityUpdate struct {
	Environment string `json:"environment,omitempty"`
	Mode        string `json:"mode,omitempty"`
	OnBehalfOf  string `json:"onBehalfOf,omitempty"`
	// IntermediaryTIN is the intermediary's own TIN (intermediary mode):
	// the signing certificate must carry it.
	IntermediaryTIN string `json:"intermediaryTin,omitempty"`
	ClientID        string `json:"clientId,omitempty"`
	ClientSecret    string `json:"clientSecret,omitempty"`
	CertificatePEM  string `json:"certificatePem,omitempty"`
	PrivateKeyPEM   string `json:"privateKeyPem,omitempty"`
	PKCS12          []byte `json:"pkcs12Base64,omitempty"`
	PKCS12Password  string `json:"pkcs12Password,omitempty"`
}

// ProfileService holds the operations of the tenant's profile.
type ProfileService struct{ c *Client }

// Get returns the profile.
func (s *ProfileService) Get(ctx context.Context) (*Profile, error) {
	var out Profile
	if _, err := s.c.call(ctx, http.MethodGet, "/api/v1/profile", nil, nil, &out, nil); err != nil {
		return nil, err
	}
	return &out, nil
}

// Update replaces the profile's fields with p's (ID, readiness, the
// authority settings shown and the times are ignored) and, when auth is not
// nil, the tax-authority settings with auth's.
func (s *ProfileService) Update(ctx context.Context, p *Profile, auth *AuthorityUpdate) (*Profile, error) {
	body := struct {
		Name                         string           `json:"name"`
		TIN                          string           `json:"tin"`
		IDType                       string           `json:"idType"`
		IDValue                      string           `json:"idValue"`
		SSTRegistrationNumber        string           `json:"sstRegistrationNumber"`
		TourismTaxRegistrationNumber string           `json:"tourismTaxRegistrationNumber"`
		MSICCode                     string           `json:"msicCode"`
		BusinessActivityDescription  string           `json:"businessActivityDescription"`
		Address                      Address          `json:"address"`
		Contact                      Contact          `json:"contact"`
		ConsolidationRelaxedUntil    string           `json:"consolidationRelaxedUntil,omitempty"`
		Authority                    *AuthorityUpdate `json:"authority,omitempty"`
	}{p.Name, p.TIN, p.IDType, p.IDValue, p.SSTRegistrationNumber, p.TourismTaxRegistrationNumber, p.MSICCode,
		p.BusinessActivityDescription, p.Address, p.Contact, p.ConsolidationRelaxedUntil, auth}
	var out Profile
	if _, err := s.c.call(ctx, http.MethodPut, "/api/v1/profile", nil, body, &out, nil); err != nil {
		return nil, err
	}
	return &out, nil
}

// The steps of the go-live check (ProfileCheck), and their outcomes.
const (
	CheckLogin       = "login"
	CheckTIN         = "tin"
	CheckCertificate = "certificate"
	CheckSignature   = "signature"

	CheckPassed  = "passed"
	CheckFailed  = "failed"
	CheckSkipped = "skipped"
)

// ProfileCheck is the result of the go-live check.
type ProfileCheck struct {
	// Passed: no step failed (skipped steps do not count).
	Passed      bool        `json:"passed"`
	Environment string      `json:"environment"`
	Steps       []CheckStep `json:"steps"`
}

// CheckStep is one step of the go-live check: its Name (CheckLogin...),
// Status (CheckPassed, CheckFailed or CheckSkipped), what it found, and
// what to do when it did not pass.
type CheckStep struct {
	Name   string `json:"name"`
	Status string `json:"status"`
	Detail string `json:"detail"`
	Action string `json:"action,omitempty"`
}

// Failed returns the steps that failed.
func (c *ProfileCheck) Failed() []CheckStep {
	var out []CheckStep
	for _, s := range c.Steps {
		if s.Status == CheckFailed {
			out = append(out, s)
		}
	}
	return out
}

// Check runs the go-live check: login to the tenant's environment, its TIN
// with its id at the authority, its signing certificate, and a test
// signature. A failed check is a result (Passed false), not an error.
func (s *ProfileService) Check(ctx context.Context) (*ProfileCheck, error) {
	var out ProfileCheck
	if _, err := s.c.call(ctx, http.MethodGet, "/api/v1/profile/check", nil, nil, &out, nil); err != nil {
		return nil, err
	}
	return &out, nil
}
