package cli_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestCheckAnswerShape: a `# =>` comment passes only when the answer has
// every field it names, with the values it shows (examples excepted).
func TestCheckAnswerShape(t *testing.T) {
	t.Parallel()
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

// TestDocScript: the pieces of the output line up with the `# =>`
// comments, only those comments (with their continuations) are checked, and
// no marker goes where it would change what bash runs: inside a quoted
// string, a here-document, a loop or a command continued on the next line.
func TestDocScript(t *testing.T) {
	t.Parallel()
	var lines []shellLine
	for i, l := range []string{
		`echo '{"a": 1}'`,
		`# => {"a": 1}`,
		`#          "more": 2}`,
		`# or {"b": 3}`,
		`#    "c": 4}`,
		``,
		`echo '{"b": 2}'   # a trailing comment`,
		`# => {"b": 2}`,
		`echo '{`,
		``,
		`# not a comment: inside the quotes`,
		`}' |`,
		`# => not an expectation: the pipeline goes on`,
		`  cat`,
		`cat <<'JSON'`,
		`# inside a here-document`,
		`JSON`,
		`for i in 1 2; do`,
		`  # inside a loop`,
		`  echo $i`,
		`done`,
	} {
		lines = append(lines, shellLine{l, fmt.Sprintf("page.md:%d", i+1)})
	}
	script, exps := docScript(lines)
	if len(exps) != 2 || !strings.Contains(exps[0].text, `"more": 2`) || strings.Contains(exps[0].text, `"c"`) || exps[1].at != "page.md:8" {
		t.Fatalf("expectations = %+v, want two, the first with its continuation and without the other case", exps)
	}
	for _, inside := range []string{"\n\n# not a comment", "|\n# => not", "JSON'\n# inside", "do\n  # inside"} {
		if !strings.Contains(script, inside) {
			t.Errorf("the script has a marker inside a command (%q):\n%s", inside, script)
		}
	}
	// What bash would print: each echo, and a marker before each blank or
	// comment line between two commands and at the end.
	var out strings.Builder
	for _, l := range strings.Split(strings.TrimSuffix(script, "\n"), "\n") {
		switch {
		case strings.HasPrefix(l, "printf"):
			out.WriteString("\n" + outputMarker + "\n")
		case strings.HasPrefix(l, "echo '{\""):
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

// TestCheckAnswerText: a comment that shows no JSON field passes when its
// lines appear in the answer in order, "..." standing for any text.
func TestCheckAnswerText(t *testing.T) {
	t.Parallel()
	answer := "HTTP/1.1 201 Created\r\nIdempotent-Replayed: true\r\n\r\n{}\nclient_id: 5f0c\nclient_secret: XYZ\n303\n"
	for _, c := range []struct {
		comment string
		ok      bool
	}{
		{"# => Idempotent-Replayed: true", true},
		{"# => 303", true},
		{"# => client_id: ...\n#    client_secret: ...", true},
		{"# => client_secret: ...\n#    client_id: ...", false},
		{"# => Idempotent-Replayed: false", false},
		{"# => 404", false},
	} {
		problems := checkAnswer(c.comment, answer)
		if got := len(problems) == 0; got != c.ok {
			t.Errorf("%q: problems %v, want ok = %v", c.comment, problems, c.ok)
		}
	}
}

// TestParseDocPage: blocks with their language, section and norun reason;
// the malformed fences and stray norun comments named.
func TestParseDocPage(t *testing.T) {
	t.Parallel()
	p := parseDocPage("page.md", strings.Join([]string{
		"# Title",
		"## Start",
		"<!-- norun: starts a server -->",
		"```sh",
		"serve",
		"```",
		"```bash",
		"curl x",
		"```",
		"```go",
		"package main",
		"```",
		"<!-- norun: -->",
		"text",
		"```console",
		"$ ls",
		"```",
		"```",
		"plain",
		"```",
		"```sh",
		"open",
	}, "\n"))
	if len(p.blocks) != 5 {
		t.Fatalf("blocks = %+v, want five", p.blocks)
	}
	b := p.blocks[0]
	if b.lang != "sh" || b.heading != "Start" || b.norun != "starts a server" || b.runs() || !b.shell() || b.line != 4 {
		t.Errorf("the first block: %+v, want a shell block of Start, not run, line 4", b)
	}
	if !p.blocks[1].runs() || p.blocks[2].shell() {
		t.Errorf("```bash must run and ```go be no shell block: %+v", p.blocks[1:3])
	}
	if got := p.runLines(); len(got) != 2 || got[0].text != "" || got[1].text != "curl x" || got[1].at != "page.md:8" {
		t.Errorf("runLines = %+v, want the bash block's line", got)
	}
	want := []string{"page.md:13: a norun comment must stand", "page.md:13: a norun comment must say why", "page.md:15: ```console", "page.md:18: a fence without a language", "page.md:21: a fence never closed"}
	if len(p.problems) != len(want) {
		t.Fatalf("problems = %q, want %d", p.problems, len(want))
	}
	for i, w := range want {
		if !strings.HasPrefix(p.problems[i], w) {
			t.Errorf("problem %d = %q, want %q...", i, p.problems[i], w)
		}
	}
}

// TestShellProblems: each rule of the shell blocks finds what breaks it,
// and nothing in lines that keep them.
func TestShellProblems(t *testing.T) {
	t.Parallel()
	good := strings.Join([]string{
		"```sh",
		"KEY=eik_...",
		"API=http://localhost:8080/api/v1",
		"ID=x-$(date +%s%N)",
		`cat > body.json <<'JSON'`,
		`{"a": "$NOT_A_VARIABLE"}`,
		"JSON",
		`curl -sS --fail-with-body -X POST $API/x -H "Authorization: Bearer $KEY" -d @body.json | jq '.data | $x'`,
		`DOC=$(curl -sS --fail-with-body $API/x -d '{`,
		`  "id": "'$ID'"`,
		`}' | jq -r .id)`,
		`curl -sS $API/x -d '{}'   # fails on purpose: 422`,
		`curl -sS -X POST $API/x \\`,
		`  -d '{}'   # fails on purpose: 422`,
		`curl -sS --fail-with-body $API/x | jq . |`,
		`  curl -sS --fail-with-body $API/y -d @-`,
		`for S in a b; do echo $S; done`,
		`curl -sS --fail-with-body $API/x -o out.bin`,
		`curl -sS --fail-with-body $API/x -T out.bin`,
		"```",
		"<!-- norun: a server -->",
		"```sh",
		"curl -s $ELSEWHERE -d @nowhere.json | uuidgen",
		"```",
	}, "\n")
	got := shellProblems(parseDocPage("good.md", good))
	if len(got) != 2 || !strings.Contains(got[0], "good.md:23: uuidgen") || !strings.Contains(got[1], "good.md:23: a curl without --fail-with-body") {
		t.Errorf("problems of good lines = %q, want only the uuidgen and curl of the block not run (its variables and files unchecked)", got)
	}
	bad := strings.Join([]string{
		"```bash",
		"curl -sS $API/x",
		`curl -sS --fail-with-body $API/x # fails on purpose`,
		`X=$(curl -sS --fail $API/x)`,
		"KEY=$(uuidgen)",
		`curl -sS --fail-with-body "$API/x" -d @missing.json`,
		"API=1",
		"```",
	}, "\n")
	want := []string{
		"bad.md:2: a curl without --fail-with-body",
		"bad.md:2: $API is used before",
		"bad.md:3: a curl that fails on purpose must not have --fail-with-body",
		"bad.md:4: a curl without --fail-with-body",
		"bad.md:5: uuidgen",
		"bad.md:6: missing.json is sent",
	}
	got = shellProblems(parseDocPage("bad.md", bad))
	if len(got) != len(want) {
		t.Fatalf("problems = %q, want %d", got, len(want))
	}
	for i, w := range want {
		if !strings.HasPrefix(got[i], w) {
			t.Errorf("problem %d = %q, want %q...", i, got[i], w)
		}
	}
}

// TestLinkProblems: a relative link must name a file of the repository,
// and its #fragment a heading of the Markdown page it points to; links
// elsewhere, and links in code, are not checked.
func TestLinkProblems(t *testing.T) {
	t.Parallel()
	files := map[string]string{
		"README.md":       "# einvoice\n## The two commands\n## The two commands\n",
		"docs/api.md":     "# The API, step by step\n## Tenants and keys\n",
		"docs/pic.png":    "",
		"docs/page.md":    "# Page\n",
		"bench/README.md": "# Bench\n",
	}
	exists := func(p string) bool { _, ok := files[p]; return ok }
	anchors := func(p string) []string { return headingAnchors(files[p]) }
	page := parseDocPage("docs/page.md", strings.Join([]string{
		"# Page",
		"[ok](api.md#tenants-and-keys) ![ok](pic.png) [ok](../README.md#the-two-commands-1) [ok](#page)",
		"[ok](../bench/README.md) [ok](https://example.com/x.md) [ok](mailto:a@b.example)",
		"`[not a link](nowhere.md)`",
		"```sh",
		"echo '[not a link](nowhere.md)'",
		"```",
		"[moved](bench/README.md) [anchor](api.md#tenants) [up](../../x.md)",
		"[ref]: missing.png",
	}, "\n"))
	want := []string{
		`docs/page.md:8: link "bench/README.md": no file docs/bench/README.md`,
		`docs/page.md:8: link "api.md#tenants": docs/api.md has no heading #tenants`,
		`docs/page.md:8: link "../../x.md" leaves the repository`,
		`docs/page.md:9: link "missing.png": no file docs/missing.png`,
	}
	got := linkProblems(page, exists, anchors)
	if len(got) != len(want) {
		t.Fatalf("problems = %q, want %d", got, len(want))
	}
	for i, w := range want {
		if !strings.HasPrefix(got[i], w) {
			t.Errorf("problem %d = %q, want %q...", i, got[i], w)
		}
	}
	if a := headingAnchors("# Going live, and the tax authority\n## `serve` on :8080\n"); !slices.Equal(a, []string{"going-live-and-the-tax-authority", "serve-on-8080"}) {
		t.Errorf("anchors = %q", a)
	}
}
