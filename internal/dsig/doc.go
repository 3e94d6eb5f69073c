// Package dsig implements the MyInvois (LHDN) digital signature, document
// version 1.1, for UBL 2.1 documents in their JSON representation, and its
// verification for XML documents too (VerifyXML, verifyxml.go).
//
// The scheme is XAdES-like but not standard XMLDSig (see
// shared/reference/myinvois.md, section 2.10):
//
//   - DocDigest = base64(SHA-256(D)) where D is the minified document without
//     Invoice[0].UBLExtensions and Invoice[0].Signature;
//   - SignatureValue = base64(RSASSA-PKCS1-v1_5-SHA256(D)), a signature of the
//     document bytes themselves, not of a canonicalised SignedInfo;
//   - CertDigest = base64(SHA-256(certificate DER));
//   - PropsDigest = base64(SHA-256(minified QualifyingProperties[0] object)).
//
// Everything that is hashed is handled as bytes: the input document is never
// decoded and re-encoded. A small byte-level scanner (scan.go) finds the
// members of Invoice[0] with their offsets, so that Sign can append the
// signature members at the end of Invoice[0] (where the authority's signed
// sample has them) and Verify can cut them out again wherever they are.
//
// The signature block has the members, member order and fixed values of the
// authority's signed sample (sample-ul-invoice-2.1-signed.min.json), which
// the tests reproduce byte for byte. Like that sample (and the SDK
// walkthrough, and klsheng/myinvois-php-sdk), X509SubjectName carries the
// issuer name string, not the certificate's subject. X509IssuerName is built
// from the issuer RDNs in RFC 2253 order, see distinguishedName.
package dsig
