package dsig

import (
	"crypto"
	"crypto/sha256"
	"crypto/x509"
	"encoding/asn1"
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	"software.sslmate.com/src/go-pkcs12"
)

// The object identifiers the authority's certificate profile names
// (shared/reference/myinvois.md 2.10).
var (
	// OIDDocumentSigning is the extended key usage Document Signing, which
	// the authority requires of a signing certificate.
	OIDDocumentSigning = asn1.ObjectIdentifier{1, 3, 6, 1, 4, 1, 311, 10, 3, 12}
	// OIDOrganizationIdentifier is the subject attribute that holds the
	// organisation's TIN.
	OIDOrganizationIdentifier = asn1.ObjectIdentifier{2, 5, 4, 97}
)

// ExpiryWarningPeriod is how long before its expiry a certificate is
// reported as expiring (CertificateWarnings).
const ExpiryWarningPeriod = 30 * 24 * time.Hour

// The kinds of CertProblem.
const (
	ProblemKey          = "key"            // the private key does not belong to the certificate
	ProblemExpired      = "expired"        // the certificate's validity ended
	ProblemNotYetValid  = "notYetValid"    // the certificate's validity has not begun
	ProblemDocSigning   = "docSigning"     // no Document Signing extended key usage
	ProblemNonRepud     = "nonRepudiation" // no Non-Repudiation key usage
	ProblemOrganisation = "organisation"   // not an organisation certificate
	ProblemTIN          = "tin"            // organizationIdentifier is not the signer's TIN
)

// CertProblem is one reason the authority would refuse documents signed with
// a certificate. Message says it in plain words, for the taxpayer.
type CertProblem struct {
	Kind    string
	Message string
}

// CheckCertificate reports what keeps cert (with its private key, nil when
// not known) from signing documents for the taxpayer tin at time now, by the
// authority's certificate profile: the key belongs to the certificate; now
// lies within its validity; its extended key usage includes Document Signing
// and its key usage Non-Repudiation; its subject names an organisation (O
// and organizationIdentifier); and its organizationIdentifier is tin
// (ignoring case and surrounding spaces). It does not check the chain (the
// authority's DS329). Nil means no problem found.
func CheckCertificate(cert *x509.Certificate, key crypto.PrivateKey, tin string, now time.Time) []CertProblem {
	var ps []CertProblem
	add := func(kind, format string, args ...any) {
		ps = append(ps, CertProblem{Kind: kind, Message: fmt.Sprintf(format, args...)})
	}
	if key != nil {
		pub, _ := key.(interface{ Public() crypto.PublicKey })
		eq, _ := publicOf(pub).(interface{ Equal(crypto.PublicKey) bool })
		if eq == nil || !eq.Equal(cert.PublicKey) {
			add(ProblemKey, "the private key does not belong to this certificate")
		}
	}
	switch {
	case now.After(cert.NotAfter):
		add(ProblemExpired, "the certificate expired on %s; ask your certificate authority for a new one", day(cert.NotAfter))
	case now.Before(cert.NotBefore):
		add(ProblemNotYetValid, "the certificate is not valid before %s", day(cert.NotBefore))
	}
	if !hasOID(cert.UnknownExtKeyUsage, OIDDocumentSigning) {
		add(ProblemDocSigning, "the certificate is not for signing documents: its extended key usage lacks Document Signing (%s), which the tax authority requires", OIDDocumentSigning)
	}
	if cert.KeyUsage&x509.KeyUsageContentCommitment == 0 {
		add(ProblemNonRepud, "the certificate's key usage lacks Non-Repudiation, which the tax authority requires")
	}
	oi := OrganizationIdentifier(cert)
	switch {
	case oi == "" || len(cert.Subject.Organization) == 0:
		add(ProblemOrganisation, "the certificate is not an organisation certificate: its subject needs the organisation's name (O) and its TIN (organizationIdentifier, OID 2.5.4.97); the tax authority refuses personal certificates")
	case !strings.EqualFold(strings.TrimSpace(oi), strings.TrimSpace(tin)):
		add(ProblemTIN, "the certificate is issued to TIN %s (its organizationIdentifier), not to %s, the TIN that signs; the tax authority refuses the documents it signs (DS311)", oi, tin)
	}
	return ps
}

func publicOf(k interface{ Public() crypto.PublicKey }) crypto.PublicKey {
	if k == nil {
		return nil
	}
	return k.Public()
}

func hasOID(list []asn1.ObjectIdentifier, oid asn1.ObjectIdentifier) bool {
	for _, o := range list {
		if o.Equal(oid) {
			return true
		}
	}
	return false
}

func day(t time.Time) string { return t.UTC().Format("2006-01-02") }

// OrganizationIdentifier returns the value of the subject's
// organizationIdentifier attribute (OID 2.5.4.97), or "".
func OrganizationIdentifier(cert *x509.Certificate) string {
	for _, atv := range cert.Subject.Names {
		if atv.Type.Equal(OIDOrganizationIdentifier) {
			if s, ok := atv.Value.(string); ok {
				return s
			}
		}
	}
	return ""
}

// CertificateWarnings returns what a taxpayer should know about a
// certificate that still works at now: that it expires within
// ExpiryWarningPeriod.
func CertificateWarnings(cert *x509.Certificate, now time.Time) []string {
	left := cert.NotAfter.Sub(now)
	if left < 0 || left > ExpiryWarningPeriod {
		return nil
	}
	switch days := int(left / (24 * time.Hour)); days {
	case 0:
		return []string{"expires in less than a day"}
	case 1:
		return []string{"expires in 1 day"}
	default:
		return []string{fmt.Sprintf("expires in %d days", days)}
	}
}

// CertificateSummary is what a taxpayer sees of a certificate.
type CertificateSummary struct {
	Subject           string // RFC 2253 order, as X509IssuerName is written
	Issuer            string // as written in the signature's X509IssuerName
	SerialNumber      string // decimal, as in the signature's X509SerialNumber
	NotBefore         time.Time
	NotAfter          time.Time
	FingerprintSHA256 string // lower-case hex of SHA-256 of the DER bytes
}

// Summarize returns the summary of cert.
func Summarize(cert *x509.Certificate) CertificateSummary {
	subject, err := distinguishedName(cert.RawSubject)
	if err != nil {
		subject = cert.Subject.String()
	}
	issuer, err := distinguishedName(cert.RawIssuer)
	if err != nil {
		issuer = cert.Issuer.String()
	}
	fp := sha256.Sum256(cert.Raw)
	return CertificateSummary{
		Subject: subject, Issuer: issuer, SerialNumber: cert.SerialNumber.String(),
		NotBefore: cert.NotBefore.UTC(), NotAfter: cert.NotAfter.UTC(), FingerprintSHA256: hex.EncodeToString(fp[:]),
	}
}

// LoadPEM reads a PEM certificate (the first CERTIFICATE block) and, when
// keyPEM is not empty, a PEM private key (PKCS#1 or PKCS#8), as NewSigner
// does, without requiring them to match (see CheckCertificate).
func LoadPEM(certPEM, keyPEM []byte) (*x509.Certificate, crypto.PrivateKey, error) {
	cert, err := parseCertPEM(certPEM)
	if err != nil {
		return nil, nil, err
	}
	if len(keyPEM) == 0 {
		return cert, nil, nil
	}
	key, err := parseKeyPEM(keyPEM)
	if err != nil {
		return nil, nil, err
	}
	return cert, key, nil
}

// LoadPKCS12 reads a DER-encoded PKCS#12 file as NewSignerPKCS12 does.
func LoadPKCS12(p12 []byte, password string) (*x509.Certificate, crypto.PrivateKey, error) {
	key, cert, _, err := pkcs12.DecodeChain(p12, password)
	if err != nil {
		return nil, nil, fmt.Errorf("dsig: reading PKCS#12: %w", err)
	}
	return cert, key, nil
}
