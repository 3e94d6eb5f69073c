package web

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
)

// RandomSecret returns 32 random bytes: a key for the tokens of one
// process when none is configured (replicas must share a derived one).
func RandomSecret() []byte {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go 1.24+)
	return b
}

// DeriveKey returns the key for one purpose derived from a parent secret
// (HMAC-SHA256 of the purpose under it): each use has its own key, and
// none is the parent itself.
func DeriveKey(parent []byte, purpose string) []byte {
	m := hmac.New(sha256.New, parent)
	m.Write([]byte(purpose))
	return m.Sum(nil)
}
