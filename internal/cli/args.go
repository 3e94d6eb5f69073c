package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// usageError is a command line that does not parse: Run prints the problem
// and the usage of the command, and exits with status 2.
type usageError struct {
	problem string
	usage   string
}

func (e *usageError) Error() string { return e.problem }

// flagSet is the flags of one command, with the synopsis of its usage.
type flagSet struct {
	*flag.FlagSet
	synopsis string    // e.g. "einvoice key revoke [--db DB] KEY_ID"
	help     io.Writer // where -h prints the usage
}

// newFlagSet returns the empty flag set of the command name ("key revoke").
func (m *Main) newFlagSet(name, synopsis string) *flagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard) // parse reports the errors, once
	return &flagSet{FlagSet: fs, synopsis: synopsis, help: m.Stdout}
}

// parse parses args, in which flags and positional arguments may come in
// any order, as with Go's own tools (Go's flag package stops at the first
// positional argument); "--" ends the flags. It returns the positional
// arguments, which must be exactly as many as names (their names in
// messages). -h prints the usage and returns flag.ErrHelp; any other
// problem is a *usageError.
func (fs *flagSet) parse(args []string, names ...string) ([]string, error) {
	flags, positional := fs.split(args)
	if err := fs.Parse(flags); errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(fs.help, fs.usage())
		return nil, err
	} else if err != nil {
		return nil, fs.fail(err.Error())
	}
	if len(positional) < len(names) {
		return nil, fs.fail("missing " + strings.Join(names[len(positional):], " "))
	}
	if len(positional) > len(names) {
		extra := positional[len(names)]
		problem := fmt.Sprintf("unexpected argument %q", extra.value)
		if extra.afterBool != "" {
			problem += fmt.Sprintf(" (a boolean flag takes its value after =, as in --%s=%s)", extra.afterBool, extra.value)
		}
		return nil, fs.fail(problem)
	}
	values := make([]string, len(positional))
	for i, p := range positional {
		values[i] = p.value
	}
	return values, nil
}

// positionalArg is a positional argument and, when it directly follows a
// boolean flag given without a value, the name of that flag.
type positionalArg struct {
	value     string
	afterBool string
}

// split separates the flags in args, each with the value it takes, from
// the positional arguments. A flag that is not defined stays among the
// flags, for Parse to refuse.
func (fs *flagSet) split(args []string) (flags []string, positional []positionalArg) {
	afterBool := ""
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			for _, rest := range args[i+1:] {
				positional = append(positional, positionalArg{value: rest})
			}
			break
		}
		if len(a) < 2 || a[0] != '-' {
			positional = append(positional, positionalArg{value: a, afterBool: afterBool})
			afterBool = ""
			continue
		}
		flags = append(flags, a)
		afterBool = ""
		name := strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-")
		if strings.Contains(name, "=") {
			continue
		}
		f := fs.Lookup(name)
		if f == nil {
			continue
		}
		if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
			afterBool = name
			continue
		}
		if i+1 < len(args) { // the value, whatever it looks like
			i++
			flags = append(flags, args[i])
		}
	}
	return flags, positional
}

// fail returns the usage error of problem.
func (fs *flagSet) fail(problem string) error {
	return &usageError{problem: fs.Name() + ": " + problem, usage: fs.usage()}
}

// usage is the synopsis of the command and its flags.
func (fs *flagSet) usage() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Usage: %s\n", fs.synopsis)
	hasFlags := false
	fs.VisitAll(func(*flag.Flag) { hasFlags = true })
	if hasFlags {
		b.WriteString("\nFlags, before or after the arguments (-- ends them):\n")
		fs.SetOutput(&b)
		fs.PrintDefaults()
		fs.SetOutput(io.Discard)
	}
	return b.String()
}
