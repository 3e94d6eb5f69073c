package web_test

import (
	"go/build"
	"strings"
	"testing"
)

// TestImports keeps the foundation under the surfaces: web imports the
// domain (its error codes) and nothing else of ours, so every surface can
// import it and it can import none of them.
func TestImports(t *testing.T) {
	pkg, err := build.ImportDir(".", 0)
	if err != nil {
		t.Fatal(err)
	}
	const ours = "github.com/einvoice/einvoice/"
	for _, imp := range pkg.Imports {
		if strings.HasPrefix(imp, ours) && imp != ours+"internal/einvoice" {
			t.Errorf("web imports %s; it may import only internal/einvoice of ours", imp)
		}
	}
}
