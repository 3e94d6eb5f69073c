package e2etest

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/einvoice/einvoice/internal/apidoc/apidoctest"
	"github.com/einvoice/einvoice/internal/servetest"
)

// Covering are the packages whose tests together must exercise every
// operation of the OpenAPI document. The resilience and benchmark packages
// check their answers too, but do not count: CI may run them in a `go test`
// of their own (without the race detector), and the union is taken over
// one `go test` run.
var Covering = []string{"documents", "golive", "lifecycle", "mail", "receipts", "received", "security", "webhooks"}

// The validator of a test binary (one package): shared by its tests so
// that Main can tell which documented operations they exercised.
var (
	validatorOnce sync.Once
	validator     *apidoctest.Validator
)

// Contract is the package's OpenAPI validator: every answer a test's client
// receives is checked against the document, and recorded as exercised.
func Contract(t testing.TB) *apidoctest.Validator {
	validatorOnce.Do(func() { validator = apidoctest.New(t) })
	return validator
}

// Main runs the tests of the e2e package name and exits. When the whole
// package ran (no -run or -skip, not -short, PostgreSQL set) and passed, it
// records the documented operations its tests left unexercised in a folder
// shared by the test binaries of one `go test` run (they are all children
// of the go command); the last of the Covering packages to finish fails
// when an operation was exercised by none of them, and names it.
func Main(m *testing.M, name string) {
	code := m.Run()
	servetest.RemoveBuilt()
	if code == 0 && !testing.Short() && runAll() && os.Getenv("EINVOICE_TEST_POSTGRES_URL") != "" && slices.Contains(Covering, name) {
		var missing []string // nil: no test of the package checked an answer
		if validator != nil {
			missing = append([]string{}, validator.Missing()...)
		}
		dir := filepath.Join(os.TempDir(), "einvoice-e2e-contract-"+runID())
		if err := record(dir, name, Covering, missing); err != nil {
			fmt.Fprintf(os.Stderr, "the documented operations no test exercised: %v\n", err)
			code = 1
		}
	}
	os.Exit(code)
}

// record writes into dir the operations package name left unexercised
// (missing; nil when it checked no answer at all) and, when every covering
// package has written its own, removes dir and fails when an operation is
// in all of them.
func record(dir, name string, covering, missing []string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	lock, err := os.OpenFile(filepath.Join(dir, ".lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return err
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return fmt.Errorf("lock %s: %w", dir, err)
	}
	text := "all\n"
	if missing != nil {
		text = strings.Join(append([]string{"some"}, missing...), "\n") + "\n"
	}
	if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
		return err
	}
	var none map[string]bool // operations no package exercised so far
	for _, pkg := range covering {
		ops, err := readOps(filepath.Join(dir, pkg))
		if os.IsNotExist(err) {
			return nil // not the last: another package checks the union
		}
		if err != nil {
			return err
		}
		if ops == nil { // "all": exercised nothing
			continue
		}
		if none == nil {
			none = ops
			continue
		}
		for op := range none {
			if !ops[op] {
				delete(none, op)
			}
		}
	}
	defer os.RemoveAll(dir)
	if none == nil {
		return fmt.Errorf("no package of %v checked an answer", covering)
	}
	if len(none) > 0 {
		var ops []string
		for op := range none {
			ops = append(ops, op)
		}
		slices.Sort(ops)
		return fmt.Errorf("packages %v ran in full, and none exercised:\n  %s", covering, strings.Join(ops, "\n  "))
	}
	return nil
}

// readOps reads a package's record: nil for "all".
func readOps(path string) (map[string]bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	if !sc.Scan() || sc.Text() == "all" {
		return nil, sc.Err()
	}
	ops := map[string]bool{}
	for sc.Scan() {
		ops[sc.Text()] = true
	}
	return ops, sc.Err()
}

// runID names the `go test` run: the go command's process id and start
// time (so that a later run given the same id does not read a stale
// record).
func runID() string {
	ppid := os.Getppid()
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", ppid))
	if err == nil {
		if i := strings.LastIndexByte(string(stat), ')'); i > 0 {
			if f := strings.Fields(string(stat[i+1:])); len(f) > 19 {
				return fmt.Sprintf("%d-%s", ppid, f[19])
			}
		}
	}
	return fmt.Sprint(ppid)
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
