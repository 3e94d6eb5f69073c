package cli_test

import (
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// This file turns a page's shell blocks into one bash script and checks
// the answers that its `# => ...` comments show.

// outputMarker separates, in the script's output, the answers to the
// commands between two blank or comment lines of a page.
const outputMarker = "@@docs-output@@"

// answerExpectation is a `# => ...` comment: what the commands just above
// it answer.
type answerExpectation struct {
	piece int    // the index of the output piece it describes
	at    string // where it is: "docs/api.md:42"
	line  string // its first line, to name it
	text  string // the whole comment, continuation lines included
}

// docScript turns a page's lines into a bash script whose output can be cut
// into pieces: before every blank or comment line that stands between two
// commands (not inside a quoted string, a here-document, a loop or a
// command continued on the next line) it prints a marker, so that piece i
// of the output holds what the commands after marker i printed. It returns
// the script and the `# =>` comments (a first line "# =>", continued by
// lines of "#" and at least two spaces; a comment such as "# or ..." or
// "# (...)" shows another case and is not checked).
func docScript(lines []shellLine) (string, []answerExpectation) {
	texts := make([]string, len(lines))
	for i, l := range lines {
		texts[i] = l.text
	}
	var b strings.Builder
	var exps []answerExpectation
	var cur *answerExpectation
	marks := 0
	for i, sl := range scanShell(texts) {
		line := texts[i]
		trim := strings.TrimSpace(line)
		between := sl.start == stateCode && sl.depth == 0
		if between && (trim == "" || strings.HasPrefix(trim, "#")) {
			marks++
			fmt.Fprintf(&b, "printf '\\n%s\\n'\n", outputMarker)
		}
		switch {
		case !between:
			cur = nil
		case strings.HasPrefix(trim, "# =>"):
			exps = append(exps, answerExpectation{piece: marks - 1, at: lines[i].at, line: trim, text: trim})
			cur = &exps[len(exps)-1]
		case cur != nil && strings.HasPrefix(trim, "#  "):
			cur.text += "\n" + trim
		default:
			cur = nil
		}
		b.WriteString(line)
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "printf '\\n%s\\n'\n", outputMarker)
	return b.String(), exps
}

// outputPieces cuts a script's output at its markers.
func outputPieces(out string) []string {
	return strings.Split(out, "\n"+outputMarker+"\n")
}

// checkAnswer returns what the answer does not show of a `# =>` comment. A
// comment that names JSON fields is checked by checkAnswerShape; any other
// (a header, a status code, a command's output) by checkAnswerText.
func checkAnswer(exp, output string) []string {
	if answerPair.MatchString(exp) {
		return checkAnswerShape(exp, output)
	}
	return checkAnswerText(exp, output)
}

// checkAnswerText checks a comment that shows text, not JSON: its lines
// (without "# =>" and "#", trimmed) must appear in the answer in order, each
// "..." standing for any text and each run of blanks for any (columns are
// as wide as their contents).
func checkAnswerText(exp, output string) []string {
	var parts []string
	for i, line := range strings.Split(exp, "\n") {
		if i == 0 {
			line = strings.TrimPrefix(line, "# =>")
		} else {
			line = strings.TrimPrefix(line, "#")
		}
		for _, frag := range strings.Split(strings.TrimSpace(line), "...") {
			words := strings.Fields(frag)
			for i, w := range words {
				words[i] = regexp.QuoteMeta(w)
			}
			parts = append(parts, strings.Join(words, `\s+`))
		}
	}
	if re := regexp.MustCompile("(?s)" + strings.Join(parts, ".*?")); !re.MatchString(output) {
		return []string{fmt.Sprintf("the answer does not show it: %.500q", output)}
	}
	return nil
}

// answerPair is a field of a `# =>` comment and the value it shows ("" when
// it shows none, e.g. `"tinCheck": {"status": ...}`).
var answerPair = regexp.MustCompile(`"([A-Za-z_][A-Za-z0-9_]*)":\s*("(?:[^"\\]|\\.)*"|-?[0-9][0-9.]*|true|false|null|\{\}|\[\])?`)

// authorityUUID is the form of the authority's document uuids.
var authorityUUID = regexp.MustCompile(`^[0-9A-Z]{26}$`)

// checkAnswerShape returns what in a `# =>` comment the answer does not
// show: every field the comment names must be in one of the JSON values
// printed (at any depth), and every value it shows must be the value of
// such a field somewhere, except values that are examples of what changes
// from run to run (containing "...", timestamps, authority uuids).
func checkAnswerShape(exp, output string) []string {
	fields, err := jsonFields(output)
	if err != nil {
		return []string{fmt.Sprintf("the answer is not JSON (%v): %.300q", err, output)}
	}
	var problems []string
	for _, m := range answerPair.FindAllStringSubmatch(exp, -1) {
		key, shown := m[1], m[2]
		values, ok := fields[key]
		if !ok {
			problems = append(problems, fmt.Sprintf("no field %q in the answer", key))
			continue
		}
		if shown == "" {
			continue
		}
		want := shown
		if strings.HasPrefix(shown, `"`) {
			s, err := strconv.Unquote(shown)
			if err != nil {
				problems = append(problems, fmt.Sprintf("%s: %v", shown, err))
				continue
			}
			if isExampleValue(s) {
				continue
			}
			want = s
		}
		found := false
		for _, v := range values {
			found = found || v == want
		}
		if !found {
			problems = append(problems, fmt.Sprintf("%q is %s in the comment, but %q in the answer", key, shown, values))
		}
	}
	return problems
}

// isExampleValue reports whether a value shown in a comment stands for one
// that changes from run to run.
func isExampleValue(s string) bool {
	if strings.Contains(s, "...") || authorityUUID.MatchString(s) {
		return true
	}
	_, err := time.Parse(time.RFC3339, s)
	return err == nil
}

// jsonFields decodes the JSON values in out and returns each field name
// found at any depth with the values it has (scalars as text, empty
// objects and arrays as "{}" and "[]").
func jsonFields(out string) (map[string][]string, error) {
	fields := map[string][]string{}
	dec := json.NewDecoder(strings.NewReader(out))
	dec.UseNumber()
	n := 0
	for {
		var v any
		if err := dec.Decode(&v); err == io.EOF {
			break
		} else if err != nil {
			return nil, err
		}
		n++
		addJSONFields(v, fields)
	}
	if n == 0 {
		return nil, fmt.Errorf("no JSON value")
	}
	return fields, nil
}

// addJSONFields adds to fields every field of v, at any depth, with its
// value as scalarText shows it.
func addJSONFields(v any, fields map[string][]string) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			fields[k] = append(fields[k], scalarText(e))
			addJSONFields(e, fields)
		}
	case []any:
		for _, e := range x {
			addJSONFields(e, fields)
		}
	}
}

// scalarText is the text of a JSON value as a comment would show it.
func scalarText(v any) string {
	switch x := v.(type) {
	case map[string]any:
		if len(x) == 0 {
			return "{}"
		}
		return "{...}"
	case []any:
		if len(x) == 0 {
			return "[]"
		}
		return "[...]"
	case nil:
		return "null"
	case string:
		return x
	default:
		return fmt.Sprint(x)
	}
}
