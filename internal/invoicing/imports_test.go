package invoicing_test

import (
	"go/build"
	"os"
	"strings"
	"testing"
)

// TestCapabilitiesImportOneWay keeps the application layer's dependencies
// one way: invoicing composes its capability packages (invoicing/<name>),
// and none of them imports invoicing or another capability; each reaches
// the rest of the application through the domain's interfaces and the
// functions it is given.
func TestCapabilitiesImportOneWay(t *testing.T) {
	const app = "github.com/einvoice/einvoice/internal/invoicing"
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		pkg, err := build.ImportDir(e.Name(), 0)
		if err != nil {
			continue // not a Go package
		}
		n++
		for _, imp := range pkg.Imports {
			if imp == app || strings.HasPrefix(imp, app+"/") {
				t.Errorf("invoicing/%s imports %s: a capability imports neither invoicing nor another capability", e.Name(), imp)
			}
		}
	}
	if n < 3 {
		t.Errorf("found %d capability packages under invoicing, want at least access, received and webhooks", n)
	}
}
