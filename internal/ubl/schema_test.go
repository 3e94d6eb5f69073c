package ubl_test

import (
	"bytes"
	"path/filepath"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// invoiceSchema compiles the OASIS UBL 2.1 JSON schema of the Invoice (with
// its $refs to common/*, loaded from the directory) once.
var invoiceSchema = sync.OnceValues(func() (*jsonschema.Schema, error) {
	dir, err := filepath.Abs(filepath.Join(sharedTestdata, "ubl-json-schema"))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat() // dates and times too
	return c.Compile(filepath.Join(dir, "maindoc", "UBL-Invoice-2.1.json"))
})

// validateSchema checks doc against the OASIS schema.
func validateSchema(t *testing.T, name string, doc []byte) {
	t.Helper()
	sch, err := invoiceSchema()
	if err != nil {
		t.Fatalf("compile schema: %v", err)
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if err := sch.Validate(v); err != nil {
		t.Errorf("%s does not validate against the UBL 2.1 schema: %v", name, err)
	}
}

// TestSchemaSamples makes sure the schema set-up works: the authority's
// samples validate, and a document with a wrong type does not.
func TestSchemaSamples(t *testing.T) {
	shared(t, "ubl-json-schema")
	for _, path := range samplePaths(t) {
		validateSchema(t, filepath.Base(path), readFile(t, path))
	}
	sch, err := invoiceSchema()
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{
		`{"Invoice":[{"ID":[{"_":1}]}]}`,
		`{"Invoice":[]}`,
		`{"_D":"x","Invoice":[{"ID":[{"_":"A"}],"IssueDate":[{"_":"2026-13-45"}],"AccountingSupplierParty":[{}],"AccountingCustomerParty":[{}],"LegalMonetaryTotal":[{"PayableAmount":[{"_":1,"currencyID":"MYR"}]}],"InvoiceLine":[{"ID":[{"_":"1"}],"LineExtensionAmount":[{"_":1,"currencyID":"MYR"}],"Item":[{}]}]}]}`,
		`{"Invoice":[{"ID":[{"_":"A"}],"IssueDate":[{"_":"2026-11-20"}],"AccountingSupplierParty":[{}],"AccountingCustomerParty":[{}],"LegalMonetaryTotal":[{"PayableAmount":[{"_":1}]}],"InvoiceLine":[{"ID":[{"_":"1"}],"LineExtensionAmount":[{"_":1,"currencyID":"MYR"}],"Item":[{}]}]}]}`,
	} {
		v, err := jsonschema.UnmarshalJSON(bytes.NewReader([]byte(bad)))
		if err != nil {
			t.Fatal(err)
		}
		if sch.Validate(v) == nil {
			t.Errorf("schema accepts %s", bad)
		}
	}
}

// TestSchemaMarshal: every document Marshal writes validates.
func TestSchemaMarshal(t *testing.T) {
	shared(t, "ubl-json-schema")
	for _, f := range fixtures() {
		validateSchema(t, f.name, marshal(t, f))
	}
}
