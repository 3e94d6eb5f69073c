package einvoice

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestAuthorityHints: every DS3xx code of the table has one sentence; the
// JSON of an authority error carries its hint beside the authority's own
// code and message, in its details too, and none for a code without one.
func TestAuthorityHints(t *testing.T) {
	for code, h := range authorityHints {
		if !strings.HasPrefix(code, "DS3") || strings.Count(h, ". ") != 0 || !strings.HasSuffix(h, ".") || !strings.Contains(h, ":") {
			t.Errorf("%s: %q is not one sentence of what it means: what to check", code, h)
		}
	}
	if _, ok := authorityHints["DS302"]; ok {
		t.Error("DS302 (the duplicate) has a hint; it is settled to its original")
	}
	for _, code := range []string{"DS311", "DS312", "DS322", "DS326", "DS329", "DS333"} {
		if AuthorityHint(code) == "" {
			t.Errorf("no hint for %s", code)
		}
	}
	if AuthorityHint(" ds326 ") != AuthorityHint("DS326") || AuthorityHint("CF321") != "" {
		t.Error("AuthorityHint does not match codes ignoring case and spaces, or explains an unknown code")
	}
	e := AuthorityError{Code: "Error21", Message: "Signature validation failed", Details: []AuthorityError{
		{Code: "DS322", Message: "Document digest mismatch", Target: "document"}, {Code: "DS322", Message: "again"}}}
	raw, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	var back struct {
		Code, Message, Hint string
		Details             []map[string]any
	}
	if err := json.Unmarshal(raw, &back); err != nil {
		t.Fatal(err)
	}
	if back.Code != "Error21" || back.Message != "Signature validation failed" || back.Hint != "" || strings.Contains(string(raw[:20]), "hint") ||
		len(back.Details) != 2 || back.Details[0]["hint"] != AuthorityHint("DS322") || back.Details[0]["code"] != "DS322" ||
		back.Details[0]["message"] != "Document digest mismatch" || back.Details[0]["target"] != "document" {
		t.Errorf("JSON %s", raw)
	}
	if strings.Contains(string(raw), `"hint":""`) {
		t.Errorf("an empty hint is written: %s", raw)
	}
	if hs := AuthorityHints([]AuthorityError{e}); len(hs) != 1 || hs[0] != AuthorityHint("DS322") {
		t.Errorf("AuthorityHints %q", hs)
	}
}
