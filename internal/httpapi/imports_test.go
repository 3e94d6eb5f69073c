package httpapi_test

import (
	"go/build"
	"testing"
)

// TestImports keeps the HTTP adapter on the application layer: what happens
// to a document is invoicing's, so httpapi imports none of the packages
// below it.
func TestImports(t *testing.T) {
	pkg, err := build.ImportDir(".", 0)
	if err != nil {
		t.Fatal(err)
	}
	const internal = "github.com/einvoice/einvoice/internal/"
	forbidden := map[string]bool{}
	for _, name := range []string{"pdf", "qr", "ubl", "dsig", "submission", "sqlstore", "myinvois", "sandbox", "dashboard", "requestpage"} {
		forbidden[internal+name] = true
	}
	for _, imp := range pkg.Imports {
		if forbidden[imp] {
			t.Errorf("httpapi imports %s; it reaches behaviour only through internal/invoicing", imp)
		}
	}
}
