package dsig

import (
	"crypto/x509"
	"encoding/json"
	"strings"
)

// SignatureInfo is what a signed document says about its signing
// certificate: the certificate in KeyInfo and the issuer name, serial number
// and signing time of its signed properties, as written.
type SignatureInfo struct {
	// Certificate is the X509Certificate of KeyInfo; nil when it is missing
	// or cannot be parsed (CertificateError says why).
	Certificate      *x509.Certificate
	CertificateError string
	// IssuerName and SerialNumber are the X509IssuerName and
	// X509SerialNumber of the signed properties' IssuerSerial ("" when
	// absent).
	IssuerName, SerialNumber string
	// SigningTime is the SigningTime text of the signed properties.
	SigningTime string
}

// ReadSignature reads the signing certificate's particulars from a signed
// UBL JSON document. ok is false when the document has no signature block
// (no UBLExtensions/.../Signature); parts it lacks are left empty.
func ReadSignature(signed []byte) (info SignatureInfo, ok bool) {
	if !json.Valid(signed) {
		return info, false
	}
	_, ms, found := invoiceObject(signed)
	if !found {
		return info, false
	}
	var sig span
	found = false
	for _, m := range ms {
		if keyIs(m.key, "UBLExtensions") {
			sig, found = signatureElement(signed, m.val)
			break
		}
	}
	if !found {
		return info, false
	}
	if certB64, ok := leafText(signed, sig, "KeyInfo", "X509Data", "X509Certificate"); !ok {
		info.CertificateError = "X509Certificate is missing"
	} else {
		info.Certificate, info.CertificateError = parseCertificate(strings.TrimSpace(certB64))
	}
	if qp, ok := path(signed, sig, "Object", "QualifyingProperties"); ok {
		ssp, ok := path(signed, qp, "SignedProperties", "SignedSignatureProperties")
		if ok {
			info.SigningTime, _ = leafText(signed, ssp, "SigningTime")
			info.IssuerName, _ = leafText(signed, ssp, "SigningCertificate", "Cert", "IssuerSerial", "X509IssuerName")
			info.SerialNumber, _ = leafText(signed, ssp, "SigningCertificate", "Cert", "IssuerSerial", "X509SerialNumber")
		}
	}
	return info, true
}

// IssuerName returns cert's issuer as the authority expects it in
// X509IssuerName (RFC 2253 order, ", " between names; see Summarize).
func IssuerName(cert *x509.Certificate) string {
	if s, err := distinguishedName(cert.RawIssuer); err == nil {
		return s
	}
	return cert.Issuer.String()
}

// SameDistinguishedName reports whether the distinguished name written in a
// signature (X509IssuerName) is want, the certificate's own rendering, as
// the authority compares them: name by name in the same order (a different
// order is a mismatch, DS326), attribute names without regard to case,
// spaces around '=' and ',' ignored.
func SameDistinguishedName(written, want string) bool {
	a, b := rdnParts(written), rdnParts(want)
	if len(a) != len(b) || len(a) == 0 {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// rdnAliases maps attribute names written by other libraries to the ones
// distinguishedName writes.
var rdnAliases = map[string]string{"EMAILADDRESS": "E", "ST": "S", "2.5.4.97": "OID.2.5.4.97", "ORGANIZATIONIDENTIFIER": "OID.2.5.4.97"}

// rdnParts splits a distinguished name into NAME=value parts, normalised.
func rdnParts(dn string) []string {
	var out []string
	for _, part := range splitRDNs(dn) {
		name, value, ok := strings.Cut(part, "=")
		if !ok {
			out = append(out, strings.TrimSpace(part))
			continue
		}
		name = strings.ToUpper(strings.TrimSpace(name))
		if a, ok := rdnAliases[name]; ok {
			name = a
		}
		out = append(out, name+"="+strings.TrimSpace(value))
	}
	return out
}

// splitRDNs splits at commas that are not escaped with a backslash.
func splitRDNs(dn string) []string {
	var parts []string
	start := 0
	for i := 0; i < len(dn); i++ {
		switch dn[i] {
		case '\\':
			i++
		case ',':
			parts = append(parts, dn[start:i])
			start = i + 1
		}
	}
	return append(parts, dn[start:])
}
