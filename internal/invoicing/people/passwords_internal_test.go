package people

import (
	"bufio"
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/alexedwards/argon2id"
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

// TestUnmatchableHash: the hash an unknown e-mail is checked against has
// the service's parameters (so that the check costs what a real one
// costs), and no password matches it.
func TestUnmatchableHash(t *testing.T) {
	t.Parallel()
	p := Argon2Params{MemoryKiB: 1024, Iterations: 2, Parallelism: 1}
	s := New(Options{Argon2: p, NewID: func() string { return "" }})
	params, salt, key, err := argon2id.DecodeHash(s.dummyHash)
	if err != nil {
		t.Fatalf("DecodeHash(%q): %v", s.dummyHash, err)
	}
	if params.Memory != p.MemoryKiB || params.Iterations != p.Iterations || params.Parallelism != p.Parallelism || len(salt) != 16 || len(key) != 32 {
		t.Errorf("the dummy hash %q has %+v, want the service's %+v, a 16-byte salt and a 32-byte key", s.dummyHash, params, p)
	}
	genuine, err := s.hash("")
	if err != nil {
		t.Fatal(err)
	}
	if realParams, _, _, _ := argon2id.DecodeHash(genuine); *realParams != *params {
		t.Errorf("the dummy hash's parameters %+v differ from a real hash's %+v", params, realParams)
	}
	for _, pw := range []string{"", "password", "correct horse battery staple 42"} {
		if ok, err := argon2id.ComparePasswordAndHash(pw, s.dummyHash); ok || err != nil {
			t.Errorf("ComparePasswordAndHash(%q, dummy) = %v, %v; want false, nil", pw, ok, err)
		}
	}
	if New(Options{Argon2: p}).dummyHash == s.dummyHash {
		t.Error("two services have the same dummy hash")
	}
}
