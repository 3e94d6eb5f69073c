package e2e

import (
	"testing"
)

// TestAuthorityCodesList: GET /authority-classifications answers the
// authority's 45 codes whole, in the shape of the other code lists
// (DECISIONS 13).
func TestAuthorityCodesList(t *testing.T) {
	svc := startService(t, testdbSQLite(t))
	api := svc.api(t, svc.DemoKey)
	codes, err := api.Codes.AuthorityClassifications(t.Context())
	must(t, codes, err)
	if len(codes) != 45 || codes[0].Code != "001" || codes[44].Code != "045" || codes[3].Name != "Consolidated e-Invoice" {
		t.Errorf("authority classifications = %d codes, first %+v, last %+v", len(codes), codes[0], codes[len(codes)-1])
	}
	r := svc.client(t, svc.DemoKey).do("GET", "/api/v1/authority-classifications", nil).want(t, 200, "")
	if r.Body["meta"] != nil {
		t.Errorf("a code list is answered whole: meta %v", r.Body["meta"])
	}
}
