package dsig

import (
	"bytes"
	"crypto"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"iter"
)

// Verification error codes. DS320 and DS322 are the authority's codes with
// the same meaning (their messages are quoted in issues klsheng/myinvois-php-sdk
// #5 and #40). DS333 is the code third-party write-ups attach to a wrong
// signature value. DS300 and DS323 are this package's own choice: the
// authority's full DS3xx list was not available, so do not expect the
// authority to report those two numbers.
const (
	CodeMalformed    = "DS300" // not JSON, no Invoice[0], or the signature block is missing or incomplete
	CodeCertDigest   = "DS323" // CertDigest in the signed properties is not SHA-256 of the certificate inside
	CodePropsDigest  = "DS320" // signed-properties digest does not match QualifyingProperties[0]
	CodeDocDigest    = "DS322" // document digest does not match the document without the signature
	CodeSignatureVal = "DS333" // SignatureValue is not a valid RSA-SHA256 signature of the document
)

// VerifyError reports which signature check failed.
type VerifyError struct {
	Code    string // one of the Code* constants
	Message string
}

func (e *VerifyError) Error() string { return "dsig: " + e.Code + " " + e.Message }

func fail(code, msg string) error { return &VerifyError{Code: code, Message: msg} }

// Verify checks a signed UBL JSON document as the authority does. It removes
// UBLExtensions and Signature from Invoice[0] (cutting their bytes, wherever
// they are in the object, without re-encoding anything) and minifies the rest
// (removing whitespace outside strings), which gives the signed bytes D. It
// then checks, in this order:
//
//   - DS322: the Reference with URI "" holds base64(SHA-256(D));
//   - DS333: SignatureValue is an RSA PKCS#1 v1.5 SHA-256 signature of D by
//     the key of the X509Certificate in KeyInfo;
//   - DS323: the CertDigest in the signed properties is SHA-256 of that
//     certificate's DER bytes;
//   - DS320: the Reference with URI "#id-xades-signed-props" holds the SHA-256
//     of the minified QualifyingProperties[0] object.
//
// It returns nil or a *VerifyError. It does not check the certificate chain,
// validity period, X509IssuerName/X509SerialNumber, or listVersionID.
func Verify(signed []byte) error {
	if !json.Valid(signed) {
		return fail(CodeMalformed, "document is not valid JSON")
	}
	obj, ms, ok := invoiceObject(signed)
	if !ok {
		return fail(CodeMalformed, `document has no "Invoice":[{...}]`)
	}
	extIdx, sigIdx := -1, -1
	for i, m := range ms {
		switch {
		case keyIs(m.key, "UBLExtensions"):
			if extIdx >= 0 {
				return fail(CodeMalformed, "Invoice[0] has UBLExtensions twice")
			}
			extIdx = i
		case keyIs(m.key, "Signature"):
			if sigIdx >= 0 {
				return fail(CodeMalformed, "Invoice[0] has Signature twice")
			}
			sigIdx = i
		}
	}
	if extIdx < 0 || sigIdx < 0 {
		return fail(CodeMalformed, "Invoice[0] has no UBLExtensions or no Signature")
	}

	b := signed
	sig, ok := signatureElement(b, ms[extIdx].val)
	if !ok {
		return fail(CodeMalformed, "no UBLExtension/.../SignatureInformation/Signature")
	}
	docRef, propsRef, ok := references(b, sig)
	if !ok {
		return fail(CodeMalformed, `SignedInfo needs References with URI "" and "#id-xades-signed-props"`)
	}
	sigB64, ok1 := leafText(b, sig, "SignatureValue")
	certB64, ok2 := leafText(b, sig, "KeyInfo", "X509Data", "X509Certificate")
	qp, ok3 := path(b, sig, "Object", "QualifyingProperties")
	certDigest, ok4 := leafText(b, qp, "SignedProperties", "SignedSignatureProperties",
		"SigningCertificate", "Cert", "CertDigest", "DigestValue")
	if !ok1 || !ok2 || !ok3 || !ok4 {
		return fail(CodeMalformed, "signature block lacks SignatureValue, X509Certificate or CertDigest")
	}

	body := withoutMembers(signed, obj, ms, func(i int) bool { return i == extIdx || i == sigIdx })
	return checkSignature(signedParts{
		doc: appendMinified(make([]byte, 0, len(body)), body), docDigest: docRef,
		sigValue: sigB64, cert: certB64, certDigest: certDigest, propsDigest: propsRef,
		props: func(yield func([]byte) bool) { yield(appendMinified(nil, b[qp.start:qp.end])) },
	})
}

// signedParts is what a verifier reads from a signed document, JSON or
// XML: the signed bytes and the signature block's texts, as written.
type signedParts struct {
	doc         []byte // D, the document without its signature as signed
	docDigest   string // DigestValue of the Reference with URI ""
	sigValue    string // SignatureValue (base64)
	cert        string // X509Certificate (base64 DER)
	certDigest  string // the signed properties' CertDigest DigestValue
	propsDigest string // DigestValue of the Reference "#id-xades-signed-props"
	// props yields the forms of the signed properties that may have been
	// hashed, most likely first; DS320 passes when one hashes to
	// propsDigest. It is read only once the other checks have passed.
	props iter.Seq[[]byte]
}

// checkSignature makes the checks Verify and VerifyXML share, in this
// order: DS322 (SHA-256 of doc is docDigest), the certificate (DS300 when
// it is not base64 DER), DS333 (sigValue is an RSA PKCS#1 v1.5 SHA-256
// signature of doc by the certificate's key), DS323 (SHA-256 of the
// certificate's DER is certDigest) and DS320 (a form of the signed
// properties hashes to propsDigest). It returns nil or a *VerifyError.
func checkSignature(p signedParts) error {
	docHash := sha256.Sum256(p.doc)
	if !digestIs(p.docDigest, docHash[:]) {
		return fail(CodeDocDigest, "document digest does not match the document content")
	}

	cert, why := parseCertificate(p.cert)
	if why != "" {
		return fail(CodeMalformed, why)
	}
	pub, ok := cert.PublicKey.(*rsa.PublicKey)
	if !ok {
		return fail(CodeSignatureVal, "certificate key is not RSA")
	}
	sigBytes, err := base64.StdEncoding.DecodeString(p.sigValue)
	if err != nil || rsa.VerifyPKCS1v15(pub, crypto.SHA256, docHash[:], sigBytes) != nil {
		return fail(CodeSignatureVal, "signature value does not verify with the certificate")
	}

	certHash := sha256.Sum256(cert.Raw)
	if !digestIs(p.certDigest, certHash[:]) {
		return fail(CodeCertDigest, "certificate digest does not match the certificate")
	}

	for form := range p.props {
		h := sha256.Sum256(form)
		if digestIs(p.propsDigest, h[:]) {
			return nil
		}
	}
	return fail(CodePropsDigest, "signed properties digest does not match the signed properties")
}

// signatureElement returns the span of
// UBLExtensions[0].UBLExtension[0].ExtensionContent[0].UBLDocumentSignatures[0]
// .SignatureInformation[0].Signature[0], given the UBLExtensions array.
func signatureElement(b []byte, ublExtensions span) (span, bool) {
	ext, ok := arrayElement(b, ublExtensions, 0)
	if !ok {
		return span{}, false
	}
	return path(b, ext, "UBLExtension", "ExtensionContent",
		"UBLDocumentSignatures", "SignatureInformation", "Signature")
}

// references returns the DigestValue texts of the document Reference (URI "")
// and of the signed-properties Reference of Signature/SignedInfo[0].
func references(b []byte, sig span) (doc, props string, ok bool) {
	si, ok := path(b, sig, "SignedInfo")
	if !ok {
		return "", "", false
	}
	refs, ok := field(b, si, "Reference")
	if !ok {
		return "", "", false
	}
	// One pass over the array (indexing each element would rescan it:
	// quadratic in a hostile document's element count), stopping once both
	// are found.
	var haveDoc, haveProps bool
	eachElement(b, refs, func(ref span) bool {
		u, ok := field(b, ref, "URI")
		if !ok {
			return true
		}
		uri, ok := stringAt(b, u)
		if !ok {
			return true
		}
		d, ok := leafText(b, ref, "DigestValue")
		if !ok {
			return true
		}
		switch {
		case uri == "" && !haveDoc:
			doc, haveDoc = d, true
		case uri == signedPropsURI && !haveProps:
			props, haveProps = d, true
		}
		return !(haveDoc && haveProps)
	})
	return doc, props, haveDoc && haveProps
}

// parseCertificate reads the base64 DER text of an X509Certificate (the
// signature's and ReadSignature's); why says why it cannot, for DS300 or
// SignatureInfo.CertificateError.
func parseCertificate(b64 string) (cert *x509.Certificate, why string) {
	der, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		return nil, "X509Certificate is not base64"
	}
	cert, err = x509.ParseCertificate(der)
	if err != nil {
		return nil, "X509Certificate: " + err.Error()
	}
	return cert, ""
}

// digestIs reports whether the base64 text b64 decodes to sum.
func digestIs(b64 string, sum []byte) bool {
	d, err := base64.StdEncoding.DecodeString(b64)
	return err == nil && bytes.Equal(d, sum)
}
