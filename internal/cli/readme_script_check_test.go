package cli_test

import (
	"strings"
	"testing"
)

// TestCheckAnswerShape: a `# =>` comment passes only when the answer has
// every field it names, with the values it shows (examples excepted).
func TestCheckAnswerShape(t *testing.T) {
	answer := `{"success":true,"data":{"id":"01a2","status":"Valid","document_uuid":"CZBCXJKIJ6TJZYGUNYHXF8F83U",` +
		`"validated_at":"2026-11-23T19:29:40Z","rejected":[],"taxRate":6,"tinCheck":{"status":"verified"}}}` + "\n"
	for _, c := range []struct {
		comment string
		ok      bool
	}{
		{`# => {"success": true, "data": {"id": "...", "status": "Valid", ...}}`, true},
		{`# => {"data": {"document_uuid": "F9D425P6DS7D8IUMKB4TJ6MY10", "validated_at": "2026-11-22T05:20:03Z"}}`, true},
		{`# => {"data": {"rejected": [], "taxRate": 6, "tinCheck": {"status": "verified", ...}}}`, true},
		{`# => {"data": {"status": "Submitted"}}`, false},
		{`# => {"data": {"document_uid": "..."}}`, false},
		{`# => {"success": false}`, false},
		{`# => {"data": {"taxRate": 8}}`, false},
		{`# => {"data": {"rejected": {}}}`, false},
	} {
		problems := checkAnswerShape(c.comment, answer)
		if got := len(problems) == 0; got != c.ok {
			t.Errorf("%s: problems %v, want ok = %v", c.comment, problems, c.ok)
		}
	}
	if p := checkAnswerShape(`# => {"status": "Valid"}`, "not json"); len(p) != 1 || !strings.Contains(p[0], "not JSON") {
		t.Errorf("an answer that is not JSON: %v, want it named", p)
	}
}

// TestReadmeScript: the pieces of the output line up with the `# =>`
// comments, and only those comments (with their continuations) are checked.
func TestReadmeScript(t *testing.T) {
	lines := []string{
		`echo '{"a": 1}'`,
		`# => {"a": 1}`,
		`#          "more": 2}`,
		`# or {"b": 3}`,
		`#    "c": 4}`,
		``,
		`echo '{"b": 2}'   # a trailing comment`,
		`# => {"b": 2}`,
	}
	script, exps := readmeScript(lines)
	if len(exps) != 2 || !strings.Contains(exps[0].text, `"more": 2`) || strings.Contains(exps[0].text, `"c"`) {
		t.Fatalf("expectations = %+v, want two, the first with its continuation and without the other case", exps)
	}
	// What bash would print: each echo, and a marker before each blank or
	// comment line and at the end.
	var out strings.Builder
	for _, l := range strings.Split(strings.TrimSuffix(script, "\n"), "\n") {
		switch {
		case strings.HasPrefix(l, "printf"):
			out.WriteString("\n" + outputMarker + "\n")
		case strings.HasPrefix(l, "echo "):
			out.WriteString(l[len("echo '"):strings.LastIndex(l, "'")] + "\n")
		}
	}
	pieces := outputPieces(out.String())
	for i, want := range []string{`{"a": 1}`, `{"b": 2}`} {
		if got := strings.TrimSpace(pieces[exps[i].piece]); got != want {
			t.Errorf("piece of %q = %q, want %q", exps[i].line, got, want)
		}
	}
}
