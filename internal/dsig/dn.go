package dsig

import (
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/hex"
	"errors"
	"strings"
)

// attributeNames are the short names used for distinguished-name attributes.
// They follow .NET's X500DistinguishedName.Name (the authority's validator is
// a .NET service and its samples render names that way): E for emailAddress,
// S for stateOrProvinceName, SERIALNUMBER for serialNumber. Other attributes
// are written as OID.<dotted-oid>.
var attributeNames = map[string]string{
	"2.5.4.3":                    "CN",
	"2.5.4.4":                    "SN",
	"2.5.4.5":                    "SERIALNUMBER",
	"2.5.4.6":                    "C",
	"2.5.4.7":                    "L",
	"2.5.4.8":                    "S",
	"2.5.4.9":                    "STREET",
	"2.5.4.10":                   "O",
	"2.5.4.11":                   "OU",
	"2.5.4.12":                   "T",
	"2.5.4.42":                   "G",
	"1.2.840.113549.1.9.1":       "E",
	"0.9.2342.19200300.100.1.25": "DC",
}

// distinguishedName renders a DER-encoded X.501 Name (such as
// Certificate.RawIssuer) as the string the authority expects in
// X509IssuerName: the RDNs in RFC 2253 order (reverse of the DER order, most
// specific first), joined by ", ", each as NAME=value with no spaces around
// '='; a multi-valued RDN joins its attributes with " + ". Example (the
// authority's sample):
//
//	CN=Trial LHDNM Sub CA V1, OU=Terms of use at http://www.posdigicert.com.my, O=LHDNM, C=MY
//
// This is deliberately not pkix.Name.String(), which joins with "," and
// escapes differently.
func distinguishedName(der []byte) (string, error) {
	var seq pkix.RDNSequence
	rest, err := asn1.Unmarshal(der, &seq)
	if err != nil {
		return "", err
	}
	if len(rest) != 0 {
		return "", errors.New("dsig: trailing data after distinguished name")
	}
	var b strings.Builder
	for i := len(seq) - 1; i >= 0; i-- {
		if i != len(seq)-1 {
			b.WriteString(", ")
		}
		for j, atv := range seq[i] {
			if j > 0 {
				b.WriteString(" + ")
			}
			b.WriteString(attributeName(atv.Type))
			b.WriteByte('=')
			b.WriteString(attributeValue(atv.Value))
		}
	}
	return b.String(), nil
}

// attributeName returns the short name of an attribute type.
func attributeName(oid asn1.ObjectIdentifier) string {
	if n, ok := attributeNames[oid.String()]; ok {
		return n
	}
	return "OID." + oid.String()
}

// attributeValue renders an attribute value. A string containing a character
// that is special in a DN (or leading/trailing spaces) is put in double quotes
// with inner quotes doubled, as .NET does; a non-string value is written as
// '#' and the hex of its DER encoding, as RFC 2253 does.
func attributeValue(v any) string {
	s, ok := v.(string)
	if !ok {
		der, err := asn1.Marshal(v)
		if err != nil {
			return "#"
		}
		return "#" + hex.EncodeToString(der)
	}
	if s == "" || (!strings.ContainsAny(s, ",+=\"\n\r<>#;") && s[0] != ' ' && s[len(s)-1] != ' ') {
		return s
	}
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}
