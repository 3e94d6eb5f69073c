package requestpage_test

import (
	"go/build"
	"testing"
)

// TestImports keeps the request page on the application layer, as the
// API and the dashboard: it reaches behaviour only through
// internal/invoicing, and is a sibling of the other surfaces, never
// importing them.
func TestImports(t *testing.T) {
	pkg, err := build.ImportDir(".", 0)
	if err != nil {
		t.Fatal(err)
	}
	const internal = "github.com/einvoice/einvoice/internal/"
	forbidden := map[string]bool{}
	for _, name := range []string{"pdf", "qr", "ubl", "dsig", "sqlstore", "myinvois", "sandbox", "webhook", "httpapi", "dashboard"} {
		forbidden[internal+name] = true
	}
	for _, imp := range pkg.Imports {
		if forbidden[imp] {
			t.Errorf("requestpage imports %s; it reaches behaviour only through internal/invoicing", imp)
		}
	}
}
