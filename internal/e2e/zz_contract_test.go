package e2e

import (
	"os"
	"strings"
	"testing"
)

// TestMain runs the tests, then checks that together they exercised every
// operation of the OpenAPI document (when the whole package ran).
func TestMain(m *testing.M) {
	code := m.Run()
	if code == 0 && validator != nil && os.Getenv("EINVOICE_TEST_POSTGRES_URL") != "" {
		if missing := validator.Missing(); len(missing) > 0 && !testing.Short() && runAll() {
			os.Stderr.WriteString("documented operations no test exercised:\n")
			for _, op := range missing {
				os.Stderr.WriteString("  " + op + "\n")
			}
			code = 1
		}
	}
	os.Exit(code)
}

// runAll reports whether no -run or -skip filter narrowed the tests.
func runAll() bool {
	for _, a := range os.Args {
		if strings.HasPrefix(a, "-test.run") || strings.HasPrefix(a, "-test.skip") {
			return false
		}
	}
	return true
}
