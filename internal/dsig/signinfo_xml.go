package dsig

import (
	"github.com/beevik/etree"
)

// ReadSignatureXML reads the signing certificate's particulars from a
// signed UBL 2.1 XML document, as ReadSignature does for JSON: ok is false
// when the document cannot be read or has no signature (no ds:Signature
// under ext:UBLExtensions); parts it lacks are left empty.
func ReadSignatureXML(signed []byte) (info SignatureInfo, ok bool) {
	doc := etree.NewDocument()
	if err := doc.ReadFromBytes(signed); err != nil || doc.Root() == nil {
		return info, false
	}
	ext := child(doc.Root(), "UBLExtensions")
	if ext == nil {
		return info, false
	}
	sig := descendant(ext, "Signature")
	if sig == nil {
		return info, false
	}
	if c := descendant(sig, "X509Certificate"); c == nil {
		info.CertificateError = "X509Certificate is missing"
	} else {
		info.Certificate, info.CertificateError = parseCertificate(xmlText(c))
	}
	if ssp := descendant(sig, "SignedSignatureProperties"); ssp != nil {
		text := func(name string) string {
			if e := descendant(ssp, name); e != nil {
				return e.Text()
			}
			return ""
		}
		info.SigningTime = text("SigningTime")
		info.IssuerName = text("X509IssuerName")
		info.SerialNumber = text("X509SerialNumber")
	}
	return info, true
}

// child is e's first child element of the local name tag, or nil.
func child(e *etree.Element, tag string) *etree.Element {
	for _, c := range e.ChildElements() {
		if c.Tag == tag {
			return c
		}
	}
	return nil
}

// descendant is e's first descendant element (depth first) of the local
// name tag, or nil.
func descendant(e *etree.Element, tag string) *etree.Element {
	for _, c := range e.ChildElements() {
		if c.Tag == tag {
			return c
		}
		if d := descendant(c, tag); d != nil {
			return d
		}
	}
	return nil
}
