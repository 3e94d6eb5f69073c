package sandbox

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"

	"github.com/google/uuid"
)

// idAlphabet is the authority's id alphabet: upper-case Latin letters and
// digits.
const idAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

// Id lengths: submission uids and document uuids have 26 characters; long
// ids (the validation link's secret part) 40.
const (
	uidLen    = 26
	longIDLen = 40
)

// newID returns n random characters of idAlphabet.
func newID(n int) string {
	out := make([]byte, 0, n)
	var buf [64]byte
	for len(out) < n {
		_, _ = rand.Read(buf[:]) // never fails (crypto/rand panics instead)
		for _, b := range buf {
			// 252 = 7*36: rejection keeps the letters uniform.
			if b < 252 && len(out) < n {
				out = append(out, idAlphabet[b%36])
			}
		}
	}
	return string(out)
}

// newCorrelationID returns the id of one response.
func newCorrelationID() string { return uuid.NewString() }

// sha256Hex is the lower-case hex SHA-256 of b.
func sha256Hex(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}
