package einvoice

import (
	"regexp"
	"testing"
)

// idShape is the definition ValidID keeps without a regular expression.
var idShape = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

func TestValidID(t *testing.T) {
	for _, id := range []string{
		"01a20c65-0a3f-7a19-b25c-cab8dd04455b", "00000000-0000-0000-0000-000000000000", "ffffffff-ffff-ffff-ffff-ffffffffffff",
		"", "01A20C65-0A3F-7A19-B25C-CAB8DD04455B", "01a20c65-0a3f-7a19-b25c-cab8dd04455", "01a20c65-0a3f-7a19-b25c-cab8dd04455bb",
		"01a20c65x0a3f-7a19-b25c-cab8dd04455b", "01a20c65-0a3f-7a19-b25c-cab8dd04455g", "01a20c65-0a3f-7a19-b25c-cab8dd0445-b",
		"01a20c650a3f7a19b25ccab8dd04455b----", "01a20c65-0a3f-7a19-b25c-cab8dd0445\u00e9", "../../../../../../../../../etc/passwd",
	} {
		if got, want := ValidID(id), idShape.MatchString(id); got != want {
			t.Errorf("ValidID(%q) = %v, want %v", id, got, want)
		}
	}
}

func FuzzValidID(f *testing.F) {
	f.Add("01a20c65-0a3f-7a19-b25c-cab8dd04455b")
	f.Add("01a20c65-0a3f-7a19-b25c-cab8dd04455B")
	f.Fuzz(func(t *testing.T, id string) {
		if got, want := ValidID(id), idShape.MatchString(id); got != want {
			t.Fatalf("ValidID(%q) = %v, want %v", id, got, want)
		}
	})
}
