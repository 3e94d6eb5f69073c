package einvoice

import (
	"crypto/sha256"
	"regexp"
)

var uuidPattern = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

// ValidID reports whether id has the shape of our ids (a lower-case UUID).
func ValidID(id string) bool { return uuidPattern.MatchString(id) }

// APIKeyPrefix starts every API key, so that leaked keys are recognisable.
const APIKeyPrefix = "eik_"

// HashAPIKey returns the stored form of a key.
func HashAPIKey(key string) []byte {
	sum := sha256.Sum256([]byte(key))
	return sum[:]
}
