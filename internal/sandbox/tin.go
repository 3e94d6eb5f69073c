package sandbox

import (
	"net/http"
	"slices"
	"strings"
)

// nonIndividualPrefixes are the TIN prefixes of non-individuals; their TINs
// end in 0.
var nonIndividualPrefixes = []string{"C", "CS", "D", "F", "FA", "PT", "TA", "TC", "TN", "TR", "TP", "J", "LE"}

// specialTINs are the general TINs (general public, foreign buyer, foreign
// supplier, government).
var specialTINs = []string{"EI00000000010", "EI00000000020", "EI00000000030", "EI00000000040"}

// idTypes are the accepted registration id types.
var idTypes = []string{"BRN", "NRIC", "PASSPORT", "ARMY"}

// splitTIN returns a TIN's letter prefix and digits.
func splitTIN(tin string) (prefix, digits string) {
	i := strings.IndexFunc(tin, func(r rune) bool { return r < 'A' || r > 'Z' })
	if i < 0 {
		return tin, ""
	}
	return tin[:i], tin[i:]
}

func allDigits(s string) bool {
	return s != "" && strings.IndexFunc(s, func(r rune) bool { return r < '0' || r > '9' }) < 0
}

// wellFormedTIN reports whether tin has the form of a TIN: IG and 9 to 12
// digits (individuals); a non-individual prefix and digits ending in 0, at
// most 14 characters; or one of the four special EI TINs.
func wellFormedTIN(tin string) bool {
	if slices.Contains(specialTINs, tin) {
		return true
	}
	prefix, digits := splitTIN(tin)
	if !allDigits(digits) {
		return false
	}
	switch {
	case prefix == "IG":
		return len(digits) >= 9 && len(digits) <= 12
	case slices.Contains(nonIndividualPrefixes, prefix):
		return len(digits) >= 2 && len(tin) <= 14 && strings.HasSuffix(digits, "0")
	}
	return false
}

// NotFoundTIN reports whether tin is in the sandbox's reserved not-found
// set: a well-formed TIN whose digits are all 9 after the letter prefix
// (ignoring the trailing 0 of non-individual TINs), e.g. IG999999999,
// IG999999999999, C99999999990, CS9990. Validate TIN answers 404 for them
// and a document naming one as supplier or buyer is Invalid (taxpayer not
// found). Every other well-formed TIN exists in the sandbox.
func NotFoundTIN(tin string) bool {
	if !wellFormedTIN(tin) || slices.Contains(specialTINs, tin) {
		return false
	}
	prefix, digits := splitTIN(tin)
	if prefix != "IG" {
		digits = strings.TrimSuffix(digits, "0")
	}
	return strings.Trim(digits, "9") == "" && digits != ""
}

// handleValidateTIN is GET /api/v1.0/taxpayer/validate/{tin}?idType&idValue:
// 200 (empty) for a well-formed TIN with an id, 404 for the reserved
// not-found set, 400 BadArgument for malformed input.
func (s *Server) handleValidateTIN(w http.ResponseWriter, r *http.Request, _ caller) {
	tin := r.PathValue("tin")
	idType, idValue := param(r, "idType"), param(r, "idValue")
	switch {
	case !wellFormedTIN(tin):
		badArgument(w, "tin", "The TIN is not well formed")
	case !slices.Contains(idTypes, idType):
		badArgument(w, "idType", "idType must be one of BRN, NRIC, PASSPORT, ARMY")
	case idValue == "" || !cleanText(idValue, 50):
		badArgument(w, "idValue", "idValue is required")
	case NotFoundTIN(tin):
		writeError(w, http.StatusNotFound, apiError{Code: "NotFound", Message: "No taxpayer found for the TIN and id", Target: tin})
	default:
		w.WriteHeader(http.StatusOK)
	}
}
