package einvoice_test

import (
	"testing"

	"github.com/einvoice/einvoice/internal/einvoice"
)

// TestAnsweredByAuthority: the authority answered a call with any status of
// its own; no answer, or a gateway's 502, 503 or 504 (behind which it may
// still be taking the request in), is not its answer.
func TestAnsweredByAuthority(t *testing.T) {
	for status, want := range map[int]bool{0: false, 400: true, 422: true, 429: true, 500: true, 501: true, 502: false, 503: false, 504: false} {
		if got := (&einvoice.CallError{Status: status}).AnsweredByAuthority(); got != want {
			t.Errorf("status %d: AnsweredByAuthority() = %v, want %v", status, got, want)
		}
	}
}
