package einvoice_test

import (
	"go/build"
	"strings"
	"testing"
)

// TestDomainImports keeps the domain pure: the standard library and the two
// leaf packages money and refdata, nothing else (no net/http, no decimal
// library but through money, no adapter).
func TestDomainImports(t *testing.T) {
	pkg, err := build.ImportDir(".", 0)
	if err != nil {
		t.Fatal(err)
	}
	allowed := map[string]bool{
		"github.com/einvoice/einvoice/internal/money":   true,
		"github.com/einvoice/einvoice/internal/refdata": true,
	}
	for _, imp := range pkg.Imports {
		std := !strings.Contains(strings.Split(imp, "/")[0], ".")
		if (std && imp != "net/http") || allowed[imp] {
			continue
		}
		t.Errorf("the domain imports %s; it may import only the standard library (not net/http), money and refdata", imp)
	}
}
