package e2etest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRecord: the union is checked once every covering package has
// recorded, by the last; an operation every package left unexercised is
// named, one that any exercised is not; a package that checked no answer
// does not narrow the union; the folder is removed after the check.
func TestRecord(t *testing.T) {
	covering := []string{"a", "b", "c"}
	t.Run("an operation no package exercised", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "run")
		if err := record(dir, "a", covering, []string{"GET /x", "GET /y"}); err != nil {
			t.Fatalf("first of three: %v", err)
		}
		if err := record(dir, "c", covering, nil); err != nil {
			t.Fatalf("second of three: %v", err)
		}
		err := record(dir, "b", covering, []string{"GET /y", "GET /z"})
		if err == nil || !strings.Contains(err.Error(), "GET /y") || strings.Contains(err.Error(), "GET /x") || strings.Contains(err.Error(), "GET /z") {
			t.Errorf("the last: %v, want GET /y only named", err)
		}
		if _, err := os.Stat(dir); !os.IsNotExist(err) {
			t.Errorf("the folder is left after the check: %v", err)
		}
	})
	t.Run("every operation exercised by one", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "run")
		for _, c := range []struct {
			name    string
			missing []string
		}{{"a", []string{"GET /x"}}, {"b", []string{}}, {"c", []string{"GET /x"}}} {
			if err := record(dir, c.name, covering, c.missing); err != nil {
				t.Errorf("%s: %v", c.name, err)
			}
		}
	})
	t.Run("no package checked an answer", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "run")
		var err error
		for _, name := range covering {
			err = record(dir, name, covering, nil)
		}
		if err == nil {
			t.Error("the union of packages that checked nothing passed")
		}
	})
}
