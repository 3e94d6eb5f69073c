package cli

import (
	"bufio"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestVersionMatchesChangelog: the version constant is CHANGELOG.md's newest
// release heading, followed by "+dev" exactly while the [Unreleased] section
// has entries. A release edits both; so does the first entry after it.
func TestVersionMatchesChangelog(t *testing.T) {
	t.Parallel()
	cl := readChangelog(t, "../../CHANGELOG.md")
	if len(cl.releases) == 0 {
		t.Fatal("CHANGELOG.md has no release heading (## [vX.Y.Z] - YYYY-MM-DD)")
	}
	want := cl.releases[0].version
	if cl.unreleased > 0 {
		want += "+dev"
	}
	if version != want {
		t.Errorf("version = %q; CHANGELOG.md's newest release is %s and its Unreleased section has %d entries, so want %q (internal/cli/version.go)",
			version, cl.releases[0].version, cl.unreleased, want)
	}
}

// TestChangelogVersions: the release headings run newest first, each version
// below the one above it and dated no later, so that "the newest release" is
// the first heading.
func TestChangelogVersions(t *testing.T) {
	t.Parallel()
	cl := readChangelog(t, "../../CHANGELOG.md")
	for i := 1; i < len(cl.releases); i++ {
		newer, older := cl.releases[i-1], cl.releases[i]
		if !semverLess(older.version, newer.version) || older.date > newer.date {
			t.Errorf("line %d: %s (%s) follows %s (%s); want newest first", older.line, older.version, older.date, newer.version, newer.date)
		}
	}
}

// TestReadChangelog: the parser finds the Unreleased entries and the
// headings, and ignores the entries' continuation lines and the comment.
func TestReadChangelog(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name       string
		text       string
		unreleased int
		releases   string
	}{
		{name: "entries", text: "# C\n<!--\n- not an entry\n## [v9.0.0] - 2099-01-01\n-->\n## [Unreleased]\n\n### Added\n\n- API: one\n  more of one\n- CLI: two\n\n## [v0.2.0] - 2026-11-23\n\n- x\n## [v0.1.0] - 2026-11-22\n", unreleased: 2, releases: "v0.2.0 2026-11-23, v0.1.0 2026-11-22"},
		{name: "just released", text: "## [Unreleased]\n\n## [v0.5.0] - 2026-12-01\n\n### Added\n\n- API: x\n", releases: "v0.5.0 2026-12-01"},
		{name: "no heading", text: "## [Unreleased]\n- x\n", unreleased: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := t.TempDir() + "/CHANGELOG.md"
			if err := os.WriteFile(path, []byte(tc.text), 0o644); err != nil {
				t.Fatal(err)
			}
			cl := readChangelog(t, path)
			var got []string
			for _, r := range cl.releases {
				got = append(got, r.version+" "+r.date)
			}
			if cl.unreleased != tc.unreleased || strings.Join(got, ", ") != tc.releases {
				t.Errorf("unreleased %d, releases %q; want %d, %q", cl.unreleased, strings.Join(got, ", "), tc.unreleased, tc.releases)
			}
		})
	}
	for _, tc := range []struct {
		a, b string
		less bool
	}{{"v0.3.0", "v0.4.0", true}, {"v0.9.0", "v0.10.0", true}, {"v1.0.0", "v0.10.0", false}, {"v0.4.1", "v0.4.0", false}, {"v0.4.0", "v0.4.0", false}} {
		if got := semverLess(tc.a, tc.b); got != tc.less {
			t.Errorf("semverLess(%s, %s) = %v, want %v", tc.a, tc.b, got, tc.less)
		}
	}
}

// changelog is what the version test reads of CHANGELOG.md.
type changelog struct {
	unreleased int // entries ("- " lines) under ## [Unreleased]
	releases   []release
}

// release is one ## [vX.Y.Z] - YYYY-MM-DD heading.
type release struct {
	version, date string
	line          int
}

var releaseHeading = regexp.MustCompile(`^## \[(v\d+\.\d+\.\d+)\] - (\d{4}-\d{2}-\d{2})$`)

// readChangelog reads the Unreleased entries and the release headings of
// the changelog at path, outside HTML comments; a level-2 heading of another
// form fails the test.
func readChangelog(t *testing.T, path string) changelog {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cl changelog
	section, comment := "", false
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case comment:
			comment = !strings.Contains(line, "-->")
		case strings.HasPrefix(line, "<!--"):
			comment = !strings.Contains(line, "-->")
		case line == "## [Unreleased]":
			section = "unreleased"
		case strings.HasPrefix(line, "## "):
			m := releaseHeading.FindStringSubmatch(line)
			if m == nil {
				t.Fatalf("%s:%d: %q is neither ## [Unreleased] nor ## [vX.Y.Z] - YYYY-MM-DD", path, n, line)
			}
			section = "release"
			cl.releases = append(cl.releases, release{version: m[1], date: m[2], line: n})
		case section == "unreleased" && strings.HasPrefix(line, "- "):
			cl.unreleased++
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return cl
}

// semverLess tells whether version a (vX.Y.Z) is below b.
func semverLess(a, b string) bool {
	pa, pb := semverParts(a), semverParts(b)
	for i := range pa {
		if pa[i] != pb[i] {
			return pa[i] < pb[i]
		}
	}
	return false
}

// semverParts splits vX.Y.Z into its three numbers.
func semverParts(v string) [3]int {
	var p [3]int
	for i, s := range strings.SplitN(strings.TrimPrefix(v, "v"), ".", 3) {
		n, err := strconv.Atoi(s)
		if err != nil {
			panic(fmt.Sprintf("version %q: %v", v, err))
		}
		p[i] = n
	}
	return p
}
