package e2etest

import (
	"bytes"
	"strings"
	"testing"
)

// WantFresh checks an answer of a request that ran its operation.
func (r *Response) WantFresh(t *testing.T, status int, code ...string) *Response {
	t.Helper()
	r.Want(t, status, strings.Join(code, ""))
	if r.Header.Get("Idempotent-Replayed") != "" {
		t.Errorf("a first answer carries Idempotent-Replayed %q", r.Header.Get("Idempotent-Replayed"))
	}
	return r
}

// WantReplay checks that r replays first: status, Content-Type and body the
// same, with Idempotent-Replayed: true.
func (r *Response) WantReplay(t *testing.T, first *Response) {
	t.Helper()
	if r.Status != first.Status || !bytes.Equal(r.Raw, first.Raw) || r.Header.Get("Content-Type") != first.Header.Get("Content-Type") {
		t.Errorf("replay: got %d %s\nwant %d %s", r.Status, r.Raw, first.Status, first.Raw)
	}
	if r.Header.Get("Idempotent-Replayed") != "true" {
		t.Errorf("replay without Idempotent-Replayed: true (got %q)", r.Header.Get("Idempotent-Replayed"))
	}
}
