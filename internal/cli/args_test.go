package cli

import (
	"errors"
	"flag"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestFlagSetParse covers the interleaved parsing every command uses: flags
// before, between and after the positional arguments, "--", boolean flags,
// values that look like flags, and the refusals.
func TestFlagSetParse(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		args    []string
		want    []string // the positional arguments, when it parses
		db      string
		verbose bool
		problem string // the start of the usage error, when it does not
	}{
		{name: "flags first", args: []string{"--db", "a.db", "--verbose", "ID"}, want: []string{"ID"}, db: "a.db", verbose: true},
		{name: "flags last", args: []string{"ID", "--db", "a.db", "--verbose"}, want: []string{"ID"}, db: "a.db", verbose: true},
		{name: "flags around", args: []string{"--verbose", "ID", "-db=a.db"}, want: []string{"ID"}, db: "a.db", verbose: true},
		{name: "bool flag then the argument", args: []string{"--verbose", "ID"}, want: []string{"ID"}, db: "x.db", verbose: true},
		{name: "bool flag with its value", args: []string{"ID", "--verbose=false"}, want: []string{"ID"}, db: "x.db"},
		{name: "value that looks like a flag", args: []string{"--db", "-odd.db", "ID"}, want: []string{"ID"}, db: "-odd.db"},
		{name: "value --", args: []string{"--db", "--", "ID"}, want: []string{"ID"}, db: "--"},
		{name: "-- ends the flags", args: []string{"--db", "a.db", "--", "--verbose"}, want: []string{"--verbose"}, db: "a.db"},
		{name: "a lone dash is an argument", args: []string{"-"}, want: []string{"-"}, db: "x.db"},
		{name: "repeated flag, last wins", args: []string{"--db", "a.db", "ID", "--db", "b.db"}, want: []string{"ID"}, db: "b.db"},
		{name: "missing argument", args: []string{"--db", "a.db"}, problem: "key revoke: missing KEY_ID"},
		{name: "extra argument", args: []string{"ID", "--db", "a.db", "OTHER"}, problem: `key revoke: unexpected argument "OTHER"`},
		{name: "argument after --", args: []string{"ID", "--", "--db"}, problem: `key revoke: unexpected argument "--db"`},
		{name: "bool flag given a separate value", args: []string{"ID", "--verbose", "false"},
			problem: `key revoke: unexpected argument "false" (a boolean flag takes its value after =, as in --verbose=false)`},
		{name: "unknown flag after the argument", args: []string{"ID", "--bogus"}, problem: "key revoke: flag provided but not defined: -bogus"},
		{name: "unknown flag before the argument", args: []string{"-bogus=1", "ID"}, problem: "key revoke: flag provided but not defined: -bogus"},
		{name: "flag without its value", args: []string{"ID", "--db"}, problem: "key revoke: flag needs an argument: -db"},
		{name: "bad bool value", args: []string{"ID", "--verbose=maybe"}, problem: `key revoke: invalid boolean value "maybe" for -verbose`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := &Main{Stdout: io.Discard}
			fs := m.newFlagSet("key revoke", "einvoice key revoke [--db DB] KEY_ID")
			db := fs.String("db", "x.db", "database")
			verbose := fs.Bool("verbose", false, "say more")
			got, err := fs.parse(tc.args, "KEY_ID")
			if tc.problem != "" {
				var bad *usageError
				if !errors.As(err, &bad) || !strings.HasPrefix(bad.problem, tc.problem) {
					t.Fatalf("parse(%q) = %q, %v; want the usage error %q", tc.args, got, err, tc.problem)
				}
				if !strings.Contains(bad.usage, "Usage: einvoice key revoke [--db DB] KEY_ID") || !strings.Contains(bad.usage, "-verbose") {
					t.Errorf("usage = %q, want the synopsis and the flags", bad.usage)
				}
				return
			}
			if err != nil {
				t.Fatalf("parse(%q): %v", tc.args, err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("parse(%q) positional arguments (-want +got):\n%s", tc.args, diff)
			}
			if *db != tc.db || *verbose != tc.verbose {
				t.Errorf("parse(%q): --db %q --verbose %v, want %q %v", tc.args, *db, *verbose, tc.db, tc.verbose)
			}
		})
	}
}

// TestFlagSetHelp: -h, wherever it stands, prints the usage to stdout and
// is not an error of the command line.
func TestFlagSetHelp(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"-h"}, {"ID", "--help"}, {"--db", "a.db", "-help", "ID"}} {
		var out strings.Builder
		m := &Main{Stdout: &out}
		fs := m.newFlagSet("key revoke", "einvoice key revoke [--db DB] KEY_ID")
		fs.String("db", "x.db", "database")
		if _, err := fs.parse(args, "KEY_ID"); !errors.Is(err, flag.ErrHelp) {
			t.Errorf("parse(%q) = %v, want flag.ErrHelp", args, err)
		}
		if !strings.HasPrefix(out.String(), "Usage: einvoice key revoke") || !strings.Contains(out.String(), "-db string") {
			t.Errorf("parse(%q) printed %q, want the usage", args, out.String())
		}
	}
}
