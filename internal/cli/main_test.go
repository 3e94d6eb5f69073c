package cli_test

import (
	"os"
	"testing"

	"github.com/einvoice/einvoice/internal/servetest"
)

// TestMain removes the binary the tests built (servetest.Build) once they
// are done.
func TestMain(m *testing.M) {
	code := m.Run()
	servetest.RemoveBuilt()
	os.Exit(code)
}
