package people

import (
	"bufio"
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestCommonPasswordList: the embedded list holds 10,000 distinct
// passwords, and each of them that is long enough to pass the length rule
// is refused as common, in any case.
func TestCommonPasswordList(t *testing.T) {
	t.Parallel()
	if n := len(commonPasswords); n != 10000 {
		t.Errorf("the embedded list has %d distinct entries, want 10,000", n)
	}
	lines := 0
	long := 0
	sc := bufio.NewScanner(bytes.NewReader(commonPasswordsText))
	for sc.Scan() {
		lines++
		w := sc.Text()
		if utf8.RuneCountInString(w) < minPassword {
			continue
		}
		long++
		for _, p := range []string{w, strings.ToUpper(w)} {
			if err := CheckPassword(p, "someone@example.com"); err == nil || !strings.Contains(err.Error(), "common") {
				t.Errorf("CheckPassword(%q) = %v, want it refused as common", p, err)
			}
		}
	}
	if lines != 10000 || long == 0 {
		t.Errorf("the list has %d lines (%d of at least %d characters), want 10,000 (and some long ones)", lines, long, minPassword)
	}
}

// BenchmarkHashPassword is the cost of one sign-in's hash with
// DefaultArgon2 (the target: 50-500 ms on the project's 2-vCPU machine).
func BenchmarkHashPassword(b *testing.B) {
	s := New(Options{Argon2: DefaultArgon2, NewID: func() string { return "" }})
	for b.Loop() {
		if _, err := s.hash("correct horse battery staple 42"); err != nil {
			b.Fatal(err)
		}
	}
}
