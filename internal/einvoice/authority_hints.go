package einvoice

import (
	"encoding/json"
	"slices"
	"strings"
)

// authorityHints says, for each of the authority's signature codes
// (DS3xx; shared/reference/myinvois.md 1.12 and 7), what it means and what
// to check, in one sentence for the taxpayer. DS302, the duplicate, is
// settled to its original instead (invoicing/duplicate.go). DS300 and DS323
// are the built-in sandbox's own codes (dsig.Verify).
var authorityHints = map[string]string{
	"DS300": "The document's signature block is missing, incomplete or unreadable: submit the document exactly as the service signed it.",
	"DS307": "The signing certificate has no organizationIdentifier (the company's TIN) in its subject: use an organisation certificate that carries your TIN (GET /profile shows its subject).",
	"DS309": "The document was signed with a personal certificate, and submissions through the API need an organisation certificate: upload your company's certificate with PUT /profile.",
	"DS311": "The TIN in the signing certificate (its organizationIdentifier) is not the TIN that logged in: check that the profile's certificate was issued to the profile's TIN (an intermediary's, to its own TIN).",
	"DS312": "The registration number in the signing certificate (its serialNumber, the BRN) is not the signer's: check that the profile's certificate belongs to the company whose BRN is in the profile.",
	"DS320": "The digest of the signature's signed properties does not match them, so the signature block changed after signing: submit the document exactly as the service signed it.",
	"DS322": "The document's digest does not match its content, so the document changed after it was signed: submit it again without changing a byte of what the service signed.",
	"DS323": "The certificate digest in the signature is not that of the certificate inside it, so the signature block changed after signing: submit the document exactly as the service signed it.",
	"DS326": "The certificate's issuer name in the signature (X509IssuerName) does not match the certificate's issuer as the authority writes it: compare the issuer GET /profile shows with the certificate authority's name, and report it to us with the document's id.",
	"DS329": "The signing certificate was not issued by a certificate authority the tax authority trusts: use a certificate from an MCMC-licensed Malaysian certificate authority (a self-signed one is refused).",
	"DS333": "The signature does not verify with the certificate's public key: check that the profile's private key belongs to its certificate, and that nothing changed the document after signing.",
}

// AuthorityHint returns what the authority's error code means and what to
// check, in one sentence, or "" when there is nothing to add to the
// authority's own message.
func AuthorityHint(code string) string {
	return authorityHints[strings.ToUpper(strings.TrimSpace(code))]
}

// Hint is AuthorityHint of e's code.
func (e AuthorityError) Hint() string { return AuthorityHint(e.Code) }

// MarshalJSON writes e with its hint (AuthorityHint of its code) as "hint",
// left out when there is none; the authority's code and message are as it
// sent them.
func (e AuthorityError) MarshalJSON() ([]byte, error) {
	type plain AuthorityError
	return json.Marshal(struct {
		plain
		Hint string `json:"hint,omitempty"`
	}{plain(e), e.Hint()})
}

// AuthorityHints returns the hints of errs and of their details, each once,
// in order.
func AuthorityHints(errs []AuthorityError) []string {
	var out []string
	var walk func([]AuthorityError)
	walk = func(es []AuthorityError) {
		for _, e := range es {
			if h := e.Hint(); h != "" && !slices.Contains(out, h) {
				out = append(out, h)
			}
			walk(e.Details)
		}
	}
	walk(errs)
	return out
}
