package einvoice

import (
	"net/mail"
	"regexp"
	"strings"
)

// Field length limits of the authority (reference myinvois.md 2.3).
const (
	MaxNameLen        = 300
	MaxTINLen         = 14
	MaxIDValueLen     = 20 // BRN; other id types allow 12
	MaxSSTLen         = 35
	MaxTTXLen         = 17
	MaxMSICLen        = 5
	MaxActivityLen    = 300
	MaxAddressLineLen = 150
	MaxCityLen        = 50
	MaxPostCodeLen    = 50
	MaxPhoneLen       = 20
	MaxEmailLen       = 320
	MaxFaxLen         = 20
)

// The special TINs of the authority (SG Appendix 1).
const (
	TINGeneralPublic   = "EI00000000010"
	TINForeignBuyer    = "EI00000000020"
	TINForeignSeller   = "EI00000000030"
	TINGovernment      = "EI00000000040"
	CountryMalaysia    = "MYS"
	StateNotApplicable = "17"
)

var (
	individualTIN    = regexp.MustCompile(`^IG[0-9]{9,12}$`)
	nonIndividualTIN = regexp.MustCompile(`^(C|CS|D|F|FA|PT|TA|TC|TN|TR|TP|J|LE)[1-9][0-9]*0$`)
	phonePattern     = regexp.MustCompile(`^\+?[0-9]{8,19}$`)
	msicPattern      = regexp.MustCompile(`^[0-9]{5}$`)
	myPostCode       = regexp.MustCompile(`^[0-9]{5}$`)
	nricPattern      = regexp.MustCompile(`^[0-9]{12}$`)
	sstPattern       = regexp.MustCompile(`^[A-Za-z0-9-]+(;[A-Za-z0-9-]+)?$`)
	ttxPattern       = regexp.MustCompile(`^[A-Za-z0-9-]+$`)
)

// IsSpecialTIN reports whether tin is one of the authority's general TINs,
// which need no TIN check.
func IsSpecialTIN(tin string) bool {
	switch tin {
	case TINGeneralPublic, TINForeignBuyer, TINForeignSeller, TINGovernment:
		return true
	}
	return false
}

// CheckTIN returns a problem with the TIN's format, or "" when it is
// well-formed: individual "IG" and 9 to 12 digits; a non-individual prefix
// (C, CS, D, F, FA, PT, TA, TC, TN, TR, TP, J, LE) and digits without
// leading zeros ending in 0; or a special TIN. At most 14 characters.
func CheckTIN(tin string) string {
	switch {
	case len(tin) > MaxTINLen:
		return "must be at most 14 characters"
	case IsSpecialTIN(tin), individualTIN.MatchString(tin), nonIndividualTIN.MatchString(tin):
		return ""
	case strings.HasPrefix(tin, "IG"):
		return "an individual TIN is IG followed by 9 to 12 digits"
	case strings.HasPrefix(tin, "EI"):
		return "is not one of the special TINs EI00000000010, EI00000000020, EI00000000030, EI00000000040"
	default:
		return "is not a well-formed TIN (IG and digits for individuals; a prefix such as C followed by digits, without leading zeros, ending in 0)"
	}
}

// CheckIDValue returns a problem with an identification number of the given
// type, or "": BRN at most 20 characters, NRIC 12 digits, PASSPORT and ARMY
// at most 12 characters. "NA" is allowed with a special TIN.
func CheckIDValue(idType, value, tin string) string {
	if value == "NA" {
		if IsSpecialTIN(tin) {
			return ""
		}
		return "NA is only allowed with a special TIN (EI000000000x0)"
	}
	switch idType {
	case "BRN":
		if len(value) > 20 {
			return "a BRN has at most 20 characters"
		}
	case "NRIC":
		if !nricPattern.MatchString(value) {
			return "an NRIC number is 12 digits without dashes"
		}
	case "PASSPORT", "ARMY":
		if len(value) > 12 {
			return "a " + idType + " number has at most 12 characters"
		}
	}
	return ""
}

// CheckPhone returns a problem with a phone number, or "": 8 to 20
// characters, digits with an optional leading "+", no spaces.
func CheckPhone(phone string) string {
	if phonePattern.MatchString(phone) {
		return ""
	}
	return "must be 8 to 20 characters: digits with an optional leading +, no spaces or dashes (e.g. +60123456789)"
}

// CheckEmail returns a problem with an e-mail address, or "".
func CheckEmail(email string) string {
	if len(email) > MaxEmailLen {
		return "must be at most 320 characters"
	}
	a, err := mail.ParseAddress(email)
	if err != nil || a.Address != email || strings.ContainsAny(email, " \t") {
		return "is not a valid e-mail address"
	}
	return ""
}

// CheckMSIC returns a problem with an MSIC code, or "": five digits
// ("00000" when not applicable).
func CheckMSIC(code string) string {
	if msicPattern.MatchString(code) {
		return ""
	}
	return "must be a 5-digit MSIC code (00000 when not applicable)"
}

// CheckSST returns a problem with an SST registration number, or "": letters,
// digits and dashes, at most two joined by ";", or NA.
func CheckSST(sst string) string {
	if sst == "NA" || sstPattern.MatchString(sst) {
		return ""
	}
	return "must be NA or up to two registration numbers (letters, digits, dashes) joined by ;"
}

// CheckTTX returns a problem with a tourism tax registration number, or "".
func CheckTTX(ttx string) string {
	if ttx == "NA" || ttxPattern.MatchString(ttx) {
		return ""
	}
	return "must be NA or a registration number of letters, digits and dashes"
}

// CheckPostCode returns a problem with a postcode in the given country, or
// "": five digits in Malaysia.
func CheckPostCode(country, postCode string) string {
	if country == CountryMalaysia && !myPostCode.MatchString(postCode) {
		return "a Malaysian postcode is 5 digits"
	}
	return ""
}
