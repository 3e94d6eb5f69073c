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
	Environment    string `json:"environment"`
	Mode           string `json:"mode"`
	OnBehalfOf     string `json:"onBehalfOf"`
	ClientID       string `json:"clientId"`
	ClientSecret   string `json:"clientSecret"`
	CertificatePEM string `json:"certificatePem"`
	PrivateKeyPEM  string `json:"privateKeyPem"`
	PKCS12Base64   string `json:"pkcs12Base64"`
	PKCS12Password string `json:"pkcs12Password"`
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
	ClientID              string `json:"clientId"`
	HasClientSecret       bool   `json:"hasClientSecret"`
	HasSigningCertificate bool   `json:"hasSigningCertificate"`
	HasPKCS12             bool   `json:"hasPkcs12"`
}

func renderProfile(t *einvoice.Tenant) profileJSON {
	problems := einvoice.ProfileReadiness(&t.Profile)
	a := t.Authority
	return profileJSON{
		ID: t.ID, Profile: t.Profile, IsReady: len(problems) == 0, ReadinessErrors: problems,
		Authority: authorityJSON{
			Environment: a.Environment, Mode: a.Mode, OnBehalfOf: a.OnBehalfOf, ClientID: a.ClientID,
			HasClientSecret: a.ClientSecret != "", HasSigningCertificate: a.CertificatePEM != "" && a.PrivateKeyPEM != "",
			HasPKCS12: len(a.PKCS12) > 0,
		},
		CreatedAt: t.CreatedAt, UpdatedAt: t.UpdatedAt,
	}
}

func (s *Server) getProfile(w http.ResponseWriter, r *http.Request, k *einvoice.APIKey) error {
	t, err := s.svc.GetTenant(r.Context(), k.TenantID)
	if err != nil {
		return err
	}
	ok(w, http.StatusOK, renderProfile(t))
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
			Environment: a.Environment, Mode: a.Mode, OnBehalfOf: a.OnBehalfOf, ClientID: a.ClientID,
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
	ok(w, http.StatusOK, renderProfile(t))
	return nil
}
