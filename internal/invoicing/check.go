package invoicing

import (
	"context"
	"fmt"
	"strings"

	"github.com/einvoice/einvoice/internal/dsig"
	"github.com/einvoice/einvoice/internal/einvoice"
)

// The steps of the go-live check, in order, and their outcomes.
const (
	CheckLogin       = "login"
	CheckTIN         = "tin"
	CheckCertificate = "certificate"
	CheckSignature   = "signature"

	CheckPassed  = "passed"
	CheckFailed  = "failed"
	CheckSkipped = "skipped"
)

// CheckStep is one step of the go-live check: what it found (Detail) and,
// when it did not pass, what to do (Action).
type CheckStep struct {
	Name   string `json:"name"`
	Status string `json:"status"`
	Detail string `json:"detail"`
	Action string `json:"action,omitempty"`
}

// ProfileCheck is the result of the go-live check.
type ProfileCheck struct {
	// Passed: no step failed (skipped ones do not count).
	Passed      bool        `json:"passed"`
	Environment string      `json:"environment"`
	Steps       []CheckStep `json:"steps"`
}

// checkDocument is the document the check signs: a minimal UBL JSON
// invoice, minified as Build writes documents.
const checkDocument = `{"_D":"urn:oasis:names:specification:ubl:schema:xsd:Invoice-2","_A":"urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2","_B":"urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2","Invoice":[{"ID":[{"_":"GO-LIVE-CHECK"}],"InvoiceTypeCode":[{"_":"01","listVersionID":"1.1"}]}]}`

// CheckProfile is the go-live check of the tenant: it logs in to the
// tenant's environment, validates the tenant's own TIN with its id at the
// authority, checks its signing certificate (dsig.CheckCertificate, as PUT
// /profile does), and signs a test document and verifies it with
// dsig.Verify (the sandbox's verifier). A step that cannot run for want of
// an earlier one is skipped, as are the certificate steps of a tenant
// without a certificate (it sends unsigned version 1.0 documents). Nothing
// is stored and nothing is submitted.
func (s *Service) CheckProfile(ctx context.Context, tenantID string) (*ProfileCheck, error) {
	t, err := s.GetTenant(ctx, tenantID)
	if err != nil {
		return nil, err
	}
	env := t.Authority.Environment
	res := &ProfileCheck{Passed: true, Environment: env}
	add := func(st CheckStep) {
		if st.Status == CheckFailed {
			res.Passed = false
		}
		res.Steps = append(res.Steps, st)
	}

	login := CheckStep{Name: CheckLogin, Status: CheckPassed, Detail: fmt.Sprintf("logged in to %s as client %q", env, t.Authority.ClientID)}
	creds, err := s.credentials(t)
	switch {
	case s.authority == nil:
		login = CheckStep{Name: CheckLogin, Status: CheckFailed, Detail: "this process has no tax authority configured",
			Action: "run the check through a running `einvoice serve` (GET /api/v1/profile/check)"}
	case err != nil:
		login = CheckStep{Name: CheckLogin, Status: CheckFailed, Detail: err.Error(),
			Action: "set authority.environment to sandbox, preprod or production"}
	default:
		if err := s.authority.Login(ctx, creds); err != nil {
			login = CheckStep{Name: CheckLogin, Status: CheckFailed, Detail: fmt.Sprintf("the %s authority refused the login of client %q: %v", env, t.Authority.ClientID, err),
				Action: "check authority.clientId and authority.clientSecret against the ERP system registered on the MyInvois portal of that environment" + intermediaryHint(t)}
		}
	}
	add(login)

	p := t.Profile
	tin := CheckStep{Name: CheckTIN, Status: CheckPassed, Detail: fmt.Sprintf("the authority knows TIN %s with %s %s", p.TIN, p.IDType, p.IDValue)}
	if login.Status != CheckPassed {
		tin = CheckStep{Name: CheckTIN, Status: CheckSkipped, Detail: "needs the login"}
	} else if found, err := s.authority.ValidateTIN(ctx, creds, p.TIN, p.IDType, p.IDValue); err != nil {
		tin = CheckStep{Name: CheckTIN, Status: CheckFailed, Detail: "the authority did not answer: " + err.Error(), Action: "run the check again later"}
		if ce, ok := einvoice.AsCallError(err); ok && ce.Status >= 400 && ce.Status < 500 && ce.Status != 429 {
			tin.Detail = fmt.Sprintf("the authority refused TIN %s with %s %s: %v", p.TIN, p.IDType, p.IDValue, err)
			tin.Action = "correct tin, idType and idValue in the profile (PUT /api/v1/profile) to the company's registration"
		}
	} else if !found {
		tin = CheckStep{Name: CheckTIN, Status: CheckFailed, Detail: fmt.Sprintf("the authority does not know TIN %s with %s %s", p.TIN, p.IDType, p.IDValue),
			Action: "correct tin, idType and idValue in the profile (PUT /api/v1/profile) to the company's registration"}
	}
	add(tin)

	sig, err := s.signer(t)
	switch {
	case sig == nil && err == nil:
		add(CheckStep{Name: CheckCertificate, Status: CheckSkipped, Detail: "no signing certificate: documents are sent unsigned, as version 1.0",
			Action: "to send signed version 1.1 documents, upload the company's certificate (authority.certificatePem and privateKeyPem, or pkcs12Base64 and pkcs12Password)"})
		add(CheckStep{Name: CheckSignature, Status: CheckSkipped, Detail: "no signing certificate"})
		return res, nil
	case err != nil:
		add(CheckStep{Name: CheckCertificate, Status: CheckFailed, Detail: "the stored certificate cannot be used: " + err.Error(),
			Action: "upload the certificate and its key again (PUT /api/v1/profile)"})
		add(CheckStep{Name: CheckSignature, Status: CheckSkipped, Detail: "needs a usable certificate"})
		return res, nil
	}
	now := s.now()
	cert := CheckStep{Name: CheckCertificate, Status: CheckPassed}
	sum := dsig.Summarize(sig.Certificate())
	cert.Detail = fmt.Sprintf("%s, issued by %s, valid until %s", sum.Subject, sum.Issuer, sum.NotAfter.Format("2006-01-02"))
	if ps := dsig.CheckCertificate(sig.Certificate(), nil, signerTIN(t), now); len(ps) > 0 {
		msgs := make([]string, len(ps))
		for i, p := range ps {
			msgs[i] = p.Message
		}
		cert.Status, cert.Detail = CheckFailed, strings.Join(msgs, "; ")
		cert.Action = "get a certificate that meets the tax authority's profile and upload it (PUT /api/v1/profile)"
	} else if err := s.sandboxChain(ctx, env, sig); err != nil {
		cert.Status, cert.Detail = CheckFailed, err.Error()
		cert.Action = "for the sandbox, sign with a certificate from its test certificate authority: `einvoice sandbox issue-cert --tin " + signerTIN(t) + " ...`, and upload it (PUT /api/v1/profile)"
	} else if ws := dsig.CertificateWarnings(sig.Certificate(), now); len(ws) > 0 {
		cert.Detail += " (" + strings.Join(ws, "; ") + ")"
		cert.Action = "renew the certificate before it expires"
	}
	add(cert)

	step := CheckStep{Name: CheckSignature, Status: CheckPassed, Detail: "a test document was signed and its signature verifies"}
	signed, err := sig.Sign([]byte(checkDocument), now)
	if err == nil {
		err = dsig.Verify(signed)
	}
	if err != nil {
		step = CheckStep{Name: CheckSignature, Status: CheckFailed, Detail: "signing a test document failed: " + err.Error(),
			Action: "upload the certificate and its key again (PUT /api/v1/profile), and report this with the check's output"}
	}
	add(step)
	return res, nil
}

// sandboxChain asks the sandbox environment whether it trusts the signing
// certificate's authority (nil for other environments, or when unknown).
func (s *Service) sandboxChain(ctx context.Context, env string, sig *dsig.Signer) error {
	if env != einvoice.EnvSandbox || s.sandboxTrust == nil {
		return nil
	}
	return s.sandboxTrust(ctx, sig.Certificate())
}

func intermediaryHint(t *einvoice.Tenant) string {
	if t.Authority.Mode == einvoice.ModeIntermediary {
		return ", and that the intermediary may act for " + t.Authority.OnBehalfOf
	}
	return ""
}
