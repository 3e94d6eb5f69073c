package dsig

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

// Fixed values of the signature block (authority sample
// sample-ul-invoice-2.1-signed.min.json, SDK page signature-creation-json).
const (
	extensionURI    = "urn:oasis:names:specification:ubl:dsig:enveloped:xades"
	signatureInfoID = "urn:oasis:names:specification:ubl:signature:1"
	referencedSigID = "urn:oasis:names:specification:ubl:signature:Invoice"
	algRSASHA256    = "http://www.w3.org/2001/04/xmldsig-more#rsa-sha256"
	algSHA256       = "http://www.w3.org/2001/04/xmlenc#sha256"
	signedPropsType = "http://uri.etsi.org/01903/v1.3.2#SignedProperties"
	signedPropsURI  = "#id-xades-signed-props"
	signedPropsID   = "id-xades-signed-props"

	// signingTimeLayout is the SigningTime format of the sample (UTC).
	signingTimeLayout = "2006-01-02T15:04:05Z"
)

// certInfo holds the certificate values written into the signature block.
type certInfo struct {
	der    string // X509Certificate: base64 of the DER bytes
	digest string // CertDigest: base64(SHA-256(DER))
	issuer string // X509IssuerName (also written as X509SubjectName, as the sample does)
	serial string // X509SerialNumber in decimal
}

// appendString appends s as a JSON string, with exactly the bytes an
// encoding/json Encoder with SetEscapeHTML(false) writes: '<', '>', '&' and
// '/' stay literal.
func appendString(dst []byte, s string) []byte {
	plain := utf8.ValidString(s)
	for i := 0; plain && i < len(s); i++ {
		plain = s[i] >= 0x20 && s[i] != '"' && s[i] != '\\' && s[i] != 0xE2 // 0xE2 may start U+2028/U+2029
	}
	if plain {
		dst = append(dst, '"')
		dst = append(dst, s...)
		return append(dst, '"')
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return append(dst, bytes.TrimSuffix(buf.Bytes(), []byte("\n"))...)
}

// appendLeaf appends "name":[{"_":text}].
func appendLeaf(dst []byte, name, text string) []byte {
	dst = appendString(dst, name)
	dst = append(dst, `:[{"_":`...)
	dst = appendString(dst, text)
	return append(dst, `}]`...)
}

// appendAlgorithm appends "name":[{"_":"","Algorithm":alg}].
func appendAlgorithm(dst []byte, name, alg string) []byte {
	dst = appendString(dst, name)
	dst = append(dst, `:[{"_":"","Algorithm":`...)
	dst = appendString(dst, alg)
	return append(dst, `}]`...)
}

// appendIssuerSerial appends "name":[{"X509IssuerName":..,"X509SerialNumber":..}].
func appendIssuerSerial(dst []byte, name string, ci *certInfo) []byte {
	dst = appendString(dst, name)
	dst = append(dst, `:[{`...)
	dst = appendLeaf(dst, "X509IssuerName", ci.issuer)
	dst = append(dst, ',')
	dst = appendLeaf(dst, "X509SerialNumber", ci.serial)
	return append(dst, `}]`...)
}

// appendQualifyingProperties appends the minified QualifyingProperties[0]
// object, whose SHA-256 is the signed-properties digest.
func appendQualifyingProperties(dst []byte, signingTime string, ci *certInfo) []byte {
	dst = append(dst, `{"Target":"signature","SignedProperties":[{"Id":`...)
	dst = appendString(dst, signedPropsID)
	dst = append(dst, `,"SignedSignatureProperties":[{`...)
	dst = appendLeaf(dst, "SigningTime", signingTime)
	dst = append(dst, `,"SigningCertificate":[{"Cert":[{"CertDigest":[{`...)
	dst = appendAlgorithm(dst, "DigestMethod", algSHA256)
	dst = append(dst, ',')
	dst = appendLeaf(dst, "DigestValue", ci.digest)
	dst = append(dst, `}],`...)
	dst = appendIssuerSerial(dst, "IssuerSerial", ci)
	return append(dst, `}]}]}]}]}`...)
}

// appendReference appends one SignedInfo Reference object.
func appendReference(dst []byte, typ, uri, digest string) []byte {
	dst = append(dst, `{"Type":`...)
	dst = appendString(dst, typ)
	dst = append(dst, `,"URI":`...)
	dst = appendString(dst, uri)
	dst = append(dst, ',')
	dst = appendAlgorithm(dst, "DigestMethod", algSHA256)
	dst = append(dst, ',')
	dst = appendLeaf(dst, "DigestValue", digest)
	return append(dst, '}')
}

// sigValues are the computed values of one signature.
type sigValues struct {
	qp          []byte // minified QualifyingProperties[0]
	propsDigest string // base64 SHA-256 of qp
	docDigest   string // base64 SHA-256 of the unsigned document
	sigValue    string // base64 RSA-SHA256 signature of the unsigned document
}

// appendSignatureMembers appends the two members `"UBLExtensions":[...],
// "Signature":[...]` (minified), with the element order of the authority's
// signed sample.
func appendSignatureMembers(dst []byte, v *sigValues, ci *certInfo) []byte {
	dst = append(dst, `"UBLExtensions":[{"UBLExtension":[{`...)
	dst = appendLeaf(dst, "ExtensionURI", extensionURI)
	dst = append(dst, `,"ExtensionContent":[{"UBLDocumentSignatures":[{"SignatureInformation":[{`...)
	dst = appendLeaf(dst, "ID", signatureInfoID)
	dst = append(dst, ',')
	dst = appendLeaf(dst, "ReferencedSignatureID", referencedSigID)
	dst = append(dst, `,"Signature":[{"Id":"signature","Object":[{"QualifyingProperties":[`...)
	dst = append(dst, v.qp...)
	dst = append(dst, `]}],"KeyInfo":[{"X509Data":[{`...)
	dst = appendLeaf(dst, "X509Certificate", ci.der)
	dst = append(dst, ',')
	dst = appendLeaf(dst, "X509SubjectName", ci.issuer)
	dst = append(dst, ',')
	dst = appendIssuerSerial(dst, "X509IssuerSerial", ci)
	dst = append(dst, `}]}],`...)
	dst = appendLeaf(dst, "SignatureValue", v.sigValue)
	dst = append(dst, `,"SignedInfo":[{`...)
	dst = appendAlgorithm(dst, "SignatureMethod", algRSASHA256)
	dst = append(dst, `,"Reference":[`...)
	dst = appendReference(dst, signedPropsType, signedPropsURI, v.propsDigest)
	dst = append(dst, ',')
	dst = appendReference(dst, "", "", v.docDigest)
	dst = append(dst, `]}]}]}]}]}]}]}],"Signature":[{`...)
	dst = appendLeaf(dst, "ID", referencedSigID)
	dst = append(dst, ',')
	dst = appendLeaf(dst, "SignatureMethod", extensionURI)
	return append(dst, `}]`...)
}
