package httpapi

import (
	"encoding/base64"
	"net/http"
	"strings"
	"time"

	"github.com/einvoice/einvoice/internal/einvoice"
)

// profileRequest is the body of PUT /profile; what GET /profile answers is
// accepted back (echo).
type profileRequest struct {
	einvoice.Profile
	Authority *authorityRequest `json:"authority"`
}

func (profileRequest) echo() any { return profileJSON{} }

// authorityRequest holds the tax-authority settings; secrets are write-only.
type authorityRequest struct {
	Environment string `json:"environment"`
	Mode        string `json:"mode"`
	OnBehalfOf  string `json:"onBehalfOf"`
	// IntermediaryTIN is the intermediary's own TIN (intermediary mode).
	IntermediaryTIN string `json:"intermediaryTin"`
	ClientID        string `json:"clientId"`
	ClientSecret    string `json:"clientSecret"`
	CertificatePEM  string `json:"certificatePem"`
	PrivateKeyPEM   string `json:"privateKeyPem"`
	PKCS12Base64    string `json:"pkcs12Base64"`
	PKCS12Password  string `json:"pkcs12Password"`
}

// profileJSON is the profile in responses: secrets show only whether they
// are set.
type profileJSON struct {
	ID string `json:"id"`
	einvoice.Profile
	IsReady         bool                 `json:"isReady"`
	ReadinessErrors einvoice.FieldErrors `json:"readinessErrors"`
	Authority       authorityJSON        `json:"authority"`
	CreatedAt       time.Time            `json:"createdAt"`
	UpdatedAt       time.Time            `json:"updatedAt"`
}

type authorityJSON struct {
	Environment           string `json:"environment"`
	Mode                  string `json:"mode"`
	OnBehalfOf            string `json:"onBehalfOf"`
	IntermediaryTIN       string `json:"intermediaryTin,omitempty"`
	ClientID              string `json:"clientId"`
	HasClientSecret       bool   `json:"hasClientSecret"`
	HasSigningCertificate bool   `json:"hasSigningCertificate"`
	HasPKCS12             bool   `json:"hasPkcs12"`
	// Certificate is the signing certificate in use (PKCS#12's when both
	// are stored), omitted when there is none.
	Certificate *certificateJSON `json:"certificate,omitempty"`
}

// certificateJSON is what the tenant sees of its signing certificate.
type certificateJSON struct {
	Subject           string    `json:"subject"`
	Issuer            string    `json:"issuer"`
	SerialNumber      string    `json:"serialNumber"`
	NotBefore         time.Time `json:"notBefore"`
	NotAfter          time.Time `json:"notAfter"`
	FingerprintSHA256 string    `json:"fingerprintSha256"`
	Warnings          []string  `json:"warnings"`
}

func (s *Server) renderProfile(t *einvoice.Tenant) profileJSON {
	problems := einvoice.ProfileReadiness(&t.Profile)
	a := t.Authority
	return profileJSON{
		ID: t.ID, Profile: t.Profile, IsReady: len(problems) == 0, ReadinessErrors: problems,
		Authority: authorityJSON{
			Environment: a.Environment, Mode: a.Mode, OnBehalfOf: a.OnBehalfOf, IntermediaryTIN: a.IntermediaryTIN, ClientID: a.ClientID,
			HasClientSecret: a.ClientSecret != "", HasSigningCertificate: a.CertificatePEM != "" && a.PrivateKeyPEM != "",
			HasPKCS12: len(a.PKCS12) > 0, Certificate: s.certificateJSON(t),
		},
		CreatedAt: t.CreatedAt, UpdatedAt: t.UpdatedAt,
	}
}

func (s *Server) getProfile(w http.ResponseWriter, r *http.Request, k *einvoice.APIKey) error {
	t, err := s.svc.GetTenant(r.Context(), k.TenantID)
	if err != nil {
		return err
	}
	ok(w, http.StatusOK, s.renderProfile(t))
	return nil
}

func (s *Server) putProfile(w http.ResponseWriter, r *http.Request, k *einvoice.APIKey) error {
	var req profileRequest
	if err := decode(r, maxBody, &req); err != nil {
		return err
	}
	var au *einvoice.Authority
	if a := req.Authority; a != nil {
		au = &einvoice.Authority{
			Environment: a.Environment, Mode: a.Mode, OnBehalfOf: a.OnBehalfOf, IntermediaryTIN: a.IntermediaryTIN, ClientID: a.ClientID,
			ClientSecret: a.ClientSecret, CertificatePEM: a.CertificatePEM, PrivateKeyPEM: a.PrivateKeyPEM,
			PKCS12Password: a.PKCS12Password,
		}
		if a.PKCS12Base64 != "" {
			raw, err := base64.StdEncoding.DecodeString(strings.TrimSpace(a.PKCS12Base64))
			if err != nil {
				return einvoice.FieldErrors{"authority.pkcs12Base64": {"is not standard base64"}}.Err()
			}
			au.PKCS12 = raw
		}
	}
	t, err := s.svc.UpdateProfile(r.Context(), k.TenantID, req.Profile, au)
	if err != nil {
		return err
	}
	ok(w, http.StatusOK, s.renderProfile(t))
	return nil
}

func (s *Server) certificateJSON(t *einvoice.Tenant) *certificateJSON {
	c := s.svc.Certificate(t)
	if c == nil {
		return nil
	}
	return &certificateJSON{
		Subject: c.Subject, Issuer: c.Issuer, SerialNumber: c.SerialNumber, NotBefore: c.NotBefore, NotAfter: c.NotAfter,
		FingerprintSHA256: c.FingerprintSHA256, Warnings: c.Warnings,
	}
}

// checkProfile is GET /profile/check: the go-live check, its result 200
// whether or not it passed.
func (s *Server) checkProfile(w http.ResponseWriter, r *http.Request, k *einvoice.APIKey) error {
	res, err := s.svc.CheckProfile(r.Context(), k.TenantID)
	if err != nil {
		return err
	}
	ok(w, http.StatusOK, res)
	return nil
}
