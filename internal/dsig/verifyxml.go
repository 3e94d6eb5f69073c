package dsig

import (
	"bytes"
	"encoding/xml"
	"strings"

	"github.com/beevik/etree"
	goxmldsig "github.com/russellhaering/goxmldsig"
)

// The namespaces of the elements VerifyXML reads.
const (
	nsInvoice = "urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"
	nsExt     = "urn:oasis:names:specification:ubl:schema:xsd:CommonExtensionComponents-2"
	nsCac     = "urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2"
	nsSig     = "urn:oasis:names:specification:ubl:schema:xsd:CommonSignatureComponents-2"
	nsSac     = "urn:oasis:names:specification:ubl:schema:xsd:SignatureAggregateComponents-2"
	nsDS      = "http://www.w3.org/2000/09/xmldsig#"
	nsXades   = "http://uri.etsi.org/01903/v1.3.2#"
)

// canonicalizers are the document Reference's transforms VerifyXML
// applies, by algorithm URI; the default is C14N 1.1, as reference 2.10
// writes.
var canonicalizers = map[string]func() goxmldsig.Canonicalizer{
	"http://www.w3.org/2006/12/xml-c14n11":            goxmldsig.MakeC14N11Canonicalizer,
	"http://www.w3.org/TR/2001/REC-xml-c14n-20010315": goxmldsig.MakeC14N10RecCanonicalizer,
	"http://www.w3.org/2001/10/xml-exc-c14n#": func() goxmldsig.Canonicalizer {
		return goxmldsig.MakeC14N10ExclusiveCanonicalizerWithPrefixList("")
	},
}

// VerifyXML checks a signed UBL 2.1 XML document as Verify checks a JSON
// one. D is the document's root element without its ext:UBLExtensions and
// cac:Signature children, canonicalised by the last canonicalisation
// Transform of the document Reference (C14N 1.1 when it names none; C14N
// 1.0 and exclusive C14N 1.0 are understood too; goxmldsig v1.6.1 does the
// canonicalisation). It then checks, in Verify's order:
//
//   - DS322: the Reference with URI "" holds base64(SHA-256(D));
//   - DS333: SignatureValue is an RSA PKCS#1 v1.5 SHA-256 signature of D by
//     the key of the X509Certificate in KeyInfo (LHDN signs the document, not
//     SignedInfo, as for JSON);
//   - DS323: the CertDigest is SHA-256 of that certificate's DER bytes;
//   - DS320: the Reference with URI "#id-xades-signed-props" holds the
//     SHA-256 of the xades:SignedProperties element, either its bytes as they
//     stand in the document (what klsheng/myinvois-php-sdk's signer hashes)
//     or its C14N 1.1 form with the namespaces in scope declared on it
//     (goxmldsig drops inherited declarations of a nested element, so they
//     are copied onto it first).
//
// Like Verify, it returns nil or a *VerifyError and does not check the
// certificate itself or listVersionID. Measured: the signing golden of
// testdata/signing (klsheng's signer) verifies once its listVersionID is
// set back to the 1.0 it was signed with; the authority's own signed XML
// sample does not reproduce by any of the three canonicalisations.
func VerifyXML(signed []byte) error {
	doc := etree.NewDocument()
	doc.ReadSettings.Permissive = false
	if err := doc.ReadFromBytes(signed); err != nil {
		return fail(CodeMalformed, "document is not well-formed XML")
	}
	root := doc.Root()
	if root == nil || root.NamespaceURI() != nsInvoice || root.Tag != "Invoice" {
		return fail(CodeMalformed, "document root is not a UBL Invoice")
	}
	ext, _, bad := signatureParts(root)
	if bad != "" {
		return fail(CodeMalformed, bad)
	}
	sig := walk(ext, nsExt, "UBLExtension", nsExt, "ExtensionContent", nsSig, "UBLDocumentSignatures",
		nsSac, "SignatureInformation", nsDS, "Signature")
	if sig == nil {
		return fail(CodeMalformed, "no UBLExtension/.../SignatureInformation/ds:Signature")
	}
	docRef, propsRef := xmlReferences(sig)
	if docRef == nil || propsRef == nil {
		return fail(CodeMalformed, `SignedInfo needs References with URI "" and "#id-xades-signed-props"`)
	}
	sigValue := walk(sig, nsDS, "SignatureValue")
	certEl := walk(sig, nsDS, "KeyInfo", nsDS, "X509Data", nsDS, "X509Certificate")
	props := walk(sig, nsDS, "Object", nsXades, "QualifyingProperties", nsXades, "SignedProperties")
	certDigest := walk(props, nsXades, "SignedSignatureProperties", nsXades, "SigningCertificate", nsXades, "Cert",
		nsXades, "CertDigest", nsDS, "DigestValue")
	docDigest, propsDigest := walk(docRef, nsDS, "DigestValue"), walk(propsRef, nsDS, "DigestValue")
	if sigValue == nil || certEl == nil || props == nil || certDigest == nil || docDigest == nil || propsDigest == nil {
		return fail(CodeMalformed, "signature block lacks SignatureValue, X509Certificate, SignedProperties, CertDigest or a DigestValue")
	}

	canon := canonicalizerOf(docRef)
	body := root.Copy()
	for _, c := range body.ChildElements() {
		if (c.Tag == "UBLExtensions" && c.NamespaceURI() == nsExt) || (c.Tag == "Signature" && c.NamespaceURI() == nsCac) {
			body.RemoveChild(c)
		}
	}
	d, err := canon.Canonicalize(body)
	if err != nil {
		return fail(CodeMalformed, "document cannot be canonicalised: "+err.Error())
	}
	return checkSignature(signedParts{
		doc: d, docDigest: xmlText(docDigest),
		sigValue: xmlText(sigValue), cert: xmlText(certEl), certDigest: xmlText(certDigest), propsDigest: xmlText(propsDigest),
		props: func(yield func([]byte) bool) {
			if raw, ok := elementBytes(signed, nsXades, "SignedProperties"); ok && !yield(raw) {
				return
			}
			if c, err := goxmldsig.MakeC14N11Canonicalizer().Canonicalize(withScope(props)); err == nil {
				yield(c)
			}
		},
	})
}

// signatureParts returns the root's one ext:UBLExtensions and one
// cac:Signature child, or a reason they are missing or repeated.
func signatureParts(root *etree.Element) (ext, sig *etree.Element, bad string) {
	for _, c := range root.ChildElements() {
		switch {
		case c.Tag == "UBLExtensions" && c.NamespaceURI() == nsExt:
			if ext != nil {
				return nil, nil, "Invoice has UBLExtensions twice"
			}
			ext = c
		case c.Tag == "Signature" && c.NamespaceURI() == nsCac:
			if sig != nil {
				return nil, nil, "Invoice has cac:Signature twice"
			}
			sig = c
		}
	}
	if ext == nil || sig == nil {
		return nil, nil, "Invoice has no ext:UBLExtensions or no cac:Signature"
	}
	return ext, sig, ""
}

// walk follows (namespace, local name) pairs down from e, taking the first
// matching child at each step; nil when one is missing.
func walk(e *etree.Element, steps ...string) *etree.Element {
	for i := 0; e != nil && i+1 < len(steps); i += 2 {
		var next *etree.Element
		for _, c := range e.ChildElements() {
			if c.Tag == steps[i+1] && c.NamespaceURI() == steps[i] {
				next = c
				break
			}
		}
		e = next
	}
	return e
}

// xmlReferences returns SignedInfo's document Reference (URI "") and
// signed-properties Reference.
func xmlReferences(sig *etree.Element) (doc, props *etree.Element) {
	si := walk(sig, nsDS, "SignedInfo")
	if si == nil {
		return nil, nil
	}
	for _, r := range si.ChildElements() {
		if r.Tag != "Reference" || r.NamespaceURI() != nsDS {
			continue
		}
		uri := r.SelectAttr("URI")
		switch {
		case uri != nil && uri.Value == "" && doc == nil:
			doc = r
		case uri != nil && uri.Value == "#id-xades-signed-props" && props == nil:
			props = r
		}
	}
	return doc, props
}

// canonicalizerOf picks the canonicalisation of the document Reference's
// transforms (the XPath ones are the removal VerifyXML does itself).
func canonicalizerOf(ref *etree.Element) goxmldsig.Canonicalizer {
	alg := "http://www.w3.org/2006/12/xml-c14n11"
	if ts := walk(ref, nsDS, "Transforms"); ts != nil {
		for _, t := range ts.ChildElements() {
			a := t.SelectAttrValue("Algorithm", "")
			if _, ok := canonicalizers[a]; ok {
				alg = a
			}
		}
	}
	return canonicalizers[alg]()
}

// withScope copies e with the namespace declarations in scope at e (from
// its ancestors) declared on the copy.
func withScope(e *etree.Element) *etree.Element {
	c := e.Copy()
	declared := map[string]bool{}
	for _, a := range c.Attr {
		if a.Space == "xmlns" {
			declared[a.Key] = true
		} else if a.Space == "" && a.Key == "xmlns" {
			declared[""] = true
		}
	}
	for p := e.Parent(); p != nil; p = p.Parent() {
		for _, a := range p.Attr {
			switch {
			case a.Space == "xmlns" && !declared[a.Key]:
				declared[a.Key] = true
				c.CreateAttr("xmlns:"+a.Key, a.Value)
			case a.Space == "" && a.Key == "xmlns" && !declared[""]:
				declared[""] = true
				c.CreateAttr("xmlns", a.Value)
			}
		}
	}
	return c
}

// elementBytes returns the bytes of the first element (ns, local) of doc as
// they stand, from its start tag to its end tag.
func elementBytes(doc []byte, ns, local string) ([]byte, bool) {
	dec := xml.NewDecoder(bytes.NewReader(doc))
	start, at, depth := int64(-1), 0, 0
	for {
		off := dec.InputOffset()
		tok, err := dec.Token()
		if err != nil {
			return nil, false
		}
		switch t := tok.(type) {
		case xml.StartElement:
			depth++
			if start < 0 && t.Name.Space == ns && t.Name.Local == local {
				start, at = off, depth
			}
		case xml.EndElement:
			if start >= 0 && depth == at {
				return doc[start:dec.InputOffset()], true
			}
			depth--
		}
	}
}

// xmlText is an element's text without the whitespace base64 may be
// wrapped with.
func xmlText(e *etree.Element) string {
	return strings.Join(strings.Fields(e.Text()), "")
}
