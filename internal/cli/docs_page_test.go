package cli_test

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// This file reads the Markdown pages (README.md and docs/*.md) into their
// fenced blocks, and holds the rules their shell blocks and links keep,
// checked without running anything.

// repoRoot is the repository's root, from this package's folder.
var repoRoot = filepath.Join("..", "..")

// docPage is a Markdown page of the repository.
type docPage struct {
	path     string // from the repository's root, with slashes: "README.md", "docs/api.md"
	text     string
	blocks   []docBlock
	problems []string // what is malformed: a fence left open, a block without its language, a stray norun comment
}

// docBlock is a fenced block of a page.
type docBlock struct {
	line    int      // the line of its opening fence, from 1
	lang    string   // the first word of its info string
	heading string   // the nearest heading above it
	norun   string   // why it is not run, from a `<!-- norun: why -->` line right above it
	lines   []string // its lines, without the fences
}

// where names the block in messages: its page, line and section.
func (b docBlock) where(page string) string {
	return fmt.Sprintf("%s:%d (%s)", page, b.line, b.heading)
}

// shell reports whether the block is a shell block, the kind that runs.
func (b docBlock) shell() bool { return b.lang == "sh" || b.lang == "bash" }

// runs reports whether the docs test runs the block.
func (b docBlock) runs() bool { return b.shell() && b.norun == "" }

// shellishLangs are info strings of shell sessions that are not run, and so
// are refused: a shell block is ```sh or ```bash.
var shellishLangs = []string{"shell", "console", "zsh", "terminal", "shell-session", "sh-session", "bash-session", "shellsession"}

var (
	headingLine = regexp.MustCompile(`^#{1,6}\s+(.*?)\s*#*\s*$`)
	norunLine   = regexp.MustCompile(`^<!--\s*norun:\s*(.*?)\s*-->$`)
)

// loadDocPages reads README.md and every docs/*.md.
func loadDocPages(t testing.TB) []docPage {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(repoRoot, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	paths := []string{"README.md"}
	for _, n := range names {
		paths = append(paths, "docs/"+filepath.Base(n))
	}
	slices.Sort(paths[1:])
	var pages []docPage
	for _, p := range paths {
		raw, err := os.ReadFile(filepath.Join(repoRoot, filepath.FromSlash(p)))
		if err != nil {
			t.Fatalf("read %s: %v", p, err)
		}
		pages = append(pages, parseDocPage(p, string(raw)))
	}
	return pages
}

// parseDocPage cuts a page into its fenced blocks (``` fences; the info
// string's first word is the block's language).
func parseDocPage(pagePath, text string) docPage {
	p := docPage{path: pagePath, text: text}
	lines := strings.Split(text, "\n")
	heading := "top"
	var cur *docBlock
	for i, line := range lines {
		trim := strings.TrimSpace(line)
		if cur != nil {
			if trim == "```" {
				p.blocks = append(p.blocks, *cur)
				cur = nil
			} else {
				cur.lines = append(cur.lines, line)
			}
			continue
		}
		if m := headingLine.FindStringSubmatch(line); m != nil {
			heading = m[1]
		}
		if m := norunLine.FindStringSubmatch(trim); m != nil {
			next := ""
			if i+1 < len(lines) {
				next = strings.TrimSpace(lines[i+1])
			}
			if lang, _, _ := strings.Cut(strings.TrimPrefix(next, "```"), " "); !strings.HasPrefix(next, "```") || (lang != "sh" && lang != "bash") {
				p.problems = append(p.problems, fmt.Sprintf("%s:%d: a norun comment must stand right above a ```sh or ```bash fence", pagePath, i+1))
			}
			if m[1] == "" {
				p.problems = append(p.problems, fmt.Sprintf("%s:%d: a norun comment must say why the block cannot run", pagePath, i+1))
			}
		}
		if !strings.HasPrefix(trim, "```") {
			continue
		}
		info := strings.Fields(strings.TrimPrefix(trim, "```"))
		cur = &docBlock{line: i + 1, heading: heading}
		if len(info) > 0 {
			cur.lang = info[0]
		}
		if i > 0 {
			if m := norunLine.FindStringSubmatch(strings.TrimSpace(lines[i-1])); m != nil {
				cur.norun = m[1]
			}
		}
		switch {
		case cur.lang == "":
			p.problems = append(p.problems, fmt.Sprintf("%s:%d: a fence without a language: write ```sh or ```bash for a shell block (it runs), ```text, ```go, ```json for the others", pagePath, i+1))
		case slices.Contains(shellishLangs, cur.lang):
			p.problems = append(p.problems, fmt.Sprintf("%s:%d: ```%s: write ```sh or ```bash, so that the docs test runs it", pagePath, i+1, cur.lang))
		}
	}
	if cur != nil {
		p.problems = append(p.problems, fmt.Sprintf("%s:%d: a fence never closed", pagePath, cur.line))
	}
	return p
}

// shellLine is one line of a page's shell blocks, with where it is.
type shellLine struct {
	text string
	at   string // "docs/api.md:42"
}

// runLines returns the lines of the page's blocks that run, in order, each
// block after a blank line (so that no answer of one block is taken for
// the next one's).
func (p docPage) runLines() []shellLine {
	var out []shellLine
	for _, b := range p.blocks {
		if !b.runs() {
			continue
		}
		out = append(out, shellLine{"", fmt.Sprintf("%s:%d", p.path, b.line)})
		for i, l := range b.lines {
			out = append(out, shellLine{l, fmt.Sprintf("%s:%d", p.path, b.line+1+i)})
		}
	}
	return out
}

// shellState is where a shell line starts: in plain code, or inside a
// quoted string, a here-document or a command that goes on.
type shellState int

const (
	stateCode      shellState = iota // at the start of a command
	stateSingle                      // inside '...'
	stateDouble                      // inside "..."
	stateHeredoc                     // inside a here-document's body
	stateContinued                   // after a line ending in \, |, && or ||
)

// scannedLine is a shell line as scanShell reads it.
type scannedLine struct {
	start   shellState
	code    string   // the line without its comment (only for lines that start in code)
	comment string   // the comment, from its #
	vars    []string // the variables it expands (outside single quotes and quoted here-documents)
	assigns []string // the variables it sets (NAME=..., for NAME in)
	depth   int      // the loops (do ... done) open at its start
}

var (
	varRef    = regexp.MustCompile(`\$\{?([A-Za-z_][A-Za-z0-9_]*)`)
	varAssign = regexp.MustCompile(`(?:^|[\s;(&|])(?:export\s+|local\s+)?([A-Za-z_][A-Za-z0-9_]*)=`)
	forVar    = regexp.MustCompile(`\bfor\s+([A-Za-z_][A-Za-z0-9_]*)\s+in\b`)
	heredoc   = regexp.MustCompile(`(?:^|[^<])<<(-?)\s*(['"]?)([A-Za-z_][A-Za-z0-9_]*)['"]?`)
	loopOpen  = regexp.MustCompile(`(?:^|[\s;])do(?:\s|$)`)
	loopClose = regexp.MustCompile(`(?:^|[\s;])done(?:[\s;]|$)`)
)

// scanShell reads shell lines as bash would, as far as the docs test needs:
// quotes, comments, here-documents and commands continued on the next line.
// It is no parser: enough for the blocks of a page, which are simple.
func scanShell(lines []string) []scannedLine {
	out := make([]scannedLine, len(lines))
	state := stateCode
	heredocEnd, heredocTab, heredocQuoted := "", false, false
	depth := 0 // loops open (do ... done)
	for i, line := range lines {
		sl := scannedLine{start: state, depth: depth}
		if state == stateHeredoc {
			end := line
			if heredocTab {
				end = strings.TrimLeft(line, "\t")
			}
			if end == heredocEnd {
				state = stateCode
			} else if !heredocQuoted {
				for _, m := range varRef.FindAllStringSubmatch(line, -1) {
					sl.vars = append(sl.vars, m[1])
				}
			}
			out[i] = sl
			continue
		}
		var code strings.Builder // the text outside single quotes, for variables
		inCode := state == stateCode || state == stateContinued
		if state == stateContinued {
			state = stateCode
		}
		commentAt := -1
	scan:
		for j := 0; j < len(line); j++ {
			c := line[j]
			switch state {
			case stateSingle:
				if c == '\'' {
					state = stateCode
				}
				continue
			case stateDouble:
				switch c {
				case '\\':
					j++
					continue
				case '"':
					state = stateCode
				}
				code.WriteByte(c)
				continue
			}
			switch {
			case c == '\\':
				j++
			case c == '\'':
				state = stateSingle
			case c == '"':
				state = stateDouble
				code.WriteByte(c)
			case c == '#' && (j == 0 || line[j-1] == ' ' || line[j-1] == '\t'):
				commentAt = j
				break scan
			default:
				code.WriteByte(c)
			}
		}
		codeText := line
		if commentAt >= 0 {
			codeText, sl.comment = line[:commentAt], line[commentAt:]
		}
		if inCode {
			sl.code = codeText
		}
		for _, m := range varRef.FindAllStringSubmatch(code.String(), -1) {
			sl.vars = append(sl.vars, m[1])
		}
		for _, m := range varAssign.FindAllStringSubmatch(code.String(), -1) {
			sl.assigns = append(sl.assigns, m[1])
		}
		for _, m := range forVar.FindAllStringSubmatch(code.String(), -1) {
			sl.assigns = append(sl.assigns, m[1])
		}
		depth += len(loopOpen.FindAllString(code.String(), -1)) - len(loopClose.FindAllString(code.String(), -1))
		if state == stateCode {
			trimmed := strings.TrimRight(codeText, " \t")
			if m := heredoc.FindStringSubmatch(codeText); m != nil {
				state, heredocEnd, heredocTab, heredocQuoted = stateHeredoc, m[3], m[1] == "-", m[2] != ""
			} else if strings.HasSuffix(line, "\\") && commentAt < 0 ||
				strings.HasSuffix(trimmed, "|") || strings.HasSuffix(trimmed, "&&") {
				state = stateContinued
			}
		}
		out[i] = sl
	}
	return out
}

// notRunBlocks are the shell blocks that the docs test does not run, by page
// and section, with why. A block is marked so on its page (a `<!-- norun:
// why -->` line right above its fence) and listed here: TestDocsRules fails
// on a marked block missing from this list, so that no block is skipped
// silently. Keep it short: a block belongs here only when it cannot run in
// a test at all.
var notRunBlocks = []string{
	"README.md: The two commands",                // serve on :8080 until stopped, and the whole test suite
	"docs/going-live.md: The sandbox on its own", // a standalone sandbox and a serve, on fixed ports, until stopped
	"docs/deployment.md: PostgreSQL",             // a PostgreSQL server, and serve on :8080 until stopped
}

// plainDebianTools are the commands a page's shell blocks may use beyond
// bash's builtins and `einvoice`: those of a plain Debian system (its
// required packages: coreutils, grep, sed, mawk, findutils, ...), curl and
// jq. The docs test runs the blocks with only these on PATH.
var plainDebianTools = []string{
	"awk", "base64", "basename", "cat", "cp", "cut", "date", "dirname", "env", "find", "grep", "gzip",
	"head", "ls", "mkdir", "mktemp", "mv", "od", "rm", "sed", "seq", "sha256sum", "sleep", "sort",
	"tail", "tee", "touch", "tr", "uniq", "wc", "xargs",
	"curl", "jq",
}

// failsOnPurpose marks, in a comment on its line (or on the last line of
// its command), a curl whose request is meant to be refused: it shows the
// error, so it has no --fail-with-body.
const failsOnPurpose = "# fails on purpose"

var (
	curlCommand = regexp.MustCompile(`(?:^|[\s;|&(])curl(?:\s|$)`)
	uuidgenWord = regexp.MustCompile(`\buuidgen\b`)
	// postedFile finds the files a command reads and sends: curl's
	// -d/--data*/--json @FILE, -F name=@FILE, -T/--upload-file FILE, and
	// jq's --rawfile/--slurpfile NAME FILE.
	postedFile = regexp.MustCompile(`(?:(?:-d|--data|--data-binary|--data-urlencode|--json)\s+['"]?[A-Za-z0-9_]*@|-F\s+['"]?[^=\s]+=@|(?:-T|--upload-file)\s+|--(?:raw|slurp)file\s+\w+\s+)([A-Za-z0-9_][A-Za-z0-9_./-]*)`)
	// writtenFile finds the files a command writes: redirections, curl's
	// -o/--output, tee, and einvoice's --out-cert, --out-key, --pkcs12.
	writtenFile = regexp.MustCompile(`(?:>>?\s*|(?:-o|--output|--out-cert|--out-key|--pkcs12)\s+|\btee\s+(?:-a\s+)?)([A-Za-z0-9_][A-Za-z0-9_./-]*)`)
)

// shellProblems returns what a page's shell blocks break of the rules that
// hold without running them: every curl has --fail-with-body (or is marked
// as failing on purpose, and then has none), no uuidgen, every variable set
// in the page before it is used (KEY and API included: the test fills in
// their lines), every file a command posts written by the page before.
func shellProblems(p docPage) []string {
	var problems []string
	defined := map[string]bool{"HOME": true, "PATH": true, "PWD": true, "RANDOM": true}
	written := map[string]bool{}
	for _, b := range p.blocks {
		if !b.shell() {
			continue
		}
		scanned := scanShell(b.lines)
		for i, sl := range scanned {
			at := fmt.Sprintf("%s:%d", p.path, b.line+1+i)
			line := b.lines[i]
			if uuidgenWord.MatchString(line) {
				problems = append(problems, at+": uuidgen is not on a plain Debian: make a key with the shell ($RANDOM, date +%s%N, od -An -N16 -tx1 /dev/urandom)")
			}
			if sl.start == stateCode || sl.start == stateContinued {
				if curlCommand.MatchString(sl.code) {
					fail := strings.Contains(sl.code, "--fail-with-body")
					purpose := strings.Contains(sl.comment, failsOnPurpose)
					for j := i + 1; j < len(scanned) && scanned[j].start != stateCode; j++ {
						purpose = purpose || strings.Contains(scanned[j].comment, failsOnPurpose) // the command's last line
					}
					switch {
					case purpose && fail:
						problems = append(problems, at+": a curl that fails on purpose must not have --fail-with-body (the block would stop there)")
					case !purpose && !fail:
						problems = append(problems, at+": a curl without --fail-with-body on its line (or a `"+failsOnPurpose+"` comment when the request is meant to be refused)")
					}
				}
			}
			if !b.runs() {
				continue // a block that does not run may name what it likes
			}
			for _, m := range forVar.FindAllStringSubmatch(sl.code, -1) {
				defined[m[1]] = true // set before the loop's body uses it, on the same line
			}
			for _, v := range sl.vars {
				if !defined[v] {
					problems = append(problems, fmt.Sprintf("%s: $%s is used before the page sets it", at, v))
					defined[v] = true // once is enough
				}
			}
			for _, v := range sl.assigns {
				defined[v] = true
			}
			src := sl.code
			if sl.start == stateSingle || sl.start == stateDouble || sl.start == stateHeredoc {
				src = ""
			}
			for _, m := range postedFile.FindAllStringSubmatch(src, -1) {
				if !written[m[1]] {
					problems = append(problems, fmt.Sprintf("%s: %s is sent, but the page does not write it before", at, m[1]))
				}
			}
			for _, m := range writtenFile.FindAllStringSubmatch(src, -1) {
				written[m[1]] = true
			}
		}
	}
	return problems
}

var (
	mdLink     = regexp.MustCompile(`!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)`)
	mdRefLink  = regexp.MustCompile(`(?m)^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+"[^"]*")?\s*$`)
	codeSpan   = regexp.MustCompile("`+[^`]*`+")
	linkScheme = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*:`)
)

// linkProblems returns the relative links of a page (inline, images and
// reference definitions, outside code) whose file does not exist in the
// repository, or whose #fragment names no heading of the Markdown page it
// points to.
func linkProblems(p docPage, exists func(string) bool, anchors func(string) []string) []string {
	var problems []string
	lines := strings.Split(p.text, "\n")
	inBlock := map[int]bool{}
	for _, b := range p.blocks {
		for i := b.line - 1; i <= b.line+len(b.lines); i++ {
			inBlock[i] = true
		}
	}
	for i, line := range lines {
		if inBlock[i] {
			continue
		}
		line = codeSpan.ReplaceAllString(line, "")
		var targets []string
		for _, m := range mdLink.FindAllStringSubmatch(line, -1) {
			targets = append(targets, m[1])
		}
		for _, m := range mdRefLink.FindAllStringSubmatch(line, -1) {
			targets = append(targets, m[1])
		}
		for _, target := range targets {
			if linkScheme.MatchString(target) || strings.HasPrefix(target, "//") {
				continue
			}
			file, frag, _ := strings.Cut(target, "#")
			resolved := p.path
			if file != "" {
				resolved = path.Join(path.Dir(p.path), file)
			}
			at := fmt.Sprintf("%s:%d: link %q", p.path, i+1, target)
			switch {
			case strings.HasPrefix(resolved, "../") || resolved == "..":
				problems = append(problems, at+" leaves the repository")
			case !exists(resolved):
				problems = append(problems, fmt.Sprintf("%s: no file %s", at, resolved))
			case frag != "" && strings.HasSuffix(resolved, ".md") && !slices.Contains(anchors(resolved), frag):
				problems = append(problems, fmt.Sprintf("%s: %s has no heading #%s (its anchors: %s)", at, resolved, frag, strings.Join(anchors(resolved), " ")))
			}
		}
	}
	return problems
}

// headingAnchors returns the anchors GitHub gives a Markdown page's
// headings: lower case, punctuation dropped, spaces as hyphens, "-1", "-2"
// after a repeated one.
func headingAnchors(text string) []string {
	var out []string
	seen := map[string]int{}
	for _, b := range parseDocPage("", text).headings() {
		var s strings.Builder
		for _, r := range strings.ToLower(b) {
			switch {
			case r == ' ':
				s.WriteByte('-')
			case r == '-' || r == '_' || ('a' <= r && r <= 'z') || ('0' <= r && r <= '9') || r > 127:
				s.WriteRune(r)
			}
		}
		a := s.String()
		if n := seen[a]; n > 0 {
			seen[a]++
			a = fmt.Sprintf("%s-%d", a, n)
		} else {
			seen[a] = 1
		}
		out = append(out, a)
	}
	return out
}

// headings returns the page's headings outside its fenced blocks, in order.
func (p docPage) headings() []string {
	lines := strings.Split(p.text, "\n")
	inBlock := map[int]bool{}
	for _, b := range p.blocks {
		for i := b.line - 1; i <= b.line+len(b.lines); i++ {
			inBlock[i] = true
		}
	}
	var out []string
	for i, line := range lines {
		if m := headingLine.FindStringSubmatch(line); m != nil && !inBlock[i] {
			out = append(out, m[1])
		}
	}
	return out
}
