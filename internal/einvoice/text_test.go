package einvoice

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// TestTruncate: a cut inside a multi-byte character backs
// off to its start, so the stored text stays valid UTF-8.
func TestTruncate(t *testing.T) {
	s := strings.Repeat("腾", 100) // 3 bytes each
	for _, n := range []int{0, 1, 2, 3, 199, 200, 299, 300, 301} {
		got := Truncate(s, n)
		if !utf8.ValidString(got) || len(got) > n || len(got) < n-2 {
			t.Errorf("Truncate(%d) = %d bytes, valid %v", n, len(got), utf8.ValidString(got))
		}
	}
	if got := Truncate("abc", 2); got != "ab" {
		t.Errorf("Truncate(abc, 2) = %q", got)
	}
}
