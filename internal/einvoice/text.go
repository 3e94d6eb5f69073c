package einvoice

import "unicode/utf8"

// Truncate cuts s to at most n bytes without splitting a character: a
// stored text (an error, a note) stays valid UTF-8, which PostgreSQL
// requires (it would refuse the whole write).
func Truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
