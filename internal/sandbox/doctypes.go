package sandbox

import (
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"
)

// typeCodes are the document type codes in the order the types are listed.
var typeCodes = []string{"01", "02", "03", "04", "11", "12", "13", "14"}

// typesActiveFrom is when the sandbox's document types and versions became
// active (the authority's e-invoicing start).
const typesActiveFrom = "2024-08-01T00:00:00Z"

// documentTypeVersion is a version of a document type. Its id is the
// type's id times 100 plus the version's minor number (1.1 of type 1 is
// 101; of type 11, 1101).
type documentTypeVersion struct {
	ID            int         `json:"id,omitempty"`
	TypeCode      *int        `json:"invoiceTypeCode,omitempty"`
	Name          string      `json:"name"`
	Description   string      `json:"description"`
	ActiveFrom    string      `json:"activeFrom"`
	ActiveTo      *string     `json:"activeTo"`
	VersionNumber json.Number `json:"versionNumber"`
	Status        string      `json:"status"`
}

// documentType is a document type; its id is its code as a number (1 for
// 01, 11 for 11).
type documentType struct {
	ID                 int                   `json:"id"`
	TypeCode           int                   `json:"invoiceTypeCode"`
	Description        string                `json:"description"`
	ActiveFrom         string                `json:"activeFrom"`
	ActiveTo           *string               `json:"activeTo"`
	Versions           []documentTypeVersion `json:"documentTypeVersions"`
	WorkflowParameters []workflowParameter   `json:"workflowParameters,omitempty"`
}

// workflowParameter is a time limit of a document type, in hours.
type workflowParameter struct {
	ID         int     `json:"id"`
	Parameter  string  `json:"parameter"`
	Value      int     `json:"value"`
	ActiveFrom string  `json:"activeFrom"`
	ActiveTo   *string `json:"activeTo"`
}

// docType returns the document type of a code; withParams adds its
// workflow parameters (the 72-hour windows).
func docType(code string, withParams bool) documentType {
	id, _ := strconv.Atoi(code)
	t := documentType{ID: id, TypeCode: id, Description: typeNames[code], ActiveFrom: typesActiveFrom}
	for _, v := range versions {
		t.Versions = append(t.Versions, typeVersion(code, v, false))
	}
	if withParams {
		for i, p := range []string{"submissionDuration", "cancellationDuration", "rejectionDuration"} {
			t.WorkflowParameters = append(t.WorkflowParameters, workflowParameter{ID: id*10 + i + 1, Parameter: p,
				Value: int(stateWindow.Hours()), ActiveFrom: typesActiveFrom})
		}
	}
	return t
}

// typeVersion returns a version of a type; full adds the type code (Get
// Document Type Version).
func typeVersion(code, version string, full bool) documentTypeVersion {
	id, _ := strconv.Atoi(code)
	_, minor, _ := strings.Cut(version, ".")
	m, _ := strconv.Atoi(minor)
	v := documentTypeVersion{ID: id*100 + m, Name: version, Description: typeNames[code] + " version " + version,
		ActiveFrom: typesActiveFrom, VersionNumber: json.Number(version), Status: "published"}
	if full {
		v.ID, v.TypeCode = 0, &id
	}
	return v
}

// typeOfID returns the code of a document type id, "" when none.
func typeOfID(id string) string {
	n, err := strconv.Atoi(id)
	if err != nil || n <= 0 {
		return ""
	}
	code := id
	if n < 10 {
		code = "0" + strconv.Itoa(n)
	}
	if !slices.Contains(typeCodes, code) || strconv.Itoa(n) != id {
		return ""
	}
	return code
}

// handleDocumentTypes is GET /api/v1.0/documenttypes: {result: [types]}.
func (s *Server) handleDocumentTypes(w http.ResponseWriter, _ *http.Request, _ caller) {
	out := make([]documentType, 0, len(typeCodes))
	for _, c := range typeCodes {
		out = append(out, docType(c, false))
	}
	writeJSON(w, http.StatusOK, map[string]any{"result": out})
}

// handleDocumentType is GET /api/v1.0/documenttypes/{id}: one type with its
// versions and workflow parameters; 404 for an unknown id.
func (s *Server) handleDocumentType(w http.ResponseWriter, r *http.Request, _ caller) {
	code := typeOfID(r.PathValue("id"))
	if code == "" {
		writeError(w, http.StatusNotFound, apiError{Code: "NotFound", Message: "Document type not found", Target: "id"})
		return
	}
	writeJSON(w, http.StatusOK, docType(code, true))
}

// handleDocumentTypeVersion is GET
// /api/v1.0/documenttypes/{id}/versions/{vid}; 404 for an unknown pair.
func (s *Server) handleDocumentTypeVersion(w http.ResponseWriter, r *http.Request, _ caller) {
	code := typeOfID(r.PathValue("id"))
	if code != "" {
		for _, v := range versions {
			if tv := typeVersion(code, v, false); strconv.Itoa(tv.ID) == r.PathValue("vid") {
				writeJSON(w, http.StatusOK, typeVersion(code, v, true))
				return
			}
		}
	}
	writeError(w, http.StatusNotFound, apiError{Code: "NotFound", Message: "Document type version not found", Target: "vid"})
}
