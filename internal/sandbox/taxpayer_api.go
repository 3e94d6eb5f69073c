package sandbox

import (
	"net/http"
	"strings"

	"github.com/einvoice/einvoice/internal/refdata"
)

// handleSearchTIN is GET /api/v1.0/taxpayer/search/tin: the one TIN of the
// taxpayers the sandbox knows (those bound to clients) matching taxpayerName
// and/or idType with idValue, and fileType (1 individual, IG TINs; 2 the
// others). 400 BadArgument for a bad combination, 400 BadRequest when more
// than one TIN matches, 404 when none.
func (s *Server) handleSearchTIN(w http.ResponseWriter, r *http.Request, _ caller) {
	name, idType, idValue, fileType := param(r, "taxpayerName"), strings.ToUpper(param(r, "idType")), param(r, "idValue"), param(r, "fileType")
	switch {
	case !cleanText(name, 300) || !cleanText(idValue, 50):
		badArgument(w, "taxpayerName", "taxpayerName or idValue is too long")
		return
	case (idType == "") != (idValue == ""):
		badArgument(w, "idType", "idType and idValue come together")
		return
	case idType == "" && name == "":
		badArgument(w, "taxpayerName", "taxpayerName, or idType and idValue, are required")
		return
	case idType != "" && !refdata.IDTypes.Has(idType):
		badArgument(w, "idType", "idType must be one of BRN, NRIC, PASSPORT, ARMY")
		return
	case fileType != "" && fileType != "1" && fileType != "2":
		badArgument(w, "fileType", "fileType must be 1 (individual) or 2 (non-individual)")
		return
	}
	found, err := s.findTaxpayers(r.Context(), TaxpayerQuery{Name: name, IDType: idType, IDValue: idValue})
	if err != nil {
		s.internalError(w, r, err)
		return
	}
	var tins []string
	for _, t := range found {
		individual := strings.HasPrefix(t.TIN, "IG")
		if fileType == "" || (fileType == "1") == individual {
			tins = append(tins, t.TIN)
		}
	}
	switch len(tins) {
	case 0:
		writeError(w, http.StatusNotFound, apiError{Code: "NotFound", Message: "No TIN was found for the search criteria"})
	case 1:
		writeJSON(w, http.StatusOK, map[string]string{"tin": tins[0]})
	default:
		writeError(w, http.StatusBadRequest, apiError{Code: "BadRequest",
			Message: "Search criteria in not conclusive and more than one TIN can be found to match the search criteria provided, please revise the search criteria."})
	}
}

// handleQRInfo is GET /api/v1.0/taxpayers/qrcodeinfo/{qrCodeText}: the
// taxpayer of a QR code. In the sandbox a taxpayer's QR code text is its
// TIN (the authority's is an opaque id); 404 NotFound for a TIN no client
// is bound to.
func (s *Server) handleQRInfo(w http.ResponseWriter, r *http.Request, _ caller) {
	text := strings.ToUpper(strings.TrimSpace(r.PathValue("qr")))
	if !wellFormedTIN(text) {
		writeError(w, http.StatusNotFound, apiError{Code: "NotFound", Message: "QR Code Not Found"})
		return
	}
	found, err := s.findTaxpayers(r.Context(), TaxpayerQuery{TIN: text})
	if err != nil {
		s.internalError(w, r, err)
		return
	}
	if len(found) == 0 {
		writeError(w, http.StatusNotFound, apiError{Code: "NotFound", Message: "QR Code Not Found"})
		return
	}
	t := found[0]
	writeJSON(w, http.StatusOK, map[string]string{
		"tin": t.TIN, "name": t.Name, "idType": t.IDType, "idNumber": t.IDValue, "sst": t.SST, "email": t.Email,
		"contactNumber": t.Phone, "ttx": t.TTX, "businessActivityDescriptionBM": t.Activity, "businessActivityDescriptionEN": t.Activity,
		"msic": t.MSIC, "addressLine0": t.AddressLines[0], "addressLine1": t.AddressLines[1], "addressLine2": t.AddressLines[2],
		"postalZone": t.PostalZone, "city": t.City, "state": t.State, "country": t.Country,
		"generatedTimestamp": s.now().UTC().Format("2006-01-02T15:04:05"),
	})
}
