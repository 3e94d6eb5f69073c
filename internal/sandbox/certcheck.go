package sandbox

import (
	"crypto/x509"
	"math/big"
	"strings"
	"time"

	"github.com/einvoice/einvoice/internal/dsig"
)

// The signing certificate rules of Step08-Document Signature Validator
// (DECISIONS 14, reference myinvois.md 2.10 and 1.12): the certificate
// matches the signature block, carries the signer's TIN, is an
// organisation's certificate for document signing, and chains to an
// authority the sandbox trusts. Codes and messages are the authority's
// DS3xx list (as PosDigicert's signature guideline publishes it).

// certPath is where the certificate's errors point.
const certPath = "Invoice.UBLExtensions.UBLExtension.ExtensionContent.UBLDocumentSignatures.SignatureInformation.Signature"

// The authority's messages of the certificate codes.
var certMessages = map[string]string{
	"DS304": "Signing time is not within validity period.",
	"DS305": "X509Certificate is not valid.",
	"DS306": "SERIALNUMBER is empty in the certificate.",
	"DS307": "OI is empty in the certificate.",
	"DS309": "Incompatible certificate for the Submission Channel. Personal certificate cannot be used for ERP submission.",
	"DS311": "Signer of invoice doesn't match the submitter of document. TIN doesn't match with the OI.",
	"DS324": "Certificate X509IssuerName is missing or empty in the signed properties section.",
	"DS325": "Certificate X509SerialNumber is missing or empty in the signed properties section.",
	"DS326": "Certificate X509IssuerName doesn't match the X509IssuerName value provided in the signed properties section.",
	"DS327": "Cannot parse the certificate X509SerialNumber value from the signed properties section.",
	"DS328": "Certificate X509SerialNumber doesn't match the X509SerialNumber value provided in the signed properties section.",
	"DS329": "Certificate is not valid according to the chain of trust validation or has been issued by an untrusted certificate authority.",
	"DS330": "TIN provided cannot be found in Core system.",
	"DS334": "Certificate cannot be used to validate the document signature value.",
	"DS336": "Unable to parse Signing Time. Signing Time format is invalid.",
	"DS338": "Unable to parse certificate OI. Certificate OI is invalid.",
}

// certJudge is what judging a certificate needs besides the document: the
// authorities trusted and, when known, the TIN the signer must be (an
// intermediary's own); "" means the document's issuer, and anyTIN that an
// intermediary whose TIN is not known may sign with any known TIN.
type certJudge struct {
	roots     *x509.CertPool
	signerTIN string
	anyTIN    bool
	now       time.Time
}

// judgeCertificate returns the inner errors of the signing certificate of a
// document whose issuer is d's, as the signature block si describes it.
func judgeCertificate(d docInfo, si dsig.SignatureInfo, j certJudge) []stepError {
	var inner []stepError
	add := func(code, detail string) {
		msg := certMessages[code]
		if detail != "" {
			msg += " " + detail
		}
		inner = append(inner, innerError(code, "X509Certificate", certPath, msg))
	}
	cert := si.Certificate
	if cert == nil {
		add("DS305", si.CertificateError)
		return inner
	}

	// The signature block against the certificate.
	want := dsig.IssuerName(cert)
	switch {
	case strings.TrimSpace(si.IssuerName) == "":
		add("DS324", "")
	case !dsig.SameDistinguishedName(si.IssuerName, want):
		add("DS326", "The certificate's issuer is "+want+".")
	}
	serial, ok := new(big.Int).SetString(strings.TrimSpace(si.SerialNumber), 10)
	switch {
	case strings.TrimSpace(si.SerialNumber) == "":
		add("DS325", "")
	case !ok:
		add("DS327", "It must be the decimal serial number.")
	case serial.Cmp(cert.SerialNumber) != 0:
		add("DS328", "")
	}
	signingTime, err := time.Parse(time.RFC3339, strings.TrimSpace(si.SigningTime))
	if err != nil {
		add("DS336", "")
	}

	// The certificate against the authority's profile.
	expected := j.signerTIN
	if expected == "" {
		expected, _ = d.issuer()
	}
	for _, p := range dsig.CheckCertificate(cert, nil, expected, j.now) {
		switch p.Kind {
		case dsig.ProblemExpired, dsig.ProblemNotYetValid:
			add("DS304", p.Message+".")
		case dsig.ProblemDocSigning, dsig.ProblemNonRepud:
			add("DS334", p.Message+".")
		case dsig.ProblemOrganisation:
			if len(cert.Subject.Organization) == 0 {
				add("DS309", "")
			} else {
				add("DS307", "")
			}
		case dsig.ProblemTIN:
			oi := strings.TrimSpace(dsig.OrganizationIdentifier(cert))
			switch {
			case !wellFormedTIN(oi) || specialTINs[oi]:
				add("DS338", "")
			case NotFoundTIN(oi):
				add("DS330", "")
			case !j.anyTIN:
				add("DS311", "The certificate is issued to TIN "+oi+", the signer is "+expected+".")
			}
		}
	}
	if err == nil && (signingTime.Before(cert.NotBefore) || signingTime.After(cert.NotAfter)) && !hasCode(inner, "DS304") {
		add("DS304", "")
	}
	if strings.TrimSpace(cert.Subject.SerialNumber) == "" {
		add("DS306", "")
	}
	if !chainTrusted(cert, j.roots, j.now) {
		add("DS329", "The sandbox trusts its own test certificate authority (`einvoice sandbox ca`) and those given with --sandbox-trust-ca.")
	}
	return inner
}

func hasCode(errs []stepError, code string) bool {
	for _, e := range errs {
		if e.ErrorCode == code {
			return true
		}
	}
	return false
}
