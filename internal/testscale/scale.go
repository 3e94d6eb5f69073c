// Package testscale marks the tests that prove a promise at scale: hundreds
// of documents, every page of a search, every kind of every resource. They
// repeat code paths that smaller tests run under the race detector, which
// makes them about five times slower (TestScaleSubmitBulk: 20 s against
// 4.4 s alone), so scripts/test runs them in its pass without it, with the
// resilience and benchmark packages. Their names start with Prefix, which is
// how that pass finds them.
package testscale

import (
	"os"
	"strings"
	"testing"
)

// Prefix starts the name of every scale test: scripts/test runs them with
// -run '^TestScale'.
const Prefix = "TestScale"

// EnvRace, set to 1, runs the scale tests under the race detector too.
const EnvRace = "EINVOICE_TEST_SCALE_RACE"

// Mark marks t a scale test: under the race detector it is skipped (unless
// EnvRace is 1). A scale test whose name does not start with Prefix fails,
// since scripts/test would never run it.
func Mark(t testing.TB) {
	t.Helper()
	if !strings.HasPrefix(t.Name(), Prefix) {
		t.Fatalf("%s is marked a scale test, but its name does not start with %s: scripts/test would not run it", t.Name(), Prefix)
	}
	if raceEnabled && os.Getenv(EnvRace) != "1" {
		t.Skipf("a scale test: scripts/test runs it without the race detector (set %s=1 to run it under it)", EnvRace)
	}
}
