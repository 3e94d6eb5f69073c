package einvoice

import (
	"crypto/sha256"
)

// ValidID reports whether id has the shape of our ids (a lower-case UUID:
// 8-4-4-4-12 lower-case hexadecimal digits). Every read by id asks it, a
// few times: a loop over the bytes, not a regular expression.
func ValidID(id string) bool {
	if len(id) != 36 {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
				return false
			}
		}
	}
	return true
}

// APIKeyPrefix starts every API key, so that leaked keys are recognisable.
const APIKeyPrefix = "eik_"

// HashAPIKey returns the stored form of a key.
func HashAPIKey(key string) []byte {
	sum := sha256.Sum256([]byte(key))
	return sum[:]
}
