package dashboard_test

import (
	"go/build"
	"testing"
)

// TestImports keeps the dashboard on the application layer (as httpapi):
// it renders through internal/invoicing only, never a second way to the
// data.
func TestImports(t *testing.T) {
	t.Parallel()
	pkg, err := build.ImportDir(".", 0)
	if err != nil {
		t.Fatal(err)
	}
	const internal = "github.com/einvoice/einvoice/internal/"
	forbidden := map[string]bool{}
	for _, name := range []string{"pdf", "qr", "ubl", "dsig", "sqlstore", "myinvois", "sandbox", "httpapi", "webhook", "requestpage"} {
		forbidden[internal+name] = true
	}
	for _, imp := range pkg.Imports {
		if forbidden[imp] {
			t.Errorf("dashboard imports %s; it reaches behaviour only through internal/invoicing", imp)
		}
	}
}

// TestAssetsSmall: every asset is well under 100 KB (uncompressed, so
// compressed too).
func TestAssetsSmall(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	b := f.browser(t)
	p := b.get("/app/static/app.css")
	if p.status != 200 || len(p.body) == 0 || len(p.body) > 100<<10 {
		t.Errorf("app.css = %d, %d bytes", p.status, len(p.body))
	}
}
