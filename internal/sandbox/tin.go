package sandbox

import (
	"context"
	"net/http"
	"regexp"
	"strings"

	"github.com/einvoice/einvoice/internal/refdata"
)

// splitTIN returns a TIN's letter prefix and digits.
func splitTIN(tin string) (prefix, digits string) {
	i := strings.IndexFunc(tin, func(r rune) bool { return r < 'A' || r > 'Z' })
	if i < 0 {
		return tin, ""
	}
	return tin[:i], tin[i:]
}

// The forms of a TIN the authority knows. The sandbox keeps its own copy of
// the rule, apart from the service's: it judges what the service sends.
var (
	individualTIN    = regexp.MustCompile(`^IG[0-9]{9,12}$`)
	nonIndividualTIN = regexp.MustCompile(`^(C|CS|D|F|FA|PT|TA|TC|TN|TR|TP|J|LE)[1-9][0-9]*0$`)
)

// specialTINs are the authority's four special TINs: the General Public, a
// foreign buyer, a foreign seller, a government body.
var specialTINs = map[string]bool{"EI00000000010": true, "EI00000000020": true, "EI00000000030": true, "EI00000000040": true}

// wellFormedTIN reports whether tin has the form of a TIN: IG and 9 to 12
// digits (individuals); a non-individual prefix and digits without leading
// zeros ending in 0; or one of the four special EI TINs; at most 14
// characters.
func wellFormedTIN(tin string) bool {
	return len(tin) <= 14 && (specialTINs[tin] || individualTIN.MatchString(tin) || nonIndividualTIN.MatchString(tin))
}

// NotFoundTIN reports whether tin is in the sandbox's reserved not-found
// set: a well-formed TIN whose digits are all 9 after the letter prefix
// (ignoring the trailing 0 of non-individual TINs), e.g. IG999999999,
// IG999999999999, C99999999990, CS9990. Validate TIN answers 404 for them
// and a document naming one as supplier or buyer is Invalid (taxpayer not
// found). Every other well-formed TIN exists in the sandbox.
func NotFoundTIN(tin string) bool {
	if !wellFormedTIN(tin) || specialTINs[tin] {
		return false
	}
	prefix, digits := splitTIN(tin)
	if prefix != "IG" {
		digits = strings.TrimSuffix(digits, "0")
	}
	return strings.Trim(digits, "9") == "" && digits != ""
}

// handleValidateTIN is GET /api/v1.0/taxpayer/validate/{tin}?idType&idValue:
// 200 (empty) for a known, well-formed TIN whose id matches (idMatches),
// 404 for the reserved not-found set or an id that does not match, 400
// BadArgument for malformed input.
func (s *Server) handleValidateTIN(w http.ResponseWriter, r *http.Request, _ caller) {
	tin := r.PathValue("tin")
	idType, idValue := param(r, "idType"), param(r, "idValue")
	switch {
	case !wellFormedTIN(tin):
		badArgument(w, "tin", "The TIN is not well formed")
	case !refdata.IDTypes.Has(idType):
		badArgument(w, "idType", "idType must be one of BRN, NRIC, PASSPORT, ARMY")
	case idValue == "" || !cleanText(idValue, 50):
		badArgument(w, "idValue", "idValue is required")
	case NotFoundTIN(tin):
		writeError(w, http.StatusNotFound, apiError{Code: "NotFound", Message: "No taxpayer found for the TIN and id", Target: tin})
	default:
		ok, err := s.idMatches(r.Context(), tin, idType, idValue)
		switch {
		case err != nil:
			s.internalError(w, r, err)
		case !ok:
			writeError(w, http.StatusNotFound, apiError{Code: "NotFound", Message: "No taxpayer found for the TIN and id", Target: tin})
		default:
			w.WriteHeader(http.StatusOK)
		}
	}
}

// idMatches is the TIN and id cross-check (DECISIONS 4): a TIN bound to a
// sandbox client matches only the id of that client's taxpayer (the id type
// and value compared without regard to case and surrounding spaces); any
// other TIN matches any id except one whose digits are all 9.
func (s *Server) idMatches(ctx context.Context, tin, idType, idValue string) (bool, error) {
	bt, bv, ok, err := s.boundIdentity(ctx, tin)
	if err != nil {
		return false, err
	}
	if ok {
		return strings.EqualFold(strings.TrimSpace(bt), strings.TrimSpace(idType)) &&
			strings.EqualFold(strings.TrimSpace(bv), strings.TrimSpace(idValue)), nil
	}
	return !allNines(idValue), nil
}

// allNines reports whether the digits of an id are all 9 (and there is at
// least one): such ids match no TIN.
func allNines(id string) bool {
	digits := 0
	for _, r := range id {
		switch {
		case r == '9':
			digits++
		case r >= '0' && r <= '8':
			return false
		}
	}
	return digits > 0
}
