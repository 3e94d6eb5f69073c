package people

import (
	"bufio"
	"bytes"
	"crypto/rand"
	_ "embed"
	"encoding/base64"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/alexedwards/argon2id"

	"github.com/einvoice/einvoice/internal/einvoice"
)

// Argon2Params are the cost of a password hash (RFC 9106's argon2id).
type Argon2Params struct {
	// MemoryKiB is the memory one hash takes, in KiB.
	MemoryKiB uint32
	// Iterations is the number of passes over the memory.
	Iterations uint32
	// Parallelism is the number of lanes (threads).
	Parallelism uint8
}

// DefaultArgon2 is RFC 9106's second recommended option (64 MiB, 3
// passes, 4 lanes): about 80 ms and 64 MiB per sign-in on the project's
// 2-vCPU machine when idle (BenchmarkHashPassword; the target is 50-500
// ms). One pass costs about 27 ms there, two about 50 ms; OWASP's minimum
// is 19 MiB and 2 passes.
var DefaultArgon2 = Argon2Params{MemoryKiB: 64 * 1024, Iterations: 3, Parallelism: 4}

// The password rules (DECISIONS 20).
const (
	minPassword = 12  // characters
	maxPassword = 256 // bytes: a password costs a hash, not more
)

//go:embed common_passwords.txt
var commonPasswordsText []byte

// commonPasswords are the 10,000 most common passwords, lower case: the
// top of the frequency list of Burnett's ten million passwords, as
// zxcvbn's data (github.com/trustelem/zxcvbn v1.0.1, data/passwords.txt,
// MIT) orders them.
var commonPasswords = func() map[string]struct{} {
	m := make(map[string]struct{}, 10000)
	sc := bufio.NewScanner(bytes.NewReader(commonPasswordsText))
	for sc.Scan() {
		if w := strings.TrimSpace(sc.Text()); w != "" {
			m[strings.ToLower(w)] = struct{}{}
		}
	}
	return m
}()

// CheckPassword applies the rules of a new password: at least 12
// characters (at most 256 bytes), not the e-mail, not among the 10,000 most
// common. A VALIDATION_FAILED on field "password" names the rule broken.
func CheckPassword(password, email string) error {
	problem := ""
	switch {
	case !utf8.ValidString(password):
		problem = "The password must be text (UTF-8)."
	case utf8.RuneCountInString(password) < minPassword:
		problem = fmt.Sprintf("The password must have at least %d characters.", minPassword)
	case len(password) > maxPassword:
		problem = fmt.Sprintf("The password must have at most %d bytes.", maxPassword)
	case email != "" && strings.EqualFold(strings.TrimSpace(password), strings.TrimSpace(email)):
		problem = "The password must not be your e-mail."
	default:
		if _, common := commonPasswords[strings.ToLower(password)]; common {
			problem = "This password is among the most common ones: choose another."
		}
	}
	if problem != "" {
		return &einvoice.Error{Code: einvoice.CodeValidationFailed, Message: problem,
			Fields: einvoice.FieldErrors{"password": {problem}}}
	}
	return nil
}

// hash returns the argon2id hash of a password in its PHC string form.
func (s *Service) hash(password string) (string, error) {
	h, err := argon2id.CreateHash(password, &argon2id.Params{Memory: s.argon2.MemoryKiB, Iterations: s.argon2.Iterations,
		Parallelism: s.argon2.Parallelism, SaltLength: 16, KeyLength: 32})
	if err != nil {
		return "", fmt.Errorf("hash password: %w", err)
	}
	return h, nil
}

// unmatchableHash returns a hash in argon2id's PHC form with the
// service's parameters and a random salt and key: checking a password
// against it costs what checking a real hash costs, and fails (no
// password is known to give the key).
func (s *Service) unmatchableHash() string {
	salt, key := make([]byte, 16), make([]byte, 32)
	if _, err := rand.Read(salt); err != nil {
		panic(fmt.Sprintf("crypto/rand: %v", err)) // never fails on supported platforms
	}
	if _, err := rand.Read(key); err != nil {
		panic(fmt.Sprintf("crypto/rand: %v", err))
	}
	return fmt.Sprintf("$argon2id$v=19$m=%d,t=%d,p=%d$%s$%s", s.argon2.MemoryKiB, s.argon2.Iterations, s.argon2.Parallelism,
		base64.RawStdEncoding.EncodeToString(salt), base64.RawStdEncoding.EncodeToString(key))
}

// matches reports whether the password is the one of the hash; an empty or
// malformed hash matches nothing (after costing what a hash costs).
func (s *Service) matches(password, hash string) bool {
	if hash == "" || len(password) > maxPassword {
		_, _ = argon2id.ComparePasswordAndHash(password, s.dummyHash)
		return false
	}
	ok, err := argon2id.ComparePasswordAndHash(password, hash)
	return err == nil && ok
}

// randomToken returns n random bytes in unpadded base64url.
func randomToken(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(fmt.Sprintf("crypto/rand: %v", err)) // never fails on supported platforms
	}
	return base64.RawURLEncoding.EncodeToString(b)
}
